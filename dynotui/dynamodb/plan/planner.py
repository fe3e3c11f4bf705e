"""The planner: what it reads to cost every path, cheapest first, and within what budget.

    planner = Planner(client, spec)         # DescribeTable: the paths, the orders' sizes
    while planner.step(cancel):              # one bounded call of one path
        show(planner.progress())
    plan = planner.plan()                    # every path's figures, at any moment

It reads the usable Query paths' key ranges (``reads.PathRead``), those whose key
condition says most first (a sort key condition), then the smallest order. A path whose
key range lies inside one already read whole (an LSI's within the table's partition, the
imagined index's within the query's) is worked out from it and not read. A Scan is never
read to plan, unless no usable path is a Query; it is costed from DescribeTable's counts
and sizes and the entries read. Reads stop at ``max_read_units``, and when a Query path
is usable, at half what the cheapest possible Scan of the table would cost: the plan never
costs what the Scan it warns about costs.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dynotui.core.cancel import NEVER, CancelToken
from dynotui.core.money import PriceList
from dynotui.dynamodb.cost import Call
from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.plan.costing import Costing, MatchSet
from dynotui.dynamodb.plan.entries import covers, is_member, table_key
from dynotui.dynamodb.plan.figures import Plan, PlanCost, PlannedPath
from dynotui.dynamodb.plan.paths import Path, enumerate_paths, export_path
from dynotui.dynamodb.plan.reads import PathRead
from dynotui.dynamodb.pricing import read_prices
from dynotui.dynamodb.schema import TableSchema, parse_schema
from dynotui.dynamodb.spec import QuerySpec
from dynotui.dynamodb.what_if.evaluate import holds
from dynotui.dynamodb.what_if.item_size import READ_UNIT_BYTES
from dynotui.dynamodb.what_if.simulated_query import readable
from dynotui.dynamodb.what_if.suggest import suggested_index

DEFAULT_MAX_READ_UNITS = 1000.0
SCAN_SHARE = 0.5  # of the cheapest possible Scan: the most a plan with a Query path reads


@dataclass(frozen=True)
class OrderSize:
    count: int | None
    bytes: int | None


@dataclass(frozen=True)
class ExportFacts:
    """An export's answer to the query, measured by reading it (no read units)."""

    matches: int
    items: int
    seconds: float
    export_time: datetime


@dataclass(frozen=True)
class Progress:
    path: str | None  # the path being read
    calls: int
    read_units: float
    budget: float
    done: bool


def order_sizes(described: dict[str, Any]) -> dict[str, OrderSize]:
    """DescribeTable's item count and bytes for the table and each index."""
    sizes = {"table": OrderSize(described.get("ItemCount"), described.get("TableSizeBytes"))}
    for group in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
        for index in described.get(group, []) or []:
            sizes[index["IndexName"]] = OrderSize(
                index.get("ItemCount"), index.get("IndexSizeBytes")
            )
    return sizes


def query_words(spec: QuerySpec, schema: TableSchema) -> str:
    order = schema.order(spec.index)
    where = "table" if order.kind == "table" else f"{order.kind.upper()} {order.name}"
    names, values = dict(spec.names), dict(spec.values)
    words = f"{spec.operation.capitalize()} on {spec.table} ({where})"
    if spec.key_condition:
        words += f": {readable(spec.key_condition, names, values)}"
    if spec.filter:
        words += f"; filter {readable(spec.filter, names, values)}"
    return words


