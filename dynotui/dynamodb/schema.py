"""A table's key schema and its sort orders (the base table, each LSI, each GSI)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from dynotui.core.errors import InputError
from dynotui.core.text import duration
from dynotui.dynamodb.errors import translate

ITEM_COUNT_NOTE = "approximate: DynamoDB refreshes it about every six hours"
# DynamoDB Local names its region "ddblocal" in every ARN, and updates ItemCount and the
# sizes at every write and delete (measured): there the count is exact when read.
LOCAL_ARN_PREFIX = "arn:aws:dynamodb:ddblocal:"
LIVE_COUNT_NOTE = (
    "exact: DynamoDB Local updates it at every write; the service refreshes it about every "
    "six hours"
)
REFRESH_SECONDS = 6 * 3600
BASE = "table"

OrderKind = Literal["table", "lsi", "gsi"]


@dataclass(frozen=True)
class KeyAttribute:
    name: str
    type: str  # S, N or B

    def __str__(self) -> str:
        return f"{self.name} ({self.type})"


@dataclass(frozen=True)
class SortOrder:
    """One way to read the table in order: the base table or one of its indexes."""

    name: str
    kind: OrderKind
    partition_key: KeyAttribute
    sort_key: KeyAttribute | None
    projection: str  # ALL, KEYS_ONLY or INCLUDE
    projected: tuple[str, ...]  # INCLUDE's non-key attributes
    status: str
    item_count: int | None

    @property
    def index_name(self) -> str | None:
        return None if self.kind == "table" else self.name

    @property
    def key_names(self) -> tuple[str, ...]:
        keys = (self.partition_key.name, self.sort_key.name if self.sort_key else None)
        return tuple(k for k in keys if k)

    @property
    def strongly_consistent_allowed(self) -> bool:
        return self.kind != "gsi"

    def consistent_read_refusal(self) -> str | None:
        """Why a strongly consistent read of this order is refused; None where it is not."""
        if self.strongly_consistent_allowed:
            return None
        return (
            f"'{self.name}' is a GSI, and GSIs serve only eventually consistent reads: turn "
            "consistent read off, or read the base table or an LSI"
        )

    def projects(self, name: str, table_keys: tuple[str, ...] = ()) -> bool:
        """Whether reading this order can return attribute ``name`` at all."""
        if self.projection == "ALL" or name in self.key_names or name in table_keys:
            return True
        return self.projection == "INCLUDE" and name in self.projected

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "index_name": self.index_name,
            "partition_key": {"name": self.partition_key.name, "type": self.partition_key.type},
            "sort_key": None
            if self.sort_key is None
            else {"name": self.sort_key.name, "type": self.sort_key.type},
            "projection": self.projection,
            "projected": list(self.projected),
            "consistent_read_allowed": self.strongly_consistent_allowed,
            "status": self.status,
            "item_count": self.item_count,
        }

    def describe(self) -> str:
        sort = f" / {self.sort_key}" if self.sort_key else " (no sort key)"
        label = {"table": "base table", "lsi": "LSI", "gsi": "GSI (eventually consistent)"}[
            self.kind
        ]
        projection = self.projection
        if self.projected:
            projection += " " + ", ".join(self.projected)
        return f"{self.name}: {label}, {self.partition_key}{sort}, projects {projection}"


@dataclass(frozen=True)
class TableSchema:
    name: str
    status: str
    item_count: int | None
    size_bytes: int | None
    orders: tuple[SortOrder, ...]
    attributes: tuple[str, ...] = ()  # every attribute named in AttributeDefinitions
    created: datetime | None = None
    counts_live: bool = False  # DynamoDB Local: ItemCount is updated at every write
    # Where the counts are exact for another reason (a table export's manifest), why.
    exact_count_note: str | None = None

    def item_count_note(self, now: datetime | None = None) -> str:
        """What is true of ItemCount where this table lives: exact on DynamoDB Local or in
        an export, else the service's staleness (``count_note``)."""
        if self.exact_count_note is not None:
            return self.exact_count_note
        return LIVE_COUNT_NOTE if self.counts_live else self.count_note(now)

    def item_count_text(self, count: int | None) -> str:
        """``~1,234`` (approximate) or ``1,234`` (exact), ``unknown`` when absent."""
        if count is None:
            return "unknown"
        exact = self.counts_live or self.exact_count_note is not None
        return f"{count:,}" if exact else f"~{count:,}"

    def count_note(self, now: datetime | None = None) -> str:
        """Why the service's ItemCount is approximate, and how young the table is when that
        matters."""
        if self.created is None:
            return ITEM_COUNT_NOTE
        age = ((now or datetime.now(timezone.utc)) - self.created).total_seconds()
        if age < REFRESH_SECONDS:
            return (
                f"the table was created {duration(age)} ago and DynamoDB refreshes counts about "
                "every six hours, so the count may not hold recent writes yet"
            )
        return ITEM_COUNT_NOTE

    @property
    def base(self) -> SortOrder:
        return self.orders[0]

    @property
    def table_key_names(self) -> tuple[str, ...]:
        return self.base.key_names

    def order(self, name: str | None) -> SortOrder:
        if name is None or name == BASE:
            return self.base
        for order in self.orders[1:]:
            if order.name == name:
                return order
        known = ", ".join(o.name for o in self.orders[1:]) or "none"
        raise InputError(f"table '{self.name}' has no index '{name}' (indexes: {known})")

    def cursor_key_names(self, index: str | None) -> tuple[str, ...]:
        """The attributes of a LastEvaluatedKey on this order: index keys, then table keys."""
        names = list(self.order(index).key_names)
        names += [n for n in self.table_key_names if n not in names]
        return tuple(names)

    def not_projected(self, index: str | None) -> tuple[str, ...]:
        """Attributes the table is known to hold that reading this order cannot return."""
        order = self.order(index)
        return tuple(a for a in self.attributes if not order.projects(a, self.table_key_names))

    def attribute_type(self, name: str) -> str | None:
        for order in self.orders:
            for key in (order.partition_key, order.sort_key):
                if key and key.name == name:
                    return key.type
        return None


