"""Benchmark: reading page k of PostgreSQL by keyset and by OFFSET, k = 1 to 10,000.

    python benchmarks/postgres_depth.py [--uri URI] [--repeat 7] [--order orders_created_id]
                                        [--part demo|pgbench|all] [--no-drain]

Starts an embedded PostgreSQL 18 (or uses --uri, as a superuser who may create tables)
and, in one run:

- demo: the demo's 200,000 orders (seeded when absent), pages of 20 rows, so page
  10,000 is the last, in --order.
- pgbench: a pgbench-shaped ``pgbench_accounts`` of 1,000,000 rows made with
  generate_series (bid and abalance nullable as pgbench declares them, yet never NULL;
  last_seen NULL in 30% of rows; filler blank, as pgbench leaves it) with the issue's
  indexes: nullable, mixed-direction, tie-heavy ((bid, abalance), which lacks the
  tie-breaker aid) and expression (abs(abalance); lower(filler), on which every row ties);
  and a copy whose abalance is NOT NULL. The nullable order (abalance DESC, aid) is read
  at pages 1, 100, 1,000 and 10,000 by keyset, by OFFSET, by keyset on the NOT NULL copy,
  and by the expanded OR form dynotui used before (the baseline); then pages 2, 5,000 and
  10,000 of every index order against its page 1, both directions, by keyset, with what
  EXPLAIN said of the order when the table was described; then (unless --no-drain) every
  index order is drained, all 1,000,000 rows, and compared with a plain ``SELECT ...
  ORDER BY`` of the benchmark's own ORDER BY text.

Page k is read the way dynotui reads it: keyset from the boundary the stack would hold
(the sort values of the last row of page k - 1, looked up once, untimed), OFFSET from
(k - 1) x 20 rows. Each figure is the median of --repeat reads, the methods alternated;
time is the statement's round trip (and the server's execution time), buffers are shared
hit + read from the plan of the statement itself. Ratios are to page 1 of the same method,
measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from dynotui.core.cancel import NEVER
from dynotui.core.page import Page
from dynotui.core.pager import Pager
from dynotui.postgres.connection import PgOptions, PgSession, connect
from dynotui.postgres.cost import PgCost, from_plan
from dynotui.postgres.schema import PgOrder, PgTable, describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery, statement_parts

PAGES = (1, 100, 1_000, 10_000)
PAGE_SIZE = 20
ACCOUNTS = 1_000_000

PGBENCH = f"""
DROP TABLE IF EXISTS pgbench_accounts, pgbench_accounts_notnull;
CREATE TABLE pgbench_accounts (
    aid integer NOT NULL PRIMARY KEY,
    bid integer,
    abalance integer,
    filler character(84),
    last_seen timestamptz
);
INSERT INTO pgbench_accounts
SELECT g, 1 + (g - 1) / 100000, ((g::bigint * 7919) % 20001)::integer - 10000, '',
       CASE WHEN g % 10 >= 3
            THEN timestamptz '2026-01-01 00:00:00+00' + ((g * 37) % 50000) * interval '1 minute'
       END
