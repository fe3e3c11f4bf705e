"""Benchmark: what `dynotui plan --postgres` costs itself, against draining every order it
costs, in the same run (these machines are noisy: ratios, not absolute times; the load is
printed).

On the PostgreSQL demo's 200,000 orders (an embedded PostgreSQL 18 started here, or
--uri), for a few filters:

  plan     make_plan: catalog reads and EXPLAIN of each order's page 1 (nothing run)
  drains   every usable order paged to its end by dynotui's keyset pager (pages of 25),
           each page's buffers measured from its own plan: what finding the cheapest
           order costs without a plan

Per filter: the plan's statements and seconds (median of --repeats), the drains' pages,
buffers and seconds, the ratios; then each order's estimated buffers against its drain.

    python benchmarks/plan_postgres.py [--repeats 3] [--uri URI]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from dynotui.core.pager import Pager
from dynotui.postgres.connection import PgOptions, PgSession, connect
from dynotui.postgres.plan.planner import PgPlan, make_plan
from dynotui.postgres.plan.words import span
from dynotui.postgres.schema import describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

FILTERS = (
    "customer = 'c042' AND total > 500",
    "status = 'RETURNED' AND total > 900",
    "created_at < timestamptz '2026-09-01 06:00:00+00'",
    "total > 999.5",
)
PAGE_SIZE = 25


def planned(session: PgSession, where: str, repeats: int) -> tuple[PgPlan, float, float]:
    """The plan, and the median seconds of describing the table (as the command does
    first) and of the plan itself."""
    described, made = [], []
    plan = None
    for _ in range(repeats):
        began = time.perf_counter()
        table = describe_table(session, "orders")
        middle = time.perf_counter()
        plan = make_plan(session, table, where=where, page_size=PAGE_SIZE)
        described.append(middle - began)
        made.append(time.perf_counter() - middle)
    assert plan is not None
    return plan, statistics.median(described), statistics.median(made)


def drain(session: PgSession, plan: PgPlan, name: str, where: str) -> tuple[int, float, float]:
    """Pages, buffers and seconds of the order paged to its end by dynotui's pager."""
    table = describe_table(session, "orders")
    query = PgQuery(table, plan.path(name).order, where, page_size=PAGE_SIZE)
    pager = Pager(PgSource(session, query), cache_pages=1)
    pages, buffers = 0, 0.0
    began = time.perf_counter()
    while pager.can_advance:
        page = pager.next()
        pages += 1
        buffers += page.cost.headline
    return pages, buffers, time.perf_counter() - began


def run(uri: str, repeats: int) -> None:
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1, 5 min)", flush=True)
    session = connect(PgOptions(uri=uri, statement_timeout=600))
    try:
        for where in FILTERS:
            plan, describe_seconds, plan_seconds = planned(session, where, repeats)
            live = [p for p in plan.paths if p.usable]
            drains = {p.name: drain(session, plan, p.name, where) for p in live}
            pages = sum(d[0] for d in drains.values())
            buffers = sum(d[1] for d in drains.values())
            seconds = sum(d[2] for d in drains.values())
            truly = min(drains, key=lambda n: drains[n][1])
            print(f"\n{where}: cheapest {plan.cheapest} (truly: {truly})", flush=True)
            print(
                f"  plan    {plan.cost.calls:>6} statements {plan_seconds:>8.3f} s "
                f"(describing the table first: {describe_seconds:.3f} s)"
            )
            print(
                f"  drains  {pages:>6} pages {buffers:>12,.0f} buffers {seconds:>8.2f} s "
                f"({len(live)} orders)"
            )
            print(
                f"  plan/drains: x{plan_seconds / seconds:.4f} time "
                f"(x{(plan_seconds + describe_seconds) / seconds:.4f} with describing)"
            )
            for p in live:
                estimated = span(p.buffers_low, p.buffers or 0.0)
                print(
                    f"    {p.name:<25} estimate {estimated:>22} buffers, "
                    f"drain {drains[p.name][1]:>10,.0f} buffers ({drains[p.name][0]} pages)"
                )
    finally:
        session.close()
    print(f"\nload: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1, 5 min)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uri", help="a PostgreSQL holding the demo's orders (seeded if absent)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from dynotui.local import pg_demo

    if args.uri:
        pg_demo.seed(args.uri)
        run(args.uri, args.repeats)
        return
    from dynotui.local.pg_runner import EmbeddedPostgres

    with EmbeddedPostgres() as server:
        pg_demo.seed(server.uri)
        run(server.uri, args.repeats)


if __name__ == "__main__":
    main()
