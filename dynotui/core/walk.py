"""What a walk to a distant page will take, said before it starts.

Going to page N past the pages known reads every page between, in order (a reader
paging there would): N may be 100 pages, on both sides of a compare. Like a count's
forecast, the figures come from what this stack measured: its mean time and mean cost a
page, times the pages to read. Esc stops the walk; the pages read are kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from dynotui.core.figures_text import number
from dynotui.core.pager import Pager
from dynotui.core.text import plural

# Modes whose pages cost more the deeper they lie (OFFSET reads every row it skips): the
# mean of the pages read so far is a floor there, and the forecast says so.
DEEPER_COSTS_MORE = {"offset"}


@dataclass(frozen=True)
class WalkForecast:
    target: int
    pages: int  # pages to read on the way, the target included
    first: int  # the first of them
    seconds: float | None  # at the mean time a page measured (None: nothing measured)
    units: float | None  # at the mean cost a page measured (None: not reported)
    unit: str
    measured: int  # the reads the means come from
    floor: bool = False  # the mode's pages cost more with depth: at least this much


def forecast_walk(pager: Pager, target: int) -> WalkForecast | None:
    """The walk to page ``target``, or None when it is on the stack (one read at most)."""
    known = pager.last_known
    if target <= known:
        return None
    # The last known page is read first unless it has been; then every page to the target.
    first = known if pager.summary_of(known) is None else known + 1
    pages = target - first + 1
    reads, cost = pager.totals.pages_read, pager.totals.cost
    seconds = cost.latency_ms / 1000 / reads * pages if cost is not None and reads else None
    measures = pager.measures.snapshot()
    mean = measures.capacity_mean
    units = mean * pages if mean is not None else None
    mode = pager.current.mode if pager.current is not None else ""
    floor = mode in DEEPER_COSTS_MORE
    return WalkForecast(target, pages, first, seconds, units, measures.unit or "", reads, floor)


def seconds_text(seconds: float) -> str:
    """4 s, 1 min 20 s, 2 h 5 min: no more digits than a forecast has."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 120 else f"{minutes // 60} h {minutes % 60} min"


def walk_text(forecast: WalkForecast) -> str:
    """One side's walk in a sentence: pages, time and cost, and what they come from."""
    pages = plural(forecast.pages, "page")
    span = f"pages {forecast.first:,} to {forecast.target:,}" if forecast.pages > 1 else ""
    # The result may end before the target: the walk stops there, so "up to".
    parts = [f"up to {pages} to read{f' ({span})' if span else ''}"]
    if forecast.seconds is not None:
        each = forecast.seconds / forecast.pages
        parts.append(f"about {seconds_text(forecast.seconds)} ({each * 1000:,.0f} ms a page)")
    if forecast.units is not None:
        each_units = forecast.units / forecast.pages
        parts.append(
            f"about {number(round(forecast.units, 1))} {forecast.unit} "
            f"({number(round(each_units, 3))} a page)"
        )
    else:
        parts.append("cost not reported")
    measured = plural(forecast.measured, "page read", "pages read")
    said = f"{', '.join(parts)}, as measured over the {measured} so far"
    if forecast.floor:
        said += (
            "; at least that: OFFSET reads every row it skips, so each page costs more than "
            "the one before"
        )
    return said
