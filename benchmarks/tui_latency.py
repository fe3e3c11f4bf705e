"""Benchmark: key press to screen in the real app, in a real terminal (tmux), not Pilot.

    python benchmarks/tui_latency.py [--samples 5] [--baseline CHECKOUT] [--peer dyno-viewer]
                                     [--latency MS] [--only start,small,deep,big]

Starts DynamoDB Local on a copy of the seeded demo database, and for each figure runs
the app in tmux on customer acme, presses keys with `tmux send-keys` and polls
`capture-pane` until the screen shows the result. Beside each figure: a raw boto3
Query of the same pages (a plain client: botocore parses the response), measured in the
same run. Figures are medians (PageDown: p90). Keys are timed a second after page 1
appears (a person reading it), except the one figure timed as page 1 appears, and a
quarter of a second apart. With --peer, dyno-viewer's figures where it can give them
(benchmarks/peer_dyno_viewer.py says how it is driven). With --latency MS, a loopback
proxy (the tests' fault proxy, no faults) holds every request MS milliseconds before
passing it on, as a network's round trip would, for the app and the raw Query alike;
--only runs some scenarios (the deep one pages 1,000 pages: long at a high latency).
"""

from __future__ import annotations

import argparse
import contextlib
import re
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(1, str(Path(__file__).parent.parent / "tests"))  # the fault proxy

from startup import BARE_APP, bare_ready, bytecode_as_installed
from tmux_screen import TmuxApp

from dynotui.cli.app_launch import FRAME_RATE
from dynotui.local import demo_cache
from dynotui.local.demo import BIG_CUSTOMER, TABLE
from dynotui.local.locate import ensure_home
from dynotui.local.runner import DynamoDBLocal

ENV = {"DYNOTUI_CURSOR_SECRET": "benchmark-secret-0123456789"}
HERE = Path(__file__).resolve().parent.parent


def app_command(endpoint: str, page_size: int, source: str | None = None, extra: str = "") -> str:
    command = (
        f"{sys.executable} -m dynotui --endpoint-url {endpoint} --table-name {TABLE} "
        f"--partition-value {BIG_CUSTOMER} --page-size {page_size}{extra}"
    )
    if source is None:
        return command
    # `python -m` puts the working directory first on sys.path: run from the checkout.
    return "sh -c " + shlex.quote(f"cd {shlex.quote(source)} && exec {command}")


def on_page(number: int) -> Any:
    marker = f"Page {number} ·"
    return lambda text: marker in text


def query_params(page_size: int) -> dict[str, Any]:
    return {
        "TableName": TABLE,
        "KeyConditionExpression": "customer = :c",
        "ExpressionAttributeValues": {":c": {"S": BIG_CUSTOMER}},
        "Limit": page_size,
    }


def start_key_of_page(client: Any, page_size: int, number: int) -> Any:
    """Where page ``number`` starts, found by a keys-only walk (not timed)."""
    key = None
    params = {**query_params(page_size), "ProjectionExpression": "customer, order_no"}
    for _ in range(number - 1):
        response = client.query(**params, **({"ExclusiveStartKey": key} if key else {}))
        key = response["LastEvaluatedKey"]
    return key


def raw_pages(client: Any, page_size: int, first: int, count: int, repeats: int = 3) -> float:
    """A plain boto3 Query of the very pages the app was timed on (``first`` and the
    ``count - 1`` after it): the median over pages of each page's best of ``repeats``."""
    key = start_key_of_page(client, page_size, first)
    times = []
    for _ in range(count):
        params = {**query_params(page_size), **({"ExclusiveStartKey": key} if key else {})}
        best = float("inf")
        for _ in range(repeats):
            began = time.perf_counter()
            response = client.query(**params)
            best = min(best, time.perf_counter() - began)
        times.append(best)
        key = response.get("LastEvaluatedKey")
    return statistics.median(times)


# Between timed keys, about the pace of a person pressing a key again and again: each
# figure is one key's latency, not a burst's (held keys are what `n` adding up is for).
PACE = 0.25


def paced(app: TmuxApp, key: str, found: Any) -> float:
    time.sleep(PACE)
    return app.timed_key(key, found)


def fresh_next(app: TmuxApp, first: int, samples: int) -> list[float]:
    return [paced(app, "n", on_page(first + i + 1)) for i in range(samples)]


def first_row_visible(text: str) -> bool:
    return re.search(r"^\s*acme\s+\d+\s", text, re.M) is not None and "Page 1 ·" in text


FIGURES = (
    "bare Textual app start (the floor)",
    "process start to first page of rows",
    "n pressed as page 1 appears",
    "n, fresh 25-row page",
    "p, cached page",
    "n at page 2 (page size 5)",
    "n at page 1,000 (page size 5)",
    "n, fresh 500-row page",
    "PageDown/Up in a 500-row page (p90)",
)


# Before timing keys, the time a person takes to look at page 1: what the app does in
# the background right after start-up (making its own client) is not in those figures;
# "n pressed as page 1 appears" is the figure that shows it.
READING = 1.0


