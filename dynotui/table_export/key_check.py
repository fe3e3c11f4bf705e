"""An export's items checked against the key schema it is read with (``--key-schema``,
or the live table's DescribeTable), before any page is shown.

A key schema that disagrees with the data would page wrong without a word: items that
lack a key or hold it as another type have no place in the order (a typo ``wrong:S``,
a number key declared S), and a key that is not unique (a sort key left out) makes the
keyset seek skip every item that shares a boundary's key. DynamoDB itself refuses such
items, so an export of a table holds none: each is refused here by name, with the
attribute and an item that shows it.
"""

from __future__ import annotations

import os
from typing import Any

from dynotui.core.errors import InputError
from dynotui.core.text import visible
from dynotui.dynamodb.schema import KeyAttribute, TableSchema
from dynotui.table_export.predicate import Params, pointer

SHOWN_ITEM = 200  # characters of an item a refusal shows
FIX = "check --key-schema (the table's keys, as pk:S,sk:N), or the table the export came from"


def key_attributes(schema: TableSchema) -> list[tuple[KeyAttribute, str | None]]:
    """Each key attribute of the table and its indexes, once, with the index it keys
    (None: a key of the table itself, which every item holds)."""
    found: dict[str, tuple[KeyAttribute, str | None]] = {}
    for order in schema.orders:
        for key in (order.partition_key, order.sort_key):
            if key is not None and key.name not in found:
                found[key.name] = (key, None if order.kind == "table" else order.name)
    return list(found.values())


def problem_sql(schema: TableSchema, params: Params) -> str:
    """SQL, over an item line ``doc``, giving the first way the item disagrees with the
    key schema, or NULL when it agrees."""
    cases = []
    for key, index in key_attributes(schema):
        value = f"json_extract(doc, {params.bind(pointer([key.name]))})"
        typed = f"json_extract_string(doc, {params.bind(pointer([key.name]) + '/' + key.type)})"
        where = "a key of the table" if index is None else f"a key of index {index!r}"
        if index is None:
            lacks = params.bind(f"lack {key.name!r}, {where}")
            cases.append(f"WHEN {value} IS NULL THEN {lacks}")
        other = params.bind(f"hold {key.name!r} as another type than {key.type}, {where}")
        cases.append(f"WHEN {value} IS NOT NULL AND {typed} IS NULL THEN {other}")
        if key.type == "N":
            no_number = params.bind(f"hold {key.name!r} as no number DynamoDB keeps, {where}")
            cases.append(f"WHEN {value} IS NOT NULL AND dyn_nkey({typed}) IS NULL THEN {no_number}")
    return "CASE " + " ".join(cases) + " END" if cases else "NULL"


def _shown(doc: Any, file: Any = None) -> str:
    text = visible(" ".join(str(doc).split()))
    if len(text) > SHOWN_ITEM:
        text = text[: SHOWN_ITEM - 1] + "…"
    return f"{text} in data/{os.path.basename(str(file))}" if file else text


def check_items(engine: Any, table: str, table_keys: list[str]) -> None:
    """Refuse the export if an item of ``table`` (a temp table with columns ``is_item``,
    ``problem``, ``file``, ``doc`` and the comparable keys) disagrees with the key schema:
    a problem found per item, or two items with one table key (columns ``table_keys``)."""
    bad = engine.execute(
        f"SELECT problem, count(*) OVER (PARTITION BY problem), CAST(doc AS VARCHAR), file "
        f"FROM {table} WHERE problem IS NOT NULL LIMIT 1"
    ).fetchone()
    if bad is not None:
        problem, count, doc, file = bad
        if count > 1:
            many = f"{count:,} items"
        else:  # each problem starts with its verb: "lack 'sk'" for one item is "lacks"
            verb, _, rest = str(problem).partition(" ")
            many, problem = "an item", f"{verb}s {rest}"
        raise InputError(
            f"the export disagrees with the key schema: {many} {problem}, e.g. "
            f"{_shown(doc, file)}; {FIX}"
        )
    if not table_keys:
        return
    keys = ", ".join(table_keys)
    shared = engine.execute(
        f"SELECT count(*), first(CAST(doc AS VARCHAR)) FROM {table} WHERE is_item "
        f"GROUP BY {keys} HAVING count(*) > 1 LIMIT 1"
    ).fetchone()
    if shared is not None:
        count, doc = shared
        raise InputError(
            f"the export disagrees with the key schema: {count:,} items share one key of the "
            f"table, which DynamoDB keeps unique (a sort key left out?), e.g. {_shown(doc)}; "
            f"{FIX}"
        )
