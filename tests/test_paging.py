"""The pager against DynamoDB Local, each test checked against a plain boto3 loop."""

from __future__ import annotations

import base64
import dataclasses
import itertools
from collections import Counter
from decimal import Decimal
from typing import Any

import pytest
from helpers import drain, items_of, rare_spec, walk

from dynotui.core.errors import ServiceError
from dynotui.core.page import EndedBy, HasNext
from dynotui.core.pager import NoProgressError
from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import query_pager
from dynotui.dynamodb.spec import from_key
from dynotui.local import demo
from dynotui.local.tables import Index, create_table, table_definition, write_items

RARE = {":r": {"S": demo.RARE_STATUS}}


def keys(items: list[dict], *names: str) -> list[tuple]:
    return [tuple(str(item[n]) for n in names) for item in items]


@pytest.fixture(scope="module")
def schema(client: Any, demo_table: str) -> Any:
    return describe_table(client, demo_table)


@pytest.fixture(scope="module")
def rare_truth(client: Any, demo_table: str) -> list[dict]:
    return drain(
        client,
        TableName=demo_table,
        KeyConditionExpression="customer = :c",
        FilterExpression="#s = :r",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":c": {"S": demo.BIG_CUSTOMER}, **RARE},
    )


def test_raw_filter_pages_continue_past_empty_pages(client, schema, rare_truth) -> None:
    spec = rare_spec(
        schema,
        page_size=25,
    )
    pages = walk(query_pager(client, spec, schema))
    assert items_of(pages) == rare_truth
    empty_with_key = [p for p in pages if p.empty_with_key]
    assert empty_with_key, "the rare filter must produce empty pages that still carry a key"
    for page in pages[:-1]:
        assert page.has_next is HasNext.UNKNOWN and page.next_start_key is not None
        assert page.ended_by in (EndedBy.LIMIT, EndedBy.SIZE)
        assert page.scanned_count <= 25 and page.cost.requests == 1
    assert pages[-1].has_next is HasNext.NO and pages[-1].ended_by is EndedBy.END
    assert sum(p.scanned_count for p in pages) == demo_count(client, schema.name)


def demo_count(client: Any, table: str) -> int:
    return len(
        drain(
            client,
            TableName=table,
            KeyConditionExpression="customer = :c",
            ExpressionAttributeValues={":c": {"S": demo.BIG_CUSTOMER}},
            ProjectionExpression="order_no",
        )
    )


def test_fill_pages_hold_exactly_page_size(client, schema, rare_truth) -> None:
    spec = rare_spec(
        schema,
        page_size=10,
        mode="fill",
        max_rounds=100,
    )
    pages = walk(query_pager(client, spec, schema))
    shown = items_of(pages)
    assert shown == rare_truth, "nothing lost, nothing repeated, same order"
    for page in pages[:-1]:
        assert len(page.items) == 10
        assert page.has_next is HasNext.YES and page.ended_by is EndedBy.PAGE_SIZE
        assert page.count >= 11, "the extra match that proves a next page"
        # the next start key is the last item shown, not the LastEvaluatedKey
        last = page.items[-1]
        assert page.next_start_key == {"customer": last["customer"], "order_no": last["order_no"]}
    assert pages[-1].has_next is HasNext.NO
    assert len(pages[-1].items) <= 10


def test_fill_round_cap_is_reported_and_loses_nothing(client, schema, rare_truth) -> None:
    spec = rare_spec(
        schema,
        page_size=20,
        mode="fill",
        max_rounds=1,
    )
    pages = walk(query_pager(client, spec, schema))
    assert items_of(pages) == rare_truth
    capped = [p for p in pages if p.ended_by is EndedBy.ROUNDS]
    assert capped, "one round of Limit 21 under a 2.5% filter must hit the cap"
    for page in capped:
        assert page.cost.requests == 1 and page.has_next is HasNext.UNKNOWN
        assert page.next_start_key == page.extra["last_evaluated_key"]


