"""The query rewritten for an index that does not exist yet.

Every condition an item must meet (the key condition's and the filter's, ``conjuncts``)
is sorted into the imagined index's key condition or its filter: the partition key needs
an equality (``P = :v``); the sort key takes one of ``=``, ``<``, ``<=``, ``>``, ``>=``,
``BETWEEN`` or ``begins_with`` (DynamoDB allows one condition on it); everything else,
the current query's own partition key test included when it is not a key of the new
index, stays a filter. The conditions as a whole are unchanged, so the rewritten query
returns the same items, less those the index does not hold (a sparse index holds only
items with both key attributes, of the key types).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dynotui.core.errors import InputError
from dynotui.dynamodb.condition import Tree, canonical, conjuncts
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.spec import QuerySpec

PROJECTIONS = ("ALL", "KEYS_ONLY", "INCLUDE")
KEY_TYPES = ("S", "N", "B")
_NAME = re.compile(r"[A-Za-z0-9_.-]{3,255}")
# The sort key condition DynamoDB prefers, best first: '=' reads one sort key value,
# BETWEEN and begins_with a bounded run, a comparison an open-ended one.
_SORT_RANK = {"=": 0, "between": 1, "begins_with": 2, "<": 3, "<=": 3, ">": 3, ">=": 3}
_FLIPPED = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass(frozen=True)
class ImaginedIndex:
    """A GSI that does not exist: its keys (types may be left to be inferred), projection."""

    partition_key: str
    sort_key: str | None = None
    projection: str = "ALL"
    include: tuple[str, ...] = ()
    name: str | None = None
    partition_type: str | None = None
    sort_type: str | None = None

    def check(self, schema: TableSchema) -> None:
        """Refuse what CreateTable/UpdateTable would refuse, in one sentence."""
        for label, name in (("--partition-key", self.partition_key), ("--sort-key", self.sort_key)):
            if name is not None and (not name or len(name.encode()) > 255):
                raise InputError(f"{label} must be an attribute name of 1 to 255 bytes")
        if self.sort_key is not None and self.sort_key == self.partition_key:
            raise InputError("--sort-key must differ from --partition-key")
        if self.projection not in PROJECTIONS:
            raise InputError(f"--projection must be one of {', '.join(PROJECTIONS)}")
        if self.projection == "INCLUDE" and not self.include:
            raise InputError("--projection INCLUDE needs --include a,b (the attributes to copy)")
        if self.projection != "INCLUDE" and self.include:
            raise InputError("--include goes with --projection INCLUDE")
        for kind in (self.partition_type, self.sort_type):
            if kind is not None and kind not in KEY_TYPES:
                raise InputError(f"a key type is S, N or B, not {kind!r}")
        if self.name is not None and not _NAME.fullmatch(self.name):
            raise InputError(
                "--new-index-name must be 3 to 255 characters of letters, digits, _ . -"
            )
        name = self.index_name
        if any(order.name == name for order in schema.orders[1:]):
            raise InputError(f"table '{schema.name}' already has an index '{name}': name another")
        for attribute, kind in (
            (self.partition_key, self.partition_type),
            (self.sort_key, self.sort_type),
        ):
            defined = schema.attribute_type(attribute) if attribute else None
            if defined is not None and kind is not None and defined != kind:
                raise InputError(
                    f"'{attribute}' is defined as {defined} in table '{schema.name}'; "
                    f"an index key on it is {defined} too, not {kind}"
                )

    @property
    def index_name(self) -> str:
        if self.name:
            return self.name
        keys = [self.partition_key, *([self.sort_key] if self.sort_key else [])]
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", "-".join(keys)) + "-index"
        return base[:255]

    @property
    def key_names(self) -> tuple[str, ...]:
        return (self.partition_key, *((self.sort_key,) if self.sort_key else ()))

    def describe(self) -> str:
        sort = f" / {self.sort_key}" if self.sort_key else " (no sort key)"
        projection = self.projection + (f" {', '.join(self.include)}" if self.include else "")
        return (
            f"{self.index_name}: GSI (imagined), {self.partition_key}{sort}, projects {projection}"
        )


@dataclass(frozen=True)
class Rewrite:
    """The query on the imagined index: key condition and filter as trees, with words."""

    partition: Tree
    sort: Tree | None
    filter: Tree | None
    partition_type: str
    sort_type: str | None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def key(self) -> Tree:
        return ["and", [self.partition, self.sort]] if self.sort is not None else self.partition

    def key_conjuncts(self) -> set[str]:
        return {canonical(c) for c in conjuncts(self.key)}


def _top_path(node: Any) -> str | None:
    if isinstance(node, list) and node and node[0] == "path" and len(node[1]) == 1:
        part = node[1][0]
        return part if isinstance(part, str) else None
    return None


def _value_type(node: Any) -> str | None:
    if isinstance(node, list) and node and node[0] == "value":
        ((kind, _),) = node[1].items()
        return str(kind)
    return None


def _equality_on(tree: Tree, name: str) -> tuple[Tree, str] | None:
    """``name = :v`` (either way round) as ``[compare, =, path, value]`` and the value's type."""
    if tree[0] != "compare" or tree[1] != "=":
        return None
    left, right = tree[2], tree[3]
    if _top_path(right) == name and _value_type(left):
        left, right = right, left
    kind = _value_type(right)
    if _top_path(left) == name and kind in KEY_TYPES:
        return ["compare", "=", left, right], str(kind)
    return None


