"""Every path that returns a query's items: the base table, each LSI and GSI, a Scan, an
export, the advisor's imagined index; each with its own key condition and filter.

The query's conditions are one set (``conditions``): its key condition's and filter's
conjuncts, and, when it is written on an index, that index's membership (a GSI or LSI
holds only items with its key attributes, of their types: the query's items are those).
Each order gets the set rewritten onto its keys, as what-if rewrites it for an imagined
index (``what_if/rewrite.py``): an equality on the order's partition key makes it a Query,
a condition on its sort key joins the key condition, the rest stays a filter. An order
with no such equality is read whole: a Scan of it.

A path is refused, with the reason, when it could not return the same items: a GSI read
for a query that asked for consistent reads; an order whose projection lacks an attribute
the query tests or returns; an index that is sparse where the query is not (decided from
the data by the planner when the conditions alone cannot).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from dynotui.core.errors import InputError
from dynotui.dynamodb.condition import Tree, canonical, conjuncts, tested_names
from dynotui.dynamodb.dynamo_json import value_from_wire
from dynotui.dynamodb.expressions import placeholders
from dynotui.dynamodb.schema import SortOrder, TableSchema
from dynotui.dynamodb.spec import QuerySpec
from dynotui.dynamodb.what_if.rewrite import ImaginedIndex, all_conjuncts, deparse, rewrite
from dynotui.dynamodb.what_if.simulate import imagined_schema

PathKind = Literal["query", "scan", "export", "imagined"]
TABLE_PATH = "table"
SCAN_PATH = "scan"
EXPORT_PATH = "export"
IMAGINED_SUFFIX = " (imagined)"
# Conditions that are false on an item without the attribute (or of another type): an
# item that meets one has the attribute. '<>' is true on a missing attribute.
_PRESENT_IF_TRUE = ("compare", "between", "in")
_PRESENT_FUNCTIONS = ("attribute_exists", "attribute_type", "begins_with", "contains")


@dataclass(frozen=True)
class Path:
    """One way to answer the query, before anything is read."""

    name: str
    kind: PathKind
    index: str | None  # the LSI or GSI read; None for the base table and the export
    order: SortOrder | None  # what is read (None: the export)
    spec: QuerySpec | None  # the path's own Query or Scan (None: the export)
    schema: TableSchema  # holds ``order`` (with the imagined index for that path)
    key: Tree | None  # the key condition (None: a Scan)
    filter: Tree | None
    usable: bool
    why: str | None  # why it is refused; or, when usable, what its use rests on
    imagined: ImaginedIndex | None = None
    # Index key attributes the conditions do not promise: the planner checks the data.
    unpromised_keys: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def reads_items_whole(self) -> bool:
        """Its entries are the table's items whole (the base table, an ALL projection)."""
        return self.order is not None and (
            self.order.kind == "table" or self.order.projection == "ALL"
        )

    def order_words(self) -> str:
        """The order the items come back in."""
        if self.kind == "export":
            return "no defined order (the export's files as written)"
        assert self.order is not None and self.spec is not None
        if self.spec.scan:
            return "no defined order (a Scan returns items in hash order)"
        sort = self.order.sort_key
        if sort is None:
            return "no defined order (the order has no sort key)"
        way = "ascending" if self.spec.forward else "descending"
        ties = "; ties in no defined order" if self.order.kind == "gsi" else ""
        return f"by {sort.name} {way}{ties}"


def _top(node: Any) -> str | None:
    if isinstance(node, list) and node and node[0] == "path" and len(node[1]) == 1:
        part = node[1][0]
        return part if isinstance(part, str) else None
    return None


def _value_type(node: Any) -> str | None:
    if isinstance(node, list) and node and node[0] == "value":
        ((kind, _),) = node[1].items()
        return str(kind)
    return None


def promises(condition: Tree, name: str, kind: str) -> bool:
    """Whether an item meeting ``condition`` has attribute ``name`` of type ``kind``."""
    head = condition[0]
    if head == "compare" and condition[1] != "<>":
        for mine, other in ((condition[2], condition[3]), (condition[3], condition[2])):
            if _top(mine) == name and _value_type(other) == kind:
                return True
        return False
    if head == "between":
        return _top(condition[1]) == name and _value_type(condition[2]) == kind
    if head == "in":
        types = {_value_type(option) for option in condition[2]}
        return _top(condition[1]) == name and types == {kind}
    if head == "function" and condition[1] == "attribute_type":
        args = condition[2]
        return _top(args[0]) == name and args[1][0] == "value" and args[1][1] == {"S": kind}
    if head == "function" and condition[1] == "begins_with":
        args = condition[2]
        return _top(args[0]) == name and _value_type(args[1]) == kind
    return False


