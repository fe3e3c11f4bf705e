"""What DynamoDB calls cost: consumed capacity, ScannedCount against Count, retries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dynotui.core.text import plural

MB = 1024 * 1024
ITEM_MAX = 400 * 1024  # the largest item DynamoDB stores
READ_UNIT = 4096


def service_call_max(consistent: bool) -> float:
    """The most read units one Query or Scan call can cost on the service: it stops a call
    once 1 MB is read (the item that crosses it, of at most 400 KB, included), billed in
    4 KB units, half of that when eventually consistent. DynamoDB Local applies the 1 MB
    limit after the filter, so one of its calls can report several times more."""
    units = (MB + ITEM_MAX) / READ_UNIT
    return units if consistent else units / 2


@dataclass(frozen=True, slots=True)
class Capacity:
    """Read capacity units: the total, the table's share and each index's."""

    total: float = 0.0
    table: float = 0.0
    indexes: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_response(cls, consumed: Mapping[str, Any] | None) -> Capacity | None:
        """None when the endpoint reported nothing (DynamoDB Local for PartiQL): not 0."""
        if not consumed:
            return None
        indexes: dict[str, float] = {}
        for group in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            for name, units in (consumed.get(group) or {}).items():
                indexes[name] = indexes.get(name, 0.0) + float(units.get("CapacityUnits", 0.0))
        total = float(consumed.get("CapacityUnits", 0.0))
        table = consumed.get("Table")
        return cls(
            total=total,
            # With ReturnConsumedCapacity TOTAL there is no breakdown: it is all the table's
            # unless indexes are named.
            table=float(table.get("CapacityUnits", 0.0))
            if table
            else total - sum(indexes.values()),
            indexes=indexes,
        )

    def __add__(self, other: Capacity) -> Capacity:
        indexes = dict(self.indexes)
        for name, units in other.indexes.items():
            indexes[name] = indexes.get(name, 0.0) + units
        return Capacity(self.total + other.total, self.table + other.table, indexes)

    def as_json(self) -> dict[str, Any]:
        return {"total": self.total, "table": self.table, "indexes": dict(self.indexes)}


def _add_capacity(a: Capacity | None, b: Capacity | None) -> Capacity | None:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


@dataclass(frozen=True, slots=True)
class Call:
    """One request and what DynamoDB said about it."""

    limit: int
    count: int
    scanned: int | None  # None: the operation reports no ScannedCount (PartiQL)
    capacity: Capacity | None  # None: not reported by this endpoint
    latency_ms: float
    retries: int
    more: bool  # a LastEvaluatedKey (or NextToken) came back

    @property
    def cut_by_size(self) -> bool:
        """The 1 MB limit ended the call before Limit items were evaluated."""
        return self.more and self.scanned is not None and self.scanned < self.limit


@dataclass(frozen=True, slots=True)
class DynamoCost:
    """A page's calls, or a session's sums (which drop the per-call detail)."""

    requests: int = 0
    read: int | None = 0
    matched: int = 0
    capacity: Capacity | None = None
    latency_ms: float = 0.0
    retries: int = 0
    size_cuts: int = 0
    calls: tuple[Call, ...] = ()
    # Worked out with DynamoDB's formulas for an index that does not exist (what-if),
    # never read: every place that shows it says so, and no session is billed for it.
    estimated: bool = False
    # Read on DynamoDB Local: the most one call could cost on the service
    # (``service_call_max``), to tell the calls Local reports over it. None: the service.
    local_call_max: float | None = None

    unit = "RCU"

    @classmethod
    def of(cls, calls: tuple[Call, ...]) -> DynamoCost:
        total = cls()
        for call in calls:
            total = total + cls(
                1,
                call.scanned,
                call.count,
                call.capacity,
                call.latency_ms,
                call.retries,
                int(call.cut_by_size),
            )
        return DynamoCost(
            total.requests,
            total.read,
            total.matched,
            total.capacity,
            total.latency_ms,
            total.retries,
            total.size_cuts,
            calls,
        )

    def __add__(self, other: DynamoCost) -> DynamoCost:
        read = None if self.read is None or other.read is None else self.read + other.read
        if not self.requests:
            read = other.read
        elif not other.requests:
            read = self.read
        return DynamoCost(
            self.requests + other.requests,
            read,
            self.matched + other.matched,
            _add_capacity(self.capacity, other.capacity),
            self.latency_ms + other.latency_ms,
            self.retries + other.retries,
            self.size_cuts + other.size_cuts,
            estimated=self.estimated or other.estimated,
            local_call_max=self.local_call_max or other.local_call_max,
        )

    @property
    def headline(self) -> float | None:
        return self.capacity.total if self.capacity is not None else None

    @property
    def server_ms(self) -> float | None:
        return None  # DynamoDB reports no execution time: only the round trip is known

    def warnings(self) -> list[str]:
        found = [f"1 MB limit cut {self.size_cuts} call(s)"] if self.size_cuts else []
        return found + self.local_words()

    def over_service_max(self) -> list[float]:
        """The units of each call that cost more than one call can on the service (read on
        DynamoDB Local only)."""
        top = self.local_call_max
        if top is None:
            return []
        return [c.capacity.total for c in self.calls if c.capacity and c.capacity.total > top]

    def local_words(self) -> list[str]:
        """Read on DynamoDB Local: its figures are its own; a call over what one call can
        cost on the service is named."""
        top = self.local_call_max
        if top is None:
            return []
        over = self.over_service_max()
        words = ["DynamoDB Local's own figures"]
        if over:
            words.append(
                f"{plural(len(over), 'call')} reported up to {max(over):,.10g} RCU: on the "
                f"service one call stops at 1 MB read, at most {top:,.10g} RCU"
            )
        return words

    def fields(self) -> list[tuple[str, str]]:
        if self.capacity is None:
            return [("Capacity", "not reported"), ("", "by this endpoint")]
        mark = " estimated" if self.estimated else ""
        lines = [
            ("Capacity", f"{self.capacity.total:,.10g} RCU{mark}"),
            ("  table", f"{self.capacity.table:,.10g}"),
        ]
        lines += [
            (f"  {name}", f"{units:,.10g}") for name, units in sorted(self.capacity.indexes.items())
        ]
        return lines

    def as_json(self) -> dict[str, Any]:
        found = {
            "consumed_capacity": self.capacity.as_json() if self.capacity else None,
            "count": self.matched,
            "scanned_count": self.read,
            "calls": self.requests,
            "retries": self.retries,
            "latency_ms": round(self.latency_ms, 3),
        }
        return {**found, "estimated": True} if self.estimated else found
