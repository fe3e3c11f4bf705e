"""What an imagined index would cost to keep: its items and bytes over the whole table and
the write units of a put, from the items a what-if read."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.what_if.evaluate import order_key
from dynotui.dynamodb.what_if.figures import Figure, IndexCost, wilson
from dynotui.dynamodb.what_if.item_size import INDEX_ITEM_OVERHEAD, write_units
from dynotui.dynamodb.what_if.rewrite import ImaginedIndex
from dynotui.dynamodb.what_if.simulate import Entry


def index_cost(
    index: ImaginedIndex,
    schema: TableSchema,
    entry: Callable[[Item], Entry],
    seen: Sequence[Item],
    member: Callable[[Item], bool],
    table_items: Sequence[Item],
    table_complete: bool,
    notes: list[str],
) -> IndexCost:
    """What the index would hold and cost to keep, from the items read (``seen``, the
    current query's; ``table_items``, the table sample's): its item count and size over
    the whole table (exact, a range, or a lower bound, as the sample allows) and the write
    units per put. ``entry`` is the item as the index would hold it; what cannot be known
    exactly is said in ``notes``."""
    table_keys = schema.table_key_names
    unique: dict[tuple[Any, ...], Item] = {}
    for item in [*seen, *table_items]:
        unique[tuple(order_key(item[k]) for k in table_keys)] = item
    members = [entry(i) for i in unique.values() if member(i)]
    violations = sum(
        1 for i in unique.values() if not member(i) and all(k in i for k in index.key_names)
    )
    per_put = sum(write_units(e.size) for e in members) / len(members) if members else None
    stored = [e.size + INDEX_ITEM_OVERHEAD for e in members]
    mean_stored = sum(stored) / len(stored) if stored else 0.0
    sample_members = [i for i in table_items if member(i)]
    if table_complete:
        items = Figure.exact(len(sample_members))
        size = Figure.exact(sum(entry(i).size + INDEX_ITEM_OVERHEAD for i in sample_members))
    elif table_items and schema.item_count:
        low, high = wilson(len(sample_members), len(table_items))
        total = schema.item_count
        items = Figure(max(len(members), math.floor(low * total)), math.ceil(high * total))
        size = Figure(items.low * mean_stored, (items.high or 0) * mean_stored)
    else:
        items = Figure(len(members), None)
        size = Figure(sum(stored), None)
        notes.append(
            "the index's size over the whole table is a lower bound: only the current "
            "query's items were read (a table sample makes it a range)"
        )
    if violations:
        notes.append(
            f"{violations:,} item(s) read hold an index key attribute of another type: "
            "creating the index would report them as violations and not index them"
        )
    return IndexCost(
        items=items,
        members_seen=len(members),
        violations_seen=violations,
        write_units_per_put=per_put,
        index_bytes=size,
    )
