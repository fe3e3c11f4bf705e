"""The imagined index's side of a what-if: the rewritten query paged by the same pager
as any query, over the index entries the reads found (``SimulatedIndex``), and its figures
scaled to the table when only a sample was read (ranges from the 95% interval).

``WhatIf`` (``estimate.py``) does the reading and decides which of these applies; this
module only turns index entries into ``QueryFigures``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from dynotui.core.exact_json import dumps as exact_dumps
from dynotui.core.pager import Pager
from dynotui.dynamodb.condition import Tree
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


def cycled(entries: Sequence[Entry], count: int) -> list[Entry]:
    """``count`` entries made of ``entries`` repeated (copies with keys of their own)."""
    out: list[Entry] = []
    for n in range(count):
        entry = entries[n % len(entries)]
        if n < len(entries):
            out.append(entry)
        else:  # a copy: new value objects, so the simulated index tells copies apart
            projected = {k: dict(v) for k, v in entry.projected.items()}
            out.append(Entry(entry.item, projected, entry.size))
    return out


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
        low = self.simulate(base + cycled(scaled, low_count), spec2, schema2, Figure.exact)
        high = self.simulate(base + cycled(scaled, high_count), spec2, schema2, Figure.exact)
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