def membership(name: str, kind: str) -> Tree:
    """``attribute_type(name, kind)``: the condition an index puts on its key attribute."""
    return ["function", "attribute_type", [["path", [name]], ["value", {"S": kind}]]]


def conditions(spec: QuerySpec, schema: TableSchema) -> list[Tree]:
    """Every condition an item of the query's result meets: its key condition's and its
    filter's, and the membership of the index it is written on."""
    parts = all_conjuncts(spec)
    written = schema.order(spec.index)
    if written.kind != "table":
        for key in (written.partition_key, written.sort_key):
            if key is not None and not any(promises(p, key.name, key.type) for p in parts):
                parts.append(membership(key.name, key.type))
    unique: dict[str, Tree] = {}
    for part in parts:
        unique.setdefault(canonical(part), part)
    return list(unique.values())


def _and(parts: list[Tree]) -> Tree | None:
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else ["and", sorted(parts, key=canonical)]


def needed_attributes(spec: QuerySpec, parts: list[Tree]) -> set[str] | None:
    """Attributes the query tests or returns; None: it returns every attribute."""
    tested = {n for p in parts for n in tested_names(p)}
    returned = spec.projected_names()
    return None if not returned else tested | set(returned)


def projection_refusal(
    order: SortOrder, needed: set[str] | None, table_keys: tuple[str, ...]
) -> str | None:
    if order.kind == "table" or order.projection == "ALL":
        return None
    holds = order.projection + (f" {', '.join(order.projected)}" if order.projected else "")
    lsi = (
        " (an LSI would fetch them from the table, at a cost not estimated here)"
        if order.kind == "lsi"
        else ""
    )
    if needed is None:
        return (
            f"it projects {holds}, and the query returns every attribute: give a "
            f"--projection-expression of what you need{lsi}"
        )
    missing = sorted(n for n in needed if not order.projects(n, table_keys))
    if missing:
        return f"it projects {holds}, without {', '.join(missing)} that the query reads{lsi}"
    return None


_PLACEHOLDER = re.compile(r"#[A-Za-z0-9_]+")


def _projection(spec: QuerySpec, names: dict[str, str]) -> str | None:
    """The query's projection, its name placeholders renamed so none clashes with the
    rewritten expressions' (``#n0``...)."""
    if not spec.projection:
        return None
    used, _ = placeholders(spec.projection)
    renamed = {p: f"#p_{p[1:]}" for p in used}
    for old, new in renamed.items():
        names[new] = spec.names[old]
    return _PLACEHOLDER.sub(lambda m: renamed.get(m.group(0), m.group(0)), spec.projection)


def path_spec(
    spec: QuerySpec, order: SortOrder, key: Tree | None, filter_tree: Tree | None
) -> QuerySpec:
    """The query as it runs on ``order``: a Query with ``key`` or a Scan of it."""
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    key_text = deparse(key, names, values) if key is not None else None
    filter_text = deparse(filter_tree, names, values) if filter_tree is not None else None
    projection = _projection(spec, names)
    return QuerySpec(
        table=spec.table,
        index=order.index_name,
        scan=key is None,
        key_condition=key_text,
        filter=filter_text,
        projection=projection,
        names=names,
        values={k: value_from_wire(v, k) for k, v in values.items()},
        forward=spec.forward,
        page_size=spec.page_size,
        mode=spec.mode,
        max_rounds=spec.max_rounds,
        consistent_read=spec.consistent_read and order.kind != "gsi",
    )


def _as_index(order: SortOrder) -> ImaginedIndex:
    return ImaginedIndex(
        partition_key=order.partition_key.name,
        sort_key=order.sort_key.name if order.sort_key else None,
        projection=order.projection,
        include=order.projected,
        name=order.name,
        partition_type=order.partition_key.type,
        sort_type=order.sort_key.type if order.sort_key else None,
    )


def _whole(spec: QuerySpec, parts: list[Tree]) -> QuerySpec:
    """The conditions as one Scan's filter: what ``rewrite`` takes."""
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    tree = _and(parts)
    text = deparse(tree, names, values) if tree is not None else None
    return QuerySpec(
        table=spec.table,
        scan=True,
        filter=text,
        names=names,
        values={k: value_from_wire(v, k) for k, v in values.items()},
    )


def _rewritten(
    whole: QuerySpec, order: SortOrder, schema: TableSchema, parts: list[Tree]
) -> tuple[Tree | None, Tree | None]:
    """The order's key condition (None: no equality on its partition key) and filter.
    (The rewrite's notes speak of an imagined index: only the imagined path keeps them.)"""
    try:
        found = rewrite(whole, _as_index(order), schema)
    except InputError:
        return None, _and(parts)
    return found.key, found.filter


