"""What an index that does not exist would cost and save for one query: the estimator.

``WhatIf`` reads, one call's worth at a time (``step``: a page of the current query, then
calls of a table sample), within a budget of read units, and ``estimate()`` turns what it
read into an ``Estimate`` at any moment (partial reads give ranges). A front end drives it
as it drives a count: in a worker, with a cancel token, showing ``progress()``:

    what_if = WhatIf(client, spec, schema, ImaginedIndex("status", "customer"))
    while not what_if.done:
        what_if.step(cancel)          # one page or one sample call; ReadCancelled stops it
        show(what_if.progress())
    result = what_if.estimate()       # the figures, now against what-if

The current query is read exactly as ``dynotui pages`` reads it (``SeeingClient``), so
``now`` holds measured figures; the imagined index's side is the rewritten query paged by
the same pager over the index entries the reads found (``SimulatedIndex``).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dynotui.core.cancel import NEVER, CancelToken
from dynotui.core.errors import ReadCancelled
from dynotui.core.exact_json import dumps as exact_dumps
from dynotui.core.figures_text import plural
from dynotui.core.money import PriceList
from dynotui.core.pager import Pager
from dynotui.dynamodb.condition import Tree, tested_names
from dynotui.dynamodb.connection import install_cancel_hook
from dynotui.dynamodb.cost import DynamoCost
from dynotui.dynamodb.dynamo_json import Item, plain, value_from_wire
from dynotui.dynamodb.expressions import substitute
from dynotui.dynamodb.pricing import read_prices
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import QuerySpec
from dynotui.dynamodb.what_if.evaluate import holds, order_key
from dynotui.dynamodb.what_if.figures import (
    Figure,
    IndexCost,
    QueryFigures,
    SampleFigures,
    wilson,
)
from dynotui.dynamodb.what_if.imagined import Imagined
from dynotui.dynamodb.what_if.item_size import INDEX_ITEM_OVERHEAD, write_units
from dynotui.dynamodb.what_if.prices import IndexPrices, index_prices
from dynotui.dynamodb.what_if.rewrite import ImaginedIndex, Rewrite, covered, deparse, rewrite
from dynotui.dynamodb.what_if.sample import SeeingClient, TableSample
from dynotui.dynamodb.what_if.simulate import (
    Entry,
    SimulatedIndex,
    entry_of,
    imagined_schema,
    in_index_order,
    key_types_hold,
)

DEFAULT_MAX_READ_UNITS = 1000.0
SIMULATED_ENTRIES_MAX = 200_000  # beyond this the simulated index is a scaled prefix


@dataclass(frozen=True)
class Progress:
    phase: str  # "query" (the current query's pages) or "table" (the table sample)
    pages: int
    items: int
    read_units: float
    budget: float
    done: bool


@dataclass(frozen=True)
class Estimate:
    table: str
    index: ImaginedIndex
    partition_type: str
    sort_type: str | None
    now: QueryFigures
    what_if: QueryFigures
    cost: IndexCost
    sample: SampleFigures
    notes: tuple[str, ...]
    read_prices: PriceList
    index_prices: IndexPrices
    query_request: dict[str, Any]  # the rewritten Query's parameters (DynamoDB JSON values)

    def as_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "index": {
                "name": self.index.index_name,
                "partition_key": {"name": self.index.partition_key, "type": self.partition_type},
                "sort_key": None
                if self.index.sort_key is None
                else {"name": self.index.sort_key, "type": self.sort_type},
                "projection": self.index.projection,
                "include": list(self.index.include),
            },
            "now": self.now.as_json(self.read_prices),
            "what_if": {
                **self.what_if.as_json(self.read_prices),
                **self.cost.as_json(self.index_prices),
            },
            "sample": self.sample.as_json(),
            "notes": list(self.notes),
            "prices": {
                "reads": self.read_prices.as_json(),
                "writes": self.index_prices.writes.as_json(),
                "storage": self.index_prices.storage.as_json(),
            },
            "query": self.query_request,
        }


def readable(text: str | None, names: dict[str, str], values: dict[str, Any]) -> str | None:
    """An expression with names and values written out, for people."""
    if text is None:
        return None
    shown = {k: exact_dumps(plain(v)) for k, v in values.items()}
    return substitute(text, names, shown)


def _cycled(entries: Sequence[Entry], count: int) -> list[Entry]:
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


class WhatIf:
    def __init__(
        self,
        client: Any,
        spec: QuerySpec,
        schema: TableSchema,
        index: ImaginedIndex,
        *,
        max_read_units: float = DEFAULT_MAX_READ_UNITS,
        table_sample: bool = False,
        read_prices_in_force: PriceList | None = None,
        index_prices_in_force: IndexPrices | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        spec.validate(schema)
        index.check(schema)
        self.spec = spec
        self.schema = schema
        self.index = index
        self.rewritten: Rewrite = rewrite(spec, index, schema)
        self.covered = covered(spec, schema, self.rewritten)
        self.max_read_units = max_read_units
        self.clock = clock
        self.began = clock()
        self.read_prices = read_prices_in_force or read_prices()
        self.index_prices = index_prices_in_force or index_prices()
        install_cancel_hook(client)
        self.seen: list[Item] = []
        _, filter_tree = spec.trees()
        self.seeing = SeeingClient(client, filter_tree, self.seen)
        self.now = Pager(QuerySource(self.seeing, spec, schema, clock=clock))
        base_scan = spec.scan and spec.index is None
        # The table sample: for the items the current query cannot see, and for the index's
        # size over the whole table; a base-table Scan is a table sample itself.
        self.table = (
            TableSample(client, spec.table, clock=clock)
            if (not self.covered or table_sample) and not base_scan
            else None
        )
        self.query_budget = max_read_units / 2 if not self.covered else max_read_units
        self.stopped_by: str | None = None
        self.abandoned = 0.0
        self.abandoned_cost: DynamoCost | None = None  # reads stopped midway, billed
        self._entries: dict[int, Entry] = {}  # by id() of an item held in seen or the sample

    # -- reading ---------------------------------------------------------------------------

    def spent(self) -> float:
        cost = self.now.totals.cost
        now = cost.capacity.total if cost is not None and cost.capacity is not None else 0.0
        table = self.table.spent if self.table is not None else 0.0
        return now + table + self.abandoned

    @property
    def query_done(self) -> bool:
        return not self.now.can_advance or self.spent() >= self.query_budget

    @property
    def done(self) -> bool:
        if self.stopped_by == "cancelled":
            return True
        if not self.query_done:
            return False
        return self.table is None or self.table.complete or self.spent() >= self.max_read_units

    def step(self, cancel: CancelToken = NEVER) -> None:
        """One page of the current query, or one call of the table sample."""
        try:
            if not self.query_done:
                self.now.accept(self.now.read(self.now.plan("next"), cancel))
            elif self.table is not None and not self.done:
                self.table.step(cancel)
        except ReadCancelled as stop:
            self.stopped_by = "cancelled"
            if isinstance(stop.cost, DynamoCost):
                cost = stop.cost
                self.abandoned_cost = (
                    cost if self.abandoned_cost is None else self.abandoned_cost + cost
                )
                if cost.capacity is not None:
                    self.abandoned += cost.capacity.total
            raise
        if self.done and self.stopped_by is None and not self._complete():
            self.stopped_by = "max-read-units"

    def run(
        self, cancel: CancelToken = NEVER, progress: Callable[[Progress], None] | None = None
    ) -> Estimate:
        while not self.done:
            self.step(cancel)
            if progress is not None:
                progress(self.progress())
        return self.estimate()

    def cost(self) -> DynamoCost:
        """What the estimate's reads cost as one DynamoDB cost, to bill the session: the
        query's pages, the table sample's calls and any read stopped midway (its capacity
        is ``spent()``)."""
        total = self.now.totals.cost or DynamoCost()
        if self.table is not None and self.table.calls:
            total = total + DynamoCost.of(tuple(self.table.calls))
        if self.abandoned_cost is not None:
            total = total + self.abandoned_cost
        return total

    def progress(self) -> Progress:
        sampled = len(self.table.items) if self.table is not None else 0
        return Progress(
            phase="query" if not self.query_done else "table",
            pages=self.now.totals.pages_read,
            items=len(self.seen) + sampled,
            read_units=self.spent(),
            budget=self.max_read_units,
            done=self.done,
        )

    def _complete(self) -> bool:
        query = self.now.read_whole_result
        if not self.covered:
            return query and self.table is not None and self.table.complete
        return query

    # -- the estimate ----------------------------------------------------------------------

    def _entry(self, item: Item) -> Entry:
        """The item as the index would hold it, sized once per item."""
        found = self._entries.get(id(item))
        if found is None:
            found = entry_of(item, self.index, self.schema.table_key_names)
            self._entries[id(item)] = found
        return found

    def distinct_seen(self) -> list[Item]:
        """The items the current query read, each once: fill mode reads the items past a
        page's last shown item again on the next page."""
        keys = self.schema.table_key_names
        unique: dict[tuple[Any, ...], Item] = {}
        for item in self.seen:
            unique.setdefault(tuple(order_key(item[k]) for k in keys), item)
        return list(unique.values())

    def _sort_type(self) -> str | None:
        if self.index.sort_key is None:
            return None
        if self.rewritten.sort_type:
            return self.rewritten.sort_type
        items = [*self.seen, *(self.table.items if self.table is not None else [])]
        kinds = Counter(
            next(iter(item[self.index.sort_key]))
            for item in items
            if self.index.sort_key in item
            and next(iter(item[self.index.sort_key])) in ("S", "N", "B")
        )
        return kinds.most_common(1)[0][0] if kinds else "S"

    def estimate(self) -> Estimate:
        index, rewritten, schema = self.index, self.rewritten, self.schema
        sort_type = self._sort_type()
        ptype = rewritten.partition_type
        table_keys = schema.table_key_names
        notes = list(rewritten.notes)

        def member(item: Item) -> bool:
            return key_types_hold(item, index, ptype, sort_type)

        now = self._now_figures()
        seen = self.distinct_seen()
        query_complete = self.now.read_whole_result
        base_scan = self.spec.scan and self.spec.index is None
        table_items = self._table_items(seen)
        table_complete = (
            query_complete if base_scan else bool(self.table is not None and self.table.complete)
        )

        # The entries the rewritten query reads, from the read that can see them all.
        source_complete = query_complete if self.covered else table_complete
        read_set = self._read_set(seen, table_items, member)
        spec2, schema2, request = self._rewritten_spec(sort_type)
        conditions = [
            *([self.spec.trees()[0]] if self.spec.trees()[0] else []),
            self.spec.trees()[1],
        ]

        def matches_all(item: Item) -> bool:
            return all(holds(c, item) for c in conditions if c is not None)

        if source_complete:
            what_if = self._simulate(read_set, spec2, schema2, Figure.exact)
        elif self.covered or not table_items or not schema.item_count:
            low = self._simulate(read_set, spec2, schema2, Figure.exact)
            what_if = _at_least(low)
            if not self.covered:
                notes.append(
                    "the rewritten query reads items the current query cannot see (other "
                    "partitions), and the table sample is too small to say how many: the "
                    "figures are lower bounds"
                )
        else:
            known = (
                [self._entry(item) for item in seen if matches_all(item) and member(item)]
                if query_complete
                else None
            )
            what_if = self._scaled(read_set, spec2, schema2, len(table_items), matches_all, known)
            notes.append(
                "the rewritten query reads items the current query cannot see (other "
                f"partitions): estimated from a Scan sample of {len(table_items):,} of the "
                f"table's {schema.item_count_text(schema.item_count)} items "
                f"({schema.item_count_note()}); "
                "ranges are 95% intervals assuming the rest of the table is like the sample"
            )
        if query_complete:
            # The result set is known: the index returns its items that the index holds.
            exact = sum(
                1
                for item in seen
                if matches_all(item)
                and member(item)
                and holds(rewritten.filter, self._entry(item).projected)
            )
            what_if = _with_matches(what_if, Figure.exact(exact))
        self._words(notes, seen, member, table_keys, now)
        cost = self._index_cost(seen, member, table_items, table_complete, notes)
        return Estimate(
            table=self.spec.table,
            index=index,
            partition_type=ptype,
            sort_type=sort_type,
            now=now,
            what_if=what_if,
            cost=cost,
            sample=self._sample_figures(table_items, table_complete),
            notes=tuple(notes),
            read_prices=self.read_prices,
            index_prices=self.index_prices,
            query_request=request,
        )

    def _table_items(self, seen: Sequence[Item]) -> Sequence[Item]:
        """The table sample: the query's own items when it is a base-table Scan."""
        if self.spec.scan and self.spec.index is None:
            return seen
        return self.table.items if self.table is not None else []

    def _read_set(
        self, seen: Sequence[Item], table_items: Sequence[Item], member: Callable[[Item], bool]
    ) -> list[Entry]:
        """The index entries the rewritten query reads, from the read that can see them
        (the query's items when they cover its key condition, else the table sample)."""
        source = seen if self.covered else table_items
        return [
            self._entry(item) for item in source if member(item) and holds(self.rewritten.key, item)
        ]

    def imagined(self) -> Imagined:
        """The imagined index as pages (the compare view's right side): the rewritten query
        over the entries found so far, in index order. ``complete`` says whether they are
        all the index would return (a read stopped early, or a table sample, gives only
        those found)."""
        sort_type = self._sort_type()
        ptype = self.rewritten.partition_type
        seen = self.distinct_seen()

        def member(item: Item) -> bool:
            return key_types_hold(item, self.index, ptype, sort_type)

        entries = self._read_set(seen, self._table_items(seen), member)
        spec2, schema2, _ = self._rewritten_spec(sort_type)
        return Imagined(
            index=self.index,
            spec=spec2,
            schema=schema2,
            entries=tuple(in_index_order(entries, self.index, self.schema.table_key_names)),
            filter=self.rewritten.filter,
            complete=self._complete(),
        )

    def _now_figures(self) -> QueryFigures:
        pager, spec = self.now, self.spec
        totals = pager.totals
        cost = totals.cost
        measures = pager.measures.snapshot()
        shown = sum(s.shown for n, _ in pager.stack if (s := pager.summary_of(n)) is not None)
        units = cost.capacity.total if cost is not None and cost.capacity is not None else 0.0
        scanned = (cost.read or 0) if cost is not None else 0
        figure = Figure.exact if pager.read_whole_result else _lower
        order = self.schema.order(spec.index)
        names, values = dict(spec.names), dict(spec.values)
        return QueryFigures(
            label=f"now: {order.name if order.kind != 'table' else 'base table'}",
            operation=spec.operation.capitalize(),
            index=spec.index,
            key_condition=readable(spec.key_condition, names, values),
            filter=readable(spec.filter, names, values),
            pages=figure(totals.pages_read),
            matches=figure(shown),
            scanned=figure(scanned),
            read_units=figure(units),
            per_page=measures.capacity,
            mean_per_page=measures.capacity_mean,
            measured=True,
        )

    def _rewritten_spec(
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

    def _simulate(
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

    def _scaled(
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
            found = self._simulate(base, spec2, schema2, Figure.exact)
            return found if known is not None else _at_least(found)
        low_share, high_share = wilson(len(scaled), sampled)
        low_count = max(len(scaled), math.floor(low_share * total))
        high_count = max(low_count, math.ceil(high_share * total))
        low = self._simulate(base + _cycled(scaled, low_count), spec2, schema2, Figure.exact)
        high = self._simulate(base + _cycled(scaled, high_count), spec2, schema2, Figure.exact)
        return _between(low, high)

    def _words(
        self,
        notes: list[str],
        seen: Sequence[Item],
        member: Callable[[Item], bool],
        table_keys: Sequence[str],
        now: QueryFigures,
    ) -> None:
        index = self.index
        _, filter_tree = self.spec.trees()
        matched = [item for item in seen if holds(filter_tree, item)]
        left_out = sum(1 for item in matched if not member(item))
        if left_out:
            notes.append(
                f"{left_out:,} of the {len(matched):,} matches read lack "
                f"{' or '.join(repr(k) for k in index.key_names)} (or hold another type): a "
                "sparse index does not hold them, so the rewritten query does not return them"
            )
        if index.projection != "ALL" and self.rewritten.filter is not None:
            projected = {*table_keys, *index.key_names, *index.include}
            missing = sorted(tested_names(self.rewritten.filter) - projected)
            if missing:
                notes.append(
                    f"the filter tests {', '.join(missing)}, which a {index.projection} index "
                    "does not hold: on the index those attributes are absent, so the filter "
                    "sees none of them (project them with INCLUDE)"
                )
        if self.stopped_by == "max-read-units":
            if self.now.read_whole_result:
                notes.append(
                    f"the table sample stopped at --max-read-units {self.max_read_units:,g}: "
                    "the figures that rest on it are ranges"
                )
            else:
                notes.append(
                    f"stopped at --max-read-units {self.max_read_units:,g} (a page is never "
                    f"cut) after {plural(self.now.totals.pages_read, 'page')} of the current "
                    "query: its figures, and the what-if's, are ranges"
                )

    def _index_cost(
        self,
        seen: Sequence[Item],
        member: Callable[[Item], bool],
        table_items: Sequence[Item],
        table_complete: bool,
        notes: list[str],
    ) -> IndexCost:
        index, table_keys = self.index, self.schema.table_key_names
        unique: dict[tuple[Any, ...], Item] = {}
        for item in [*seen, *table_items]:
            unique[tuple(order_key(item[k]) for k in table_keys)] = item
        members = [self._entry(i) for i in unique.values() if member(i)]
        violations = sum(
            1 for i in unique.values() if not member(i) and all(k in i for k in index.key_names)
        )
        per_put = sum(write_units(e.size) for e in members) / len(members) if members else None
        stored = [e.size + INDEX_ITEM_OVERHEAD for e in members]
        mean_stored = sum(stored) / len(stored) if stored else 0.0
        sample_members = [i for i in table_items if member(i)]
        if table_complete:
            items = Figure.exact(len(sample_members))
            size = Figure.exact(
                sum(self._entry(i).size + INDEX_ITEM_OVERHEAD for i in sample_members)
            )
        elif table_items and self.schema.item_count:
            low, high = wilson(len(sample_members), len(table_items))
            total = self.schema.item_count
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

    def _sample_figures(self, table_items: Sequence[Item], table_complete: bool) -> SampleFigures:
        calls = self.now.totals.calls + (len(self.table.calls) if self.table is not None else 0)
        sampled = len(self.table.items) if self.table is not None else 0
        return SampleFigures(
            items=len(self.distinct_seen()) + sampled,
            complete=self._complete(),
            calls=calls,
            read_units=self.spent(),
            seconds=self.clock() - self.began,
            table_items_sampled=len(table_items),
            table_sample_complete=table_complete
            if self.table is not None or self.spec.scan
            else None,
            stopped_by=self.stopped_by,
        )


def _lower(value: float) -> Figure:
    return Figure(value, None)


def _at_least(figures: QueryFigures) -> QueryFigures:
    from dataclasses import replace

    return replace(
        figures,
        pages=Figure(figures.pages.low, None),
        matches=Figure(figures.matches.low, None),
        scanned=Figure(figures.scanned.low, None),
        read_units=Figure(figures.read_units.low, None),
    )


def _between(low: QueryFigures, high: QueryFigures) -> QueryFigures:
    from dataclasses import replace

    return replace(
        high,
        pages=Figure(low.pages.low, high.pages.low),
        matches=Figure(low.matches.low, high.matches.low),
        scanned=Figure(low.scanned.low, high.scanned.low),
        read_units=Figure(low.read_units.low, high.read_units.low),
    )


def _with_matches(figures: QueryFigures, matches: Figure) -> QueryFigures:
    from dataclasses import replace

    return replace(figures, matches=matches)


def tree_text(tree: Tree | None) -> str | None:
    if tree is None:
        return None
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    text = deparse(tree, names, values)
    return readable(text, names, {k: value_from_wire(v, k) for k, v in values.items()})