def test_gsi_ties_derive_keys_with_table_keys(client, schema, demo_table) -> None:
    truth = drain(
        client,
        TableName=demo_table,
        IndexName="by_status",
        KeyConditionExpression="#s = :v",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":v": {"S": "CANCELLED"}},
    )
    spec = from_key(
        schema, index="by_status", partition_value="CANCELLED", page_size=7, mode="fill"
    )
    pages = walk(query_pager(client, spec, schema))
    assert keys(items_of(pages), "customer", "order_no") == keys(truth, "customer", "order_no")
    inside_tie = 0
    for page, following in itertools.pairwise(pages):
        assert set(page.next_start_key) == {"status", "placed_on", "customer", "order_no"}
        if following.items and following.items[0]["placed_on"] == page.items[-1]["placed_on"]:
            inside_tie += 1
    assert inside_tie > 0, "some page boundary must fall between items with equal index keys"
    assert all(p.cost.capacity.indexes.get("by_status", 0) > 0 for p in pages)
    assert all(p.cost.capacity.table == 0 for p in pages)


def test_pages_cut_by_one_megabyte(client, schema, demo_table) -> None:
    truth = drain(
        client,
        TableName=demo_table,
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues={":c": {"S": demo.ARCHIVE_CUSTOMER}},
    )
    spec = from_key(schema, partition_value=demo.ARCHIVE_CUSTOMER, page_size=100)
    pages = walk(query_pager(client, spec, schema))
    assert keys(items_of(pages), "order_no") == keys(truth, "order_no")
    cut = [p for p in pages if p.ended_by is EndedBy.SIZE]
    assert cut and all(p.scanned_count < 100 and p.next_start_key for p in cut)
    assert max(p.cost.capacity.total for p in pages) > 50

    fill = from_key(schema, partition_value=demo.ARCHIVE_CUSTOMER, page_size=30, mode="fill")
    fill_pages = walk(query_pager(client, fill, schema))
    assert keys(items_of(fill_pages), "order_no") == keys(truth, "order_no")
    assert any(p.cost.requests > 1 for p in fill_pages), "1 MB cuts force more than one round"


def test_string_sort_key_orders_by_bytes_and_descending_reverses(client, schema) -> None:
    spec = from_key(schema, partition_value=demo.BIG_CUSTOMER, page_size=500)
    forward = [i["order_no"]["S"] for i in items_of(walk(query_pager(client, spec, schema)))]
    assert forward.index("10") < forward.index("9")
    assert forward == sorted(forward, key=lambda s: s.encode())
    backward_pages = walk(query_pager(client, spec.with_(forward=False), schema))
    backward = [i["order_no"]["S"] for i in items_of(backward_pages)]
    assert backward == forward[::-1]
    truth = drain(
        client,
        TableName=schema.name,
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues={":c": {"S": demo.BIG_CUSTOMER}},
        ScanIndexForward=False,
    )
    assert backward == [i["order_no"]["S"] for i in truth]


@pytest.fixture(scope="module")
def typed_table(client: Any) -> str:
    """A table keyed (pk S, n N) with an LSI on b (B): numeric and binary sort keys."""
    name = "typed-sort-keys"
    create_table(
        client,
        table_definition(
            name,
            ("pk", "S"),
            ("n", "N"),
            local_indexes=(Index("by_b", ("pk", "S"), ("b", "B"), "KEYS_ONLY"),),
        ),
    )
    numbers = [Decimal(x) for x in ("-5", "0.5", "2", "9", "10", "100", "-0.25", "1e3", "7")]
    blobs = [b"\x00", b"\xff", b"\x7f", b"\x80\x00", b"a", b"\x00\x01", b"\xfe\xff", b"Z", b"\x10"]
    write_items(
        client,
        name,
        [
            {"pk": "p", "n": n, "b": blob, "size": i}
            for i, (n, blob) in enumerate(zip(numbers, blobs, strict=True))
        ],
    )
    return name


@pytest.mark.parametrize("mode", ["raw", "fill"])
def test_numeric_sort_key_orders_numerically(client, typed_table, mode) -> None:
    schema = describe_table(client, typed_table)
    spec = from_key(schema, partition_value="p", page_size=2, mode=mode)
    got = [Decimal(i["n"]["N"]) for i in items_of(walk(query_pager(client, spec, schema)))]
    assert got == sorted(got) and len(got) == 9
    truth = drain(
        client,
        TableName=typed_table,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "p"}},
    )
    assert got == [Decimal(i["n"]["N"]) for i in truth]
    descending = from_key(schema, partition_value="p", page_size=4, mode=mode, forward=False)
    got_desc = [
        Decimal(i["n"]["N"]) for i in items_of(walk(query_pager(client, descending, schema)))
    ]
    assert got_desc == got[::-1]