def time_start(command: Any, n: int) -> dict[str, float]:
    """The app's start, each beside a start of the bare Textual app (startup.py's floor:
    what any Textual program pays, with no network), taking turns."""
    starts, firsts, bares = [], [], []
    with tempfile.TemporaryDirectory(prefix="dynotui-latency-bare-") as scratch:
        bare = Path(scratch, "bare.py")
        bare.write_text(BARE_APP)
        for turn in range(n):
            if turn % 2:
                bares.append(bare_start(bare))
            with TmuxApp(command(25), env=ENV) as app:
                seconds, _ = app.wait_for(first_row_visible, timeout=60)
                starts.append(seconds)
                firsts.append(app.timed_key("n", on_page(2)))
                app.keys("q")
            if not turn % 2:
                bares.append(bare_start(bare))
    return {
        FIGURES[0]: statistics.median(bares),
        FIGURES[1]: statistics.median(starts),
        FIGURES[2]: statistics.median(firsts),
    }


def bare_start(script: Path) -> float:
    with TmuxApp(f"{sys.executable} {script}", env={**ENV, "TEXTUAL_FPS": FRAME_RATE}) as app:
        seconds, _ = app.wait_for(bare_ready, timeout=60)
    return seconds


@contextlib.contextmanager
def reading_page_one(command: Any, page_size: int) -> Iterator[TmuxApp]:
    """The app on page 1, a second after it appeared; q when done."""
    with TmuxApp(command(page_size), env=ENV) as app:
        app.wait_for(on_page(1), timeout=60)
        time.sleep(READING)
        yield app
        app.keys("q")


def scroll_p90(app: TmuxApp) -> float:
    downs = [app.timed_change(key, PACE) for key in SCROLL_KEYS]
    return statistics.quantiles(downs, n=10)[-1]


SCROLL_KEYS = ["PageDown"] * 8 + ["PageUp"] * 8  # 500 rows are ~11 screens


def time_small(command: Any, n: int) -> dict[str, float]:
    with reading_page_one(command, 25) as app:
        nexts = fresh_next(app, 1, n)
        backs = [paced(app, "p", on_page(n - i)) for i in range(n)]
    return {FIGURES[3]: statistics.median(nexts), FIGURES[4]: statistics.median(backs)}


def time_deep(command: Any, n: int) -> dict[str, float]:
    with reading_page_one(command, 5) as app:
        early = fresh_next(app, 1, n)
        app.keys(*["n"] * (999 - n - 1))
        app.wait_for(on_page(999), timeout=600)
        deep = fresh_next(app, 999, n)
    return {FIGURES[5]: statistics.median(early), FIGURES[6]: statistics.median(deep)}


def time_big(command: Any, n: int) -> dict[str, float]:
    with reading_page_one(command, 500) as app:
        big = fresh_next(app, 1, BIG_PAGES)
        p90 = scroll_p90(app)
    return {FIGURES[7]: statistics.median(big), FIGURES[8]: p90}


SCENARIOS = (time_start, time_small, time_deep, time_big)
SCENARIO_NAMES = {"start": time_start, "small": time_small, "deep": time_deep, "big": time_big}


def measure(
    endpoint: str,
    n: int,
    sources: list[tuple[str | None, str]],
    scenarios: Any = SCENARIOS,
) -> list[dict[str, float]]:
    """Every figure for the app of each source (a checkout, None: the installed one; with
    its extra flags). Contenders take turns scenario by scenario, the first one changing
    each time, so neither always meets a colder or warmer server."""
    results: list[dict[str, float]] = [{} for _ in sources]
    for turn, scenario in enumerate(scenarios):
        order = list(range(len(sources)))
        if turn % 2:
            order.reverse()
        for i in order:
            source, extra = sources[i]

            def command(page_size: int, source: str | None = source, extra: str = extra) -> str:
                return app_command(endpoint, page_size, source, extra)

            results[i].update(scenario(command, n))
    return results


BIG_PAGES = 5


def plain_client(endpoint: str) -> Any:
    """A plain boto3 client of DynamoDB Local at ``endpoint`` (the proxy in front of it)."""
    import boto3
    from botocore.config import Config

    from dynotui.dynamodb.loopback import DIRECT
    from dynotui.local.runner import LOCAL_CREDENTIALS

    return boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        config=Config(proxies=DIRECT),
        **LOCAL_CREDENTIALS,
    )


def raw_figures(client: Any, n: int) -> dict[str, float]:
    """A plain boto3 Query of the pages each figure was timed on."""
    return {
        FIGURES[1]: raw_pages(client, 25, 1, 1),
        FIGURES[2]: raw_pages(client, 25, 2, 1),
        FIGURES[3]: raw_pages(client, 25, 2, n),
        FIGURES[4]: raw_pages(client, 25, 1, n),
        FIGURES[5]: raw_pages(client, 5, 2, n),
        FIGURES[6]: raw_pages(client, 5, 1000, n),
        FIGURES[7]: raw_pages(client, 500, 2, BIG_PAGES),
    }


