"""The paging article's measures for one query, folded in page by page.

Seed 000 names what to watch before trusting a paging contract: the capacity of a page
at p50 and p99 (a cost that swings tenfold from page to page means a filter is doing an
index's job), Count against ScannedCount (far below one half: the endpoint pays for what
it throws away), the rounds of the fill loop per page (should stay at 1), and the rate
of empty pages that still carry a key. The fifth, cursor refusals, belongs to the
session (``refusals.py``).

**Every fresh read is a sample**, re-reads included, as a service's own metrics count
each request: all of them were billed. A page served from the cache cost nothing and
is not counted. Capacity is the cost's ``headline`` in its ``unit``: read capacity
units on DynamoDB, shared buffers on PostgreSQL. A read whose source reported no
capacity (PartiQL on DynamoDB Local) is counted as "not reported", never as 0.

**Percentiles are nearest-rank**: of n samples in ascending order x(1) <= ... <= x(n),
the p-th percentile is x(ceil(p * n / 100)), a value that was measured (never an
interpolation between two). So with fewer than 100 pages p99 is the maximum, and p50 of
an even number of pages is the lower of the two middle ones.

Adding a page costs O(log n) (a sorted list), reading the figures O(log n): a redraw at
page 10,000 sorts nothing (``benchmarks/measures.py`` measures both).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sortedcontainers import SortedList

from dynotui.core.page import PageSummary

SWING_RATIO = 10.0  # p99 / p50 past this: the article's "tenfold"
WASTEFUL_SELECTIVITY = 0.5  # Count / ScannedCount below this: "far fewer than half"
ROUNDS_TARGET = 1.0  # the fill loop should need one call per page
FILL_MODE = "fill"


def nearest_rank(sorted_values: Any, percent: int) -> float:
    """The ``percent``-th percentile (1 to 100) of ascending values, nearest-rank."""
    n = len(sorted_values)
    if not n:
        raise ValueError("no values")
    if not 1 <= percent <= 100:
        raise ValueError(f"percent must be 1 to 100, got {percent}")
    rank = -(-percent * n // 100)  # ceil in integers: no float error at the boundary
    return float(sorted_values[rank - 1])


@dataclass(frozen=True, slots=True)
class CapacityFigures:
    """Capacity per page over the reads that reported one."""

    unit: str
    p50: float
    p99: float
    max: float
    reported: int  # reads with a figure
    not_reported: int  # reads whose source reported none

    @property
    def swing(self) -> float | None:
        """p99 / p50 (None when p50 is 0: any cost is "infinitely" more)."""
        return self.p99 / self.p50 if self.p50 > 0 else None

    @property
    def swings(self) -> bool:
        """The article's warning: p99 more than ten times p50."""
        swing = self.swing
        return (swing is not None and swing > SWING_RATIO) or (self.p50 == 0 < self.p99)

    def as_json(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "p50": self.p50,
            "p99": self.p99,
            "max": self.max,
            "p99_over_p50": None if self.swing is None else round(self.swing, 3),
            "swings_past_10x": self.swings,
            "pages_reported": self.reported,
            "pages_not_reported": self.not_reported,
            "percentile": "nearest-rank",
        }


