"""DynamoDB in memory: the calls dynotui makes, answered as DynamoDB answers them.

For tests of everything above paging (the read controller, the app's screens) and for
trying the UI with no server. It is a *client*, not a second reader: dynotui's own
``QuerySource`` and ``read_page`` (raw and fill mode, page size + 1, the next start key
derived from the last item shown) read through it exactly as they read through boto3, so
the only thing stood in for is the server. What it answers follows DynamoDB's rules, and
``tests/test_memory_conformance.py`` holds it to DynamoDB Local, the same queries on both:

- an order (the table, an LSI, a GSI) holds its items by partition key, then sort key
  (strings by UTF-8 bytes, numbers by value, binary by unsigned bytes); an index holds only
  items with its key attributes (sparse), as its projection stores them;
- numbers are kept as DynamoDB keeps them (1e10 is 10000000000, 1.50 is 1.5);
- ``ExclusiveStartKey`` resumes after the key's position in the order (the item need not
  exist any more); ``LastEvaluatedKey`` is the last evaluated item's key (the table's key
  attributes, and an index's) when ``Limit`` stopped the call (even where the data ends
  just there), or when the 1 MB limit did with items left (the item that crosses 1 MB is
  read);
- ``Limit`` bounds the items *evaluated*, then the filter is applied; ``Count`` and
  ``ScannedCount`` say both;
- consumed capacity is the sizes of the items evaluated (index entries on an index),
  summed per call and rounded up to 4 KB, halved unless consistent: dynotui's own item
  size code (``what_if/item_size.py``), the same the what-if estimate uses.

Conditions are parsed by dynotui's parser (``condition.py``) and tested by its evaluator
(``what_if/evaluate.py``), both checked against DynamoDB Local already. A Scan walks the
partitions in the order of their key's bytes (DynamoDB's is a hash order nobody may rely
on, so a Scan is held to DynamoDB Local on one partition only); ``Segment`` of
``TotalSegments`` takes every ``TotalSegments``-th partition.
Nothing here is a database: no persistence, no throttling, no write the pager could make
(it makes none); ``create_table``, ``put``, ``batch_write_item`` and ``delete_item`` are
for a test's or the demo's own data.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from dynotui.dynamodb.condition import Tree, conjuncts, parse_condition, tested_names
from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.schema import LOCAL_ARN_PREFIX
from dynotui.dynamodb.what_if.evaluate import holds, order_key
from dynotui.dynamodb.what_if.item_size import CALL_BYTES, item_size, read_units

ENDPOINT = "memory://dynotui"
REGION = "memory"
TABLES_A_CALL = 100  # ListTables' own limit


def refusal(code: str, message: str, operation: str) -> Exception:
    """A botocore ClientError as the service sends it: dynotui translates it as any."""
    from botocore.exceptions import ClientError

    return ClientError({"Error": {"Code": code, "Message": message}}, operation)


@dataclass(frozen=True)
class Order:
    """The table or one of its indexes: its keys, and what an entry of it holds."""

    name: str | None  # None: the table itself
    kind: str  # "table", "lsi" or "gsi"
    partition: str
    sort: str | None
    projection: str = "ALL"  # ALL, KEYS_ONLY or INCLUDE
    include: tuple[str, ...] = ()

    @property
    def key_names(self) -> tuple[str, ...]:
        return (self.partition, self.sort) if self.sort else (self.partition,)


def _keys(schema: Sequence[Mapping[str, str]]) -> tuple[str, str | None]:
    by_type = {k["KeyType"]: k["AttributeName"] for k in schema}
    return by_type["HASH"], by_type.get("RANGE")


@dataclass
class Table:
    name: str
    definition: dict[str, Any]
    base: Order
    indexes: dict[str, Order]
    items: dict[tuple[Any, ...], Item] = field(default_factory=dict)  # by table key
    # Each order's entries by partition (in the order's order), made when first read after
    # a write: a call reads one partition, not the table.
    _partitions: dict[str | None, dict[Any, list[Item]]] = field(default_factory=dict)

    def write(self, item: Item) -> None:
        self.items[self.identity(item)] = item
        self._partitions.clear()

    def delete(self, key: Mapping[str, Any]) -> None:
        self.items.pop(self.identity(key), None)
        self._partitions.clear()

    def partitions(self, order: Order) -> dict[Any, list[Item]]:
        """The order's entries by partition key value, each partition in sort order; the
        partitions in the order of their key's bytes (a Scan's order here)."""
        made = self._partitions.get(order.name)
        if made is None:
            grouped: dict[Any, list[Item]] = {}
            for item in self.items.values():
                entry = self.entry(order, item)
                if entry is not None:
                    grouped.setdefault(order_key(entry[order.partition]), []).append(entry)
            made = {
                p: sorted(grouped[p], key=lambda e: self.sort_key(order, e))
                for p in sorted(grouped)
            }
            self._partitions[order.name] = made
        return made

    def order(self, index: str | None, operation: str) -> Order:
        if index is None:
            return self.base
        if index not in self.indexes:
            raise refusal(
                "ValidationException",
                f"The table does not have the specified index: {index}",
                operation,
            )
        return self.indexes[index]

    def identity(self, item: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(order_key(item[name]) for name in self.base.key_names)

    def entry(self, order: Order, item: Item) -> Item | None:
        """``item`` as ``order`` stores it; None when the order does not hold it."""
        if order.kind == "table":
            return item
        if any(name not in item for name in order.key_names):
            return None  # a sparse index: no entry without its keys
        if order.projection == "ALL":
            return item
        wanted = {*self.base.key_names, *order.key_names, *order.include}
        return {name: value for name, value in item.items() if name in wanted}

    def sort_key(self, order: Order, entry: Mapping[str, Any]) -> tuple[Any, ...]:
        """Where an entry (or a start key) stands within its partition: by sort key, and
        on an index by the table's key after (the order of equal index keys is not
        DynamoDB's to promise; this one is repeatable)."""
        head = (order_key(entry[order.sort]),) if order.sort else ()
        tail = self.identity(entry) if order.kind != "table" else ()
        return (*head, *tail)

    def description(self) -> dict[str, Any]:
        table = dict(self.definition)
        table["TableStatus"] = "ACTIVE"
        table["ItemCount"] = len(self.items)
        table["TableSizeBytes"] = sum(item_size(i) for i in self.items.values())
        table["TableArn"] = f"{LOCAL_ARN_PREFIX}000000000000:table/{self.name}"
        for group in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
            if group in table:
                described = []
                for index in table[group]:
                    order = self.indexes[index["IndexName"]]
                    held = (self.entry(order, item) for item in self.items.values())
                    entries = [e for e in held if e is not None]
                    described.append(
                        {
                            **index,
                            "IndexStatus": "ACTIVE",
                            "ItemCount": len(entries),
                            "IndexSizeBytes": sum(item_size(e) for e in entries),
                        }
                    )
                table[group] = described
        return table


