"""Benchmark: reading page k of PostgreSQL by keyset and by OFFSET, k = 1 to 10,000.

    python benchmarks/postgres_depth.py [--uri URI] [--repeat 7] [--order orders_created_id]

Starts an embedded PostgreSQL 18 with the demo's 200,000 orders (or uses --uri, where
the demo table must exist), pages of 20 rows, so page 10,000 is the last. Page k is read
the way dynotui reads it: keyset from the boundary the stack would hold (the sort values
of the last row of page k - 1, looked up once, untimed), OFFSET from (k - 1) x 20 rows.
Each figure is the median of --repeat reads, keyset and OFFSET alternated; time is the
statement's round trip (and the server's execution time), buffers are shared hit + read
from the plan of the statement itself. Ratios are to page 1 of the same method, measured
in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from typing import Any

from dynotui.core.cancel import NEVER
from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.schema import describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

PAGES = (1, 100, 1_000, 10_000)
PAGE_SIZE = 20


def measure(source: PgSource, start: Any, repeat: int) -> dict[str, float]:
    latencies, executions, buffers = [], [], []
    for _ in range(repeat):
        page = source.read_page(start, 0, selectivity=None, cancel=NEVER)
        latencies.append(page.cost.latency_ms)
        executions.append(page.cost.execution_ms)
        buffers.append(page.cost.headline)
    return {
        "ms": statistics.median(latencies),
        "exec_ms": statistics.median(executions),
        "buffers": statistics.median(buffers),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uri", help="a PostgreSQL holding the demo table (default: embedded)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--order", default="orders_created_id")
    args = parser.parse_args()
    server = None
    uri = args.uri
    if uri is None:
        from dynotui.local import pg_demo
        from dynotui.local.pg_runner import EmbeddedPostgres

        server = EmbeddedPostgres().start()
        uri = server.uri
        seconds = pg_demo.seed(uri)
        started = server.startup_seconds
        print(f"embedded PostgreSQL started in {started:.1f} s, seeded in {seconds:.1f} s")
    try:
        session = connect(PgOptions(uri=uri))
        table = describe_table(session, "orders")
        order = table.order(args.order)
        keyset = PgSource(session, PgQuery(table, order, page_size=PAGE_SIZE))
        offset = PgSource(session, PgQuery(table, order, page_size=PAGE_SIZE, mode="offset"))
        order_by = ", ".join(c.sql() for c in order.columns)
        keys = ", ".join(f"({c.expression})::text" for c in order.columns)

        def stack_boundary(number: int) -> Any:
            if number == 1:
                return None
            rows = session.query(
                f"SELECT {keys} FROM {table.qualified} ORDER BY {order_by} "
                f"LIMIT 1 OFFSET {(number - 1) * PAGE_SIZE - 1}"
            )
            return list(rows[0])

        print(
            f"order {order.describe()}; {PAGE_SIZE} rows/page; median of {args.repeat}; "
            f"measured by {keyset.read_page(None, 1, selectivity=None, cancel=NEVER).cost.measured}"
        )
        results: dict[int, dict[str, dict[str, float]]] = {}
        for number in PAGES:
            start = stack_boundary(number)
            # Same rows both ways, or the comparison means nothing.
            a = keyset.read_page(start, number, selectivity=None, cancel=NEVER)
            b = offset.read_page(
                (number - 1) * PAGE_SIZE or None, number, selectivity=None, cancel=NEVER
            )
            assert list(a.items) == list(b.items), f"page {number} differs"
            k_runs, o_runs = [], []
            for _ in range(args.repeat):  # alternated: both see the same machine noise
                k_runs.append(measure(keyset, start, 1))
                o_runs.append(measure(offset, (number - 1) * PAGE_SIZE or None, 1))
            results[number] = {
                "keyset": {f: statistics.median(r[f] for r in k_runs) for f in k_runs[0]},
                "offset": {f: statistics.median(r[f] for r in o_runs) for f in o_runs[0]},
            }
        header = (
            f"{'page':>7} | {'keyset ms':>9} {'x p1':>6} {'buffers':>8} {'x p1':>6} | "
            f"{'offset ms':>9} {'x p1':>7} {'buffers':>8} {'x p1':>7} | {'offset/keyset ms':>16}"
        )
        print(header)
        print("-" * len(header))
        k1, o1 = results[1]["keyset"], results[1]["offset"]
        for number in PAGES:
            k, o = results[number]["keyset"], results[number]["offset"]
            keyset_part = (
                f"{k['ms']:>9.2f} {k['ms'] / k1['ms']:>5.2f}x "
                f"{k['buffers']:>8,.0f} {k['buffers'] / k1['buffers']:>5.2f}x"
            )
            offset_part = (
                f"{o['ms']:>9.2f} {o['ms'] / o1['ms']:>6.1f}x "
                f"{o['buffers']:>8,.0f} {o['buffers'] / o1['buffers']:>6.1f}x"
            )
            print(f"{number:>7,} | {keyset_part} | {offset_part} | {o['ms'] / k['ms']:>15.1f}x")
        print("(server execution ms, keyset / offset:)")
        for number in PAGES:
            k, o = results[number]["keyset"], results[number]["offset"]
            print(f"{number:>7,} | {k['exec_ms']:>8.3f} | {o['exec_ms']:>9.3f}")
        session.close()
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