class Planner:
    def __init__(
        self,
        client: Any,
        spec: QuerySpec,
        *,
        described: dict[str, Any] | None = None,
        max_read_units: float = DEFAULT_MAX_READ_UNITS,
        segments: int = 1,
        export: ExportFacts | None = None,
        imagine: bool = True,
        prices: PriceList | None = None,
        clock: Callable[[], float] = time.perf_counter,
        began: float | None = None,
        describe_calls: int = 0,
    ) -> None:
        """``described``: DescribeTable's ``Table``, when the caller read it (then
        ``began`` and ``describe_calls`` count that call as the plan's)."""
        self.client = client
        self.clock = clock
        self.began = clock() if began is None else began
        self.describe_calls = describe_calls
        if described is None:
            from dynotui.dynamodb.errors import translate

            try:
                described = client.describe_table(TableName=spec.table)["Table"]
            except Exception as exc:
                raise translate(exc, table=spec.table) from exc
            self.describe_calls = 1
        assert described is not None
        self.schema = parse_schema(described)
        spec.validate(self.schema)
        self.spec = spec
        self.sizes = order_sizes(described)
        self.segments = segments
        self.export = export
        self.prices = prices or read_prices()
        imagined = suggested_index(spec, self.schema) if imagine else None
        self.paths: list[Path] = enumerate_paths(spec, self.schema, imagined)
        if export is not None:
            self.paths.append(export_path(self.schema, spec))
        self.reads: dict[str, PathRead] = {}
        self.max_read_units = max_read_units
        self.candidates = self._candidates()
        self.budget = self._budget()
        self.stopped_by: str | None = None
        self._current: str | None = None
        self._matches_at = -1
        self._matches = MatchSet([], False, True)

    # -- what to read ------------------------------------------------------------------------

    def _candidates(self) -> list[Path]:
        """The paths the plan may read, cheapest first: usable Queries of orders that
        exist; when there is none, the usable Scans (smallest order first)."""

        def size(path: Path) -> float:
            found = self.sizes.get(path.index or "table")
            return float(found.bytes) if found and found.bytes is not None else math.inf

        queries = [p for p in self.paths if p.kind == "query" and p.usable]
        if queries:

            def rank(path: Path) -> tuple[int, float]:
                ranged = path.key is not None and path.key[0] == "and"
                return (0 if ranged else 1, size(path))

            return sorted(queries, key=rank)
        scans = [p for p in self.paths if p.kind == "scan" and p.usable]
        return sorted(scans, key=size)

    def scan_floor(self) -> float | None:
        """The least any Scan of the whole table costs: its bytes in 4 KB units, halved
        (eventually consistent, no call rounding)."""
        size = self.sizes["table"].bytes
        return None if size is None else size / READ_UNIT_BYTES / 2

    def _budget(self) -> float:
        floor = self.scan_floor()
        if self.candidates and self.candidates[0].kind == "query" and floor:
            return min(self.max_read_units, floor * SCAN_SHARE)
        return self.max_read_units

    def spent(self) -> float:
        return sum(read.spent for read in self.reads.values())

    def calls(self) -> list[Call]:
        return [c for read in self.reads.values() for c in read.calls]

    def _complete_whole(self) -> list[tuple[Path, PathRead]]:
        return [
            (self._path(name), read)
            for name, read in self.reads.items()
            if read.complete and self._path(name).reads_items_whole
        ]

    def _path(self, name: str) -> Path:
        return next(p for p in self.paths if p.name == name)

    def covered(self, path: Path) -> tuple[Path, PathRead] | None:
        """A read done whole whose items hold ``path``'s every entry."""
        for source, read in self._complete_whole():
            if source.name != path.name and covers(source, path):
                return source, read
        return None

    def _next_read(self) -> Path | None:
        """The path to read a call of next: of those not known yet, the one read least so
        far (ties: the candidates' order), so small key ranges end first and what they
        tell (a sparse index refused, a range inside one read whole) spares reading
        others."""
        waiting = []
        for rank, path in enumerate(self.candidates):
            read = self.reads.get(path.name)
            if read is not None and read.complete:
                continue
            if self.covered(path) is not None or not self._still_usable(path):
                continue
            waiting.append((read.spent if read is not None else 0.0, rank, path))
        return min(waiting, key=lambda w: (w[0], w[1]))[2] if waiting else None

    def _still_usable(self, path: Path) -> bool:
        if not path.unpromised_keys:
            return True
        done = sum(1 for read in self.reads.values() if read.complete)
        if self._matches_at != done:  # the matches change only when a read ends
            self._matches_at, self._matches = done, self.match_set()
        return self.sparse_refusal(path, self._matches)[0]

    @property
    def done(self) -> bool:
        return self._next_read() is None or self.stopped_by is not None

    def step(self, cancel: CancelToken = NEVER) -> bool:
        """One call of the next path to read; False when there is nothing more to read."""
        path = self._next_read()
        if path is None or self.stopped_by is not None:
            return False
        if self.spent() >= self.budget:
            self.stopped_by = "max-read-units"
            return False
        assert path.spec is not None
        read = self.reads.get(path.name)
        if read is None:
            read = self.reads[path.name] = PathRead(self.client, path.spec, clock=self.clock)
        self._current = path.name
        read.step(cancel)
        return True

    def run(
        self, cancel: CancelToken = NEVER, progress: Callable[[Progress], None] | None = None
    ) -> Plan:
        while self.step(cancel):
            if progress is not None:
                progress(self.progress())
        return self.plan()

    def progress(self) -> Progress:
        return Progress(
            path=self._current,
            calls=len(self.calls()) + self.describe_calls,
            read_units=self.spent(),
            budget=self.budget,
            done=self.done,
        )

    # -- what was learnt ---------------------------------------------------------------------

    def match_set(self) -> MatchSet:
        """The query's matches, from the reads: complete when a read whose key range holds
        every match (an order the conditions promise to hold them all) was read whole."""
        from dynotui.dynamodb.plan.paths import conditions

        parts = conditions(self.spec, self.schema)
        keys = self.schema.table_key_names
        found: dict[tuple[Any, ...], Item] = {}
        complete = False
        whole = True
        for name, read in self.reads.items():
            path = self._path(name)
            hits = [i for i in read.items if all(holds(p, i) for p in parts)]
            for item in hits:
                found.setdefault(table_key(item, keys), item)
            if read.complete and not path.unpromised_keys and path.usable:
                complete = True
                whole = whole and path.reads_items_whole
        return MatchSet(list(found.values()), complete, whole)

    def sparse_refusal(self, path: Path, matches: MatchSet) -> tuple[bool, str | None]:
        """Usable and why, for an index the conditions do not promise holds every match."""
        if not path.unpromised_keys or path.order is None or not path.usable:
            return path.usable, path.why
        keys = " and ".join(repr(k) for k in path.unpromised_keys)
        missing = [m for m in matches.items if not is_member(m, path.order)]
        if missing and matches.whole:
            return False, (
                f"sparse: {len(missing):,} of the {len(matches.items):,} matches lack {keys} "
                "(or hold another type), so the index does not hold them"
            )
        if matches.complete and matches.whole:
            return path.usable, path.why or (
                f"holds only items with {keys}: every one of the {len(matches.items):,} "
                "matches has it today, but the query does not require it"
            )
        # Every row or a refusal: an index that may miss matches is not offered unchecked.
        return False, (
            f"may miss matches: it holds only items with {keys}, which the query does not "
            "require, and the plan could not check every match (it read them only in part, "
            "or not whole)"
        )

    def plan(self) -> Plan:
        matches = self.match_set()
        costing = Costing(self, matches)
        planned: list[PlannedPath] = []
        for path in self.paths:
            usable, why = self.sparse_refusal(path, matches)
            figures, note = (None, None)
            if usable:
                figures, note = costing.figures(path)
            planned.append(PlannedPath(path, figures, why or note, usable))
        ranked = costing.ranked(planned)
        calls = self.calls()
        notes = list(costing.notes)
        if self.stopped_by == "max-read-units":
            notes.append(
                f"the plan stopped reading at {self.budget:,.6g} read units (a call is never "
                "cut): figures of the paths it did not read whole are ranges"
            )
        return Plan(
            table=self.spec.table,
            query=query_words(self.spec, self.schema),
            paths=tuple(ranked),
            cheapest=costing.cheapest,
            cost=PlanCost(
                read_units=self.spent(),
                calls=len(calls) + self.describe_calls,
                seconds=self.clock() - self.began,
            ),
            prices=self.prices,
            segments=self.segments,
            notes=tuple(notes),
            stopped_by=self.stopped_by,
        )
