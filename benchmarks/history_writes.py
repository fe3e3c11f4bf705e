"""Benchmark: what one page view costs the history file, full against nearly empty.

    python benchmarks/history_writes.py [--views 200] [--entries 200]

Each page shown updates its entry: the file is read, changed and replaced whole (temporary
file, fsync, rename, fsync of the folder) under a lock. The baseline is the same update
on a store holding one entry, measured in the same run on the same disk; the ratio says
what a full history (``--entries``, the default cap) adds to each page view. The UI
makes this call off its own thread, so it costs a page view no key press.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from dynotui.core.history import HistoryQuery, HistoryStore


def entry(n: int) -> HistoryQuery:
    """A realistic Query on a GSI: key condition, filter, values, the form it came from."""
    return HistoryQuery(
        "dynamodb",
        {"profile": "dev", "region": "eu-west-1", "endpoint_url": None},
        {
            "spec": {
                "table": "orders",
                "index": "by_status",
                "key_condition": "#status = :s",
                "filter": "#total > :t AND attribute_exists(#flag)",
                "names": {"#status": "status", "#total": "total", "#flag": "flag"},
                "values": {":s": {"S": f"STATUS-{n}"}, ":t": {"N": "150.25"}},
                "page_size": 25,
                "mode": "fill",
            }
        },
        f"orders / by_status · Query status = :s · filter total > :t · {n}",
    )


BOUNDARY = {
    "status": {"S": "PLACED"},
    "placed_on": {"S": "2026-09-03"},
    "customer": {"S": "c007"},
    "order_no": {"S": "12345"},
}


def views(store: HistoryStore, entry_id: str, count: int) -> list[float]:
    took = []
    for page in range(1, count + 1):
        began = time.perf_counter()
        store.viewed(entry_id, page=page, boundary=BOUNDARY, cost={"headline": page * 0.5})
        took.append((time.perf_counter() - began) * 1000)
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--views", type=int, default=200, help="page views timed per store")
    parser.add_argument("--entries", type=int, default=200, help="entries in the full store")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        small = HistoryStore(Path(folder) / "small" / "history.json")
        small_id = small.record_open(entry(0))
        full = HistoryStore(Path(folder) / "full" / "history.json", max_entries=args.entries)
        for n in range(1, args.entries):
            full.record_open(entry(n))
        full_id = full.record_open(entry(0))
        assert small_id is not None and full_id is not None
        # Interleaved rounds, so a busy disk weighs on both alike.
        baseline: list[float] = []
        measured: list[float] = []
        for _ in range(4):
            baseline += views(small, small_id, args.views // 4)
            measured += views(full, full_id, args.views // 4)
        size = full.path.stat().st_size
    base, cost = statistics.median(baseline), statistics.median(measured)
    print(f"one page view, store of 1 entry:          median {base:.2f} ms")
    print(f"one page view, store of {args.entries} entries ({size:,} B): median {cost:.2f} ms")
    print(f"ratio full / baseline: {cost / base:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