@pytest.mark.parametrize("mode", ["raw", "fill"])
def test_binary_sort_key_orders_by_unsigned_bytes(client, typed_table, mode) -> None:
    schema = describe_table(client, typed_table)
    spec = from_key(schema, index="by_b", partition_value="p", page_size=2, mode=mode)
    pages = walk(query_pager(client, spec, schema))
    got = [bytes(i["b"]["B"]) for i in items_of(pages)]
    assert got == sorted(got) and len(got) == 9  # Python compares bytes unsigned, as DynamoDB
    assert got[0] == b"\x00" and got[-1] == b"\xff"
    if mode == "fill":
        assert set(pages[0].next_start_key) == {"pk", "b", "n"}
    between = from_key(
        schema,
        index="by_b",
        partition_value="p",
        sort_operator="BETWEEN",
        sort_values=[
            base64.b64encode(b"\x00\x01").decode(),
            base64.b64encode(b"\x80\x00").decode(),
        ],
        page_size=2,
        mode=mode,
    )
    got_between = [bytes(i["b"]["B"]) for i in items_of(walk(query_pager(client, between, schema)))]
    assert got_between == [b for b in got if b"\x00\x01" <= b <= b"\x80\x00"]


def test_reserved_word_attribute_in_filter_and_projection(client, typed_table) -> None:
    schema = describe_table(client, typed_table)
    spec = from_key(
        schema,
        partition_value="p",
        filter="size > :s",
        filter_values={":s": {"N": "4"}},
        projection="size",
        page_size=3,
        mode="fill",
    )
    items = items_of(walk(query_pager(client, spec, schema)))
    assert sorted(int(i["size"]["N"]) for i in items) == [5, 6, 7, 8]
    assert all(set(i) == {"pk", "n", "size"} for i in items), "keys are always projected"


def test_forward_then_back_gives_identical_pages(client, schema) -> None:
    spec = rare_spec(
        schema,
        page_size=5,
        mode="fill",
    )
    for cache_pages in (0, 20):
        pager = query_pager(client, spec, schema, cache_pages=cache_pages)
        forward = [pager.next() for _ in range(4)]
        calls_before = pager.totals.calls
        back = [pager.prev() for _ in range(3)]
        assert pager.number == 1 and not pager.has_prev
        assert [p.number for p in back] == [3, 2, 1]
        for page in back:
            assert page.items == forward[page.number - 1].items
            assert page.start_key == forward[page.number - 1].start_key
            assert page.cached is (cache_pages > 0)
        if cache_pages:
            assert pager.totals.calls == calls_before, "cached pages cost nothing"
        else:
            assert pager.totals.calls > calls_before, "re-read from the stored start key"
        assert pager.stack == [(n, p.start_key) for n, p in enumerate(forward, 1)] + [
            (5, forward[-1].next_start_key)
        ]
        assert pager.goto(4).items == forward[3].items
        assert pager.refresh().cached is False


def test_failed_call_leaves_stack_page_and_cache_intact(client, schema, ddb) -> None:
    spec = from_key(schema, partition_value=demo.BIG_CUSTOMER, page_size=50)
    pager = query_pager(client, spec, schema)
    for _ in range(3):
        pager.next()
    pager.prev()
    before = (pager.number, pager.stack, pager.cached_numbers(), pager.totals, pager.current)
    dead = make_client(
        ConnectionOptions(endpoint_url="http://127.0.0.1:9", region="us-east-1", max_attempts=1)
    )
    pager.source = pager.source.with_client(dead)
    for move in ("next", "refresh", "first"):
        with pytest.raises(ServiceError, match="cannot reach DynamoDB"):
            pager.go(move, fresh=True)
    assert (
        pager.number,
        pager.stack,
        pager.cached_numbers(),
        pager.totals,
        pager.current,
    ) == before
    pager.source = pager.source.with_client(client)
    assert pager.next().number == 3


def test_totals_and_series_add_up(client, schema) -> None:
    spec = rare_spec(
        schema,
        page_size=25,
    )
    pager = query_pager(client, spec, schema)
    pages = [pager.next() for _ in range(6)]
    assert pager.totals.pages_read == 6
    assert pager.totals.scanned == sum(p.scanned_count for p in pages)
    assert pager.totals.cost.capacity.total == pytest.approx(
        sum(p.cost.capacity.total for p in pages)
    )
    assert [p.number for p in pager.series()] == [1, 2, 3, 4, 5, 6]
    assert all(p.cost.capacity.total > 0 for p in pages)
    counts = Counter(p.waste_ratio > 0.5 for p in pages)
    assert counts[True] >= 1, "a 2.5% filter wastes most of what it reads"


