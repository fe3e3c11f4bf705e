"""A Query or Scan (dynotui's ``QuerySpec``) as the SQL that asks an export the same.

An index's order holds only the items that carry its key attributes, typed as defined
(a sparse index), and a GSI's item holds only what it projects: a filter on anything else
finds it missing, as it would on the index.
"""

from __future__ import annotations

from collections.abc import Callable

from dynotui.core.errors import InputError
from dynotui.dynamodb.condition import tested_names
from dynotui.dynamodb.schema import SortOrder, TableSchema
from dynotui.dynamodb.spec import QuerySpec
from dynotui.table_export.predicate import Params, Translator, pointer


def check_spec(spec: QuerySpec) -> None:
    """What has no meaning on an export, refused by name."""
    if spec.consistent_read:
        raise InputError(
            "an export is the table as it was at its export time: drop --consistent-read"
        )
    if spec.segment is not None:
        raise InputError("an export is read whole by DuckDB: drop --segments")


def visibility(schema: TableSchema | None, index: str | None) -> Callable[[str], bool]:
    if schema is None:
        return lambda _: True
    order = schema.order(index)
    if order.kind != "gsi":
        return lambda _: True  # an LSI fetches what it does not project from the table
    keys = schema.table_key_names
    return lambda name: order.projects(name, keys)


def membership(order: SortOrder, params: Params) -> str:
    """The items an index holds: those with each key attribute, of its defined type."""
    if order.kind == "table":
        return "true"
    tests = [
        f"json_extract(doc, {params.bind(pointer([key.name]) + '/' + key.type)}) IS NOT NULL"
        for key in (order.partition_key, order.sort_key)
        if key is not None
    ]
    return "(" + " AND ".join(tests) + ")"


def where(
    spec: QuerySpec, schema: TableSchema | None, params: Params, *, key_condition: bool = True
) -> str:
    """The spec's key condition, filter and order membership, as one predicate on ``doc``
    (without the key condition: the whole order, as the filter keeps it)."""
    check_spec(spec)
    if schema is not None:
        spec.validate(schema)
        order = schema.order(spec.index)
    elif spec.index is not None or not spec.scan:
        raise InputError("a key condition or an index needs the table's key schema")
    else:
        spec.check_options()
        order = None
    key_tree, filter_tree = spec.trees()
    if order is not None and not spec.scan:
        keys = sorted(tested_names(filter_tree) & set(order.key_names))
        if keys:
            raise InputError(
                f"a Query's filter may not test the order's key attributes ({', '.join(keys)}): "
                "put them in the key condition, as DynamoDB requires"
            )
    translate = Translator(params, visibility(schema, spec.index))
    parts = [
        membership(order, params) if order is not None else "true",
        translate.predicate(key_tree if key_condition else None),
        translate.predicate(filter_tree),
    ]
    return " AND ".join(p for p in parts if p != "true") or "true"
