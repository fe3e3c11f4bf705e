"""The estimate as plain data: every figure a point or a range, saying what it rests on.

A figure from a complete read is a point; a figure from part of the data is a range, with
``high`` None where nothing bounds it from above ("at least"). Money is derived from the
figures and the prices in force, never stored apart from them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from dynotui.core.figures_text import number
from dynotui.core.measures import CapacityFigures
from dynotui.core.money import (
    PAGE_VIEWS,
    PriceList,
    estimate,
    json_usd,
)
from dynotui.dynamodb.what_if.prices import GB, IndexPrices


@dataclass(frozen=True, slots=True)
class Figure:
    low: float
    high: float | None  # None: nothing bounds it from above

    @classmethod
    def exact(cls, value: float) -> Figure:
        return cls(value, value)

    @property
    def point(self) -> float | None:
        return self.low if self.high == self.low else None

    def scaled(self, factor: float) -> Figure:
        return Figure(self.low * factor, None if self.high is None else self.high * factor)

    def as_json(self, digits: int = 6) -> Any:
        def rounded(value: float) -> float | int:
            value = float(f"{float(value):.{digits}g}")
            return int(value) if value.is_integer() else value

        if self.point is not None:
            return rounded(self.point)
        return {"low": rounded(self.low), "high": None if self.high is None else rounded(self.high)}

    def text(self, unit: str = "") -> str:
        tail = f" {unit}" if unit else ""
        if self.point is not None:
            return f"{short_number(self.point)}{tail}"
        if self.high is None:
            return f"at least {short_number(self.low)}{tail}"
        return f"{short_number(self.low)} to {short_number(self.high)}{tail}"


def short_number(value: float) -> str:
    value = float(value)
    if value.is_integer():
        return f"{round(value):,}"
    if value >= 100:
        return f"{value:,.1f}"
    return number(float(f"{value:.4g}"))


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (sound at 0 and n successes too)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class QueryFigures:
    """One side: the query as it is now, or as it would run on the imagined index."""

    label: str  # "now: base table", "what-if: GSI status-customer-index (imagined)"
    operation: str  # Query or Scan
    index: str | None
    key_condition: str | None  # readable: names and values written out
    filter: str | None
    pages: Figure
    matches: Figure
    scanned: Figure
    read_units: Figure
    per_page: CapacityFigures | None
    mean_per_page: float | None
    measured: bool  # read from DynamoDB (now) or estimated (what-if)
    expression: dict[str, Any] = field(default_factory=dict)  # the request's expressions

    def per_million_views(self, prices: PriceList) -> str:
        units = None if self.mean_per_page is None else self.mean_per_page * PAGE_VIEWS
        return estimate(prices, "per million page views", units).amounts_text()

    def as_json(self, prices: PriceList) -> dict[str, Any]:
        units = None if self.mean_per_page is None else self.mean_per_page * PAGE_VIEWS
        money = estimate(prices, "per million page views", units)
        return {
            "operation": self.operation,
            "index": self.index,
            "key_condition": self.key_condition,
            "filter": self.filter,
            **self.expression,
            "pages": self.pages.as_json(),
            "matches": self.matches.as_json(),
            "scanned_count": self.scanned.as_json(),
            "read_units": self.read_units.as_json(),
            "read_units_per_page": None
            if self.per_page is None
            else {
                "p50": self.per_page.p50,
                "p99": self.per_page.p99,
                "max": self.per_page.max,
                "mean": None if self.mean_per_page is None else round(self.mean_per_page, 6),
                "percentile": "nearest-rank",
            },
            "usd_per_million_page_views": {n: json_usd(a) for n, a in money.amounts},
            "estimated": not self.measured,
        }


@dataclass(frozen=True)
class IndexCost:
    """What keeping the imagined index costs: its writes and its storage."""

    items: Figure  # items the index would hold
    members_seen: int  # of the items read, those the index would hold
    violations_seen: int  # items read whose key attribute has another type
    write_units_per_put: float | None  # mean over the members seen
    index_bytes: Figure  # entries + 100 B each

    @property
    def write_units_per_key_change(self) -> float | None:
        """An update that changes an index key: the old entry deleted, the new one put."""
        return None if self.write_units_per_put is None else 2 * self.write_units_per_put

    def money(self, prices: IndexPrices) -> dict[str, Any]:
        per_put = self.write_units_per_put
        writes = estimate(
            prices.writes, "per million puts", None if per_put is None else per_put * 1e6
        )
        storage = self.index_bytes.scaled(1 / GB)
        low = estimate(prices.storage, "per month", storage.low)
        high = None if storage.high is None else estimate(prices.storage, "per month", storage.high)
        return {"writes": writes, "storage_low": low, "storage_high": high}

    def as_json(self, prices: IndexPrices) -> dict[str, Any]:
        money = self.money(prices)
        storage_high = money["storage_high"]
        return {
            "items": self.items.as_json(),
            "members_seen": self.members_seen,
            "key_type_violations_seen": self.violations_seen,
            "write_units_per_put": None
            if self.write_units_per_put is None
            else round(self.write_units_per_put, 6),
            "write_units_per_key_change": None
            if self.write_units_per_key_change is None
            else round(self.write_units_per_key_change, 6),
            "index_bytes": self.index_bytes.as_json(),
            "usd_per_million_puts": {n: json_usd(a) for n, a in money["writes"].amounts},
            "usd_per_month_storage": {
                "low": json_usd(money["storage_low"].amounts[0][1]),
                "high": None if storage_high is None else json_usd(storage_high.amounts[0][1]),
            },
        }


@dataclass(frozen=True)
class SampleFigures:
    """What the estimate itself read, and whether that was everything it needed."""

    items: int  # items read (evaluated) by the estimate's calls
    complete: bool  # every figure rests on a complete read: they are points
    calls: int
    read_units: float
    seconds: float
    table_items_sampled: int  # of which from the Scan sample of the table
    table_sample_complete: bool | None  # None: no table sample was read
    stopped_by: str | None  # "max-read-units", "cancelled", or None

    def as_json(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "complete": self.complete,
            "calls": self.calls,
            "read_units": round(self.read_units, 6),
            "seconds": round(self.seconds, 3),
            "table_items_sampled": self.table_items_sampled,
            "table_sample_complete": self.table_sample_complete,
            "stopped_by": self.stopped_by,
        }