def test_resume_from_start_key_starts_a_new_stack(client, schema) -> None:
    spec = from_key(schema, partition_value=demo.BIG_CUSTOMER, page_size=30)
    pager = query_pager(client, spec, schema)
    third = [pager.next() for _ in range(3)][-1]
    resumed = query_pager(client, spec, schema, start_key=third.start_key)
    page = resumed.next()
    assert page.number == 1 and page.items == third.items
    assert not resumed.has_prev


def test_list_tables_follows_every_page(client, typed_table, demo_table) -> None:
    from dynotui.dynamodb.schema import list_tables

    everything = client.list_tables(Limit=100)["TableNames"]
    assert len(everything) >= 2
    assert list_tables(client, page_size=1) == list_tables(client)
    assert {typed_table, demo_table} <= set(list_tables(client, page_size=1))


class Repeating:
    """A real Query source whose page ``at`` ends on the boundary page ``back_to`` began
    on, as a service answering with an earlier LastEvaluatedKey would."""

    def __init__(self, source: Any, at: int, back_to: int, starts: dict[int, Any]) -> None:
        self.source, self.at, self.back_to, self.starts = source, at, back_to, starts

    def __getattr__(self, name: str) -> Any:
        return getattr(self.source, name)

    def read_page(self, start_key: Any, number: int, **kwargs: Any) -> Any:
        page = self.source.read_page(start_key, number, **kwargs)
        self.starts.setdefault(number, start_key)
        if number == self.at:
            return dataclasses.replace(page, next_start_key=self.starts[self.back_to])
        return page


@pytest.mark.parametrize("back_to", [2, 4], ids=["an-earlier-page", "its-own-start"])
def test_a_walk_that_would_repeat_a_boundary_stops_with_an_error(
    client, schema, back_to: int
) -> None:
    spec = from_key(schema, partition_value=demo.BIG_CUSTOMER, page_size=30)
    pager = query_pager(client, spec, schema)
    pager.source = Repeating(pager.source, at=4, back_to=back_to, starts={})
    for _ in range(3):
        pager.next()
    before = (pager.number, pager.stack, pager.cached_numbers(), pager.totals, pager.current)
    with pytest.raises(NoProgressError, match=f"page 4 ends where page {back_to} began"):
        pager.next()
    assert (
        pager.number,
        pager.stack,
        pager.cached_numbers(),
        pager.totals,
        pager.current,
    ) == before
    # The guard refuses only a boundary already begun on: a page that moves on is read.
    pager.source = pager.source.source
    assert pager.next().number == 4


def test_a_stack_opened_at_page_3_goes_back_to_page_1_from_the_start(client, schema) -> None:
    """A stack opened at page 3 (from history, a cursor) holds nothing before it: p and g
    read page 1 from the start of the result (a plain boto3 Query's first page), page 2 is
    refused by name, and from page 1 the stack is an ordinary one (n gives page 2)."""
    from dynotui.core.errors import InputError

    spec = from_key(schema, partition_value=demo.BIG_CUSTOMER, page_size=30)
    params: dict[str, Any] = {
        "TableName": demo.TABLE,
        "KeyConditionExpression": "customer = :c",
        "ExpressionAttributeValues": {":c": {"S": demo.BIG_CUSTOMER}},
        "Limit": 30,
    }
    truth = [client.query(**params)]
    for _ in range(2):
        truth.append(client.query(**params, ExclusiveStartKey=truth[-1]["LastEvaluatedKey"]))
    for move in ("prev", "first", 1):
        third = query_pager(client, spec, schema)
        third = type(third)(third.source, start_key=truth[1]["LastEvaluatedKey"], first_number=3)
        page = third.next()
        assert page.number == 3 and page.items == truth[2]["Items"]
        assert not third.has_prev and third.reopened
        assert third.not_held() == (
            "pages 1 to 2 not held (reopened at page 3): p or g reads page 1 again"
        )
        with pytest.raises(InputError, match="page 2 comes before this stack"):
            third.plan(2)
        back = third.go(move)
        assert back.number == 1 and back.items == truth[0]["Items"] and not back.cached
        assert third.first_number == 1 and not third.reopened and third.not_held() is None
        assert [n for n, _ in third.stack] == [1, 2]
        assert third.next().items == truth[1]["Items"]
        assert third.go("first").number == 1
        with pytest.raises(InputError, match="already on the first page"):
            third.plan("prev")
