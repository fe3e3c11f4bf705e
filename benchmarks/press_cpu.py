"""Benchmark: the CPU a key press costs the app to read and draw, under Textual's Pilot.

    python benchmarks/press_cpu.py [--presses 15] [--baseline CHECKOUT]

Wall-clock figures from tmux (benchmarks/tui_latency.py) move with the machine's load;
this process's CPU time per press moves much less, so a change that makes a press draw
more shows here on a busy machine too. DynamoDB Local on a copy of the seeded demo
database; the app (as the tests make it) at 120x35 on customer acme, 25 a page; each round
presses n (a fresh page), p (the cached page before) and n again (to move on). Medians and
minimums of the process's CPU time from the key to the view being still. With --baseline,
another checkout's app is timed in the same run, the two taking turns.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from dynotui.local import demo_cache
from dynotui.local.locate import ensure_home
from dynotui.local.runner import DynamoDBLocal

# Run inside the checkout being timed, so its dynotui and its tests' helpers are the ones
# imported (``python -c`` puts the working directory first on sys.path).
DRIVER = r"""
import asyncio, json, os, statistics, sys, time
sys.path.insert(1, os.path.join(os.getcwd(), "tests"))
from uihelpers import make_app
from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.query_form import QueryForm
from dynotui.ui.testing import settle

async def main(endpoint, presses):
    client = make_client(ConnectionOptions(endpoint_url=endpoint))
    app = make_app(client, QueryForm(partition_value="acme", page_size="25"))
    spent = {"n": [], "p": []}
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        for _ in range(presses):
            for key in ("n", "p"):
                start = time.process_time()
                await pilot.press(key)
                await settle(pilot)
                spent[key].append((time.process_time() - start) * 1000)
            await pilot.press("n")
            await settle(pilot)
    print(json.dumps({k: [statistics.median(v), min(v)] for k, v in spent.items()}))

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


def run(source: Path, endpoint: str, presses: int) -> dict[str, list[float]]:
    result = subprocess.run(
        [sys.executable, "-c", DRIVER, endpoint, str(presses)],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        raise SystemExit(f"{source}: {result.stderr[-2000:]}")
    figures: dict[str, list[float]] = json.loads(result.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=15, help="rounds of n, p, n")
    parser.add_argument("--baseline", type=Path, help="another checkout, timed in turn")
    args = parser.parse_args()
    sources = [Path(__file__).resolve().parent.parent]
    if args.baseline:
        sources.append(args.baseline.resolve())
    home = ensure_home()
    db, _ = demo_cache.ensure(home)
    with DynamoDBLocal(home=home, db_file=db) as server:
        run(sources[0], server.endpoint_url, 2)  # the server's first answers are slow (JIT)
        # Two turns each, the order swapped, so neither always meets a warmer server.
        turns = [sources, sources[::-1]]
        figures: dict[Path, list[dict[str, list[float]]]] = {s: [] for s in sources}
        for order in turns:
            for source in order:
                figures[source].append(run(source, server.endpoint_url, args.presses))
    print(f"CPU per key press, ms (median / min of {2 * args.presses} presses each)")
    print(f"{'key':<22}" + "".join(f"{s.name[:18]:>20}" for s in sources))
    for key, words in (("n", "n, fresh 25-row page"), ("p", "p, cached page")):
        cells = []
        for source in sources:
            medians = [f[key][0] for f in figures[source]]
            mins = [f[key][1] for f in figures[source]]
            cells.append(f"{sum(medians) / len(medians):8.1f} / {min(mins):5.1f}")
        print(f"{words:<22}" + "".join(f"{c:>20}" for c in cells))


if __name__ == "__main__":
    main()