def print_goals(ours: dict[str, float], raw: dict[str, float], latency: float) -> None:
    """Issue 32's goals at this latency: start within three round trips of the floor (a
    bare Textual app); a fresh n within 15 ms of the raw Query (one round trip and the
    server's own time)."""
    goals = []
    if FIGURES[0] in ours:
        goals.append((FIGURES[1], ours[FIGURES[0]] + 3 * latency, "bare app + 3 round trips"))
    if FIGURES[3] in ours:
        goals.append((FIGURES[3], raw[FIGURES[3]] + 0.015, "raw Query + 15 ms"))
    for name, goal, what in goals:
        verdict = "met" if ours[name] <= goal else "not met"
        print(
            f"goal: {name} <= {what} = {goal * 1000:.0f} ms; {ours[name] * 1000:.0f} ms: {verdict}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument(
        "--baseline",
        metavar="CHECKOUT",
        help="also time the app of another checkout (e.g. a git worktree of old main), "
        "in the same run, after this one",
    )
    parser.add_argument(
        "--peer",
        metavar="DYNO_VIEWER",
        help="also time dyno-viewer (its command name or path), where it is installed",
    )
    parser.add_argument(
        "--latency",
        type=float,
        default=0.0,
        metavar="MS",
        help="hold every request this many milliseconds (a network's round trip)",
    )
    parser.add_argument(
        "--read-ahead",
        type=int,
        default=0,
        metavar="N",
        help="time this checkout with --read-ahead N; without --baseline, the baseline "
        "column is the same checkout without it",
    )
    parser.add_argument(
        "--only",
        default=",".join(SCENARIO_NAMES),
        metavar="NAMES",
        help="the scenarios to run, of start, small, deep, big",
    )
    args = parser.parse_args()
    n = args.samples
    scenarios = [SCENARIO_NAMES[name] for name in args.only.split(",")]
    peer_bin = None
    if args.peer:
        from peer_dyno_viewer import find

        peer_bin = find(args.peer)
        if peer_bin is None:
            print(f"--peer: {args.peer} is not installed here; timing dynotui only")
    home = ensure_home()
    db, _ = demo_cache.ensure(home)
    from faultproxy import FaultProxy

    with (
        tempfile.TemporaryDirectory(prefix="dynotui-latency-bytecode-") as cache,
        DynamoDBLocal(home=home, db_file=db) as server,
        FaultProxy(server.endpoint_url, fault_rate=0.0, latency=args.latency / 1000) as proxy,
    ):
        checkouts = [HERE] + ([Path(args.baseline).resolve()] if args.baseline else [])
        ENV.update(bytecode_as_installed(cache, checkouts))
        endpoint = proxy.endpoint_url if args.latency else server.endpoint_url
        client = server.client()
        raw_figures(client, n)  # the server's first answers are slow (JIT): warm it first
        if args.latency:
            client = plain_client(endpoint)  # the raw Query goes through the proxy too
        ahead = f" --read-ahead {args.read_ahead}" if args.read_ahead else ""
        sources: list[tuple[str | None, str]] = [(None, ahead)]
        if args.baseline:
            sources.append((args.baseline, ""))
        elif ahead:
            sources.append((None, ""))  # the same checkout, reading nothing ahead
        results = measure(endpoint, n, sources, scenarios)
        ours, base = results[0], (results[1] if len(results) > 1 else None)
        peer: dict[str, float] = {}
        if peer_bin:
            import peer_dyno_viewer

            peer = peer_dyno_viewer.measure(peer_bin, server.endpoint_url, n, PACE)
        raw = raw_figures(client, n)

    if args.latency:
        print(f"every request held {args.latency:g} ms by a proxy (the raw Query's too)")
    if ahead:
        against = "the baseline" if args.baseline else "the baseline column: without it"
        print(f"dynotui with --read-ahead {args.read_ahead}; {against}")
    head = f"{'figure':<40} {'dynotui':>10}"
    if base:
        head += f" {'baseline':>10} {'ratio':>6}"
    if peer:
        head += f" {'dyno-viewer':>11} {'ratio':>6}"
    print(head + f" {'raw query':>10} {'difference':>11}")
    for name in FIGURES:
        if name not in ours:
            continue
        line = f"{name:<40} {ours[name] * 1000:8.1f} ms"
        if base:
            line += f" {base[name] * 1000:7.1f} ms {ours[name] / base[name]:5.2f}x"
        if peer:
            if name in peer:
                line += f" {peer[name] * 1000:8.1f} ms {ours[name] / peer[name]:5.2f}x"
            else:
                line += f" {'-':>11} {'':>6}"
        if name in raw:
            line += f" {raw[name] * 1000:7.1f} ms {(ours[name] - raw[name]) * 1000:8.1f} ms"
        print(line)
    print_goals(ours, raw, args.latency / 1000)
    if FIGURES[6] not in ours:
        return 0
    print(f"page 1,000 / page 2: {ours[FIGURES[6]] / ours[FIGURES[5]]:.2f}x", end="")
    if base:
        print(f" (baseline {base[FIGURES[6]] / base[FIGURES[5]]:.2f}x)", end="")
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
