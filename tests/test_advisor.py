"""Advisor findings against DynamoDB Local: each must appear where its cause is, and only there."""

from __future__ import annotations

import re
from typing import Any

import pytest
from helpers import rare_spec, responses, walk

from dynotui.core.pager import Pager
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import query_pager
from dynotui.dynamodb.spec import QuerySpec, from_expressions, from_key
from dynotui.local import demo
from dynotui.local.tables import create_table, table_definition, write_items

RARE = {":r": {"S": demo.RARE_STATUS}}


def run(client: Any, spec: QuerySpec, pages: int = 6) -> tuple[dict[str, str], Pager]:
    schema = describe_table(client, spec.table)
    pager = query_pager(client, spec, schema)
    walk(pager, limit=pages)
    found = {f.kind: f.text for f in pager.advisor.findings()}
    return found, pager


@pytest.fixture(scope="module")
def schema(client: Any, demo_table: str) -> Any:
    return describe_table(client, demo_table)


def test_rare_filter_waste_names_the_index_with_numbers(client, schema) -> None:
    spec = rare_spec(
        schema,
        page_size=50,
    )
    found, _ = run(client, spec)
    # The same six pages as a plain boto3 loop reads them (raw mode: Limit = page size).
    truth = responses(
        client.query,
        pages=6,
        TableName=demo.TABLE,
        KeyConditionExpression="customer = :c",
        FilterExpression="#s = :r",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":c": {"S": demo.BIG_CUSTOMER}, **RARE},
        Limit=50,
        ReturnConsumedCapacity="INDEXES",
    )
    scanned = sum(r["ScannedCount"] for r in truth)
    count = sum(r["Count"] for r in truth)
    capacity = sum(r["ConsumedCapacity"]["CapacityUnits"] for r in truth)
    discarded = 1 - count / scanned
    assert f"discarded {discarded:.0%} of {scanned:,} items read" in found["filter-waste"]
    assert f"({capacity:g} RCU; {count:,} matched)" in found["filter-waste"]
    assert "`status` is the partition key of GSI `by_status`" in found["index-for-filter"]
    assert "`status = 'RETURNED'`" in found["index-for-filter"]
    per_item = capacity / count  # raw mode: each page shows every match it read
    assert f"{per_item:.4g} RCU per item shown here" in found["index-for-filter"]
    assert "under 1%" not in found["index-for-filter"]
    assert "gsi-ties" not in found and "size-cut" not in found and "scan" not in found


def test_no_waste_findings_without_a_wasteful_filter(client, schema) -> None:
    no_filter, _ = run(client, from_key(schema, partition_value=demo.BIG_CUSTOMER, page_size=50))
    assert "filter-waste" not in no_filter and "index-for-filter" not in no_filter
    keeps_most, _ = run(
        client,
        from_key(
            schema,
            partition_value=demo.BIG_CUSTOMER,
            filter="status <> :r",
            filter_values=RARE,
            page_size=50,
        ),
    )
    assert "filter-waste" not in keeps_most and "index-for-filter" not in keeps_most


def test_round_cap_finding_follows_the_cap(client, schema) -> None:
    capped, pager = run(
        client,
        rare_spec(
            schema,
            page_size=20,
            mode="fill",
            max_rounds=1,
        ),
    )
    assert "round-cap" in capped
    assert (
        f"on {sum(p.ended_by.value == 'rounds' for p in pager.series())} of 6 pages"
        in capped["round-cap"]
    )
    roomy, _ = run(
        client,
        rare_spec(
            schema,
            page_size=5,
            mode="fill",
            max_rounds=50,
        ),
    )
    assert "round-cap" not in roomy


def test_scan_reads_everything_and_points_at_the_index(client, schema) -> None:
    found, pager = run(
        client,
        from_expressions(schema.name, scan=True, filter="status = :r", values=RARE, page_size=100),
        pages=3,
    )
    assert f"{pager.totals.scanned:,} items read so far" in found["scan"]
    assert "GSI `by_status`" in found["query-instead"]
    assert "scan" not in run(client, from_key(schema, partition_value="c001"))[0]


def test_a_scan_names_the_index_the_table_has_and_its_measured_cost(client, schema) -> None:
    """A Scan filtering on `status`: GSI `by_status` already reads one status's items, so
    no index is proposed; the finding names by_status, then, once a Query there is read on
    the same conditions, quotes what it cost per item shown."""
    from dynotui.dynamodb.advice import Measurements

    measurements = Measurements()
    scan = from_expressions(schema.name, scan=True, filter="status = :r", values=RARE)
    scanning = query_pager(client, scan, schema, measurements=measurements)
    walk(scanning, limit=3)
    found = {f.kind: f.text for f in scanning.advisor.findings()}
    assert "index-what-if" not in found, found["index-what-if"]
    assert not any("A GSI with" in text for text in found.values())
    assert "partition key of GSI `by_status`" in found["query-instead"]
    assert "Compare both with w" in found["query-instead"]
    query = from_expressions(
        schema.name,
        index="by_status",
        key_condition="#s = :r",
        names={"#s": "status"},
        values=RARE,
        page_size=100,
    )
    on_index = query_pager(client, query, schema, measurements=measurements)
    pages = walk(on_index, limit=3)
    # Ground truth: the index's pages as read, each page's RCU over the items it showed.
    units = sum(p.cost.capacity.total for p in pages)
    shown = sum(len(p.items) for p in pages)
    found = {f.kind: f.text for f in scanning.advisor.findings()}
    assert f"measured, it cost {units / shown:.4g} RCU per item shown" in found["query-instead"]


