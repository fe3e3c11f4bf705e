"""A plan as data: each path's figures (points or ranges, each said measured or estimated),
the cheapest path, the ratio of every other to it, and what the plan itself cost.

A figure is **measured** when it was read off DynamoDB (the matches of a key range the
plan read whole, the export's count, the pages of a path opened in the app) and
**estimated** when worked out from what was read (pages and read units of a drain at the
query's page size, from the entries read; a Scan from DescribeTable's counts and sizes).
A figure resting on part of the data is a range (``Figure``), never a point.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from dynotui.core.money import PriceList, estimate, json_usd, per_page_views
from dynotui.dynamodb.plan.paths import Path
from dynotui.dynamodb.what_if.figures import Figure
from dynotui.dynamodb.what_if.simulated_query import readable

PARTITION_CEILING = 3000.0  # read units a second one partition serves (AWS's documented)
FIGURE_NAMES = ("pages", "matches", "read_units", "read_units_per_page", "seconds")


@dataclass(frozen=True)
class PathFigures:
    pages: Figure
    matches: Figure
    read_units: Figure
    calls: Figure
    p50: float | None  # read units per page, nearest-rank
    p99: float | None
    mean_per_page: float | None
    seconds_at_latency: Figure | None  # None: no call was timed
    seconds_at_ceiling: Figure
    measured: frozenset[str] = frozenset()  # of FIGURE_NAMES, those read off DynamoDB
    basis: str = ""  # what the figures rest on, in words

    @property
    def estimated(self) -> bool:
        return not {"pages", "matches", "read_units"} <= self.measured

    def mark(self, name: str) -> str:
        return "measured" if name in self.measured else "estimated"


@dataclass(frozen=True)
class PlannedPath:
    path: Path
    figures: PathFigures | None  # None: refused, or nothing to estimate it from
    why: str | None  # the path's own reason, or the planner's (sparse in the data)
    usable: bool
    ratio: Figure | None = None  # read units against the cheapest's

    def key_text(self) -> str | None:
        spec = self.path.spec
        if spec is None or spec.key_condition is None:
            return None
        return readable(spec.key_condition, dict(spec.names), dict(spec.values))

    def filter_text(self) -> str | None:
        spec = self.path.spec
        if spec is None:
            from dynotui.dynamodb.what_if.simulated_query import tree_text

            return tree_text(self.path.filter)
        if spec.filter is None:
            return None
        return readable(spec.filter, dict(spec.names), dict(spec.values))

    def with_figures(self, figures: PathFigures) -> PlannedPath:
        return replace(self, figures=figures)

    def as_json(self, prices: PriceList) -> dict[str, Any]:
        path, figures = self.path, self.figures
        out: dict[str, Any] = {
            "name": path.name,
            "kind": path.kind,
            "index": path.index,
            "key_condition": self.key_text(),
            "filter": self.filter_text(),
            "order": path.order_words(),
            "usable": self.usable,
            "why": self.why,
            "pages": None,
            "matches": None,
            "read_units": None,
            "read_units_per_page": None,
            "estimated": True,
        }
        if figures is None:
            return out
        money = estimate(prices, "per million page views", per_page_views(figures.mean_per_page))
        out.update(
            pages=figures.pages.as_json(),
            matches=figures.matches.as_json(),
            read_units=figures.read_units.as_json(),
            read_units_per_page={"p50": figures.p50, "p99": figures.p99},
            estimated=figures.estimated,
            measured=sorted(figures.measured),
            calls=figures.calls.as_json(),
            usd_per_million_page_views={n: json_usd(a) for n, a in money.amounts},
            seconds={
                "at_measured_latency": None
                if figures.seconds_at_latency is None
                else figures.seconds_at_latency.as_json(4),
                "at_partition_ceiling": figures.seconds_at_ceiling.as_json(4),
            },
            ratio_to_cheapest=None if self.ratio is None else self.ratio.as_json(4),
            basis=figures.basis,
        )
        return out


@dataclass(frozen=True)
class PlanCost:
    read_units: float
    calls: int
    seconds: float

    def as_json(self) -> dict[str, Any]:
        return {
            "read_units": round(self.read_units, 6),
            "calls": self.calls,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class Plan:
    table: str
    query: str  # the query as written, in words
    paths: tuple[PlannedPath, ...]
    cheapest: str | None
    cost: PlanCost
    prices: PriceList
    segments: int = 1
    notes: tuple[str, ...] = field(default_factory=tuple)
    stopped_by: str | None = None  # "max-read-units" when the budget cut a read short

    def path(self, name: str) -> PlannedPath:
        for planned in self.paths:
            if planned.path.name == name:
                return planned
        raise KeyError(name)

    def as_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "query": self.query,
            "paths": [p.as_json(self.prices) for p in self.paths],
            "cheapest": self.cheapest,
            "cost": self.cost.as_json(),
            "segments": self.segments,
            "stopped_by": self.stopped_by,
            "notes": list(self.notes),
            "prices": self.prices.as_json(),
        }


def ratio(units: Figure, cheapest: Figure) -> Figure | None:
    """``units`` over the cheapest's, as a range where either is one."""
    low_base = cheapest.low
    high_base = cheapest.high
    if high_base is None or high_base <= 0 or low_base <= 0:
        return None
    low = units.low / high_base
    high = None if units.high is None else units.high / low_base
    return Figure(low, high)


def ceiling_seconds(units: Figure, parallel: int = 1) -> Figure:
    scale = 1 / (PARTITION_CEILING * max(1, parallel))
    return units.scaled(scale)
