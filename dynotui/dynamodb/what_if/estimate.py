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

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dynotui.core.cancel import NEVER, CancelToken
from dynotui.core.errors import ReadCancelled
from dynotui.core.money import PriceList
from dynotui.core.pager import Pager
from dynotui.core.text import plural
from dynotui.dynamodb.condition import tested_names
from dynotui.dynamodb.connection import install_cancel_hook
from dynotui.dynamodb.cost import DynamoCost
from dynotui.dynamodb.dynamo_json import Item
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
)
from dynotui.dynamodb.what_if.imagined import Imagined
from dynotui.dynamodb.what_if.index_cost import index_cost
from dynotui.dynamodb.what_if.prices import IndexPrices, index_prices
from dynotui.dynamodb.what_if.rewrite import ImaginedIndex, Rewrite, covered, rewrite
from dynotui.dynamodb.what_if.sample import SeeingClient, TableSample
from dynotui.dynamodb.what_if.simulate import (
    Entry,
    entry_of,
    in_index_order,
    key_types_hold,
)
from dynotui.dynamodb.what_if.simulated_query import (
    IndexSimulation,
    at_least,
    lower,
    readable,
    with_matches,
)

DEFAULT_MAX_READ_UNITS = 1000.0


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
        self.simulation = IndexSimulation(spec, schema, index, self.rewritten)
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
        spec2, schema2, request = self.simulation.rewritten_spec(sort_type)
        matches_all = self._matches_all()

        if source_complete:
            what_if = self.simulation.simulate(read_set, spec2, schema2, Figure.exact)
        elif self.covered or not table_items or not schema.item_count:
            low = self.simulation.simulate(read_set, spec2, schema2, Figure.exact)
            what_if = at_least(low)
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
            what_if = self.simulation.scaled(
                read_set, spec2, schema2, len(table_items), matches_all, known
            )
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
            what_if = with_matches(what_if, Figure.exact(exact))
        self._words(notes, seen, member, table_keys, now)
        cost = index_cost(
            self.index, self.schema, self._entry, seen, member, table_items, table_complete, notes
        )
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
        over the entries found so far, in index order, as ``estimate`` pages them.
        ``complete`` says whether they are all the index would return (a read stopped
        early, or a table sample, gives only those found)."""
        sort_type = self._sort_type()
        ptype = self.rewritten.partition_type
        seen = self.distinct_seen()

        def member(item: Item) -> bool:
            return key_types_hold(item, self.index, ptype, sort_type)

        entries = self._read_set(seen, self._table_items(seen), member)
        complete = self._complete()
        if not self.covered and self.now.read_whole_result:
            # The query was read whole, so its matches are all the index returns for the
            # same conditions; a table sample (which found only some of them) adds the
            # entries its filter would still drop. As the estimate counts them.
            matches_all = self._matches_all()
            known = [self._entry(item) for item in seen if matches_all(item) and member(item)]
            entries = known + [e for e in entries if not matches_all(e.item)]
            complete = complete or self.rewritten.filter is None
        spec2, schema2, _ = self.simulation.rewritten_spec(sort_type)
        return Imagined(
            index=self.index,
            spec=spec2,
            schema=schema2,
            entries=tuple(in_index_order(entries, self.index, self.schema.table_key_names)),
            filter=self.rewritten.filter,
            complete=complete,
        )

    def _matches_all(self) -> Callable[[Item], bool]:
        """Whether an item holds the current query's key condition and filter."""
        key, filter_tree = self.spec.trees()
        conditions = [c for c in (key, filter_tree) if c is not None]
        return lambda item: all(holds(c, item) for c in conditions)

    def _now_figures(self) -> QueryFigures:
        pager, spec = self.now, self.spec
        totals = pager.totals
        cost = totals.cost
        measures = pager.measures.snapshot()
        shown = sum(s.shown for n, _ in pager.stack if (s := pager.summary_of(n)) is not None)
        units = cost.capacity.total if cost is not None and cost.capacity is not None else 0.0
        scanned = (cost.read or 0) if cost is not None else 0
        figure = Figure.exact if pager.read_whole_result else lower
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
