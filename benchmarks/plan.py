"""Benchmark: what `dynotui plan` costs itself, against draining every path it costs, in the
same run (these machines are noisy: ratios, not absolute times; the load is printed).

On the demo table (DynamoDB Local on a copy of the seeded demo database, started here
unless --endpoint-url names one), for a few queries:

  plan     `dynotui plan`: DescribeTable and bounded reads of the paths, cheapest first
  drains   every usable path that exists paged to its end by a plain boto3 loop at the
           plan's page size (raw mode): what finding the cheapest costs without a plan

Per query: the plan's calls, read units and seconds (median of --repeats), the drains'
sums, the ratios; then each path's estimated read units against its drain.

    python benchmarks/plan.py [--repeats 3] [--port 21510]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

from dynotui.dynamodb.dynamo_json import from_wire
from dynotui.dynamodb.plan.figures import Plan, PlannedPath
from dynotui.dynamodb.plan.planner import Planner
from dynotui.dynamodb.spec import QuerySpec, from_expressions
from dynotui.local import demo, demo_cache
from dynotui.local.locate import ensure_home
from dynotui.local.runner import DynamoDBLocal


def queries() -> dict[str, QuerySpec]:
    return {
        "acme RETURNED": from_expressions(
            demo.TABLE,
            key_condition="customer = :c",
            filter="status = :r",
            values=from_wire({":c": {"S": demo.BIG_CUSTOMER}, ":r": {"S": demo.RARE_STATUS}}),
        ),
        "c001 total > 100": from_expressions(
            demo.TABLE,
            key_condition="customer = :c",
            filter="#t > :t",
            names={"#t": "total"},
            values=from_wire({":c": {"S": "c001"}, ":t": {"N": "100"}}),
        ),
        "c002 RETURNED, keys": from_expressions(
            demo.TABLE,
            key_condition="customer = :c",
            filter="status = :r",
            projection="customer, order_no, status, placed_on",
            values=from_wire({":c": {"S": "c002"}, ":r": {"S": demo.RARE_STATUS}}),
        ),
    }


def drain(client: Any, planned: PlannedPath) -> tuple[int, float, float]:
    """Calls, read units and seconds of the path paged to its end with plain boto3."""
    spec = planned.path.spec
    assert spec is not None
    params: dict[str, Any] = {
        "TableName": spec.table,
        "Limit": spec.page_size,
        "ReturnConsumedCapacity": "TOTAL",
    }
    for name, value in (
        ("IndexName", spec.index),
        ("KeyConditionExpression", spec.key_condition),
        ("FilterExpression", spec.filter),
        ("ProjectionExpression", spec.projection),
        ("ExpressionAttributeNames", dict(spec.names) or None),
        ("ExpressionAttributeValues", dict(spec.values) or None),
    ):
        if value:
            params[name] = value
    operation = client.query if spec.key_condition else client.scan
    calls, units = 0, 0.0
    began = time.perf_counter()
    while True:
        response = operation(**params)
        calls += 1
        units += response["ConsumedCapacity"]["CapacityUnits"]
        if "LastEvaluatedKey" not in response:
            return calls, units, time.perf_counter() - began
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def planned(client: Any, spec: QuerySpec, repeats: int) -> tuple[Plan, float]:
    seconds = []
    plan = None
    for _ in range(repeats):
        began = time.perf_counter()
        plan = Planner(client, spec).run()
        seconds.append(time.perf_counter() - began)
    assert plan is not None
    return plan, statistics.median(seconds)


def run(client: Any, args: argparse.Namespace) -> None:
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1, 5 min)", flush=True)
    for label, spec in queries().items():
        plan, plan_seconds = planned(client, spec, args.repeats)
        live = [p for p in plan.paths if p.usable and p.path.kind in ("query", "scan")]
        drains = {p.path.name: drain(client, p) for p in live}
        calls = sum(d[0] for d in drains.values())
        units = sum(d[1] for d in drains.values())
        seconds = sum(d[2] for d in drains.values())
        cost = plan.cost
        print(f"\n{label}: cheapest {plan.cheapest}", flush=True)
        print(
            f"  plan    {cost.calls:>5} calls {cost.read_units:>9,.1f} RCU {plan_seconds:>7.2f} s"
        )
        print(
            f"  drains  {calls:>5} calls {units:>9,.1f} RCU {seconds:>7.2f} s ({len(live)} paths)"
        )
        print(
            f"  plan/drains: x{cost.calls / calls:.3f} calls, x{cost.read_units / units:.3f} "
            f"RCU, x{plan_seconds / seconds:.3f} time"
        )
        for p in live:
            assert p.figures is not None
            truth = drains[p.path.name][1]
            print(
                f"    {p.path.name:<22} estimate {p.figures.read_units.text():>12} RCU, "
                f"drain {truth:>9,.1f} RCU"
            )
    print(f"\nload: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1, 5 min)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoint-url")
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=3)
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
    with DynamoDBLocal(port=args.port, home=home, db_file=db) as server:
        run(server.client(), args)


if __name__ == "__main__":
    main()
