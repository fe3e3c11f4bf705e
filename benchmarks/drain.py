"""Benchmark: the pager against a plain boto3 paginator, and deep pages against page 1.

Runs on DynamoDB Local (started here unless --endpoint-url names one) with one
partition of --items items. Prints ratios measured in the same run, since these
machines are noisy:

  drain ratio   = pager drain time / boto3 paginator drain time (same Limit)
  lines ratio   = `dynotui pages` writing JSON lines / a boto3 paginator writing them
  deep ratio    = median latency of a fresh read of page 1000 / of page 1

    python benchmarks/drain.py [--items 100000] [--page-size 100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from typing import Any

from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import query_pager
from dynotui.dynamodb.spec import from_key
from dynotui.local.runner import DynamoDBLocal
from dynotui.local.tables import create_table, table_definition, write_items

TABLE = "bench-one-partition"


def seed(client: Any, items: int) -> None:
    created = create_table(client, table_definition(TABLE, ("pk", "S"), ("sk", "N")))
    if created:
        began = time.perf_counter()
        write_items(client, TABLE, [{"pk": "p", "sk": n, "v": "x" * 40} for n in range(items)])
        print(f"seeded {items:,} items in {time.perf_counter() - began:.1f} s", flush=True)


def drain_paginator(client: Any, page_size: int) -> int:
    paginator = client.get_paginator("query")
    count = 0
    for page in paginator.paginate(
        TableName=TABLE,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "p"}},
        PaginationConfig={"PageSize": page_size},
        ReturnConsumedCapacity="INDEXES",
    ):
        count += page["Count"]
    return count


def drain_pager(client: Any, schema: Any, page_size: int, mode: str) -> int:
    pager = query_pager(
        client,
        from_key(schema, partition_value="p", page_size=page_size, mode=mode),
        schema,
        cache_pages=0,
    )
    count = 0
    while pager.can_advance:
        count += len(pager.next().items)
    return count


# The baseline for `dynotui pages`: boto3's paginator writing the same kind of JSON lines.
JSON_PAGINATOR = """
import json, sys
import boto3
client = boto3.client("dynamodb", endpoint_url=sys.argv[1], region_name="us-east-1",
                      aws_access_key_id="bench", aws_secret_access_key="bench")
pages = client.get_paginator("query").paginate(
    TableName=sys.argv[2], KeyConditionExpression="pk = :p",
    ExpressionAttributeValues={":p": {"S": "p"}}, ReturnConsumedCapacity="INDEXES",
    PaginationConfig={"PageSize": int(sys.argv[3])})
out = sys.stdout
for number, page in enumerate(pages, start=1):
    out.write(json.dumps({
        "page": number, "items": page["Items"], "count": page["Count"],
        "scanned_count": page["ScannedCount"], "consumed_capacity": page["ConsumedCapacity"],
        "last_evaluated_key": page.get("LastEvaluatedKey")}, ensure_ascii=False) + "\\n")
"""


def drain_command(command: list[str]) -> int:
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    return sum(len(json.loads(line).get("items", ())) for line in result.stdout.splitlines())


def timed(fn: Any) -> tuple[float, Any]:
    began = time.perf_counter()
    result = fn()
    return time.perf_counter() - began, result


def run(client: Any, items: int, page_size: int, repeats: int) -> None:
    seed(client, items)
    schema = describe_table(client, TABLE)
    endpoint = client.meta.endpoint_url
    commands = {
        "JSON-writing paginator": [
            sys.executable,
            "-c",
            JSON_PAGINATOR,
            endpoint,
            TABLE,
            str(page_size),
        ],
        "dynotui pages": [
            sys.executable,
            "-m",
            "dynotui",
            "pages",
            "--endpoint-url",
            endpoint,
            "--table-name",
            TABLE,
            "--key-condition-expression",
            "pk = :p",
            "--expression-attribute-values",
            '{":p": {"S": "p"}}',
            "--page-size",
            str(page_size),
            "--no-tokens",
        ],
    }
    times: dict[str, list[float]] = {
        "paginator": [],
        "pager raw": [],
        "pager fill": [],
        **{name: [] for name in commands},
    }
    for _ in range(repeats):  # interleaved, so drift hits every contender alike
        seconds, n = timed(lambda: drain_paginator(client, page_size))
        assert n == items, n
        times["paginator"].append(seconds)
        for mode in ("raw", "fill"):
            seconds, n = timed(lambda mode=mode: drain_pager(client, schema, page_size, mode))
            assert n == items, (mode, n)
            times[f"pager {mode}"].append(seconds)
        for name, command in commands.items():
            seconds, n = timed(lambda command=command: drain_command(command))
            assert n == items, (name, n)
            times[name].append(seconds)
    base = statistics.median(times["paginator"])
    for name in ("paginator", "pager raw", "pager fill"):
        median = statistics.median(times[name])
        print(
            f"drain {items:,} items, Limit {page_size}: {name:<10} median {median:.2f} s "
            f"ratio {median / base:.2f}"
        )
    lines = statistics.median(times["JSON-writing paginator"])
    for name in commands:
        median = statistics.median(times[name])
        print(f"JSON lines to stdout: {name:<22} median {median:.2f} s ratio {median / lines:.2f}")

    deep = items // page_size
    pager = query_pager(
        client, from_key(schema, partition_value="p", page_size=page_size), schema, cache_pages=0
    )
    while pager.number < deep and pager.can_advance:
        pager.next()
    # Page 1, the middle and the last page, each re-read from its stored start key. On the
    # service a start key is a seek; if DynamoDB Local's latency grows with depth, it is
    # the emulator's, and the middle page shows whether it grows linearly.
    probes = {1: [], deep // 2: [], deep: []}
    for _ in range(max(5, repeats * 5)):
        for number, samples in probes.items():
            samples.append(pager.goto(number).cost.latency_ms)
    base_ms = statistics.median(probes[1])
    for number, samples in probes.items():
        median = statistics.median(samples)
        print(f"page {number:>6,}: median {median:6.1f} ms, ratio to page 1 {median / base_ms:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--page-size", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--endpoint-url", help="an already running DynamoDB Local")
    args = parser.parse_args()
    if args.endpoint_url:
        from dynotui.dynamodb.connection import ConnectionOptions, make_client

        run(
            make_client(ConnectionOptions(endpoint_url=args.endpoint_url)),
            args.items,
            args.page_size,
            args.repeats,
        )
    else:
        with DynamoDBLocal() as server:
            run(server.client(), args.items, args.page_size, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
