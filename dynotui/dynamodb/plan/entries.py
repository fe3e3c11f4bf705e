"""A path's entries from items read: which items its key range holds, as its index holds
them (projected, sized), in the order it returns them, each marked by its filter."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from dynotui.dynamodb.condition import Tree, canonical, conjuncts
from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.plan.paths import Path
from dynotui.dynamodb.plan.simulated import SimEntry
from dynotui.dynamodb.schema import SortOrder
from dynotui.dynamodb.what_if.evaluate import holds, order_key
from dynotui.dynamodb.what_if.item_size import item_size


def is_member(item: Item, order: SortOrder) -> bool:
    """Whether ``order`` holds ``item``: its key attributes present, of their types."""
    for key in (order.partition_key, order.sort_key):
        if key is None:
            continue
        value = item.get(key.name)
        if value is None or next(iter(value)) != key.type:
            return False
    return True


def projected(item: Item, order: SortOrder, table_keys: Sequence[str]) -> Item:
    """The entry ``order`` holds for a whole item."""
    if order.kind == "table" or order.projection == "ALL":
        return item
    wanted = {*table_keys, *order.key_names, *order.projected}
    return {name: value for name, value in item.items() if name in wanted}


def table_key(item: Item, table_keys: Sequence[str]) -> tuple[Any, ...]:
    return tuple(order_key(item[k]) for k in table_keys)


def key_conjuncts(tree: Tree | None) -> set[str]:
    return {canonical(c) for c in conjuncts(tree)}


def in_path_order(
    entries: list[Item], order: SortOrder, table_keys: Sequence[str], forward: bool
) -> list[Item]:
    """By the order's sort key, ties by the table's keys (a GSI's own tie order is
    undefined; a fixed one makes runs repeatable); reversed for a descending Query."""

    def position(entry: Item) -> Any:
        sort = order_key(entry[order.sort_key.name]) if order.sort_key else b""
        return (sort, table_key(entry, table_keys))

    ordered = sorted(entries, key=position)
    return ordered if forward else ordered[::-1]


def own_entries(path: Path, items: Iterable[Item]) -> list[SimEntry]:
    """The path's entries as its own read returned them (already in its order)."""
    return [SimEntry(item, item_size(item), holds(path.filter, item)) for item in items]


def derived_entries(path: Path, items: Iterable[Item], table_keys: Sequence[str]) -> list[SimEntry]:
    """The path's entries among whole items read by another path: those in its key range
    and in its order (present keys, of their types), projected, in its order."""
    order = path.order
    assert order is not None and path.spec is not None
    chosen = [
        projected(item, order, table_keys)
        for item in items
        if is_member(item, order) and (path.key is None or holds(path.key, item))
    ]
    ordered = in_path_order(chosen, order, table_keys, path.spec.forward)
    return [SimEntry(entry, item_size(entry), holds(path.filter, entry)) for entry in ordered]


def covers(source: Path, target: Path) -> bool:
    """Whether every entry of ``target``'s key range is an item of ``source``'s (read
    whole): ``target``'s key condition says at least what ``source``'s says, and any key
    ``source``'s order needs an item to have, ``target``'s key condition tests."""
    if not source.reads_items_whole or target.kind == "export":
        return False
    if source.key is None:  # a Scan: of the table it holds every item
        return source.order is not None and source.order.kind == "table"
    if target.key is None:
        return False
    if not key_conjuncts(source.key) <= key_conjuncts(target.key):
        return False
    assert source.order is not None
    tested = {n for c in conjuncts(target.key) for n in _names(c)}
    return all(name in tested for name in source.order.key_names) or source.order.kind == "table"


def _names(tree: Tree) -> set[str]:
    from dynotui.dynamodb.condition import tested_names

    return tested_names(tree)
