"""The query form's rules, without a terminal."""

from __future__ import annotations

import pytest

from dynotui.core.errors import FieldError
from dynotui.dynamodb.query_form import QueryForm, build_spec, parse_values
from dynotui.dynamodb.schema import parse_schema
from dynotui.local.demo import TABLE_DEFINITION

SCHEMA = parse_schema({**TABLE_DEFINITION, "TableStatus": "ACTIVE"})


def test_values_accept_plain_and_dynamodb_json_with_exact_numbers() -> None:
    values = parse_values('{":a": "x", ":b": 12.500000000000000001, ":c": {"N": "7"}, ":d": true}')
    assert values == {
        ":a": {"S": "x"},
        ":b": {"N": "12.500000000000000001"},
        ":c": {"N": "7"},
        ":d": {"BOOL": True},
    }


@pytest.mark.parametrize(
    ("form", "field", "message"),
    [
        (QueryForm(), "partition_value", "give a value for the partition key 'customer'"),
        (
            QueryForm(order="by_total", partition_value="a", sort_operator=">", sort_value="x"),
            "sort_value",
            "is a number",
        ),
        (QueryForm(partition_value="a", page_size="lots"), "page_size", "whole number"),
        (QueryForm(partition_value="a", page_size="5000"), "page_size", "1 to 1000"),
        (QueryForm(partition_value="a", values="{oops"), "values", "not valid JSON"),
        (QueryForm(partition_value="a", values='{"r": 1}'), "values", "start with ':'"),
        (QueryForm(partition_value="a", filter="status = :r"), "filter", ":r"),
        (QueryForm(partition_value="a", values='{":r": 1}'), "values", "used by no expression"),
        (
            QueryForm(order="by_status", partition_value="a", consistent_read=True),
            "consistent_read",
            "GSI",
        ),
    ],
)
def test_errors_name_their_field(form: QueryForm, field: str, message: str) -> None:
    with pytest.raises(FieldError, match=message) as info:
        build_spec(SCHEMA, form)
    assert info.value.field == field


def test_a_good_form_makes_the_same_spec_as_the_flags() -> None:
    from dynotui.dynamodb.spec import from_expressions

    form = QueryForm(
        order="by_total",
        partition_value="acme",
        sort_operator="BETWEEN",
        sort_value="10",
        sort_value2="20",
        filter="status = :r",
        values='{":r": "RETURNED"}',
        descending=True,
        mode="fill",
        page_size="7",
    )
    spec = build_spec(SCHEMA, form)
    flags = from_expressions(
        SCHEMA.name,
        index="by_total",
        key_condition="customer = :c AND total BETWEEN :lo AND :hi",
        filter="#s = :r",
        names={"#s": "status"},
        values={
            ":c": {"S": "acme"},
            ":lo": {"N": "10"},
            ":hi": {"N": "20"},
            ":r": {"S": "RETURNED"},
        },
        forward=False,
    )
    assert spec.scope() == flags.scope()
    assert (spec.mode, spec.page_size) == ("fill", 7)


def test_another_order_keeps_the_same_items() -> None:
    """acme's RETURNED orders, on the table and on GSI by_status: the old partition key's
    condition travels as a filter, the new one's filter becomes the partition value; the
    result set's conditions are the same each way."""
    from dynotui.dynamodb.query_form import for_order

    table = QueryForm(partition_value="acme", filter="status = :r", values='{":r": "RETURNED"}')
    on_gsi, note = for_order(table, SCHEMA, "by_status")
    assert on_gsi.partition_value == "RETURNED" and "customer" in on_gsi.filter
    assert "is a filter" in note and "left out" in note
    back, note_back = for_order(on_gsi, SCHEMA, "table")
    assert "is a filter" in note_back
    assert back.partition_value == "acme" and "status" in back.filter
    conditions = [build_spec(SCHEMA, f).conditions() for f in (table, on_gsi, back)]
    assert conditions[0] == conditions[1] == conditions[2], "the same items each way"
    kept = for_order(QueryForm(partition_value="acme", values=""), SCHEMA, "by_total")
    assert kept[0].partition_value == "acme" and not kept[0].filter, "same key: kept as is"
