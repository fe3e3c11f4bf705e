"""Query specs and expressions: pure code, no server."""

from __future__ import annotations

import pytest

from dynotui.core.errors import InputError
from dynotui.core.expressions import auto_names
from dynotui.core.pager import Pager
from dynotui.core.schema import parse_schema
from dynotui.core.spec import from_expressions, from_key, key_condition, typed_value
from dynotui.local.demo import TABLE_DEFINITION

SCHEMA = parse_schema({**TABLE_DEFINITION, "TableStatus": "ACTIVE", "ItemCount": 10})


class NoCalls:
    def __getattr__(self, name: str):
        raise AssertionError(f"no call may be made, but {name} was used")


def test_schema_lists_every_order() -> None:
    assert [o.name for o in SCHEMA.orders] == ["table", "by_total", "by_status", "flagged"]
    assert [o.kind for o in SCHEMA.orders] == ["table", "lsi", "gsi", "gsi"]
    assert SCHEMA.order("by_status").projected == ("total", "flag")
    assert SCHEMA.cursor_key_names("by_status") == ("status", "placed_on", "customer", "order_no")
    assert SCHEMA.cursor_key_names(None) == ("customer", "order_no")
    with pytest.raises(InputError, match="has no index 'nope'"):
        SCHEMA.order("nope")


def test_auto_names_handles_reserved_words_functions_and_paths() -> None:
    text, names = auto_names(
        "status = :s AND size(lines) > :n AND begins_with(name, :p) AND a.b[0] <> :x",
        {},
    )
    assert (
        text == "#status = :s AND size(#lines) > :n AND begins_with(#name, :p) AND #a.#b[0] <> :x"
    )
    assert names == {"#status": "status", "#lines": "lines", "#name": "name", "#a": "a", "#b": "b"}
    text, names = auto_names("status = :s", {"#status": "other", "#st": "status"})
    assert text == "#st = :s"


def test_scope_ignores_placeholder_spelling_but_not_values_or_direction() -> None:
    a = from_expressions(
        "t", key_condition="#p = :v", names={"#p": "pk"}, values={":v": {"S": "x"}}
    )
    b = from_expressions("t", key_condition="pk   =  :other", values={":other": {"S": "x"}})
    assert a.scope() == b.scope()
    assert a.scope() != a.with_(values={":v": {"S": "y"}}).scope()
    assert a.scope() != a.with_(forward=False).scope()
    assert a.scope() != a.with_(index="by_total").scope()
    assert a.scope() != a.with_(filter="#p = :v").scope()
    assert a.scope() == a.with_(page_size=99, mode="fill").scope()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"page_size": 0}, "page size must be 1 to 1000"),
        ({"page_size": 1001}, "page size must be 1 to 1000"),
        ({"max_rounds": 0}, "max rounds"),
        ({"index": "by_status", "consistent_read": True}, "GSIs serve only eventually consistent"),
        (
            {"key_condition": None, "values": {}, "names": {}},
            "needs a key condition on its partition key",
        ),
        ({"scan": True}, "a Scan takes no key condition"),
        ({"filter": "#nope = :pk"}, "filter uses #nope but no value or name"),
        ({"values": {":pk": {"S": "a"}, ":unused": {"S": "b"}}}, ":unused is defined but used"),
    ],
)
def test_bad_specs_are_refused_before_any_call(changes: dict, message: str) -> None:
    spec = from_key(SCHEMA, partition_value="acme").with_(**changes)
    with pytest.raises(InputError, match=message):
        Pager(NoCalls(), spec, SCHEMA)


def test_lsi_allows_consistent_read() -> None:
    spec = from_key(SCHEMA, index="by_total", partition_value="acme", consistent_read=True)
    Pager(NoCalls(), spec, SCHEMA)  # no error, no call
    assert spec.request(SCHEMA, None, 10)["ConsistentRead"] is True


def test_key_condition_types_values_from_the_schema() -> None:
    order = SCHEMA.order("by_total")
    expr, names, values = key_condition(order, "acme", "BETWEEN", ["9.5", "10"])
    assert expr == "#pk = :pk AND #sk BETWEEN :sk1 AND :sk2"
    assert names == {"#pk": "customer", "#sk": "total"}
    assert values[":sk1"] == {"N": "9.5"}
    with pytest.raises(InputError, match="lower bound first"):
        key_condition(order, "acme", "BETWEEN", ["10", "9.5"])
    with pytest.raises(InputError, match="is a number"):
        key_condition(order, "acme", ">", ["ten"])
    with pytest.raises(InputError, match="begins_with works on strings"):
        key_condition(order, "acme", "begins_with", ["1"])
    with pytest.raises(InputError, match="has no sort key"):
        key_condition(
            parse_schema(
                {
                    **TABLE_DEFINITION,
                    "LocalSecondaryIndexes": [],
                    "KeySchema": TABLE_DEFINITION["KeySchema"][:1],
                }
            ).base,
            "a",
            "=",
            ["x"],
        )
    # "10" < "9" as strings: BETWEEN "10" AND "9" is a valid string range
    expr, _, _ = key_condition(SCHEMA.base, "acme", "BETWEEN", ["10", "9"])
    assert "BETWEEN" in expr


def test_typed_binary_value_is_base64() -> None:
    from dynotui.core.schema import KeyAttribute

    assert typed_value(KeyAttribute("b", "B"), "AP8=", "sort key") == {"B": b"\x00\xff"}
    with pytest.raises(InputError, match="give it as base64"):
        typed_value(KeyAttribute("b", "B"), "not base64!", "sort key")


def test_request_adds_key_attributes_to_a_projection() -> None:
    spec = from_key(SCHEMA, index="by_status", partition_value="PLACED", projection="total")
    params = spec.request(SCHEMA, None, 5)
    projected = {
        params["ExpressionAttributeNames"].get(p.strip(), p.strip())
        for p in params["ProjectionExpression"].split(",")
    }
    assert projected == {"total", "status", "placed_on", "customer", "order_no"}
    assert params["IndexName"] == "by_status" and params["ReturnConsumedCapacity"] == "INDEXES"