def _own_keys_out(
    order: SortOrder, key: Tree | None, filter_tree: Tree | None
) -> tuple[Tree | None, str | None]:
    """A Query's filter may not test the order's own key attributes (DynamoDB refuses
    it): their membership conditions go (the order holds only items that meet them);
    any other test of them makes the path unusable, with the reason."""
    if key is None:
        return filter_tree, None
    own = {k.name: k.type for k in (order.partition_key, order.sort_key) if k is not None}
    kept = [
        part
        for part in conjuncts(filter_tree)
        if not any(part == membership(name, kind) for name, kind in own.items())
    ]
    tested = sorted({n for part in kept for n in tested_names(part)} & set(own))
    why = None
    if tested:
        why = (
            f"a Query's filter cannot test its own key attribute{'s' if len(tested) > 1 else ''}"
            f" {', '.join(tested)}, and its key condition takes one condition on each"
        )
    return _and(kept), why


def _unpromised(order: SortOrder, parts: list[Tree]) -> tuple[str, ...]:
    if order.kind == "table":
        return ()
    return tuple(
        key.name
        for key in (order.partition_key, order.sort_key)
        if key is not None and not any(promises(p, key.name, key.type) for p in parts)
    )


def enumerate_paths(
    spec: QuerySpec, schema: TableSchema, imagined: ImaginedIndex | None = None
) -> list[Path]:
    """Every path but the export (the caller adds it: reading one is not DynamoDB's)."""
    parts = conditions(spec, schema)
    whole = _whole(spec, parts)
    needed = needed_attributes(spec, parts)
    table_keys = schema.table_key_names
    paths: list[Path] = []
    for order in schema.orders:
        key, filter_tree = _rewritten(whole, order, schema, parts)
        if order.kind == "table" and key is None:
            continue  # the base table's Scan is the Scan path
        filter_tree, why = _own_keys_out(order, key, filter_tree)
        if spec.consistent_read and order.kind == "gsi":
            why = order.consistent_read_refusal()
        why = why or projection_refusal(order, needed, table_keys)
        paths.append(
            Path(
                name=TABLE_PATH if order.kind == "table" else order.name,
                kind="query" if key is not None else "scan",
                index=order.index_name,
                order=order,
                spec=path_spec(spec, order, key, filter_tree),
                schema=schema,
                key=key,
                filter=filter_tree,
                usable=why is None,
                why=why,
                unpromised_keys=_unpromised(order, parts),
            )
        )
    base = schema.base
    paths.append(
        Path(
            name=SCAN_PATH,
            kind="scan",
            index=None,
            order=base,
            spec=path_spec(spec, base, None, _and(parts)),
            schema=schema,
            key=None,
            filter=_and(parts),
            usable=True,
            why=None,
        )
    )
    if imagined is not None:
        found = imagined_path(spec, schema, imagined, whole, parts, needed)
        if found is not None:
            paths.append(found)
    return paths


def imagined_path(
    spec: QuerySpec,
    schema: TableSchema,
    index: ImaginedIndex,
    whole: QuerySpec,
    parts: list[Tree],
    needed: set[str] | None,
) -> Path | None:
    """The advisor's index that does not exist, as a path (a Query on it, or nothing)."""
    try:
        found = rewrite(whole, index, schema)
    except InputError:
        return None
    sort_type = found.sort_type or ("S" if index.sort_key else None)
    schema2 = imagined_schema(schema, index, found.partition_type, sort_type)
    order = schema2.order(index.index_name)
    filter_tree, why = _own_keys_out(order, found.key, found.filter)
    if spec.consistent_read:
        why = "an index you would create is a GSI, and GSIs serve only eventually consistent reads"
    why = why or projection_refusal(order, needed, schema.table_key_names)
    return Path(
        name=index.index_name + IMAGINED_SUFFIX,
        kind="imagined",
        index=index.index_name,
        order=order,
        spec=path_spec(spec, order, found.key, filter_tree),
        schema=schema2,
        key=found.key,
        filter=filter_tree,
        usable=why is None,
        why=why,
        imagined=index,
        unpromised_keys=_unpromised(order, parts),
        notes=found.notes,
    )


def export_path(schema: TableSchema, spec: QuerySpec) -> Path:
    parts = conditions(spec, schema)
    return Path(
        name=EXPORT_PATH,
        kind="export",
        index=None,
        order=None,
        spec=None,
        schema=schema,
        key=None,
        filter=_and(parts),
        usable=True,
        why=None,
    )
