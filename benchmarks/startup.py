"""Benchmark: start-up against a bare Textual app, in a real terminal (tmux).

    python benchmarks/startup.py [--starts 7] [--baseline CHECKOUT] [--importtime]

The floor is a one-label Textual app started the same way (the least any Textual program
pays). Against it: `dynotui --table-name T --partition-value P` until its first rows are on
screen, and `dynotui` alone until the table list is; for each, its first frame too
(anything on screen: the app's own start, however fast the database answers). All run on
DynamoDB Local (the seeded demo database), in tmux, interleaved start by start, so a busy
moment slows each alike; each figure is the median of --starts starts. With --baseline, the
app of another checkout (e.g. a worktree of an older main) takes its turn too. Every app
runs with its own empty config, data and state folders (the first start writes a cursor
secret, the later ones read it, as a user's do). Every app runs as an installed one does,
with its bytecode cached: pip compiles a package's .pyc files when it installs it, but
where PYTHONDONTWRITEBYTECODE is set (some sandboxes and CI images) a checkout's modules
would be compiled from source at every start while Textual's came compiled, about 100
modules, a tenth of a second or more, paid by dynotui alone. So the runs write and read
bytecode in a cache folder of their own (PYTHONPYCACHEPREFIX), filled by the first,
untimed, turn.
With --importtime, what a start imports before its first frame (``FIRST_FRAME_IMPORTS``:
a checkout whose app draws no first frame of its own imports the whole app there) and to
its first rows (``IMPORTS``): Textual's cumulative import time, then dynotui's top 10
(median of 3 runs).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from tmux_screen import TmuxApp

from dynotui.local import demo_cache
from dynotui.local.demo import BIG_CUSTOMER, TABLE
from dynotui.local.locate import ensure_home

HERE = str(Path(__file__).resolve().parent.parent)
BARE_LABEL = "bare textual app ready"
BARE_APP = f"""
from textual.app import App
from textual.widgets import Label


class Bare(App):
    def compose(self):
        yield Label({BARE_LABEL!r})


Bare().run()
"""


def installed_bytecode(cache: str) -> dict[str, str]:
    """What makes a checkout's app write and read its bytecode in ``cache``, as an
    installed app reads pip's (an empty value unsets PYTHONDONTWRITEBYTECODE)."""
    return {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": cache}


def bytecode_as_installed(cache: str, checkouts: list[Path]) -> dict[str, str]:
    """The apps' environment for reading their bytecode as an installed app does: where
    PYTHONDONTWRITEBYTECODE is set (some sandboxes and CI images) a checkout's modules
    would be compiled from source at every start (about half a second here), while
    Textual's and botocore's come compiled. Compiled now, into a folder of the run's own."""
    env = installed_bytecode(cache)
    for checkout in checkouts:
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(checkout / "dynotui")],
            env={**os.environ, **env},
            check=True,
        )
    return env


def in_checkout(source: str, command: str) -> str:
    # `python -m` puts the working directory first on sys.path: run from the checkout.
    return "sh -c " + shlex.quote(f"cd {shlex.quote(source)} && exec {command}")


def first_rows(text: str) -> bool:
    return re.search(rf"^\s*{BIG_CUSTOMER}\s+\d+\s", text, re.M) is not None and (
        "Page 1 ·" in text
    )


def table_list(text: str) -> bool:
    return TABLE in text and "Tables (" in text


def bare_ready(text: str) -> bool:
    return BARE_LABEL in text


def drawn(text: str) -> bool:
    return bool(text.strip())


def time_start(
    command: str, ready: Callable[[str], bool], env: dict[str, str]
) -> tuple[float, float, float, float]:
    """Seconds to the app's first frame (anything on screen), and to ``ready``; and the
    CPU seconds used by then (the machine is shared: wall time is what a user waits, CPU
    time what the start costs whatever else runs): by the app's own process at its first
    frame (the child it forks to read the table runs beside it), by all its processes
    when ready."""
    with TmuxApp(command, width=120, height=35, env=env) as app:
        first, _ = app.wait_for(drawn, timeout=60)
        first_cpu = app.cpu_seconds(alone=True)
        seconds, _ = app.wait_for(ready, timeout=60)
        cpu = app.cpu_seconds()
    return first, seconds, first_cpu, cpu  # closing the session ends the app