def test_size_cuts_on_large_items_only(client, schema) -> None:
    assert (
        "size-cut"
        in run(
            client, from_key(schema, partition_value=demo.ARCHIVE_CUSTOMER, page_size=100), pages=3
        )[0]
    )
    assert (
        "size-cut"
        not in run(
            client, from_key(schema, partition_value=demo.BIG_CUSTOMER, page_size=100), pages=3
        )[0]
    )


def test_gsi_ties_on_gsi_only(client, schema) -> None:
    found, _ = run(
        client,
        from_key(schema, index="by_status", partition_value="DELIVERED", page_size=50),
        pages=2,
    )
    assert "gsi-ties" in found
    assert "gsi-ties" not in run(client, from_key(schema, partition_value="acme"), pages=2)[0]


@pytest.mark.parametrize(("padded", "expected"), [(False, True), (True, False)])
def test_digit_strings_only_when_unpadded(client, table_name, padded, expected) -> None:
    name = table_name()
    create_table(client, table_definition(name, ("pk", "S"), ("sk", "S")))
    write_items(
        client,
        name,
        [{"pk": "p", "sk": f"{n:04d}" if padded else str(n)} for n in range(1, 30)],
    )
    found, _ = run(
        client,
        from_expressions(name, key_condition="pk = :p", values={":p": {"S": "p"}}, page_size=10),
    )
    assert ("digit-strings" in found) is expected
    if expected:
        match = re.search(r"'(\d+)' sorts before '(\d+)'", found["digit-strings"])
        assert match, found["digit-strings"]
        first, second = match.groups()
        assert first.encode() < second.encode() and int(first) > int(second)


def test_numeric_sort_key_has_no_digit_finding(client, schema) -> None:
    found, _ = run(client, from_key(schema, index="by_total", partition_value="acme"), pages=2)
    assert "digit-strings" not in found
    assert "digit-strings" in run(client, from_key(schema, partition_value="acme"), pages=2)[0]


def test_a_scan_gets_each_finding_once_and_no_key_condition_words(client, schema) -> None:
    """A Scan with a rare filter: sort-key order is judged within a partition only, the
    GSI whose key the filter tests is named once, and no finding speaks of a key condition."""
    spec = from_expressions(schema.name, scan=True, filter="status = :r", values=RARE)
    pager = query_pager(client, spec, schema)
    pages = walk(pager, limit=8)
    found = {f.kind: f.text for f in pager.advisor.findings()}
    texts = list(found.values())
    assert sum("`by_status`" in text for text in texts) == 1, texts
    assert not any("key condition" in text for text in texts), texts
    assert "GSI `by_status`" in found["query-instead"]
    # Ground truth from the items read: which partitions hold an inverted pair.
    by_partition: dict[str, list[str]] = {}
    for page in pages:
        for item in page.items:
            by_partition.setdefault(item["customer"]["S"], []).append(item["order_no"]["S"])
    inverted = {
        customer
        for customer, numbers in by_partition.items()
        if any(a.encode() < b.encode() and int(a) > int(b) for a in numbers for b in numbers)
    }
    across = {n for numbers in by_partition.values() for n in numbers}
    assert any(a.encode() < b.encode() and int(a) > int(b) for a in across for b in across), (
        "the pages read hold an inversion across partitions, the case a finding must not use"
    )
    if not inverted:
        assert "digit-strings" not in found, found["digit-strings"]
        return
    text = found["digit-strings"]
    match = re.search(r"'(\d+)' sorts before '(\d+)' within `customer` = '([^']+)'", text)
    assert match, text
    sorts_first, sorts_next, customer = match.groups()
    assert customer in inverted and {sorts_first, sorts_next} <= set(by_partition[customer])


@pytest.mark.parametrize(("within", "expected"), [(False, False), (True, True)])
def test_a_scan_compares_sort_keys_within_a_partition_only(
    client, table_name, within, expected
) -> None:
    name = table_name()
    create_table(client, table_definition(name, ("pk", "S"), ("sk", "S")))
    items = [{"pk": "a", "sk": "9"}, {"pk": "b", "sk": "23"}, {"pk": "c", "sk": "5"}]
    if within:
        items.append({"pk": "c", "sk": "10"})  # '10' sorts before '5' in partition c
    write_items(client, name, items)
    found, _ = run(client, from_expressions(name, scan=True, page_size=10))
    assert ("digit-strings" in found) is expected, found
    if expected:
        assert "'10' sorts before '5' within `pk` = 'c'" in found["digit-strings"]
