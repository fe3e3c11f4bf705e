"""Each path's figures from what the planner read, and the cheapest path.

- A key range read whole (the path's own read, or inside another path's read of whole
  items) is paged by dynotui's pager over its real entries: points.
- A key range read in part: from the entries read (at least) to those plus the rest of
  the order, sized like them (at most): a range.
- A Scan, not read: as many entries as DescribeTable counts, sized like the items read
  (scaled to DescribeTable's bytes where it counts the entries whole), the matches
  spread among them.
- The export: what reading it measured, 0 read units.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from dynotui.core.text import plural
from dynotui.dynamodb.cost import Call
from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.plan.entries import (
    derived_entries,
    is_member,
    own_entries,
    projected,
    table_key,
)
from dynotui.dynamodb.plan.figures import PathFigures, PlannedPath, ceiling_seconds, ratio
from dynotui.dynamodb.plan.paths import Path
from dynotui.dynamodb.plan.reads import PathRead
from dynotui.dynamodb.plan.simulated import Drain, SimEntry, drain, made_up, synthetic_drain
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.what_if.figures import Figure
from dynotui.dynamodb.what_if.item_size import item_size

LIVE_KINDS = ("query", "scan")  # paths that exist and read live data: the cheapest is one


@dataclass(frozen=True)
class MatchSet:
    items: list[Item]  # the matches found, each once
    complete: bool  # every match is among them
    whole: bool  # they are the table's items whole (every attribute)

    def figure(self) -> Figure:
        count = len(self.items)
        return Figure.exact(count) if self.complete else Figure(count, None)


class Learnt(Protocol):
    """What the planner read and knows, as costing needs it (``planner.Planner``)."""

    reads: dict[str, PathRead]
    schema: TableSchema
    sizes: dict[str, Any]  # OrderSize by order name ("table" for the base)
    segments: int
    export: Any  # ExportFacts or None
    paths: list[Path]

    def calls(self) -> list[Call]: ...

    def covered(self, path: Path) -> tuple[Path, PathRead] | None: ...


class Costing:
    def __init__(self, planner: Learnt, matches: MatchSet) -> None:
        self.planner = planner
        self.matches = matches
        self.notes: list[str] = []
        self.cheapest: str | None = None
        calls = planner.calls()
        self.latency_ms = sum(c.latency_ms for c in calls) / len(calls) if calls else None

    # -- one path ------------------------------------------------------------------------

    def figures(self, path: Path) -> tuple[PathFigures | None, str | None]:
        """The path's figures, or None and why none could be worked out."""
        planner = self.planner
        if path.kind == "export":
            return self._export(), None
        read = planner.reads.get(path.name)
        table_keys = planner.schema.table_key_names
        if read is not None and read.complete:
            entries = own_entries(path, read.items)
            return self._exact(path, entries, "its key range, read whole by the plan"), None
        covering = planner.covered(path)
        if covering is not None:
            source, source_read = covering
            entries = derived_entries(path, source_read.items, table_keys)
            words = f"its entries among the items of '{source.name}', read whole by the plan"
            return self._exact(path, entries, words), None
        if read is not None:
            return self._partial(path, own_entries(path, read.items)), None
        if path.kind == "scan":
            return self._scan(path)
        if path.kind == "imagined":
            return None, (
                "not estimated: none of the plan's reads holds its key range whole "
                "('dynotui what-if' estimates it from a table sample)"
            )
        return None, "not estimated: the plan's budget ran out before this path was read"

    def _times(self, path: Path, found: Drain) -> tuple[Figure | None, Figure]:
        parallel = self.planner.segments if path.kind == "scan" and path.index is None else 1
        units = Figure.exact(found.read_units)
        latency = (
            None
            if self.latency_ms is None
            else Figure.exact(found.calls * self.latency_ms / 1000 / parallel)
        )
        return latency, ceiling_seconds(units, parallel)

    def _figures(
        self, path: Path, low: Drain, high: Drain | None, basis: str, measured: frozenset[str]
    ) -> PathFigures:
        def span(a: float, b: float | None) -> Figure:
            return Figure(a, b) if b is None or b != a else Figure.exact(a)

        top = high if high is not None else None
        latency_low, ceiling_low = self._times(path, low)
        latency_high, ceiling_high = self._times(path, top) if top is not None else (None, None)
        if self.matches.complete:
            matches = self.matches.figure()
        elif top is None:
            matches = Figure(low.matches, None)
        else:
            matches = span(low.matches, top.matches)
        return PathFigures(
            pages=span(low.pages, top.pages if top else low.pages),
            matches=matches,
            read_units=span(low.read_units, top.read_units if top else low.read_units),
            calls=span(low.calls, top.calls if top else low.calls),
            p50=(top or low).p50,
            p99=(top or low).p99,
            mean_per_page=(top or low).mean_per_page,
            seconds_at_latency=None
            if latency_low is None
            else span(latency_low.low, latency_high.low if latency_high else latency_low.low),
            seconds_at_ceiling=span(
                ceiling_low.low, ceiling_high.low if ceiling_high else ceiling_low.low
            ),
            measured=measured,
            basis=basis,
        )

    def _exact(self, path: Path, entries: Sequence[SimEntry], basis: str) -> PathFigures:
        assert path.spec is not None
        found = drain(path.spec, path.schema, entries)
        figures = self._figures(path, found, None, basis, frozenset({"matches"}))
        # The key range was read whole: its matches are counted, not inferred.
        return replace(figures, matches=Figure.exact(found.matches))

    def _partial(self, path: Path, entries: list[SimEntry]) -> PathFigures:
        """From the entries read (a lower bound) to those and the rest of the order sized
        like them (an upper bound: the key range holds at most the whole order)."""
        assert path.spec is not None and path.order is not None
        low = drain(path.spec, path.schema, entries)
        size = self.planner.sizes.get(path.index or "table")
        total = size.count if size is not None else None
        if total is None or not entries:
            return self._figures(path, low, None, "a part of its key range, read", frozenset())
        rest = max(0, total - len(entries))
        found_matches = sum(1 for e in entries if e.matches)
        # Matches of the rest: those the plan knows of elsewhere when it has them all,
        # else as many as the rest holds (the upper bound's own worst case: with none,
        # the bound was the matches read, said as a count when the read found 100 of 566).
        rest_matches = (
            max(0, len(self.matches.items) - found_matches) if self.matches.complete else rest
        )
        sizes = [e.size for e in entries]
        more = made_up(path.schema, path.index, rest, sizes, rest_matches, first=0)
        high = drain(path.spec, path.schema, [*entries, *more])
        basis = (
            f"{len(entries):,} entries of its key range read; at most the order's "
            f"{total:,} ({self.planner.schema.item_count_note()})"
        )
        return self._figures(path, low, high, basis, frozenset())

    def _scan(self, path: Path) -> tuple[PathFigures | None, str | None]:
        assert path.spec is not None and path.order is not None
        planner = self.planner
        size = planner.sizes.get(path.index or "table")
        count = size.count if size is not None else None
        if count is None:
            return None, "not estimated: DescribeTable gives no item count for it"
        sizes = self._sizes(path)
        whole = path.order.kind == "table" or path.order.projection == "ALL"
        mean = size.bytes / count if size and size.bytes and count else None
        if sizes and mean and whole:
            factor = mean / (sum(sizes) / len(sizes))
            sizes = [max(1, round(s * factor)) for s in sizes]
        elif not sizes and mean:
            sizes = [max(1, round(mean))]
        if not sizes:
            return None, "not estimated: nothing read to size its entries"
        found = synthetic_drain(path.spec, path.schema, count, sizes, len(self.matches.items))
        read = len(self._sizes(path))
        basis = (
            f"DescribeTable's {planner.schema.item_count_text(count)} "
            f"{'entry' if count == 1 else 'entries'} ({planner.schema.item_count_note()}), "
            f"sized like the {plural(read, 'entry', 'entries')} the plan read"
        )
        return self._figures(path, found, None, basis, frozenset()), None

    def _sizes(self, path: Path) -> list[int]:
        """The sizes, as ``path``'s order holds them, of the whole items the plan read."""
        assert path.order is not None
        planner = self.planner
        keys = planner.schema.table_key_names
        seen: dict[tuple[Any, ...], int] = {}
        for name, read in planner.reads.items():
            source = next(p for p in planner.paths if p.name == name)
            if not source.reads_items_whole:
                continue
            for item in read.items:
                if is_member(item, path.order):
                    seen.setdefault(
                        table_key(item, keys), item_size(projected(item, path.order, keys))
                    )
        return list(seen.values())

    def _export(self) -> PathFigures:
        facts = self.planner.export
        assert facts is not None
        zero = Figure.exact(0)
        return PathFigures(
            pages=zero,
            matches=Figure.exact(facts.matches),
            read_units=zero,
            calls=zero,
            p50=0.0,
            p99=0.0,
            mean_per_page=0.0,
            seconds_at_latency=Figure.exact(facts.seconds),
            seconds_at_ceiling=zero,
            measured=frozenset({"pages", "matches", "read_units", "seconds"}),
            basis=(
                f"read with DuckDB: {facts.items:,} items of the export of "
                f"{facts.export_time.strftime('%Y-%m-%d %H:%M UTC')}, as they were then"
            ),
        )

    # -- all paths -----------------------------------------------------------------------

    def ranked(self, planned: list[PlannedPath]) -> list[PlannedPath]:
        """The paths cheapest first (refused and unestimated last), each with its ratio to
        the cheapest live path."""
        live = [
            p for p in planned if p.usable and p.figures is not None and p.path.kind in LIVE_KINDS
        ]

        def cost(p: PlannedPath) -> tuple[float, float]:
            assert p.figures is not None
            units = p.figures.read_units
            return (math.inf if units.high is None else units.high, units.low)

        if live:
            best = min(live, key=cost)
            self.cheapest = best.path.name
            assert best.figures is not None
            base = best.figures.read_units
            planned = [
                replace(p, ratio=ratio(p.figures.read_units, base))
                if p.usable and p.figures is not None
                else p
                for p in planned
            ]

        def position(p: PlannedPath) -> tuple[int, float, float]:
            if p.usable and p.figures is not None:
                return (0, *cost(p))
            return (1 if p.usable else 2, 0.0, 0.0)

        return sorted(planned, key=position)
