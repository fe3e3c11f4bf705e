"""The entity table: per entity its name, rule, count (exact or a range), shares of items
and bytes, item sizes, attributes and read units; and what was read to find them.

Read units of an entity are what reading its items costs in a Scan of the whole table or
index, eventually consistent (as a Scan reads by default): its items' bytes by DynamoDB's
size rules, at 4 KB per unit, halved. A call rounds its own sum up to the next 4 KB, so
the entities' units add up to a little less than a Scan's measured units; on a sample the
bytes are scaled to the entity's estimated count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dynotui.dynamodb.entities.interval import (
    LEVEL,
    CountEstimate,
    estimate_count,
    exact,
    percentile,
)
from dynotui.dynamodb.entities.scheme import Rule, Scheme, names_of
from dynotui.dynamodb.entities.tally import MAX_ATTRIBUTES, MAX_CLUSTERS, MAX_ENTITIES, Census
from dynotui.dynamodb.what_if.item_size import READ_UNIT_BYTES

EVENTUAL = 0.5  # units per 4 KB read eventually consistent


def scan_units(total_bytes: float) -> float:
    """What reading items of these bytes costs, eventually consistent, before each
    call's rounding up."""
    return total_bytes / READ_UNIT_BYTES * EVENTUAL


@dataclass(frozen=True, slots=True)
class EntityFigures:
    name: str
    rule: Rule
    count: CountEstimate  # in the whole table (or index): exact, or an estimate
    seen: int  # items of it read
    share_items: float  # of the items read
    share_bytes: float
    p50: int
    p99: int
    attributes: tuple[tuple[str, float], ...]  # name, share of its items that hold it
    more_attributes: bool  # names past MAX_ATTRIBUTES were not kept
    read_units: float

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rule": self.rule.text(),
            "match": self.rule.as_json(),
            "items": self.count.items,
            "exact": self.count.exact,
            "items_range": self.count.as_json(),
            "seen": self.seen,
            "share": {"items": round(self.share_items, 6), "bytes": round(self.share_bytes, 6)},
            "bytes": {"p50": self.p50, "p99": self.p99},
            "attributes": [name for name, _ in self.attributes],
            "presence": {name: round(share, 6) for name, share in self.attributes},
            "more_attributes": self.more_attributes,
            "read_units": round(self.read_units, 3),
        }


@dataclass(frozen=True, slots=True)
class SampleFigures:
    """What was read: items, whether that is all of it, and what it cost."""

    items: int
    complete: bool
    read_units: float
    source: str  # "table" (live) or "export"
    population: int | None = None  # ItemCount the estimates are scaled to
    segments: int | None = None
    calls: int = 0  # requests made (an export: none)
    partitions: int = 0  # partition key values read (kept up to MAX_CLUSTERS)
    export_time: datetime | None = None

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "items": self.items,
            "complete": self.complete,
            "read_units": round(self.read_units, 3),
            "calls": self.calls,
            "partitions": self.partitions,
            "source": self.source,
        }
        if self.segments is not None:
            data["segments"] = self.segments
        if not self.complete:
            data["item_count"] = self.population
            data["range_level"] = LEVEL  # how often a count's items_range holds the truth
        if self.export_time is not None:
            data["export_time"] = self.export_time.isoformat()
        return data


@dataclass(frozen=True)
class Entities:
    table: str
    index: str | None
    scheme: Scheme
    entities: tuple[EntityFigures, ...]
    sample: SampleFigures
    notes: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "index": self.index,
            "scheme": self.scheme.as_json(),
            "entities": [e.as_json() for e in self.entities],
            "sample": self.sample.as_json(),
            "notes": list(self.notes),
        }

    def by_name(self, name: str) -> EntityFigures | None:
        return next((e for e in self.entities if e.name == name), None)


def entities_of(
    census: Census,
    *,
    table: str,
    index: str | None,
    complete: bool,
    read_units: float,
    source: str,
    population: int | None = None,
    segments: int | None = None,
    calls: int = 0,
    export_time: datetime | None = None,
    open_partitions: Iterable[Any] = (),
    size_bytes: int | None = None,
) -> Entities:
    """The entity table of what ``census`` read: exact when ``complete``, else each count
    estimated for ``population`` items (at least what was read), from the partitions read
    to their end (``open_partitions``: those a read stopped inside); and the read units of
    a whole Scan from ``size_bytes`` (DescribeTable's size) where it is given, split by the
    sample's bytes: a sample's mean item misses the rare large items (the demo's orders: a
    third of a whole Scan's units)."""
    open_partitions = frozenset(open_partitions)
    scheme = census.scheme  # decides, if fewer items than DECIDE_AFTER were read
    names = names_of(census.tallies)
    whole = census.items if complete or population is None else max(population, census.items)
    sized = not complete and bool(size_bytes) and census.bytes > 0
    figures = []
    for rule, tally in census.tallies.items():
        if complete:
            count = exact(tally.items)
        elif scheme.one_group and population is not None:
            # Every item of the table is this group's: its count is the table's, not a
            # share of it to estimate (the range said 9,236 of the demo's 11,449 could be).
            # With no item count to take, the estimate below stands (never the items read).
            count = CountEstimate(whole, whole, whole, False)
        else:
            seen, read, pairs = census.closed_part(rule, open_partitions)
            count = estimate_count(seen, read, whole, pairs, floor=tally.items)
        mean = tally.bytes / tally.items if tally.items else 0.0
        share_bytes = tally.bytes / census.bytes if census.bytes else 0.0
        if sized:
            units = scan_units(float(size_bytes or 0) * share_bytes)
        else:
            units = scan_units(mean * count.items)
        presence = sorted(
            ((name, n / tally.items) for name, n in tally.attributes.items()),
            key=lambda pair: (-pair[1], pair[0]),
        )
        figures.append(
            EntityFigures(
                name=names[rule],
                rule=rule,
                count=count,
                seen=tally.items,
                share_items=tally.items / census.items if census.items else 0.0,
                share_bytes=share_bytes,
                p50=percentile(tally.sizes, 0.5),
                p99=percentile(tally.sizes, 0.99),
                attributes=tuple(presence),
                more_attributes=bool(tally.more_attributes),
                read_units=units,
            )
        )
    figures.sort(key=lambda f: (-f.count.items, f.name))
    return Entities(
        table=table,
        index=index,
        scheme=scheme,
        entities=tuple(figures),
        sample=SampleFigures(
            items=census.items,
            complete=complete,
            read_units=read_units,
            source=source,
            population=None if complete else whole,
            segments=segments,
            calls=calls,
            partitions=len(census.clusters),
            export_time=export_time,
        ),
        notes=tuple(_notes(census, complete, sized)),
    )


def _notes(census: Census, complete: bool, sized: bool = False) -> list[str]:
    notes = []
    if sized:
        notes.append(
            "RCU: the table's size (DescribeTable's TableSizeBytes) split by the bytes of the "
            "sample's entities"
        )
    if any(rule.kind == "rest" for rule in census.tallies):
        notes.append(
            f"more than {MAX_ENTITIES} entity types: the rest are counted together as (other)"
        )
    if any(t.more_attributes for t in census.tallies.values()):
        notes.append(f"an entity holds more than {MAX_ATTRIBUTES} attribute names: the first kept")
    if not complete and census.clusters_dropped:
        notes.append(
            f"the ranges follow the first {MAX_CLUSTERS:,} partitions read; "
            f"{census.clusters_dropped:,} items of later ones are counted, not clustered"
        )
    return notes