def _sort_condition(tree: Tree, name: str) -> tuple[Tree, str, int] | None:
    """A condition DynamoDB takes on a sort key, normalized (the path on the left), with
    the value type and its rank."""
    kind = tree[0]
    if kind == "compare" and tree[1] in _FLIPPED:
        left, right, op = tree[2], tree[3], tree[1]
        if _top_path(right) == name and _value_type(left):
            left, right, op = right, left, _FLIPPED[op]
        value = _value_type(right)
        if _top_path(left) == name and value in KEY_TYPES:
            return ["compare", op, left, right], str(value), _SORT_RANK[op]
    if kind == "between" and _top_path(tree[1]) == name:
        low, high = _value_type(tree[2]), _value_type(tree[3])
        if low in KEY_TYPES and low == high:
            return tree, str(low), _SORT_RANK["between"]
    if kind == "function" and tree[1] == "begins_with" and _top_path(tree[2][0]) == name:
        value = _value_type(tree[2][1])
        if value in ("S", "B"):
            return tree, str(value), _SORT_RANK["begins_with"]
    return None


def _and(parts: Sequence[Tree]) -> Tree | None:
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return ["and", sorted(parts, key=canonical)]


def all_conjuncts(spec: QuerySpec) -> list[Tree]:
    key, filter_tree = spec.trees()
    return [*conjuncts(key), *conjuncts(filter_tree)]