# What a start that opens the app imports, Textual first: what the bare app pays too is
# charged to Textual, the rest to dynotui.
IMPORTS = (
    "import textual.app; import dynotui.cli.main; "
    "from dynotui.cli.app_launch import preload_ui; preload_ui()"
)


# What the parent imports before a start's first frame (cli/tui_cmd.py's run, then
# app_launch.open_app_first up to PagerApp.run; ui/starting.py only where it exists).
FIRST_FRAME_IMPORTS = (
    "import textual.app, dynotui.cli.main, dynotui.cli.tui_cmd, dynotui.cli.app_launch\n"
    "import dynotui.dynamodb.query_form, dynotui.dynamodb.table_shapes, dynotui.core.history\n"
    "import dynotui.ui.app\n"
    "try:\n    import dynotui.ui.starting\nexcept ImportError:\n    pass\n"
)


def import_top(
    source: str, imports: str = IMPORTS, runs: int = 3, top: int = 10
) -> list[tuple[str, float]]:
    """Textual's import, then the modules with the largest cumulative import time of what
    dynotui imports besides (median of ``runs``, bytecode cached as in the starts)."""
    totals: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="dynotui-importtime-") as cache:
        env = {**os.environ, **installed_bytecode(cache)}
        for run in range(runs + 1):
            done = subprocess.run(
                [sys.executable, "-X", "importtime", "-c", imports],
                cwd=source,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            if not run:  # the first run writes the bytecode
                continue
            for line in done.stderr.splitlines():
                parts = line.split("|")
                if len(parts) != 3 or not parts[1].strip().isdigit():
                    continue
                totals.setdefault(parts[2].strip(), []).append(int(parts[1]) / 1000)
    medians = {name: statistics.median(ms) for name, ms in totals.items()}
    ours = sorted(
        ((name, ms) for name, ms in medians.items() if name.startswith("dynotui")),
        key=lambda item: -item[1],
    )
    return [("textual.app", medians.get("textual.app", 0.0)), *ours[:top]]


def load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=7, help="starts of each, interleaved")
    parser.add_argument(
        "--baseline",
        metavar="CHECKOUT",
        help="also start the app of another checkout, in the same run",
    )
    parser.add_argument("--importtime", action="store_true", help="print the import top 10")
    args = parser.parse_args()
    home = ensure_home()
    db, _ = demo_cache.ensure(home)
    sources = {"dynotui": HERE}
    if args.baseline:
        sources["baseline"] = str(Path(args.baseline).resolve())
    from dynotui.local.runner import DynamoDBLocal

    with tempfile.TemporaryDirectory(prefix="dynotui-startup-") as scratch:
        bare = Path(scratch, "bare.py")
        bare.write_text(BARE_APP)
        env_of: dict[str, dict[str, str]] = {}
        for name in ["bare", *sources]:
            folders = {}
            for kind in ("CONFIG", "DATA", "STATE", "CACHE"):
                path = Path(scratch, name, kind.lower())
                path.mkdir(parents=True)
                folders[f"XDG_{kind}_HOME"] = str(path)
            # Textual's frame rate as dynotui sets it, so the floor paints on the same beat;
            # bytecode written and read as an installed app's (an empty value is unset).
            env_of[name] = {
                **folders,
                "TEXTUAL_FPS": "120",
                **installed_bytecode(str(Path(scratch, "bytecode"))),
            }
        with DynamoDBLocal(home=home, db_file=db) as server:
            endpoint = server.endpoint_url
            client = server.client()
            for _ in range(3):  # the server's first answers are slow (JIT): warm it
                client.describe_table(TableName=TABLE)
                client.query(
                    TableName=TABLE,
                    KeyConditionExpression="customer = :c",
                    ExpressionAttributeValues={":c": {"S": BIG_CUSTOMER}},
                    Limit=25,
                )
            python = shlex.quote(sys.executable)
            runs: list[tuple[str, str, Callable[[str], bool], dict[str, str]]] = [
                ("bare Textual app", in_checkout(HERE, f"{python} {bare}"), bare_ready, {})
            ]
            for name, source in sources.items():
                base = f"{python} -m dynotui --endpoint-url {endpoint}"
                query = f"{base} --table-name {TABLE} --partition-value {BIG_CUSTOMER}"
                runs.append((f"{name}: first rows", in_checkout(source, query), first_rows, {}))
                runs.append((f"{name}: table list", in_checkout(source, base), table_list, {}))
            envs = ["bare"] + [name for name in sources for _ in (0, 1)]
            times: dict[str, list[float]] = {label: [] for label, *_ in runs}
            frames: dict[str, list[float]] = {label: [] for label, *_ in runs}
            cpus: dict[str, list[float]] = {label: [] for label, *_ in runs}
            frame_cpus: dict[str, list[float]] = {label: [] for label, *_ in runs}
            loads = [load()]
            for turn in range(args.starts + 1):
                order = list(zip(runs, envs, strict=True))
                if turn % 2:
                    order.reverse()
                for (label, command, ready, _), env_name in order:
                    first, seconds, first_cpu, cpu = time_start(command, ready, env_of[env_name])
                    if turn:  # the first turn warms the page cache and the server
                        times[label].append(seconds)
                        frames[label].append(first)
                        cpus[label].append(cpu)
                        frame_cpus[label].append(first_cpu)
                loads.append(load())

    floor = statistics.median(times["bare Textual app"])
    floor_frame = statistics.median(frames["bare Textual app"])
    floor_cpu = statistics.median(cpus["bare Textual app"])
    print(f"start-up, median of {args.starts} interleaved starts each (120x35 tmux)")
    # The first frame, before any rows or tables: what the app's own start costs, however
    # fast the database answers. Ratios against the bare app's ready (its first frame).
    print(
        f"{'start':<28} {'median':>9} {'min':>9} {'ratio':>7} {'first frame':>12} {'ratio':>7}"
        f" {'CPU':>8} {'ratio':>7} {'CPU frame':>10} {'ratio':>7}"
    )
    for label, values in times.items():
        median = statistics.median(values)
        first = statistics.median(frames[label])
        cpu = statistics.median(cpus[label])
        first_cpu = statistics.median(frame_cpus[label])
        print(
            f"{label:<28} {median * 1000:6.0f} ms {min(values) * 1000:6.0f} ms "
            f"{median / floor:6.2f}x {first * 1000:9.0f} ms {first / floor_frame:6.2f}x"
            f" {cpu * 1000:5.0f} ms {cpu / floor_cpu:6.2f}x {first_cpu * 1000:7.0f} ms "
            f"{first_cpu / floor_cpu:6.2f}x"
        )
    print(
        "(CPU: user + system; when ready, the app's processes, its forked child included; "
        "at the first frame, the app's own process; clock ticks of 10 ms)"
    )
    print(f"load average (1, 5, 15 min) at start: {loads[0]}; at end: {loads[-1]}")
    print(f"cores: {os.cpu_count()}")
    if args.importtime:
        for name, source in sources.items():
            for what, imports in (
                ("before the first frame", FIRST_FRAME_IMPORTS),
                ("to the first rows", IMPORTS),
            ):
                print(f"\n{name}, {what}: python -X importtime -c {imports!r}")
                print("  Textual, then dynotui's top 10 (cumulative)")
                for module, ms in import_top(source, imports):
                    print(f"  {ms:7.1f} ms  {module}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
