"""The demo table shows every paging rule: checked against the seeded data itself."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from typing import Any

import pytest
from helpers import query_pages

from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.schema import describe_table, parse_schema, summary
from dynotui.local import demo
from dynotui.local.tables import NotLocalError, create_table, table_definition, write_items


@pytest.fixture(scope="module")
def all_items(client: Any, demo_table: str) -> list[dict]:
    return [item for page in query_pages(client, TableName=demo_table) for item in page["Items"]]


def test_schema_has_lsi_two_gsis_sparse_and_projection_types(client: Any, demo_table: str) -> None:
    table = client.describe_table(TableName=demo_table)["Table"]
    assert len(table["LocalSecondaryIndexes"]) >= 1
    gsis = {g["IndexName"]: g for g in table["GlobalSecondaryIndexes"]}
    assert len(gsis) >= 2
    kinds = {
        i["Projection"]["ProjectionType"] for i in [*gsis.values(), *table["LocalSecondaryIndexes"]]
    }
    assert len(kinds) >= 2
    types = {a["AttributeName"]: a["AttributeType"] for a in table["AttributeDefinitions"]}
    lsi_sort = table["LocalSecondaryIndexes"][0]["KeySchema"][1]["AttributeName"]
    assert types[lsi_sort] == "N", "a numeric sort key"


def test_item_counts_partitions_and_skew(all_items: list[dict]) -> None:
    assert len(all_items) == sum(1 for _ in demo.demo_items())
    per_customer = Counter(item["customer"]["S"] for item in all_items)
    assert len(per_customer) > 100
    assert per_customer[demo.BIG_CUSTOMER] >= 5_000
    statuses = Counter(item["status"]["S"] for item in all_items)
    assert statuses[demo.RARE_STATUS] / len(all_items) < 0.05
    flagged = sum("flag" in item for item in all_items)
    assert 0 < flagged < len(all_items) * 0.1, "the flagged GSI is sparse"


def test_item_sizes_span_100_bytes_to_100_kb(all_items: list[dict]) -> None:
    sizes = [len(str(item)) for item in all_items]
    assert min(sizes) < 400
    assert max(sizes) > 60_000


def test_string_sort_key_puts_10_before_9(client: Any, demo_table: str) -> None:
    pages = query_pages(
        client,
        TableName=demo_table,
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues={":c": {"S": demo.BIG_CUSTOMER}},
        ProjectionExpression="order_no",
    )
    order = [item["order_no"]["S"] for page in pages for item in page["Items"]]
    assert order.index("10") < order.index("9")
    assert order == sorted(order, key=lambda s: s.encode())


def test_rare_filter_gives_empty_pages_that_carry_a_key(client: Any, demo_table: str) -> None:
    pages = query_pages(
        client,
        TableName=demo_table,
        KeyConditionExpression="customer = :c",
        FilterExpression="#s = :r",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":c": {"S": demo.BIG_CUSTOMER}, ":r": {"S": demo.RARE_STATUS}},
        Limit=25,
    )
    assert any(p["Count"] == 0 and "LastEvaluatedKey" in p for p in pages)
    assert sum(p["Count"] for p in pages) > 0


def test_archive_pages_are_cut_by_one_megabyte(client: Any, demo_table: str) -> None:
    page = client.query(
        TableName=demo_table,
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues={":c": {"S": demo.ARCHIVE_CUSTOMER}},
        Limit=100,
        ReturnConsumedCapacity="TOTAL",
    )
    assert "LastEvaluatedKey" in page and page["ScannedCount"] < 100
    assert page["ConsumedCapacity"]["CapacityUnits"] > 50


def test_gsi_key_values_tie(all_items: list[dict]) -> None:
    ties = Counter((i["status"]["S"], i["placed_on"]["S"]) for i in all_items)
    assert max(ties.values()) >= 50


def test_seeding_refuses_a_remote_endpoint() -> None:
    remote = make_client(
        ConnectionOptions(
            region="us-east-1", endpoint_url="https://dynamodb.us-east-1.amazonaws.com"
        )
    )
    with pytest.raises(NotLocalError, match="refusing to create or seed"):
        demo.seed_demo(remote)


def test_demo_cli_refuses_remote_endpoint_in_one_line() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "dynotui",
            "demo",
            "--endpoint-url",
            "https://example.com",
            "--region",
            "eu-west-1",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "refusing to create or seed" in result.stderr


def test_demo_cli_seeds_an_existing_local_endpoint(ddb: Any, demo_table: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dynotui", "demo", "--no-tui", "--endpoint-url", ddb.endpoint_url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "exist already" in result.stderr
    assert "by_status: GSI" in result.stdout and "flagged: GSI" in result.stdout
    assert (
        "exact: DynamoDB Local" in result.stdout and "six hours" not in result.stdout.split(";")[0]
    )


def test_help_lists_every_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dynotui", "--help"], capture_output=True, text=True
    )
    for command in ("demo", "local", "tables"):
        assert f"    {command} " in result.stdout


def test_counts_on_dynamodb_local_are_exact_and_said_so(client: Any, table_name: Any) -> None:
    """DynamoDB Local updates ItemCount at every write (checked here, right after writing):
    the summary says so instead of warning of six-hour staleness."""
    name = table_name()
    create_table(client, table_definition(name, ("pk", "S")))
    write_items(client, name, [{"pk": str(i)} for i in range(3)])
    schema = describe_table(client, name)
    assert schema.counts_live and schema.item_count == 3
    client.delete_item(TableName=name, Key={"pk": {"S": "0"}})
    assert describe_table(client, name).item_count == 2
    text = summary(describe_table(client, name))
    assert f"{name} [ACTIVE]: 2 items (exact: DynamoDB Local updates it at every write" in text
    assert "~" not in text and "may not hold recent writes" not in text
    service = dict(client.describe_table(TableName=name)["Table"])
    service["TableArn"] = service["TableArn"].replace(":ddblocal:", ":eu-west-1:")
    assert not parse_schema(service).counts_live
    assert "~2 items" in summary(parse_schema(service))