FROM generate_series(1, {ACCOUNTS}) AS g;
CREATE INDEX pgbench_bid ON pgbench_accounts (bid, aid);
CREATE INDEX pgbench_balance ON pgbench_accounts (abalance DESC, aid);
CREATE INDEX pgbench_bid_balance ON pgbench_accounts (bid, abalance DESC, aid DESC);
CREATE INDEX pgbench_abs ON pgbench_accounts (abs(abalance), aid);
CREATE INDEX pgbench_seen ON pgbench_accounts (last_seen, aid);
CREATE INDEX pgbench_seen_nulls_first ON pgbench_accounts (last_seen NULLS FIRST, aid);
CREATE INDEX pgbench_seen_desc ON pgbench_accounts (last_seen DESC NULLS LAST, aid DESC);
CREATE INDEX pgbench_positive ON pgbench_accounts (abalance) WHERE abalance > 0;
-- Tie-heavy: an index that lacks the tie-breaker (about 5 rows to each (bid, abalance)),
-- and an expression index over pgbench's blank char(84) filler (every row ties on it).
CREATE INDEX pgbench_bid_abalance ON pgbench_accounts (bid, abalance);
CREATE INDEX pgbench_lower_filler ON pgbench_accounts (lower(filler));
CREATE TABLE pgbench_accounts_notnull (LIKE pgbench_accounts);
INSERT INTO pgbench_accounts_notnull SELECT * FROM pgbench_accounts;
ALTER TABLE pgbench_accounts_notnull ADD PRIMARY KEY (aid), ALTER abalance SET NOT NULL;
CREATE INDEX pgbench_notnull_balance ON pgbench_accounts_notnull (abalance DESC, aid);
"""

# Every index order of pgbench_accounts, forward and back, in the benchmark's own words.
ORDERS = {
    "primary key": ("aid", "aid DESC"),
    "pgbench_bid": ("bid, aid", "bid DESC, aid DESC"),
    "pgbench_balance": ("abalance DESC, aid", "abalance ASC NULLS LAST, aid DESC"),
    "pgbench_bid_balance": (
        "bid, abalance DESC, aid DESC",
        "bid DESC, abalance ASC NULLS LAST, aid",
    ),
    "pgbench_abs": ("abs(abalance), aid", "abs(abalance) DESC, aid DESC"),
    "pgbench_seen": ("last_seen, aid", "last_seen DESC NULLS FIRST, aid DESC"),
    "pgbench_seen_nulls_first": (
        "last_seen NULLS FIRST, aid",
        "last_seen DESC NULLS LAST, aid DESC",
    ),
    "pgbench_seen_desc": ("last_seen DESC NULLS LAST, aid DESC", "last_seen NULLS FIRST, aid"),
    "pgbench_bid_abalance": ("bid, abalance, aid", "bid DESC, abalance DESC, aid DESC"),
    "pgbench_lower_filler": ("lower(filler), aid", "lower(filler) DESC, aid DESC"),
}
FLAT_PAGES = (2, 5_000, 10_000)


def summary(runs: list[PgCost]) -> dict[str, float]:
    return {
        "ms": statistics.median(c.latency_ms for c in runs),
        "exec_ms": statistics.median(c.execution_ms for c in runs),
        "buffers": statistics.median(c.headline for c in runs),
    }


def page_cost(source: PgSource, start: Any, number: int) -> PgCost:
    page: Page[PgCost] = source.read_page(start, number, selectivity=None, cancel=NEVER)
    return page.cost


def boundary_of(session: PgSession, table: PgTable, order: PgOrder, number: int) -> Any:
    """The boundary the stack holds for page ``number``: the last row of the page before."""
    if number == 1:
        return None
    order_by = ", ".join(c.sql() for c in order.columns)
    # Named apart from the columns: ORDER BY "abalance" would sort the text output.
    keys = ", ".join(f"{c.text_sql()} AS b{i}" for i, c in enumerate(order.columns))
    rows = session.query(
        f"SELECT {keys} FROM {table.qualified} ORDER BY {order_by} "
        f"LIMIT 1 OFFSET {(number - 1) * PAGE_SIZE - 1}"
    )
    return list(rows[0])


def ratio_table(results: dict[int, dict[str, dict[str, float]]], methods: list[str]) -> None:
    header = "| page | " + " | ".join(f"{m} ms | x p1 | {m} buffers | x p1" for m in methods) + " |"
    print(header)
    print("| ---: " * (1 + 4 * len(methods)) + "|")
    for number in PAGES:
        cells = [f"{number:,}"]
        for method in methods:
            got, first = results[number][method], results[1][method]
            cells += [
                f"{got['ms']:.2f}",
                f"{got['ms'] / first['ms']:.2f}x",
                f"{got['buffers']:,.0f}",
                f"{got['buffers'] / first['buffers']:.2f}x",
            ]
        print("| " + " | ".join(cells) + " |")
    print(
        "server execution ms: "
        + "; ".join(
            f"{m} " + ", ".join(f"{results[n][m]['exec_ms']:.3f}" for n in PAGES) for m in methods
        )
    )


def demo_depth(session: PgSession, args: argparse.Namespace) -> None:
    from dynotui.local import pg_demo

    if not session.query("SELECT to_regclass('orders') IS NOT NULL")[0][0]:
        print(f"seeded the demo's orders in {pg_demo.seed(args.uri):.1f} s")
    table = describe_table(session, "orders")
    order = table.order(args.order)
    keyset = PgSource(session, PgQuery(table, order, page_size=PAGE_SIZE))
    offset = PgSource(session, PgQuery(table, order, page_size=PAGE_SIZE, mode="offset"))
    print(
        f"\n## demo orders: {order.describe()}; {PAGE_SIZE} rows/page; median of "
        f"{args.repeat}; measured by {session.measured_by}"
    )
    results: dict[int, dict[str, dict[str, float]]] = {}
    for number in PAGES:
        start = boundary_of(session, table, order, number)
        skip = (number - 1) * PAGE_SIZE or None
        same = [keyset.read_page(start, number, selectivity=None, cancel=NEVER).items]
        same.append(offset.read_page(skip, number, selectivity=None, cancel=NEVER).items)
        assert list(same[0]) == list(same[1]), f"page {number} differs"
        results[number] = alternated(
            {
                "keyset": lambda s=start, n=number: page_cost(keyset, s, n),
                "offset": lambda s=skip, n=number: page_cost(offset, s, n),
            },
            args.repeat,
        )
    ratio_table(results, ["keyset", "offset"])


def alternated(
    readers: dict[str, Callable[[], PgCost]], repeat: int
) -> dict[str, dict[str, float]]:
    """Each reader ``repeat`` times, taking turns: all see the same machine noise."""
    runs: dict[str, list[PgCost]] = {name: [] for name in readers}
    for _ in range(repeat):
        for name, read in readers.items():
            runs[name].append(read())
    return {name: summary(costs) for name, costs in runs.items()}


def or_form_reader(session: PgSession, query: PgQuery, start: Any) -> Callable[[], PgCost]:
    """The expanded OR form dynotui sent before: no bound the planner can seek to."""
    parts = statement_parts(query)
    columns = query.order.columns
    if start is None:
        condition, params = "", {}
    else:
        a, b = columns[0], columns[1]
        condition = (
            f"WHERE ({a.term} {a.after_operator} %(k0)s::{a.type}"
            f" OR ({a.term} = %(k0)s::{a.type} AND {b.term} {b.after_operator} %(k1)s::{b.type}))"
        )
        params = {"k0": start[0], "k1": start[1]}
    sql = (
        f"SELECT {parts.select} FROM {parts.source} {condition} "
        f"ORDER BY {parts.order_by} LIMIT {PAGE_SIZE + 1}"
    )

    def read() -> PgCost:
        began = time.perf_counter()
        rows, plan = session.run(sql, params)
        latency = (time.perf_counter() - began) * 1000
        return from_plan(plan, min(len(rows), PAGE_SIZE), latency, latency, plan["measured"])

    return read


def pgbench_depth(session: PgSession, args: argparse.Namespace) -> None:
    if (
        args.rebuild
        or not session.query("SELECT to_regclass('pgbench_accounts_notnull') IS NOT NULL")[0][0]
    ):
        import psycopg

        began = time.perf_counter()
        with psycopg.connect(args.uri, autocommit=True) as admin:
            admin.execute(PGBENCH)  # type: ignore[arg-type]
            admin.execute("VACUUM ANALYZE pgbench_accounts")
            admin.execute("VACUUM ANALYZE pgbench_accounts_notnull")
        print(f"made pgbench_accounts ({ACCOUNTS:,} rows) in {time.perf_counter() - began:.1f} s")
    nullable = describe_table(session, "pgbench_accounts")
    notnull = describe_table(session, "pgbench_accounts_notnull")
    order = nullable.order("pgbench_balance")
    notnull_order = notnull.order("pgbench_notnull_balance")
    query = PgQuery(nullable, order, page_size=PAGE_SIZE)
    sources = {
        "keyset": PgSource(session, query),
        "offset": PgSource(session, PgQuery(nullable, order, page_size=PAGE_SIZE, mode="offset")),
        "NOT NULL keyset": PgSource(session, PgQuery(notnull, notnull_order, page_size=PAGE_SIZE)),
    }
    print(
        f"\n## pgbench_accounts ({ACCOUNTS:,} rows), order {order.describe()} "
        f"(abalance nullable, no NULL in it); {PAGE_SIZE} rows/page; median of {args.repeat}; "
        f"measured by {session.measured_by}"
    )
    results: dict[int, dict[str, dict[str, float]]] = {}
    for number in PAGES:
        start = boundary_of(session, nullable, order, number)
        skip = (number - 1) * PAGE_SIZE or None
        pages = {
            "keyset": sources["keyset"].read_page(start, number, selectivity=None, cancel=NEVER),
            "NOT NULL keyset": sources["NOT NULL keyset"].read_page(
                start, number, selectivity=None, cancel=NEVER
            ),
            "offset": sources["offset"].read_page(skip, number, selectivity=None, cancel=NEVER),
        }
        assert len({tuple(tuple(r.items()) for r in p.items) for p in pages.values()}) == 1
        if number > 1:
            print(f"page {number:,}: keyset read by {pages['keyset'].extra['keyset']}")
        old = or_form_reader(session, query, start)
        results[number] = alternated(
            {
                "keyset": lambda s=start, n=number: page_cost(sources["keyset"], s, n),
                "offset": lambda s=skip, n=number: page_cost(sources["offset"], s, n),
                "NOT NULL keyset": lambda s=start, n=number: page_cost(
                    sources["NOT NULL keyset"], s, n
                ),
                "OR form (before)": old,
            },
            args.repeat,
        )
    ratio_table(results, ["keyset", "NOT NULL keyset", "offset", "OR form (before)"])
    every_order_flat(session, nullable)
    if args.drain:
        drain_every_order(session, nullable, args.uri)


def every_order_flat(session: PgSession, table: PgTable) -> None:
    print(
        "\n### pages 2, 5,000 and 10,000 of every index order against page 1, by keyset "
        "(buffers, median of 3)"
    )
    print(
        "| order | direction | page 1 | "
        + " | ".join(f"page {n:,} | x page 1" for n in FLAT_PAGES)
        + " | page 10,000 read by | EXPLAIN at open |"
    )
    print("| --- | --- | ---: | " + "---: | ---: | " * len(FLAT_PAGES) + "--- | --- |")
    worst = 0.0
    for name in ORDERS:
        for reverse in (False, True):
            order = table.order(name).reversed() if reverse else table.order(name)
            source = PgSource(session, PgQuery(table, order, page_size=PAGE_SIZE))
            first = statistics.median(page_cost(source, None, 1).headline for _ in range(3))
            cells = [f"{first:,.0f}"]
            how = ""
            for number in FLAT_PAGES:
                start = boundary_of(session, table, order, number)
                page = source.read_page(start, number, selectivity=None, cancel=NEVER)
                deep = statistics.median(
                    [page.cost.headline]
                    + [page_cost(source, start, number).headline for _ in range(2)]
                )
                worst = max(worst, deep / first)
                cells += [f"{deep:,.0f}", f"{deep / first:.2f}x"]
                how = page.extra["keyset"]
            print(
                f"| {name} {order.label} | {'back' if reverse else 'forward'} | "
                + " | ".join(cells)
                + f" | {how} | {order.cost_note or 'bounded index seeks'} |"
            )
    print(f"worst page k / page 1 (k = {', '.join(f'{n:,}' for n in FLAT_PAGES)}): {worst:.2f}x")


def drain_every_order(session: PgSession, table: PgTable, uri: str) -> None:
    import psycopg

    print("\n### every index order drained, 1,000 rows a page, against SELECT ... ORDER BY")
    with psycopg.connect(uri) as admin:
        for name, reverse in ((n, r) for n in ORDERS for r in (False, True)):
            began = time.perf_counter()
            with admin.cursor(name="truth") as cursor:  # streamed, in a transaction
                order_by = ORDERS[name][reverse]
                cursor.execute(f"SELECT aid FROM pgbench_accounts ORDER BY {order_by}")  # type: ignore[arg-type]
                expected = [str(row[0]) for row in cursor]
            admin.rollback()
            order = table.order(name).reversed() if reverse else table.order(name)
            pager = Pager(PgSource(session, PgQuery(table, order, page_size=1000)), cache_pages=1)
            got: list[str] = []
            pages = 0
            while pager.can_advance:
                page = pager.next()
                got.extend(row["aid"] for row in page.items)
                pages += 1
            exact = "exact" if got == expected else "DIFFERENT"
            print(
                f"{name} {order.label}: {len(got):,} rows in {pages:,} pages, {exact} "
                f"({time.perf_counter() - began:.1f} s)"
            )
            assert got == expected, name


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--uri", help="a PostgreSQL to use (default: an embedded one)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--order", default="orders_created_id", help="the demo table's order")
    parser.add_argument("--part", choices=("demo", "pgbench", "all"), default="all")
    parser.add_argument("--no-drain", dest="drain", action="store_false")
    parser.add_argument("--rebuild", action="store_true", help="make pgbench_accounts again")
    args = parser.parse_args()
    server = None
    if args.uri is None:
        from dynotui.local.pg_runner import EmbeddedPostgres

        server = EmbeddedPostgres().start()
        args.uri = server.uri
        print(f"embedded PostgreSQL started in {server.startup_seconds:.1f} s")
    try:
        session = connect(PgOptions(uri=args.uri, statement_timeout=600))
        if args.part in ("demo", "all"):
            demo_depth(session, args)
        if args.part in ("pgbench", "all"):
            pgbench_depth(session, args)
        session.close()
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
