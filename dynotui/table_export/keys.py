"""An export's key schema: from the live table's DescribeTable when it answers, else from
``--key-schema`` (the table's ``pk:S,sk:N``, an index's ``NAME=pk:S,sk:S``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from dynotui.core.errors import DynotuiError, InputError
from dynotui.dynamodb.schema import BASE, KeyAttribute, OrderKind, SortOrder, TableSchema

FLAG = "--key-schema"
_NAME = re.compile(r"[A-Za-z0-9_.-]{3,255}")


def _keys(text: str, where: str) -> tuple[KeyAttribute, KeyAttribute | None]:
    parts = [p.strip() for p in text.split(",")]
    if not 1 <= len(parts) <= 2:
        raise InputError(f"{FLAG} {where!r}: one or two keys, as pk:S or pk:S,sk:N")
    keys = []
    for part in parts:
        name, _, kind = part.rpartition(":")
        if not name or kind not in ("S", "N", "B"):
            raise InputError(
                f"{FLAG} {where!r}: {part!r} is not NAME:TYPE with a type of S, N or B"
            )
        keys.append(KeyAttribute(name, kind))
    if len(keys) == 2 and keys[0].name == keys[1].name:
        raise InputError(f"{FLAG} {where!r}: the partition and sort key are one attribute")
    return keys[0], keys[1] if len(keys) == 2 else None


def parse_key_schema(entries: Sequence[str], table: str) -> TableSchema:
    """A schema from ``--key-schema`` entries: one for the table, one per index named.
    An index's projection is unknown this way, so it is taken as ALL."""
    table_keys: tuple[KeyAttribute, KeyAttribute | None] | None = None
    indexes: dict[str, tuple[KeyAttribute, KeyAttribute | None]] = {}
    for entry in entries:
        name, equals, keys = entry.partition("=")
        if not equals:
            name, keys = BASE, entry
        name = name.strip()
        if name != BASE and not _NAME.fullmatch(name):
            raise InputError(f"{FLAG} {entry!r}: {name!r} is not an index name")
        found = _keys(keys, entry)
        if name == BASE:
            if table_keys is not None:
                raise InputError(f"{FLAG}: the table's keys are given twice")
            table_keys = found
        elif indexes.setdefault(name, found) is not found:
            raise InputError(f"{FLAG}: index {name!r} is given twice")
    if table_keys is None:
        raise InputError(f"{FLAG}: give the table's keys, e.g. {FLAG} pk:S,sk:N")
    orders = [SortOrder(BASE, "table", *table_keys, "ALL", (), "EXPORTED", None)]
    for name, (partition, sort) in indexes.items():
        # An index with the table's partition key may be an LSI: both read alike here.
        kind: OrderKind = "lsi" if partition == table_keys[0] else "gsi"
        orders.append(SortOrder(name, kind, partition, sort, "ALL", (), "EXPORTED", None))
    types: dict[str, str] = {}
    for order in orders:
        for key in (order.partition_key, order.sort_key):
            if key is None:
                continue
            if types.setdefault(key.name, key.type) != key.type:
                raise InputError(f"{FLAG}: {key.name!r} is given two types")
    return TableSchema(
        name=table,
        status="EXPORTED",
        item_count=None,
        size_bytes=None,
        orders=tuple(orders),
        attributes=tuple(types),
    )


def resolve_schema(
    entries: Sequence[str] | None, table: str, describe: Callable[[], TableSchema]
) -> TableSchema:
    """``--key-schema`` when given (no call is made); else ``describe()`` (DescribeTable),
    refused in words when it does not answer."""
    if entries:
        return parse_key_schema(entries, table)
    try:
        return describe()
    except DynotuiError as exc:
        raise InputError(
            f"this needs the key schema of table {table!r}, and DescribeTable did not give "
            f"it ({str(exc).rstrip('.')}); pass {FLAG} pk:S,sk:N (and {FLAG} INDEX=pk:S,sk:S "
            "for an index)"
        ) from None


def as_exported(schema: TableSchema, item_count: int, export_time: datetime) -> TableSchema:
    """The schema with the export's own item count: exact as of the export (its manifest
    lists every data file's items), where DescribeTable's would be the live table's and
    about six hours old. An index's count stays unknown: its items are those holding its
    keys, which only a count of the export tells."""
    base = replace(schema.base, item_count=item_count)
    indexes = tuple(replace(order, item_count=None) for order in schema.orders[1:])
    return replace(
        schema,
        item_count=item_count,
        size_bytes=None,
        orders=(base, *indexes),
        counts_live=False,
        exact_count_note=(
            f"the table's is exact as of the export "
            f"({export_time.strftime('%Y-%m-%d %H:%M UTC')}, from its manifest)"
        ),
    )
