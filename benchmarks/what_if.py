"""Benchmark: what a what-if estimate costs itself, against a full `pages` drain of the
same query, in the same run (these machines are noisy: ratios, not absolute times).

On the demo table (DynamoDB Local on a copy of the seeded demo database, started here
unless --endpoint-url names one), for the demo's acme RETURNED query in fill mode:

  drain     the query paged to its end by dynotui's pager, as `dynotui pages` does
  estimate  `what-if` for an index on (status, customer): the query's own key range is
            all it needs (the drain, with the filter applied locally)
  sampled   `what-if` for (status, placed_on): its partition holds other customers'
            orders, so a spread Scan sample of the table is read as well

Each line: calls, read units, seconds (median of --repeats), and each against the drain.

    python benchmarks/what_if.py [--repeats 3] [--max-read-units 5000]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from dynotui.core.pager import Pager
from dynotui.dynamodb.dynamo_json import from_wire
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import from_expressions
from dynotui.dynamodb.what_if.estimate import WhatIf
from dynotui.dynamodb.what_if.rewrite import ImaginedIndex
from dynotui.local import demo, demo_cache
from dynotui.local.locate import ensure_home
from dynotui.local.runner import DynamoDBLocal


def spec() -> Any:
    return from_expressions(
        demo.TABLE,
        key_condition="customer = :c",
        filter="status = :r",
        values=from_wire({":c": {"S": demo.BIG_CUSTOMER}, ":r": {"S": demo.RARE_STATUS}}),
        page_size=10,
        mode="fill",
    )


def drain(client: Any, schema: Any) -> tuple[int, float]:
    pager = Pager(QuerySource(client, spec(), schema), cache_pages=1)
    while pager.can_advance:
        pager.next()
    cost = pager.totals.cost
    return cost.requests, cost.capacity.total


def estimate(client: Any, schema: Any, sort_key: str, budget: float) -> tuple[int, float, str]:
    found = WhatIf(
        client, spec(), schema, ImaginedIndex("status", sort_key), max_read_units=budget
    ).run()
    what_if = found.what_if
    summary = (
        f"what-if {what_if.read_units.text('RCU')} in {what_if.pages.text()} pages "
        f"(now {found.now.read_units.text('RCU')}), sample complete: {found.sample.complete}"
    )
    return found.sample.calls, found.sample.read_units, summary


def timed(run: Any, repeats: int) -> tuple[Any, float]:
    seconds = []
    result = None
    for _ in range(repeats):
        began = time.perf_counter()
        result = run()
        seconds.append(time.perf_counter() - began)
    return result, statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoint-url")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-read-units", type=float, default=5000)
    args = parser.parse_args()
    if args.endpoint_url:
        import boto3

        client = boto3.client(
            "dynamodb",
            endpoint_url=args.endpoint_url,
            region_name="us-east-1",
            aws_access_key_id="dynotui",
            aws_secret_access_key="dynotui",
        )
        run(client, args)
        return
    home = ensure_home()
    db, _ = demo_cache.ensure(home)
    with DynamoDBLocal(home=home, db_file=db) as server:
        run(server.client(), args)


def run(client: Any, args: argparse.Namespace) -> None:
    schema = describe_table(client, demo.TABLE)
    (calls, units), seconds = timed(lambda: drain(client, schema), args.repeats)
    print(f"drain     {calls:>4} calls {units:>8,.1f} RCU {seconds:>7.2f} s", flush=True)
    for label, sort_key in (("estimate", "customer"), ("sampled", "placed_on")):
        (e_calls, e_units, summary), e_seconds = timed(
            lambda sort_key=sort_key: estimate(client, schema, sort_key, args.max_read_units),
            args.repeats,
        )
        print(
            f"{label:<9} {e_calls:>4} calls {e_units:>8,.1f} RCU {e_seconds:>7.2f} s   "
            f"x{e_calls / calls:.2f} calls, x{e_units / units:.2f} RCU, "
            f"x{e_seconds / seconds:.2f} time",
            flush=True,
        )
        print(f"          {summary}", flush=True)


if __name__ == "__main__":
    main()
