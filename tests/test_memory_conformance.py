"""The in-memory DynamoDB (``dynamodb/memory.py``) against DynamoDB Local: the same tables,
the same items, the same queries read by dynotui's own pager on both, page by page: the
same items in the same order, the same boundaries (start keys, next start keys), the same
Count, ScannedCount and read units, the same end of the data. DynamoDB Local is the truth;
a case the memory client answers otherwise fails here, whatever else passes on it."""

from __future__ import annotations

import os
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from boto3.dynamodb.types import TypeSerializer

from dynotui.core.errors import InputError
from dynotui.dynamodb.memory import MemoryDynamoDB
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import query_pager
from dynotui.dynamodb.spec import from_expressions, from_key
from dynotui.local.tables import Index, create_table, table_definition, write_items

MB_ITEM = "x" * 300_000  # four of these cross the 1 MB a call reads


def rows() -> dict[str, list[dict[str, Any]]]:
    """Each table's items: numbers and strings in awkward orders, sparse index keys, items
    from a few bytes to 300 KB (4 KB rounding and the 1 MB cut)."""
    words = ["9", "10", "a", "B", "é", "z\u00e9", "zz", "\u4e2d", "a b", "0"]
    return {
        "strings": [
            {
                "k": "p",
                "s": f"{w}-{i}",
                "n": Decimal(i) / 3 if i % 3 else i * 1000,
                "hit": "yes" if i % 4 == 0 else "no",
                "pad": "x" * (i * 450),  # sizes across several 4 KB blocks
                **({"g": f"g{i % 3}", "gs": Decimal(100 - i)} if i % 2 else {}),
                "nested": {"a": [1, {"b": f"v{i}"}], "c": "d"},
            }
            for i, w in enumerate(words * 3)
        ]
        + [{"k": "q", "s": f"{i:03d}", "hit": "yes", "n": 1} for i in range(7)],
        "numbers": [
            {"k": "p", "s": Decimal(v), "hit": "yes" if i % 3 else "no"}
            for i, v in enumerate(
                ["-10", "-1.5", "-0.001", "0", "0.5", "1", "2", "9", "10", "100", "1e10", "3.25"]
            )
        ],
        "big": [{"k": "p", "s": f"{i:02d}", "blob": MB_ITEM} for i in range(9)],
    }


def definitions(prefix: str) -> dict[str, dict[str, Any]]:
    return {
        "strings": table_definition(
            f"{prefix}strings",
            ("k", "S"),
            ("s", "S"),
            local_indexes=(Index("by_n", ("k", "S"), ("n", "N"), projection="KEYS_ONLY"),),
            global_indexes=(
                Index("by_g", ("g", "S"), ("gs", "N"), projection="INCLUDE", include=("hit",)),
                Index("g_all", ("g", "S"), ("s", "S")),
            ),
        ),
        "numbers": table_definition(f"{prefix}numbers", ("k", "S"), ("s", "N")),
        "big": table_definition(f"{prefix}big", ("k", "S"), ("s", "S")),
    }


class Both:
    """The same tables on DynamoDB Local and in memory."""

    def __init__(self, local: Any, prefix: str) -> None:
        self.local = local
        self.memory = MemoryDynamoDB()
        self.names: dict[str, str] = {}
        serialize = TypeSerializer().serialize
        for key, definition in definitions(prefix).items():
            items = rows()[key]
            create_table(local, definition)
            write_items(local, definition["TableName"], items)
            self.memory.create_table(**definition)
            low = [{n: serialize(v) for n, v in item.items()} for item in items]
            self.memory.batch_write_item(
                RequestItems={definition["TableName"]: [{"PutRequest": {"Item": i}} for i in low]}
            )
            self.names[key] = definition["TableName"]


@pytest.fixture(scope="module")
def both(client: Any) -> Both:
    return Both(client, f"conf{os.getpid()}-")


def pages_of(client: Any, table: str, limit: int = 50, **spec_args: Any) -> list[dict]:
    """Every page dynotui reads, as the figures to compare."""
    schema = describe_table(client, table)
    make = from_expressions if "key_condition" in spec_args or spec_args.get("scan") else from_key
    spec = make(schema, **spec_args) if make is from_key else make(table, **spec_args)
    pager = query_pager(client, spec, schema)
    seen = []
    for _ in range(limit):
        page = pager.next()
        seen.append(
            {
                "number": page.number,
                "items": page.items,
                "start": page.start_key,
                "next": page.next_start_key,
                "has_next": page.has_next,
                "ended_by": page.ended_by,
                "count": page.cost.matched,
                "scanned": page.cost.read,
                "requests": page.cost.requests,
                "units": page.cost.capacity.as_json() if page.cost.capacity else None,
            }
        )
        if page.next_start_key is None:
            return seen
    raise AssertionError("more pages than a case reads")


def same(both: Both, table: str, **spec_args: Any) -> list[dict]:
    name = both.names[table]
    local = pages_of(both.local, name, **spec_args)
    memory = pages_of(both.memory, name, **spec_args)
    assert len(memory) == len(local)
    for mine, truth in zip(memory, local, strict=True):
        assert mine == truth, f"page {truth['number']}"
    return local


CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "raw": ("strings", {"partition_value": "p", "page_size": 7}),
    "raw-limit-ends-exactly": ("strings", {"partition_value": "q", "page_size": 7}),
    "raw-filter": (
        "strings",
        {
            "partition_value": "p",
            "page_size": 4,
            "filter": "hit = :y",
            "filter_values": {":y": {"S": "yes"}},
        },
    ),
    "fill-filter": (
        "strings",
        {
            "partition_value": "p",
            "page_size": 3,
            "mode": "fill",
            "filter": "hit = :y",
            "filter_values": {":y": {"S": "yes"}},
        },
    ),
    "fill-rounds-cap": (
        "strings",
        {
            "partition_value": "p",
            "page_size": 4,
            "mode": "fill",
            "max_rounds": 1,
            "filter": "hit = :y AND size(pad) > :z",
            "filter_values": {":y": {"S": "yes"}, ":z": {"N": "100"}},
        },
    ),
    "backwards": ("strings", {"partition_value": "p", "page_size": 8, "forward": False}),
    "begins-with": (
        "strings",
        {"partition_value": "p", "sort_operator": "begins_with", "sort_values": ["z"]},
    ),
    "between": (
        "strings",
        {"partition_value": "p", "sort_operator": "BETWEEN", "sort_values": ["1", "a-9"]},
    ),
    "numbers": ("numbers", {"partition_value": "p", "page_size": 5}),
    "numbers-less": (
        "numbers",
        {"partition_value": "p", "sort_operator": "<", "sort_values": ["2"], "page_size": 2},
    ),
    "numbers-fill-back": (
        "numbers",
        {
            "partition_value": "p",
            "page_size": 2,
            "mode": "fill",
            "forward": False,
            "filter": "hit = :y",
            "filter_values": {":y": {"S": "yes"}},
        },
    ),
    "lsi-keys-only": ("strings", {"index": "by_n", "partition_value": "p", "page_size": 6}),
    "gsi-include-sparse": ("strings", {"index": "by_g", "partition_value": "g1", "page_size": 2}),
    "gsi-all-filter": (
        "strings",
        {
            "index": "g_all",
            "partition_value": "g0",
            "page_size": 2,
            "mode": "fill",
            "filter": "hit = :y",
            "filter_values": {":y": {"S": "no"}},
        },
    ),
    "projection": (
        "strings",
        {"partition_value": "p", "page_size": 9, "projection": "hit, nested.a[1].b, nested.c"},
    ),
    "consistent": ("strings", {"partition_value": "p", "page_size": 9, "consistent_read": True}),
    "one-mb-cut": ("big", {"partition_value": "p", "page_size": 8}),
    "one-mb-fill": ("big", {"partition_value": "p", "page_size": 5, "mode": "fill"}),
    "absent-partition": ("strings", {"partition_value": "nobody", "page_size": 5}),
    "scan-one-partition": ("big", {"scan": True, "page_size": 2}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_same_query_pages_alike_in_memory_and_on_dynamodb_local(both: Both, case: str) -> None:
    table, spec_args = CASES[case]
    pages = same(both, table, **spec_args)
    assert pages[-1]["has_next"].value == "no"  # read to the end on both


def test_the_cases_read_what_they_are_about(both: Both) -> None:
    """The cases hold what they are named for (on DynamoDB Local): a filter below Limit, an
    empty page with a key, a page cut by 1 MB, units past one 4 KB block."""
    raw = same(both, "strings", **CASES["raw-filter"][1])
    assert any(p["count"] < p["scanned"] for p in raw)
    assert any(p["count"] == 0 and p["next"] is not None for p in raw)
    cut = same(both, "big", **CASES["one-mb-cut"][1])
    assert cut[0]["ended_by"].value == "size" and cut[0]["scanned"] < 8
    units = [p["units"]["total"] for p in same(both, "strings", **CASES["raw"][1])]
    assert max(units) > 1
    ends = same(both, "strings", **CASES["raw-limit-ends-exactly"][1])
    assert [len(p["items"]) for p in ends] == [7, 0]  # a key came back at the very end


def test_a_stored_boundary_whose_item_is_gone_resumes_after_it_on_both(
    client: Any, table_name: Callable[[str], str]
) -> None:
    name = table_name()
    memory = MemoryDynamoDB()
    definition = table_definition(name, ("k", "S"), ("s", "S"))
    items = [{"k": "p", "s": f"{i:02d}"} for i in range(9)]
    create_table(client, definition)
    write_items(client, name, items)
    memory.create_table(**definition)
    memory.put(name, items)
    boundary = {"k": {"S": "p"}, "s": {"S": "03"}}
    for db in (client, memory):
        db.delete_item(TableName=name, Key=boundary)
    got = []
    for db in (client, memory):
        schema = describe_table(db, name)
        spec = from_key(schema, partition_value="p", page_size=3)
        pager = query_pager(db, spec, schema, start_key=boundary)
        got.append([item["s"]["S"] for item in pager.next().items])
    assert got[0] == got[1] == ["04", "05", "06"]


def test_the_tables_describe_alike(both: Both) -> None:
    for name in both.names.values():
        local, memory = describe_table(both.local, name), describe_table(both.memory, name)
        assert memory.orders == local.orders
        assert memory.item_count == local.item_count and memory.attributes == local.attributes


@pytest.mark.parametrize(
    "spec_args",
    [
        {"partition_value": "p", "consistent_read": True, "index": "by_g"},
        {"partition_value": "p", "filter": "s = :v", "filter_values": {":v": {"S": "a"}}},
    ],
    ids=["consistent-gsi", "filter-on-key"],
)
def test_what_dynamodb_refuses_is_refused_in_memory_too(both: Both, spec_args: Any) -> None:
    """Refused by dynotui before any call, or by the database: the same on both."""
    name = both.names["strings"]
    words = []
    for db in (both.local, both.memory):
        schema = describe_table(db, name)
        with pytest.raises(InputError) as refused:
            spec = from_key(schema, **spec_args)
            query_pager(db, spec, schema).next()
        words.append(type(refused.value))
    assert words[0] is words[1]
