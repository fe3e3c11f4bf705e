"""The last line of ``dynotui pages``: ``{"summary": {...}}``, the run in one object.

It has no ``page`` key, so a script reading "one object per page" tells it apart with
``select(.page)`` (jq) or ``"page" in line``; ``--no-summary`` leaves it out.
"""

from __future__ import annotations

from typing import Any

from dynotui.core.figures_text import number
from dynotui.core.measures import QueryMeasures
from dynotui.core.money import WHAT_SESSION, WHAT_SHAPE, PriceList, estimates, per_page_views
from dynotui.core.page import Totals
from dynotui.core.pager import Pager
from dynotui.core.refusals import CursorRefusals


def price_json(
    prices: PriceList | None, unit: str | None, totals: Totals[Any], measured: QueryMeasures
) -> dict[str, Any] | None:
    if prices is None or unit != prices.unit:
        return None
    measures = measured.snapshot()
    total = totals.cost.headline if totals.cost is not None else None
    mean = measures.capacity_mean
    found = estimates(prices, unit, [(WHAT_SESSION, total), (WHAT_SHAPE, per_page_views(mean))])
    return {
        **prices.as_json(),
        "these_pages": found[0].as_json(),
        "per_million_page_views": found[1].as_json(),
        "mean_units_per_page": mean,
    }


def summary_json(
    pager: Pager, prices: PriceList | None, refusals: CursorRefusals
) -> dict[str, Any]:
    """What the pages printed add up to: the five measures, the totals, the price."""
    return summary_of(pager.totals, pager.measures, prices, refusals)


def summary_of(
    totals: Totals[Any],
    measures: QueryMeasures,
    prices: PriceList | None,
    refusals: CursorRefusals,
) -> dict[str, Any]:
    """``summary_json`` of any pages: one pager's, or every segment's of a parallel Scan."""
    cost = totals.cost
    unit = cost.unit if cost is not None else None
    headline = cost.headline if cost is not None else None
    return {
        "summary": {
            "pages": totals.pages_read,
            "measures": measures.snapshot().as_json(),
            "totals": {
                "unit": unit,
                "cost": headline,
                "cost_text": None if headline is None else f"{number(headline)} {unit}",
                "count": totals.count,
                "scanned_count": cost.read if cost is not None else None,
                "calls": totals.calls,
                "retries": cost.retries if cost is not None else 0,
                "latency_ms": round(cost.latency_ms, 3) if cost is not None else 0.0,
            },
            "price_estimate": price_json(prices, unit, totals, measures),
            "cursors": refusals.figures().as_json(),
        }
    }