@dataclass(frozen=True, slots=True)
class Measures:
    """The measures of one query at one moment: plain numbers, cheap to make."""

    reads: int  # fresh reads folded in (re-reads included)
    unit: str | None  # the cost's unit (None before the first read)
    capacity: CapacityFigures | None  # None: no read reported a capacity
    matched: int  # Count, summed
    scanned: int | None  # ScannedCount, summed over reads that report it (None: none did)
    calls: int  # rounds, summed
    max_calls: int
    fill_reads: int  # reads made in fill mode: where rounds mean something
    empty_with_key: int  # 0 shown, a key present
    capacity_sum: float = 0.0  # over the reads that reported a capacity

    @property
    def capacity_mean(self) -> float | None:
        """Mean capacity per page over the reads that reported one: a page view's
        expected cost."""
        reported = self.capacity.reported if self.capacity is not None else 0
        return self.capacity_sum / reported if reported else None

    @property
    def selectivity(self) -> float | None:
        """Count / ScannedCount over the query (None: nothing read, or not reported)."""
        return self.matched / self.scanned if self.scanned else None

    @property
    def wasteful(self) -> bool:
        selectivity = self.selectivity
        return selectivity is not None and selectivity < WASTEFUL_SELECTIVITY

    @property
    def rounds_mean(self) -> float | None:
        return self.calls / self.reads if self.reads else None

    @property
    def rounds_apply(self) -> bool:
        """Rounds per page say something only in fill mode (raw: one call per page by
        design; PostgreSQL: one statement per page)."""
        return self.fill_reads > 0

    @property
    def rounds_high(self) -> bool:
        mean = self.rounds_mean
        return self.rounds_apply and mean is not None and mean > ROUNDS_TARGET

    @property
    def empty_rate(self) -> float | None:
        return self.empty_with_key / self.reads if self.reads else None

    def as_json(self) -> dict[str, Any]:
        selectivity = self.selectivity
        mean = self.rounds_mean
        empty_rate = self.empty_rate
        return {
            "reads": self.reads,
            "capacity_per_page": (
                self.capacity.as_json()
                if self.capacity is not None
                else {"unit": self.unit, "reported": False}
            ),
            "count_over_scanned": {
                "count": self.matched,
                "scanned": self.scanned,
                "ratio": None if selectivity is None else round(selectivity, 6),
                "below_half": self.wasteful,
            },
            "rounds_per_page": {
                "mean": None if mean is None else round(mean, 3),
                "max": self.max_calls,
                "fill_mode_reads": self.fill_reads,
                "applies": self.rounds_apply,
            },
            "empty_pages": {
                "count": self.empty_with_key,
                "rate": None if empty_rate is None else round(empty_rate, 6),
            },
        }


class QueryMeasures:
    """Folds in each fresh read of one query (one cursor stack)."""

    def __init__(self) -> None:
        self._capacities: Any = SortedList()
        self._not_reported = 0
        self._unit: str | None = None
        self._reads = 0
        self._matched = 0
        self._scanned: int | None = None
        self._calls = 0
        self._max_calls = 0
        self._fill_reads = 0
        self._empty = 0
        self._capacity_sum = 0.0

    def add(self, page: PageSummary[Any]) -> None:
        """One page as read: O(log pages). A cached page cost nothing and is skipped."""
        if page.cached:
            return
        cost = page.cost
        self._reads += 1
        self._unit = cost.unit
        headline = cost.headline
        if headline is None:
            self._not_reported += 1
        else:
            self._capacities.add(float(headline))
            self._capacity_sum += float(headline)
        self._matched += cost.matched
        if cost.read is not None:
            self._scanned = (self._scanned or 0) + cost.read
        self._calls += cost.requests
        self._max_calls = max(self._max_calls, cost.requests)
        if page.mode == FILL_MODE:
            self._fill_reads += 1
        if page.empty_with_key:
            self._empty += 1

    @property
    def reads(self) -> int:
        return self._reads

    def snapshot(self) -> Measures:
        values = self._capacities
        capacity = (
            CapacityFigures(
                unit=self._unit or "",
                p50=nearest_rank(values, 50),
                p99=nearest_rank(values, 99),
                max=float(values[-1]),
                reported=len(values),
                not_reported=self._not_reported,
            )
            if len(values)
            else None
        )
        return Measures(
            reads=self._reads,
            unit=self._unit,
            capacity=capacity,
            matched=self._matched,
            scanned=self._scanned,
            calls=self._calls,
            max_calls=self._max_calls,
            fill_reads=self._fill_reads,
            empty_with_key=self._empty,
            capacity_sum=self._capacity_sum,
        )
