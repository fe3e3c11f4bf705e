"""What-if estimates held to a real index: each shape's imagined GSI is created for real,
with the generated update_table call, on a copy of the table in DynamoDB Local; the items
are written there with ReturnConsumedCapacity=INDEXES, and the rewritten Query is paged
through the real index by dynotui's pager. The estimate must match: matches exactly,
pages within one, read units and write units per put within 15%."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from dynotui.core.pager import Pager
from dynotui.dynamodb.codegen import code_target
from dynotui.dynamodb.dynamo_json import from_wire
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import QuerySpec, from_expressions
from dynotui.dynamodb.what_if.code import boto3_code, update_table_params
from dynotui.dynamodb.what_if.estimate import Estimate, WhatIf
from dynotui.dynamodb.what_if.rewrite import ImaginedIndex
from dynotui.local import demo
from dynotui.local.tables import create_table, table_definition, write_items

TOLERANCE = 0.15


@dataclass
class Truth:
    pages: int
    matches: int
    read_units: float
    write_units_per_put: float
    index_items: int


def _scan_all(client: Any, table: str, **filters: Any) -> list[dict]:
    items: list[dict] = []
    params: dict[str, Any] = {"TableName": table, **filters}
    while True:
        response = client.scan(**params)
        items.extend(response["Items"])
        if "LastEvaluatedKey" not in response:
            return items
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def _query_all(client: Any, table: str, name: str, value: dict[str, Any]) -> list[dict]:
    items: list[dict] = []
    params: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": "#k = :v",
        "ExpressionAttributeNames": {"#k": name},
        "ExpressionAttributeValues": {":v": value},
    }
    while True:
        response = client.query(**params)
        items.extend(response["Items"])
        if "LastEvaluatedKey" not in response:
            return items
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def _wait_for_active_index(client: Any, table: str, index_name: str) -> None:
    for _ in range(600):
        described = client.describe_table(TableName=table)["Table"]
        statuses = [
            i.get("IndexStatus")
            for i in described.get("GlobalSecondaryIndexes", [])
            if i["IndexName"] == index_name
        ]
        if statuses == ["ACTIVE"]:
            return
        time.sleep(0.1)
    raise AssertionError(f"index {index_name} on {table} never became ACTIVE")


def build_real_index(
    client: Any, estimate: Estimate, asked: QuerySpec, copy: str, items: list[dict]
) -> Truth:
    """The copy: the source's key schema, the index made by the generated boto3 code, the
    items written in batches with their consumed capacity by index."""
    source = client.describe_table(TableName=asked.table)["Table"]
    client.create_table(
        TableName=copy,
        BillingMode="PAY_PER_REQUEST",
        KeySchema=source["KeySchema"],
        AttributeDefinitions=[
            a
            for a in source["AttributeDefinitions"]
            if a["AttributeName"] in {k["AttributeName"] for k in source["KeySchema"]}
        ],
    )
    client.get_waiter("table_exists").wait(TableName=copy, WaiterConfig={"Delay": 0.2})
    params = update_table_params(copy, estimate.index, estimate.partition_type, estimate.sort_type)
    code = boto3_code(params, code_target(client))
    ran = subprocess.run(  # the code as shown, run as a user would
        [sys.executable, "-c", code],
        env={**os.environ, "AWS_ACCESS_KEY_ID": "dynotui", "AWS_SECRET_ACCESS_KEY": "dynotui"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    client.get_waiter("table_exists").wait(TableName=copy, WaiterConfig={"Delay": 0.2})
    created = client.describe_table(TableName=copy)["Table"]["GlobalSecondaryIndexes"]
    assert [i["IndexName"] for i in created] == [estimate.index.index_name]
    assert (
        created[0]["KeySchema"] == params["GlobalSecondaryIndexUpdates"][0]["Create"]["KeySchema"]
    )
    assert (
        created[0]["Projection"] == params["GlobalSecondaryIndexUpdates"][0]["Create"]["Projection"]
    )
    # Written as they are (low-level values), 25 a batch, the GSI's units summed.
    # The index must be ACTIVE first: DynamoDB Local hands a batch back unprocessed (0 units)
    # while it still backfills. What comes back unprocessed is sent again, as the SDK's docs
    # say to; only processed writes report units, so the sum stays the index's cost.
    _wait_for_active_index(client, copy, estimate.index.index_name)
    index_units = 0.0
    for start in range(0, len(items), 25):
        pending = {copy: [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]}
        for _attempt in range(50):
            response = client.batch_write_item(
                RequestItems=pending, ReturnConsumedCapacity="INDEXES"
            )
            for consumed in response["ConsumedCapacity"]:
                gsis = consumed.get("GlobalSecondaryIndexes", {})
                index_units += gsis.get(estimate.index.index_name, {}).get("CapacityUnits", 0.0)
            pending = response.get("UnprocessedItems") or {}
            if not pending:
                break
        assert not pending, "DynamoDB Local kept a batch unprocessed 50 times"
    schema = describe_table(client, copy)
    in_index = schema.order(estimate.index.index_name).item_count
    request = estimate.query_request
    spec = QuerySpec(
        table=copy,
        index=request["IndexName"],
        key_condition=request["KeyConditionExpression"],
        filter=request.get("FilterExpression"),
        names=request["ExpressionAttributeNames"],
        values=from_wire(request["ExpressionAttributeValues"]),
        forward=request.get("ScanIndexForward", True),
        page_size=asked.page_size,
        mode=asked.mode,
        max_rounds=asked.max_rounds,
    )
    pager = Pager(QuerySource(client, spec, schema))
    shown = 0
    while pager.can_advance:
        shown += pager.next().shown
    cost = pager.totals.cost
    assert in_index, "the real index holds nothing: the shape tests nothing"
    return Truth(
        pages=pager.totals.pages_read,
        matches=shown,
        read_units=cost.capacity.total,
        write_units_per_put=index_units / in_index,
        index_items=in_index,
    )


def check(estimate: Estimate, truth: Truth) -> None:
    what_if = estimate.what_if
    assert estimate.sample.complete, estimate.notes
    assert what_if.matches.point == truth.matches
    assert abs(what_if.pages.point - truth.pages) <= 1, (what_if.pages, truth.pages)
    assert what_if.read_units.point == pytest.approx(truth.read_units, rel=TOLERANCE)
    assert estimate.cost.write_units_per_put == pytest.approx(
        truth.write_units_per_put, rel=TOLERANCE
    )


def run_what_if(client: Any, spec: QuerySpec, index: ImaginedIndex, **options: Any) -> Estimate:
    schema = describe_table(client, spec.table)
    return WhatIf(client, spec, schema, index, **options).run()


def values(**typed: Any) -> dict[str, Any]:
    return from_wire({f":{k}": v for k, v in typed.items()})


# -- shape 1: the demo's acme RETURNED query ------------------------------------------------


def test_demo_returned_query_on_status_customer_index(
    client: Any, demo_table: str, table_name: Callable[[str], str]
) -> None:
    spec = from_expressions(
        demo_table,
        key_condition="customer = :c",
        filter="status = :r",
        values=values(c={"S": demo.BIG_CUSTOMER}, r={"S": demo.RARE_STATUS}),
        page_size=10,
        mode="fill",
    )
    estimate = run_what_if(client, spec, ImaginedIndex("status", "customer"), max_read_units=5000)
    assert estimate.what_if.key_condition == 'status = "RETURNED" AND customer = "acme"'
    assert estimate.what_if.filter is None
    acme = _query_all(client, demo_table, "customer", {"S": demo.BIG_CUSTOMER})
    truth = build_real_index(client, estimate, spec, table_name("copy"), acme)
    check(estimate, truth)
    # The point of the index: a small fraction of what the query reads now.
    assert estimate.what_if.read_units.point < estimate.now.read_units.point / 10


# -- shape 2: a sparse index -----------------------------------------------------------------


@pytest.fixture(scope="module")
def sparse_table(client: Any) -> str:
    name = "what-if-sparse"
    create_table(client, table_definition(name, ("customer", "S"), ("order_no", "S")))
    rng = random.Random(28)
    items = []
    for customer in ("c1", "c2"):
        for n in range(600):
            item: dict[str, Any] = {
                "customer": customer,
                "order_no": f"{n:05d}",
                "note": "x" * rng.randint(10, 900),
            }
            if rng.random() < 0.08:
                item["flag"] = rng.choice(["review", "vip"])
                if rng.random() < 0.7:  # some flagged orders lack the sort key
                    item["total"] = rng.randint(1, 10**6) / 100
            items.append(item)
    from decimal import Decimal

    for item in items:
        if "total" in item:
            item["total"] = Decimal(str(item["total"]))
    write_items(client, name, items)
    return name


def test_sparse_index_leaves_out_items_without_its_keys(
    client: Any, sparse_table: str, table_name: Callable[[str], str]
) -> None:
    spec = from_expressions(
        sparse_table,
        key_condition="customer = :c",
        filter="flag = :f",
        values=values(c={"S": "c1"}, f={"S": "review"}),
        page_size=5,
    )
    index = ImaginedIndex("flag", "total", projection="ALL")
    estimate = run_what_if(client, spec, index, max_read_units=5000, table_sample=True)
    # customer = c1 is not a key of the new index: it stays a filter, and the index
    # partition holds c2's flagged orders too, which only the table sample sees.
    assert estimate.what_if.filter == 'customer = "c1"'
    assert estimate.sort_type == "N"
    assert estimate.what_if.matches.point < estimate.now.matches.point
    assert any("sparse index does not hold them" in note for note in estimate.notes)
    items = _scan_all(client, sparse_table)
    truth = build_real_index(client, estimate, spec, table_name("copy"), items)
    check(estimate, truth)
    assert estimate.cost.items.point == truth.index_items


# -- shape 3: KEYS_ONLY, items of 50 B to 6 KB ---------------------------------------------


@pytest.fixture(scope="module")
def sized_table(client: Any) -> str:
    name = "what-if-sized"
    create_table(client, table_definition(name, ("pk", "S"), ("sk", "S")))
    rng = random.Random(6)
    items = []
    for n in range(500):
        size = rng.randint(50, 6000)
        items.append(
            {
                "pk": rng.choice(["p1", "p2"]),
                "sk": f"s{n:04d}",
                "group": rng.choice(["a", "b", "c"]),
                "pad": "y" * max(1, size - 30),
            }
        )
    write_items(client, name, items)
    return name


def test_keys_only_index_reads_entries_not_items(
    client: Any, sized_table: str, table_name: Callable[[str], str]
) -> None:
    spec = from_expressions(
        sized_table,
        key_condition="pk = :p",
        filter="#g = :g",
        names={"#g": "group"},
        values=values(p={"S": "p1"}, g={"S": "b"}),
        page_size=20,
    )
    index = ImaginedIndex("group", "pk", projection="KEYS_ONLY")
    estimate = run_what_if(client, spec, index, max_read_units=5000)
    assert estimate.what_if.filter is None  # pk = p1 became the sort key condition
    items = _scan_all(client, sized_table)
    truth = build_real_index(client, estimate, spec, table_name("copy"), items)
    check(estimate, truth)
    assert estimate.cost.write_units_per_put == 1.0  # keys only: one unit a put


# -- shape 4: a sort-key range condition -----------------------------------------------------


@pytest.fixture(scope="module")
def readings_table(client: Any) -> str:
    name = "what-if-readings"
    create_table(client, table_definition(name, ("device", "S"), ("at", "S")))
    rng = random.Random(4)
    from decimal import Decimal

    items = [
        {
            "device": f"d{rng.randint(1, 3)}",
            "at": f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}",
            "temp": Decimal(rng.randint(-400, 1200)) / 10,
            "kind": rng.choice(["air", "water"]),
            "log": "z" * rng.randint(0, 2500),
        }
        for n in range(1200)
    ]
    write_items(client, name, items)
    return name


def test_sort_key_range_becomes_the_key_condition(
    client: Any, readings_table: str, table_name: Callable[[str], str]
) -> None:
    spec = from_expressions(
        readings_table,
        key_condition="device = :d",
        filter="temp BETWEEN :lo AND :hi AND kind = :k",
        values=values(d={"S": "d2"}, lo={"N": "20"}, hi={"N": "35.5"}, k={"S": "air"}),
        page_size=15,
        mode="fill",
    )
    index = ImaginedIndex("device", "temp", projection="INCLUDE", include=("kind",))
    estimate = run_what_if(client, spec, index, max_read_units=5000)
    assert estimate.what_if.key_condition == 'device = "d2" AND temp BETWEEN 20 AND 35.5'
    assert estimate.what_if.filter == 'kind = "air"'
    items = _scan_all(client, readings_table)
    truth = build_real_index(client, estimate, spec, table_name("copy"), items)
    check(estimate, truth)


def test_a_filter_that_cannot_be_a_key_condition_reads_the_whole_partition(
    client: Any, readings_table: str, table_name: Callable[[str], str]
) -> None:
    spec = from_expressions(
        readings_table,
        key_condition="device = :d",
        filter="contains(log, :z) AND temp > :t",
        values=values(d={"S": "d1"}, z={"S": "zzzz"}, t={"N": "30"}),
        page_size=25,
    )
    index = ImaginedIndex("device", "kind")
    estimate = run_what_if(client, spec, index, max_read_units=5000)
    assert any(
        "no condition tests the sort key 'kind'" in note and "whole index partition" in note
        for note in estimate.notes
    )
    assert estimate.what_if.key_condition == 'device = "d1"'
    items = _scan_all(client, readings_table)
    truth = build_real_index(client, estimate, spec, table_name("copy"), items)
    check(estimate, truth)
    # The whole partition is read: as many items as the current query reads.
    assert estimate.what_if.scanned.point == estimate.now.scanned.point


# -- a partial read gives ranges -------------------------------------------------------------


def test_a_budget_too_small_gives_ranges_and_says_so(client: Any, demo_table: str) -> None:
    spec = from_expressions(
        demo_table,
        key_condition="customer = :c",
        filter="status = :r",
        values=values(c={"S": demo.BIG_CUSTOMER}, r={"S": demo.RARE_STATUS}),
        page_size=50,
    )
    estimate = run_what_if(client, spec, ImaginedIndex("status", "customer"), max_read_units=20)
    assert not estimate.sample.complete
    assert estimate.sample.stopped_by == "max-read-units"
    body = estimate.as_json()
    assert body["sample"]["complete"] is False
    assert isinstance(body["now"]["read_units"], dict) and body["now"]["read_units"]["high"] is None
    assert isinstance(body["what_if"]["pages"], dict)
    assert any("--max-read-units 20" in note for note in estimate.notes)
    json.dumps(body)  # one JSON object, all of it serializable


# -- scaling a partial table sample: made-up copies are entries of their own ----------------


@pytest.fixture(scope="module")
def spread_table(client: Any) -> str:
    """600 items in 30 partitions, every one of kind k and about 500 bytes: an index on
    kind holds them all, and a Query on one partition sees 20 of them."""
    name = "what-if-spread"
    create_table(client, table_definition(name, ("pk", "S"), ("sk", "S")))
    items = [
        {"pk": f"p{n % 30:02d}", "sk": f"s{n:04d}", "kind": "k", "n": n, "pad": "z" * 450}
        for n in range(600)
    ]
    write_items(client, name, items)
    return name


def test_scaled_copies_are_each_paged_as_entries_of_their_own(
    client: Any, spread_table: str, table_name: Callable[[str], str]
) -> None:
    """A table sample cut short is scaled by copies of the items it read. Copies that kept
    their originals' keys were one entry to the simulated index: a page ending on one
    copy went on after the last of them, and the copies between were never read, so the
    scaled figures fell short of the real index's."""
    spec = from_expressions(
        spread_table,
        key_condition="pk = :p",
        filter="kind = :k",
        values=values(p={"S": "p03"}, k={"S": "k"}),
        page_size=7,
    )
    index = ImaginedIndex("kind", "n", projection="ALL")
    estimate = run_what_if(client, spec, index, max_read_units=20)
    assert not estimate.sample.complete  # scaled: the sample is part of the table
    assert any("Scan sample of" in note for note in estimate.notes), estimate.notes
    truth = build_real_index(
        client, estimate, spec, table_name("copy"), _scan_all(client, spread_table)
    )
    what_if = estimate.what_if
    low, high = what_if.read_units.low, what_if.read_units.high
    assert high is not None
    # The whole table is of kind k: the real index's drain lies at the top of the range.
    assert low <= truth.read_units * (1 + TOLERANCE), (low, high, truth)
    assert high == pytest.approx(truth.read_units, rel=TOLERANCE), (low, high, truth)
    assert what_if.pages.high is not None
    assert abs(what_if.pages.high - truth.pages) <= 1, (what_if.pages, truth.pages)


@pytest.mark.parametrize(
    "value",
    [{"S": "order#7"}, {"S": ""}, {"B": b"\x00\xff"}, {"N": "0"}, {"N": "-1.5E+120"},
     {"N": "7E-130"}, {"N": "12345678901234567890123456789012345678"}],
)  # fmt: skip
def test_a_copys_own_key_is_its_own_and_sorts_just_after_the_original(value: dict) -> None:
    from dynotui.dynamodb.what_if.evaluate import order_key
    from dynotui.dynamodb.what_if.simulated_query import own_value

    copies = [own_value(value, n) for n in (1, 2, 3)]
    assert [next(iter(c)) for c in copies] == [next(iter(value))] * 3  # the type is kept
    keys = [order_key(value), *(order_key(c) for c in copies)]
    assert keys == sorted(keys) and len(set(keys)) == 4
