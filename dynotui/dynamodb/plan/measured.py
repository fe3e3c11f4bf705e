"""A plan's row updated with what paging the path measured (the app opens a path as the
current order, and its pages are then read for real).

Pages, read units and matches become **measured**: points once the path was read from its
start to its end, else "at least" what was read so far. Per page p50 and p99 are the
measures' own. The cheapest and every ratio are worked out again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dynotui.core.pager import Pager
from dynotui.dynamodb.plan.costing import LIVE_KINDS
from dynotui.dynamodb.plan.figures import (
    PathFigures,
    Plan,
    PlannedPath,
    ceiling_seconds,
    ratio,
)
from dynotui.dynamodb.what_if.figures import Figure

MEASURED = frozenset({"pages", "matches", "read_units", "read_units_per_page", "seconds"})


def measured_figures(pager: Pager[Any, Any, Any], before: PathFigures | None) -> PathFigures:
    """The figures a pager measured on a path."""
    totals = pager.totals
    cost = totals.cost
    whole = pager.read_whole_result
    units = cost.capacity.total if cost is not None and cost.capacity is not None else 0.0
    shown = sum(s.shown for n, _ in pager.stack if (s := pager.summary_of(n)) is not None)
    measures = pager.measures.snapshot()
    capacity = measures.capacity

    def figure(value: float) -> Figure:
        return Figure.exact(value) if whole else Figure(value, None)

    read_units = figure(units)
    seconds = figure((cost.latency_ms if cost is not None else 0.0) / 1000)
    return PathFigures(
        pages=figure(totals.pages_read),
        matches=figure(shown),
        read_units=read_units,
        calls=figure(totals.calls),
        p50=capacity.p50 if capacity is not None else None,
        p99=capacity.p99 if capacity is not None else None,
        mean_per_page=measures.capacity_mean,
        seconds_at_latency=seconds,
        seconds_at_ceiling=ceiling_seconds(read_units),
        measured=MEASURED,
        basis=(
            "paged from its start to its end in the app"
            if whole
            else f"paged in the app: {totals.pages_read:,} pages so far (at least)"
        )
        + (
            ""
            if before is None
            else f"; the plan had estimated {before.read_units.text()} read units"
        ),
    )


def with_measured(plan: Plan, name: str, pager: Pager[Any, Any, Any]) -> Plan:
    """``plan`` with path ``name``'s row measured by ``pager``, ranked again."""
    rows = [
        replace(p, figures=measured_figures(pager, p.figures)) if p.path.name == name else p
        for p in plan.paths
    ]
    live = [p for p in rows if p.usable and p.figures is not None and p.path.kind in LIVE_KINDS]
    if not live:
        return replace(plan, paths=tuple(rows))

    def cost(p: PlannedPath) -> tuple[float, float]:
        assert p.figures is not None
        units = p.figures.read_units
        return (float("inf") if units.high is None else units.high, units.low)

    best = min(live, key=cost)
    assert best.figures is not None
    base = best.figures.read_units
    rows = [
        replace(p, ratio=ratio(p.figures.read_units, base)) if p.figures is not None else p
        for p in rows
    ]
    return replace(plan, paths=tuple(rows), cheapest=best.path.name)