def rewrite(spec: QuerySpec, index: ImaginedIndex, schema: TableSchema) -> Rewrite:
    """The imagined index's key condition and filter for the same conditions; an
    InputError when no condition tests the partition key with '=' (then the index cannot
    serve this query with a Query at all)."""
    parts = all_conjuncts(spec)
    defined_p = schema.attribute_type(index.partition_key)
    wanted_p = index.partition_type or defined_p
    partition = None
    for part in parts:
        found = _equality_on(part, index.partition_key)
        if found and (wanted_p is None or found[1] == wanted_p):
            partition = (part, found)
            break
    if partition is None:
        raise InputError(
            f"no condition of this query tests '{index.partition_key}' with '=' and a value"
            + (f" of type {wanted_p}" if wanted_p else "")
            + ": a Query on the imagined index needs one (add it to the filter, e.g. "
            f"'{index.partition_key} = :v'), or imagine another partition key"
        )
    original, (partition_tree, partition_type) = partition
    rest = [p for p in parts if p is not original]
    notes: list[str] = []
    sort_tree = None
    sort_type = index.sort_type or (
        schema.attribute_type(index.sort_key) if index.sort_key else None
    )
    if index.sort_key is not None:
        candidates = []
        for part in rest:
            usable = _sort_condition(part, index.sort_key)
            if usable and (sort_type is None or usable[1] == sort_type):
                candidates.append((usable[2], canonical(part), part, usable))
        if candidates:
            candidates.sort(key=lambda c: (c[0], c[1]))
            _, _, chosen, (sort_tree, found_type, _) = candidates[0]
            sort_type = sort_type or found_type
            rest = [p for p in rest if p is not chosen]
            others = len(candidates) - 1
            if others:
                notes.append(
                    f"DynamoDB takes one condition on the sort key '{index.sort_key}': "
                    f"{others} more stay in the filter"
                )
        else:
            notes.append(
                f"no condition tests the sort key '{index.sort_key}' in a way a key condition "
                "can (=, <, <=, >, >=, BETWEEN, begins_with): the rewritten query reads the "
                "whole index partition and filters it"
            )
    if rest:
        notes.append(
            f"{len(rest)} condition{'s' if len(rest) > 1 else ''} cannot become key conditions "
            "on the imagined index and stay a filter: the index partition's items that fail "
            "them are read and paid for"
        )
    return Rewrite(
        partition=partition_tree,
        sort=sort_tree,
        filter=_and(rest),
        partition_type=partition_type,
        sort_type=sort_type,
        notes=tuple(notes),
    )


def covered(spec: QuerySpec, schema: TableSchema, rewritten: Rewrite) -> bool:
    """Whether every item the rewritten query reads is an item the current query reads
    (so reading the current key range whole shows them all): its key conditions are among
    the rewritten key conditions, and its order holds every item with full attributes."""
    order = schema.order(spec.index)
    if order.kind != "table":
        if order.projection != "ALL":
            return False
        tested = {name for c in conjuncts(rewritten.key) for name in _tested(c)}
        if any(name not in tested for name in order.key_names):
            return False  # the current index is sparse where the new one need not be
    if spec.scan:
        return True
    key, _ = spec.trees()
    return {canonical(c) for c in conjuncts(key)} <= rewritten.key_conjuncts()


def _tested(tree: Tree) -> set[str]:
    from dynotui.dynamodb.condition import tested_names

    return tested_names(tree)


def deparse(tree: Tree, names: dict[str, str], values: dict[str, Any]) -> str:
    """Expression text for a tree: ``#n0`` for every name, ``:v0`` for every value.
    ``names`` maps placeholder to name and ``values`` placeholder to DynamoDB JSON; both
    are filled in (shared by the key condition and the filter of one query)."""

    def name(text: str) -> str:
        for placeholder, known in names.items():
            if known == text:
                return placeholder
        placeholder = f"#n{len(names)}"
        names[placeholder] = text
        return placeholder

    def value(av: Any) -> str:
        for placeholder, known in values.items():
            if known == av:
                return placeholder
        placeholder = f":v{len(values)}"
        values[placeholder] = av
        return placeholder

    def operand(node: Any) -> str:
        if node[0] == "value":
            return value(node[1])
        if node[0] == "size":
            return f"size({operand(node[1])})"
        out = ""
        for part in node[1]:
            out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + name(part)
        return out

    def condition(node: Any, nested: bool) -> str:
        kind = node[0]
        if kind in ("and", "or"):
            text = f" {kind.upper()} ".join(condition(child, True) for child in node[1])
            return f"({text})" if nested else text
        if kind == "not":
            return f"NOT {condition(node[1], True)}"
        if kind == "compare":
            return f"{operand(node[2])} {node[1]} {operand(node[3])}"
        if kind == "between":
            return f"{operand(node[1])} BETWEEN {operand(node[2])} AND {operand(node[3])}"
        if kind == "in":
            return f"{operand(node[1])} IN ({', '.join(operand(o) for o in node[2])})"
        if kind == "function":
            return f"{node[1]}({', '.join(operand(a) for a in node[2])})"
        raise ValueError(f"not a condition: {kind}")

    return condition(tree, False)
