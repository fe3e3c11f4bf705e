"""The imagined index, paged by dynotui's own pager and reader.

``SimulatedIndex`` answers ``query`` as DynamoDB would answer it on the index: from the
index entries the estimate found (in sort key order), ``Limit`` items evaluated or 1 MB
read, the filter applied after, a ``LastEvaluatedKey`` whenever Limit or the 1 MB limit
stopped the call (DynamoDB Local returns one even when the data ends exactly there), and
the capacity DynamoDB's formula gives (``item_size.read_units`` of the entries' sizes).
It never calls DynamoDB. Because the real ``Pager`` and ``read_page`` drive it, raw and
fill mode, the fill loop's Limit sizing, its round cap and the next start key derived from
the last item shown are the ones ``dynotui pages`` would use on the real index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from dynotui.dynamodb.condition import Tree
from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.schema import KeyAttribute, SortOrder, TableSchema
from dynotui.dynamodb.what_if.evaluate import holds, order_key
from dynotui.dynamodb.what_if.item_size import CALL_BYTES, item_size, read_units
from dynotui.dynamodb.what_if.rewrite import ImaginedIndex

IMAGINED_STATUS = "IMAGINED"


@dataclass(frozen=True, slots=True)
class Entry:
    """One item as the imagined index would hold it."""

    item: Item  # the table's item, whole
    projected: Item  # the index entry: table keys, index keys, projected attributes
    size: int  # bytes of the index entry


def imagined_schema(
    schema: TableSchema, index: ImaginedIndex, partition_type: str, sort_type: str | None
) -> TableSchema:
    """The table's schema with the imagined GSI as one more order."""
    order = SortOrder(
        name=index.index_name,
        kind="gsi",
        partition_key=KeyAttribute(index.partition_key, partition_type),
        sort_key=KeyAttribute(index.sort_key, sort_type or "S") if index.sort_key else None,
        projection=index.projection,
        projected=index.include,
        status=IMAGINED_STATUS,
        item_count=None,
    )
    attributes = tuple(dict.fromkeys([*schema.attributes, *index.key_names]))
    return replace(schema, orders=(*schema.orders, order), attributes=attributes)


def key_types_hold(
    item: Mapping[str, Any], index: ImaginedIndex, partition_type: str, sort_type: str | None
) -> bool:
    """Whether the index holds ``item``: both key attributes present, of the key types."""
    wanted = [(index.partition_key, partition_type)]
    if index.sort_key:
        wanted.append((index.sort_key, sort_type or "S"))
    for name, kind in wanted:
        value = item.get(name)
        if value is None or next(iter(value)) != kind:
            return False
    return True


def entry_of(item: Item, index: ImaginedIndex, table_keys: Sequence[str]) -> Entry:
    keys = {*table_keys, *index.key_names}
    if index.projection == "ALL":
        projected = dict(item)
    else:
        wanted = keys | set(index.include)
        projected = {name: value for name, value in item.items() if name in wanted}
    return Entry(item=item, projected=projected, size=item_size(projected))


def in_index_order(
    entries: Sequence[Entry], index: ImaginedIndex, table_keys: Sequence[str]
) -> list[Entry]:
    """Entries in the order a Query on the index returns them: by sort key; equal sort keys
    (no defined order on a GSI) by table key, so a run is repeatable."""

    def order(entry: Entry) -> Any:
        sort = order_key(entry.item[index.sort_key]) if index.sort_key else b""
        return (sort, tuple(order_key(entry.item[k]) for k in table_keys))

    return sorted(entries, key=order)


class SimulatedIndex:
    """A client whose ``query`` pages through the imagined index's entries."""

    dynotui_hooked = True  # no botocore events to hook: read_page must not try

    def __init__(
        self,
        table: str,
        index_name: str,
        entries: Sequence[Entry],
        filter_tree: Tree | None,
        cursor_keys: Sequence[str],
        forward: bool = True,
    ) -> None:
        self.table = table
        self.index_name = index_name
        self.entries = list(entries) if forward else list(reversed(entries))
        self.filter = filter_tree
        self.cursor_keys = tuple(cursor_keys)
        self.calls = 0
        self._position = {self._identity(e.projected): n for n, e in enumerate(self.entries)}

    def _identity(self, item: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(order_key(item[name]) for name in self.cursor_keys)

    def query(self, **params: Any) -> dict[str, Any]:
        self.calls += 1
        start = params.get("ExclusiveStartKey")
        at = 0 if start is None else self._position[self._identity(start)] + 1
        limit = int(params["Limit"])
        evaluated: list[Entry] = []
        read = 0
        while at < len(self.entries) and len(evaluated) < limit and read < CALL_BYTES:
            entry = self.entries[at]
            evaluated.append(entry)
            read += entry.size
            at += 1
        items = [e.projected for e in evaluated if holds(self.filter, e.projected)]
        units = read_units(e.size for e in evaluated) if evaluated else 0.0
        response: dict[str, Any] = {
            "Items": items,
            "Count": len(items),
            "ScannedCount": len(evaluated),
            "ConsumedCapacity": {
                "TableName": self.table,
                "CapacityUnits": units,
                "Table": {"CapacityUnits": 0.0},
                "GlobalSecondaryIndexes": {self.index_name: {"CapacityUnits": units}},
            },
        }
        stopped = evaluated and (len(evaluated) == limit or read >= CALL_BYTES)
        if stopped:
            last = evaluated[-1].projected
            response["LastEvaluatedKey"] = {name: last[name] for name in self.cursor_keys}
        return response
