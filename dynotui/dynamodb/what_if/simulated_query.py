"""The imagined index's side of a what-if: the rewritten query paged by the same pager
as any query, over the index entries the reads found (``SimulatedIndex``), and its figures
scaled to the table when only a sample was read (ranges from the 95% interval).

``WhatIf`` (``estimate.py``) does the reading and decides which of these applies; this
module only turns index entries into ``QueryFigures``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal, localcontext
from typing import Any

from dynotui.core.exact_json import dumps as exact_dumps
from dynotui.core.pager import Pager
from dynotui.dynamodb.condition import Tree, tested_names
from dynotui.dynamodb.dynamo_json import Item, plain, value_from_wire
from dynotui.dynamodb.expressions import substitute
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import QuerySpec
from dynotui.dynamodb.what_if.figures import Figure, QueryFigures, wilson
from dynotui.dynamodb.what_if.rewrite import ImaginedIndex, Rewrite, deparse
from dynotui.dynamodb.what_if.simulate import (
    Entry,
    SimulatedIndex,
    imagined_schema,
    in_index_order,
)

SIMULATED_ENTRIES_MAX = 200_000  # beyond this the simulated index is a scaled prefix


def readable(text: str | None, names: dict[str, str], values: dict[str, Any]) -> str | None:
    """An expression with names and values written out, for people."""
    if text is None:
        return None
    shown = {k: exact_dumps(plain(v)) for k, v in values.items()}
    return substitute(text, names, shown)


def cycled(entries: Sequence[Entry], count: int, own_key: str | None = None) -> list[Entry]:
    """``count`` entries made of ``entries`` repeated, each copy with a key of its own:
    attribute ``own_key`` (a table key) of the n-th copy of an item carries ``n`` after its
    value, so no two entries share their keys. Copies that kept the original's keys were
    one entry to the simulated index: a page ending on a copy went on after the last of
    them (the copies between never read), and pages ending on copies of one item ended
    at one boundary (the pager's repeated-boundary refusal)."""
    out: list[Entry] = []
    for n in range(count):
        entry = entries[n % len(entries)]
        copy = n // len(entries)
        if copy == 0:
            out.append(entry)
            continue
        item = dict(entry.item)
        projected = {k: dict(v) for k, v in entry.projected.items()}
        if own_key is not None and own_key in item:
            item[own_key] = projected[own_key] = own_value(item[own_key], copy)
        out.append(Entry(item, projected, entry.size))  # billed as the original is
    return out


def own_value(value: Mapping[str, Any], copy: int) -> dict[str, Any]:
    """A key value just after ``value`` in its type's order, told apart by ``copy``: a
    string or binary value with a NUL and the copy's number after it (a range or a
    begins_with that holds for the original holds for it), a number a tiny fraction more."""
    ((kind, inner),) = value.items()
    if kind == "S":
        return {"S": f"{inner}\x00{copy}"}
    if kind == "B":
        return {"B": bytes(inner) + b"\x00" + str(copy).encode()}
    number = Decimal(inner)
    with localcontext() as exact:
        exact.prec = 100  # far past the value's own digits: the sum is exact, never rounded
        step = Decimal(copy).scaleb((number.adjusted() if number else 0) - 45)
        return {"N": str(number + step)}


@dataclass(frozen=True)
class IndexSimulation:
    """The current query (``spec`` on ``schema``) rewritten for ``index``."""

    spec: QuerySpec
    schema: TableSchema
    index: ImaginedIndex
    rewritten: Rewrite

    def rewritten_spec(
        self, sort_type: str | None
    ) -> tuple[QuerySpec, TableSchema, dict[str, Any]]:
        names: dict[str, str] = {}
        values: dict[str, Any] = {}
        key_text = deparse(self.rewritten.key, names, values)
        filter_text = (
            deparse(self.rewritten.filter, names, values) if self.rewritten.filter else None
        )
        schema2 = imagined_schema(self.schema, self.index, self.rewritten.partition_type, sort_type)
        spec2 = QuerySpec(
            table=self.spec.table,
            index=self.index.index_name,
            key_condition=key_text,
            filter=filter_text,
            names=names,
            values={k: value_from_wire(v, k) for k, v in values.items()},
            forward=self.spec.forward,
            page_size=self.spec.page_size,
            mode=self.spec.mode,
            max_rounds=self.spec.max_rounds,
        )
        spec2.validate(schema2)
        request: dict[str, Any] = {
            "TableName": self.spec.table,
            "IndexName": self.index.index_name,
            "KeyConditionExpression": key_text,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
        if filter_text:
            request["FilterExpression"] = filter_text
        if not self.spec.forward:
            request["ScanIndexForward"] = False
        return spec2, schema2, request

    def simulate(
        self,
        entries: Sequence[Entry],
        spec2: QuerySpec,
        schema2: TableSchema,
        figure: Callable[[float], Figure],
    ) -> QueryFigures:
        table_keys = self.schema.table_key_names
        ordered = in_index_order(entries, self.index, table_keys)
        factor = 1.0
        if len(ordered) > SIMULATED_ENTRIES_MAX:
            factor = len(ordered) / SIMULATED_ENTRIES_MAX
            ordered = ordered[:SIMULATED_ENTRIES_MAX]
        client = SimulatedIndex(
            self.spec.table,
            self.index.index_name,
            ordered,
            self.rewritten.filter,
            schema2.cursor_key_names(self.index.index_name),
            forward=self.spec.forward,
        )
        pager = Pager(QuerySource(client, spec2, schema2), cache_pages=1)
        while pager.can_advance:
            pager.next()
        totals = pager.totals
        cost = totals.cost
        measures = pager.measures.snapshot()
        shown = sum(s.shown for n, _ in pager.stack if (s := pager.summary_of(n)) is not None)
        units = cost.capacity.total if cost is not None and cost.capacity is not None else 0.0
        names, values = dict(spec2.names), {k: v for k, v in spec2.values.items()}
        return QueryFigures(
            label=f"what-if: GSI {self.index.index_name} (imagined)",
            operation="Query",
            index=self.index.index_name,
            key_condition=readable(spec2.key_condition, names, values),
            filter=readable(spec2.filter, names, values),
            pages=figure(math.ceil(totals.pages_read * factor)),
            matches=figure(round(shown * factor)),
            scanned=figure(round(((cost.read or 0) if cost else 0) * factor)),
            read_units=figure(units * factor),
            per_page=measures.capacity,
            mean_per_page=measures.capacity_mean,
            measured=False,
            expression={
                "key_condition_expression": spec2.key_condition,
                "filter_expression": spec2.filter,
            },
        )

    def copies_key(self) -> str | None:
        """The table key a made-up copy gets a value of its own in: one the rewritten query
        does not test, else the table's sort key (a range or begins_with on it still holds
        for a copy as for its original; an equality on every table key is one item, which
        a copy of is a copy of it either way). Never an index key: a copy sorts with its
        original."""
        tested = tested_names(self.rewritten.key) | tested_names(self.rewritten.filter)
        index_keys = {self.index.partition_key, self.index.sort_key}
        keys = [k for k in reversed(self.schema.table_key_names) if k not in index_keys]
        untested = [k for k in keys if k not in tested]
        chosen = untested or keys
        return chosen[0] if chosen else None

    def scaled(
        self,
        read_set: Sequence[Entry],
        spec2: QuerySpec,
        schema2: TableSchema,
        sampled: int,
        matches_all: Callable[[Item], bool],
        known: Sequence[Entry] | None,
    ) -> QueryFigures:
        """From a partial table sample: the read set scaled to the table, at both ends of
        the 95% interval of its share of the table. ``known``: the matches, when the
        current query was read whole (then only the items the filter drops are scaled)."""
        total = self.schema.item_count or 0
        scaled = (
            list(read_set) if known is None else [e for e in read_set if not matches_all(e.item)]
        )
        base = list(known or [])
        if not scaled:
            found = self.simulate(base, spec2, schema2, Figure.exact)
            return found if known is not None else at_least(found)
        low_share, high_share = wilson(len(scaled), sampled)
        low_count = max(len(scaled), math.floor(low_share * total))
        high_count = max(low_count, math.ceil(high_share * total))
        own_key = self.copies_key()
        low = self.simulate(base + cycled(scaled, low_count, own_key), spec2, schema2, Figure.exact)
        high = self.simulate(
            base + cycled(scaled, high_count, own_key), spec2, schema2, Figure.exact
        )
        return between(low, high)


def lower(value: float) -> Figure:
    return Figure(value, None)


def at_least(figures: QueryFigures) -> QueryFigures:
    return replace(
        figures,
        pages=Figure(figures.pages.low, None),
        matches=Figure(figures.matches.low, None),
        scanned=Figure(figures.scanned.low, None),
        read_units=Figure(figures.read_units.low, None),
    )


def between(low: QueryFigures, high: QueryFigures) -> QueryFigures:
    return replace(
        high,
        pages=Figure(low.pages.low, high.pages.low),
        matches=Figure(low.matches.low, high.matches.low),
        scanned=Figure(low.scanned.low, high.scanned.low),
        read_units=Figure(low.read_units.low, high.read_units.low),
    )


def with_matches(figures: QueryFigures, matches: Figure) -> QueryFigures:
    return replace(figures, matches=matches)


def tree_text(tree: Tree | None) -> str | None:
    if tree is None:
        return None
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    text = deparse(tree, names, values)
    return readable(text, names, {k: value_from_wire(v, k) for k, v in values.items()})
