"""What one page is and what it cost: the figures the sidebar and ``dynotui pages`` show."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from dynotui.core.dynamo_json import Item


class HasNext(Enum):
    YES = "yes"  # the extra match exists (fill mode)
    NO = "no"  # no LastEvaluatedKey: the data ended
    UNKNOWN = "unknown"  # a key came back, which promises nothing

    def as_json(self) -> bool | None:
        return {HasNext.YES: True, HasNext.NO: False, HasNext.UNKNOWN: None}[self]


class EndedBy(Enum):
    END = "end"  # no LastEvaluatedKey
    LIMIT = "limit"  # Limit items were evaluated
    SIZE = "size"  # the 1 MB limit cut the call short of Limit
    PAGE_SIZE = "page_size"  # fill mode: page size + 1 matches collected
    ROUNDS = "rounds"  # fill mode: the round cap stopped it

    @property
    def words(self) -> str:
        return {
            EndedBy.END: "the data ended",
            EndedBy.LIMIT: "Limit reached",
            EndedBy.SIZE: "cut by the 1 MB limit",
            EndedBy.PAGE_SIZE: "page filled",
            EndedBy.ROUNDS: "round cap reached",
        }[self]


@dataclass(frozen=True)
class Capacity:
    """Read capacity units: the total, the table's share and each index's."""

    total: float = 0.0
    table: float = 0.0
    indexes: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_response(cls, consumed: Mapping[str, Any] | None) -> Capacity:
        if not consumed:
            return cls()
        indexes: dict[str, float] = {}
        for group in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            for name, units in (consumed.get(group) or {}).items():
                indexes[name] = indexes.get(name, 0.0) + float(units.get("CapacityUnits", 0.0))
        return cls(
            total=float(consumed.get("CapacityUnits", 0.0)),
            table=float((consumed.get("Table") or {}).get("CapacityUnits", 0.0)),
            indexes=indexes,
        )

    def __add__(self, other: Capacity) -> Capacity:
        indexes = dict(self.indexes)
        for name, units in other.indexes.items():
            indexes[name] = indexes.get(name, 0.0) + units
        return Capacity(self.total + other.total, self.table + other.table, indexes)

    def as_json(self) -> dict[str, Any]:
        return {"total": self.total, "table": self.table, "indexes": dict(self.indexes)}


@dataclass(frozen=True)
class Call:
    """One Query or Scan request and what DynamoDB said about it."""

    limit: int
    count: int
    scanned: int
    capacity: Capacity
    latency_ms: float
    last_evaluated_key: Item | None


@dataclass(frozen=True)
class Page:
    number: int
    mode: str
    start_key: Item | None
    items: list[Item]
    calls: tuple[Call, ...]
    next_start_key: Item | None
    has_next: HasNext
    ended_by: EndedBy
    cached: bool = False

    @property
    def count(self) -> int:
        """Matches DynamoDB returned over all calls (fill mode may hold one more than shown)."""
        return sum(c.count for c in self.calls)

    @property
    def scanned_count(self) -> int:
        return sum(c.scanned for c in self.calls)

    @property
    def waste(self) -> int:
        """Items read and paid for that the filter discarded."""
        return self.scanned_count - self.count

    @property
    def waste_ratio(self) -> float:
        return self.waste / self.scanned_count if self.scanned_count else 0.0

    @property
    def capacity(self) -> Capacity:
        total = Capacity()
        for call in self.calls:
            total = total + call.capacity
        return total

    @property
    def latency_ms(self) -> float:
        return sum(c.latency_ms for c in self.calls)

    @property
    def last_evaluated_key(self) -> Item | None:
        return self.calls[-1].last_evaluated_key if self.calls else None

    @property
    def empty_with_key(self) -> bool:
        """The page people stop on by mistake: nothing shown, yet more may follow."""
        return not self.items and self.next_start_key is not None


@dataclass(frozen=True)
class Totals:
    """Everything a session spent, re-reads included: capacity is billed each time."""

    pages_read: int = 0
    calls: int = 0
    scanned: int = 0
    count: int = 0
    capacity: Capacity = field(default_factory=Capacity)
    latency_ms: float = 0.0

    def add(self, page: Page) -> Totals:
        return Totals(
            pages_read=self.pages_read + 1,
            calls=self.calls + len(page.calls),
            scanned=self.scanned + page.scanned_count,
            count=self.count + page.count,
            capacity=self.capacity + page.capacity,
            latency_ms=self.latency_ms + page.latency_ms,
        )