def _order(
    description: dict[str, Any], types: dict[str, str], kind: OrderKind, name: str
) -> SortOrder:
    keys = {k["KeyType"]: k["AttributeName"] for k in description["KeySchema"]}
    sort = keys.get("RANGE")
    projection = description.get("Projection", {"ProjectionType": "ALL"})
    return SortOrder(
        name=name,
        kind=kind,
        partition_key=KeyAttribute(keys["HASH"], types[keys["HASH"]]),
        sort_key=KeyAttribute(sort, types[sort]) if sort else None,
        projection=projection.get("ProjectionType", "ALL"),
        projected=tuple(projection.get("NonKeyAttributes", ())),
        status=description.get("IndexStatus", description.get("TableStatus", "ACTIVE")),
        item_count=description.get("ItemCount"),
    )


def _in_utc(when: datetime | None) -> datetime | None:
    """botocore parses a timestamp with dateutil's local zone: the same instant in UTC, on
    the standard library's zone, so a schema read in the opening's child process unpickles
    in the app without importing dateutil on the way to page 1 (8 ms measured alone; more
    while the app draws its first screen beside it)."""
    if when is None:
        return None
    if when.tzinfo is None:  # the service's timestamps are UTC instants
        return when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc)


def parse_schema(table: dict[str, Any]) -> TableSchema:
    """A TableSchema from DescribeTable's ``Table`` object."""
    types = {a["AttributeName"]: a["AttributeType"] for a in table["AttributeDefinitions"]}
    orders = [_order(table, types, "table", BASE)]
    orders += [
        _order(i, types, "lsi", i["IndexName"]) for i in table.get("LocalSecondaryIndexes", [])
    ]
    orders += [
        _order(i, types, "gsi", i["IndexName"]) for i in table.get("GlobalSecondaryIndexes", [])
    ]
    return TableSchema(
        name=table["TableName"],
        status=table.get("TableStatus", "ACTIVE"),
        item_count=table.get("ItemCount"),
        size_bytes=table.get("TableSizeBytes"),
        orders=tuple(orders),
        attributes=tuple(types),
        created=_in_utc(table.get("CreationDateTime")),
        counts_live=str(table.get("TableArn", "")).startswith(LOCAL_ARN_PREFIX),
    )


def describe_table(client: Any, name: str) -> TableSchema:
    try:
        return parse_schema(client.describe_table(TableName=name)["Table"])
    except Exception as exc:
        raise translate(exc, table=name) from exc


def list_tables(client: Any, page_size: int = 100) -> list[str]:
    """Every table name: ListTables returns at most 100 a call, so follow it to the end."""
    names: list[str] = []
    config = {"PageSize": page_size}
    try:
        for page in client.get_paginator("list_tables").paginate(PaginationConfig=config):
            names.extend(page.get("TableNames", []))
    except Exception as exc:
        raise translate(exc) from exc
    return names


def schema_json(schema: TableSchema) -> dict[str, Any]:
    """A table's key schema and sort orders as ``dynotui tables --json`` prints them."""
    return {
        "table": schema.name,
        "status": schema.status,
        "item_count": schema.item_count,
        "item_count_note": schema.item_count_note(),
        "size_bytes": schema.size_bytes,
        "orders": [order.as_json() for order in schema.orders],
    }


def summary(schema: TableSchema) -> str:
    count = schema.item_count_text(schema.item_count)
    lines = [
        f"{schema.name} [{schema.status}]: {count} {'item' if count in ('1', '~1') else 'items'} "
        f"({schema.item_count_note()})",
        *(f"  {order.describe()}" for order in schema.orders),
    ]
    return "\n".join(lines)