class Paginator:
    def __init__(self, client: MemoryDynamoDB) -> None:
        self.client = client

    def paginate(self, PaginationConfig: Mapping[str, Any] | None = None) -> Iterator[Any]:
        size = int((PaginationConfig or {}).get("PageSize", TABLES_A_CALL))
        start: str | None = None
        while True:
            params: dict[str, Any] = {"Limit": size}
            if start is not None:
                params["ExclusiveStartTableName"] = start
            page = self.client.list_tables(**params)
            yield page
            start = page.get("LastEvaluatedTableName")
            if start is None:
                return


class MemoryDynamoDB:
    """A DynamoDB client whose tables live in this process (boto3's low-level shapes).

    ``before(operation, params)``, if set, runs before every call that reads: a test's
    way to hold a call (wait on an event), fail it (raise), or count it. ``calls`` records
    every read, in order, as the fault proxy records arrivals."""

    dynotui_hooked = True  # no botocore events to hook: reads are cancelled between calls

    def __init__(self, endpoint_url: str = ENDPOINT, region_name: str = REGION) -> None:
        # No botocore events: nothing here is retried or throttled, so a hook registered
        # (the segments' throttle counter) never fires.
        events = SimpleNamespace(register=lambda *args, **kwargs: None)
        self.meta = SimpleNamespace(
            endpoint_url=endpoint_url, region_name=region_name, events=events
        )
        self.tables: dict[str, Table] = {}
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.before: Callable[[str, dict[str, Any]], None] | None = None
        self._lock = threading.Lock()

    # -- what a test (or the demo) writes ---------------------------------------------------

    def create_table(self, **definition: Any) -> dict[str, Any]:
        name = definition["TableName"]
        if name in self.tables:
            raise refusal("ResourceInUseException", f"Table already exists: {name}", "CreateTable")
        partition, sort = _keys(definition["KeySchema"])
        indexes: dict[str, Order] = {}
        for group, kind in (("LocalSecondaryIndexes", "lsi"), ("GlobalSecondaryIndexes", "gsi")):
            for index in definition.get(group, []):
                ip, isort = _keys(index["KeySchema"])
                projection = index.get("Projection", {})
                indexes[index["IndexName"]] = Order(
                    index["IndexName"],
                    kind,
                    ip,
                    isort,
                    projection.get("ProjectionType", "ALL"),
                    tuple(projection.get("NonKeyAttributes", ())),
                )
        table = Table(name, dict(definition), Order(None, "table", partition, sort), indexes)
        self.tables[name] = table
        return {"TableDescription": table.description()}

    def put(self, table: str, items: Iterable[Mapping[str, Any]]) -> int:
        """Put items given as Python values (as boto3's resource takes them)."""
        from boto3.dynamodb.types import TypeSerializer

        serialize = TypeSerializer().serialize
        low = [{name: serialize(value) for name, value in item.items()} for item in items]
        self.batch_write_item(RequestItems={table: [{"PutRequest": {"Item": i}} for i in low]})
        return len(low)

    def batch_write_item(self, RequestItems: Mapping[str, Any]) -> dict[str, Any]:
        for name, requests in RequestItems.items():
            table = self._table(name, "BatchWriteItem")
            for request in requests:
                if "PutRequest" in request:
                    table.write({n: stored(v) for n, v in request["PutRequest"]["Item"].items()})
                else:
                    table.delete(request["DeleteRequest"]["Key"])
        return {"UnprocessedItems": {}}

    def delete_item(self, TableName: str, Key: Mapping[str, Any]) -> dict[str, Any]:
        self._table(TableName, "DeleteItem").delete(Key)
        return {}

    # -- what dynotui asks ---------------------------------------------------------------------

    def _table(self, name: str, operation: str) -> Table:
        table = self.tables.get(name)
        if table is None:
            raise refusal(
                "ResourceNotFoundException",
                "Cannot do operations on a non-existent table",
                operation,
            )
        return table

    def describe_table(self, TableName: str) -> dict[str, Any]:
        return {"Table": self._table(TableName, "DescribeTable").description()}

    def list_tables(self, **params: Any) -> dict[str, Any]:
        names = sorted(self.tables)
        after = params.get("ExclusiveStartTableName")
        if after is not None:
            names = [n for n in names if n > after]
        limit = int(params.get("Limit", TABLES_A_CALL))
        page: dict[str, Any] = {"TableNames": names[:limit]}
        if len(names) > limit:
            page["LastEvaluatedTableName"] = names[limit - 1]
        return page

    def get_paginator(self, operation: str) -> Paginator:
        if operation != "list_tables":
            raise NotImplementedError(f"no paginator for {operation} in memory")
        return Paginator(self)

    def query(self, **params: Any) -> dict[str, Any]:
        return self._read("Query", params)

    def scan(self, **params: Any) -> dict[str, Any]:
        return self._read("Scan", params)

    # -- reading --------------------------------------------------------------------------------

    def _read(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.calls.append((operation, params))
        if self.before is not None:
            self.before(operation, params)
        table = self._table(params["TableName"], operation)
        order = table.order(params.get("IndexName"), operation)
        consistent = bool(params.get("ConsistentRead"))
        if consistent and order.kind == "gsi":
            raise refusal(
                "ValidationException",
                "Consistent reads are not supported on global secondary indexes",
                operation,
            )
        names = params.get("ExpressionAttributeNames", {})
        values = params.get("ExpressionAttributeValues", {})
        condition = _parsed(params.get("KeyConditionExpression"), names, values, "key condition")
        kept = _parsed(params.get("FilterExpression"), names, values, "filter")
        if kept is not None and tested_names(kept) & set(order.key_names):
            raise refusal(
                "ValidationException",
                "Filter Expression can only contain non-primary key attributes: "
                f"Primary key attribute: {sorted(tested_names(kept) & set(order.key_names))[0]}",
                operation,
            )
        if operation == "Query":
            entries = self._partition(table, order, condition, operation)
            if params.get("ScanIndexForward") is False:
                entries.reverse()
        else:
            entries = self._scan_order(table, order, params)
        forward = params.get("ScanIndexForward") is not False or operation == "Scan"
        start = params.get("ExclusiveStartKey")
        if start:
            entries = _after(table, order, entries, start, forward, operation)
        limit = int(params["Limit"]) if "Limit" in params else None
        evaluated: list[Item] = []
        read = 0
        for entry in entries:
            if (limit is not None and len(evaluated) >= limit) or read >= CALL_BYTES:
                break
            evaluated.append(entry)
            read += item_size(entry)
        matched = [e for e in evaluated if holds(kept, e)]
        response: dict[str, Any] = {"Count": len(matched), "ScannedCount": len(evaluated)}
        if params.get("Select") != "COUNT":
            response["Items"] = [
                _projected(e, params.get("ProjectionExpression"), names) for e in matched
            ]
        # A key comes back when Limit stopped the call (even where the data ends just
        # there), or when the 1 MB did with items left (measured on DynamoDB Local).
        limited = limit is not None and len(evaluated) == limit
        cut = read >= CALL_BYTES and len(evaluated) < len(entries)
        if evaluated and (limited or cut):
            keys = (
                *table.base.key_names,
                *(k for k in order.key_names if k not in table.base.key_names),
            )
            response["LastEvaluatedKey"] = {name: evaluated[-1][name] for name in keys}
        consumed = _consumed(
            params, table.name, order, read_units((item_size(e) for e in evaluated), consistent)
        )
        if consumed is not None:
            response["ConsumedCapacity"] = consumed
        return response

    def _partition(
        self, table: Table, order: Order, condition: Tree | None, operation: str
    ) -> list[Item]:
        if condition is None or order.partition not in tested_names(condition):
            raise refusal(
                "ValidationException", "Query condition missed key schema element", operation
            )
        if tested_names(condition) - set(order.key_names):
            raise refusal(
                "ValidationException",
                "Query key condition not supported: only the order's key attributes",
                operation,
            )
        partitions = table.partitions(order)
        value = _equal_to(condition, order.partition)
        if value is None:
            raise refusal(
                "ValidationException",
                "Query key condition not supported: the partition key must be tested with =",
                operation,
            )
        return [e for e in partitions.get(order_key(value), []) if holds(condition, e)]

    def _scan_order(self, table: Table, order: Order, params: Mapping[str, Any]) -> list[Item]:
        partitions = list(table.partitions(order).values())
        total = params.get("TotalSegments")
        if total is not None:
            partitions = partitions[int(params["Segment"]) :: int(total)]
        return [entry for partition in partitions for entry in partition]


def _equal_to(condition: Tree, name: str) -> Any:
    """The value a key condition requires attribute ``name`` to equal (None: none)."""
    for part in conjuncts(condition):
        if part[0] == "compare" and part[1] == "=":
            for this, other in ((part[2], part[3]), (part[3], part[2])):
                if this == ["path", [name]] and other[0] == "value":
                    return other[1]
    return None


def _number(text: str) -> str:
    """A number as DynamoDB stores it: no exponent, no leading or trailing zeros (1e10 is
    10000000000, 1.50 is 1.5). Exact: Decimal's context would round past 28 digits."""
    value = Decimal(text)
    if value.is_zero():
        return "0"
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    while digits and digits[-1] == 0 and len(digits) > 1:
        digits, exponent = digits[:-1], exponent + 1
    return format(Decimal((sign, digits, exponent)), "f")


def stored(value: Mapping[str, Any]) -> dict[str, Any]:
    """An attribute value as DynamoDB keeps it (numbers in their canonical text)."""
    ((kind, inner),) = value.items()
    if kind == "N":
        return {"N": _number(inner)}
    if kind == "NS":
        return {"NS": [_number(n) for n in inner]}
    if kind == "M":
        return {"M": {name: stored(v) for name, v in inner.items()}}
    if kind == "L":
        return {"L": [stored(v) for v in inner]}
    return {kind: inner}


def _parsed(
    text: str | None, names: Mapping[str, str], values: Mapping[str, Any], field: str
) -> Tree | None:
    if not text:
        return None
    from dynotui.core.errors import InputError

    try:
        return parse_condition(text, names, values, field)
    except InputError as exc:
        raise refusal("ValidationException", f"Invalid {field}: {exc}", "Query") from None


def _after(
    table: Table,
    order: Order,
    entries: list[Item],
    start: Mapping[str, Any],
    forward: bool,
    operation: str,
) -> list[Item]:
    """The entries past ``start``'s place in the order (it need not be an entry)."""
    wanted = {*table.base.key_names, *order.key_names}
    if set(start) != wanted:
        raise refusal(
            "ValidationException",
            "The provided starting key is invalid: The provided key element does not match "
            "the schema",
            operation,
        )
    if operation == "Scan":
        place = (order_key(start[order.partition]), table.sort_key(order, start))
        return [
            e for e in entries if (order_key(e[order.partition]), table.sort_key(order, e)) > place
        ]
    at = table.sort_key(order, start)
    if forward:
        return [e for e in entries if table.sort_key(order, e) > at]
    return [e for e in entries if table.sort_key(order, e) < at]


def _projected(entry: Item, expression: str | None, names: Mapping[str, str]) -> Item:
    """The attributes a ProjectionExpression names (top-level and nested paths)."""
    if not expression:
        return entry
    out: Item = {}
    for raw in expression.split(","):
        path = _path(raw.strip(), names)
        _copy(entry, out, path)
    return out


def _path(text: str, names: Mapping[str, str]) -> list[str | int]:
    parts: list[str | int] = []
    for piece in text.split("."):
        head, _, rest = piece.partition("[")
        parts.append(names.get(head, head))
        while rest:
            number, _, rest = rest.partition("]")
            parts.append(int(number))
            rest = rest.lstrip("[")
    return parts


def _copy(source: Item, target: Item, path: list[str | int]) -> None:
    """Copy the value at ``path`` from ``source`` into ``target``, keeping its nesting (a
    list's chosen elements in their order, as DynamoDB returns them)."""
    name = path[0]
    if not isinstance(name, str) or name not in source:
        return
    if len(path) == 1:
        target[name] = source[name]
        return
    value = source[name]
    ((kind, inner),) = value.items()
    step = path[1]
    if kind == "M" and isinstance(step, str) and step in inner:
        nested = target.setdefault(name, {"M": {}})["M"]
        _copy(inner, nested, path[1:])
    elif kind == "L" and isinstance(step, int) and step < len(inner):
        chosen = target.setdefault(name, {"L": []})["L"]
        holder: Item = {}
        _copy({"_": inner[step]}, holder, ["_", *path[2:]])
        if "_" in holder:
            chosen.append(holder["_"])


def _consumed(
    params: Mapping[str, Any], table: str, order: Order, units: float
) -> dict[str, Any] | None:
    wanted = params.get("ReturnConsumedCapacity", "NONE")
    if wanted == "NONE":
        return None
    consumed: dict[str, Any] = {"TableName": table, "CapacityUnits": units}
    if wanted == "INDEXES":
        if order.kind == "table":
            consumed["Table"] = {"CapacityUnits": units}
        else:
            group = "GlobalSecondaryIndexes" if order.kind == "gsi" else "LocalSecondaryIndexes"
            consumed["Table"] = {"CapacityUnits": 0.0}
            consumed[group] = {order.name: {"CapacityUnits": units}}
    return consumed
