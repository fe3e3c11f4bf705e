"""The measures, the ledger and the price as plain text, for any front end.

The report's session block is a list of ``Line`` (a label, a value, and whether it is a
warning to draw in colour); the narrow strip and the stack view's footer are one string
each; the sidebar's rows of label, number and unit are ``core.figure_rows``, built from
the words here. Nothing here is markup, and every figure says what it covers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dynotui.core.ledger import SessionFigures, UnitFigures
from dynotui.core.measures import SWING_RATIO, CapacityFigures, Measures
from dynotui.core.money import (
    WHAT_SESSION,
    WHAT_SHAPE,
    PriceList,
    estimates,
)
from dynotui.core.refusals import RefusalFigures
from dynotui.core.text import plural


@dataclass(frozen=True, slots=True)
class Line:
    label: str
    value: str
    warning: bool = False


def number(value: float) -> str:
    """1,234.5 and 0.5; never an exponent for the sizes a session reaches."""
    return f"{value:,.10g}"


def per_item_text(value: float) -> str:
    """A cost per item shown, as every screen and the report write it: 0.07324, 3.417."""
    return f"{value:.4g}"


def percent(ratio: float) -> str:
    return f"{ratio:.2%}" if 0 < ratio < 0.01 else f"{ratio:.1%}"


def times(ratio: float) -> str:
    """8.3x, 12x, 251x."""
    return f"{ratio:,.0f}x" if ratio >= 10 else f"{ratio:.2g}x"


def capacity_text(capacity: CapacityFigures | None, unit: str | None) -> str:
    if capacity is None:
        return "not reported"
    text = (
        f"p50 {number(capacity.p50)} · p99 {number(capacity.p99)} · "
        f"max {number(capacity.max)} {capacity.unit}"
    )
    if capacity.not_reported:
        text += f" ({plural(capacity.not_reported, 'page')} not reported)"
    return text


def swing_text(capacity: CapacityFigures) -> str:
    swing = capacity.swing
    if swing is None:
        return "p50 is 0" + (": any page costs more" if capacity.p99 else "")
    words = times(swing)
    if capacity.swings:
        words += (
            f", past {SWING_RATIO:g}x: pages cost very different amounts (a filter doing an "
            "index's job, or items of very different sizes)"
        )
    return words


def selectivity_text(measures: Measures) -> str:
    if measures.scanned is None:
        return "ScannedCount not reported"
    ratio = measures.selectivity
    text = f"{measures.matched:,} / {measures.scanned:,}"
    if ratio is not None:
        text += f" = {percent(ratio)}"
        if measures.wasteful:
            text += " (below half: paying for discards)"
    return text


def rounds_text(measures: Measures) -> str:
    mean = measures.rounds_mean
    if mean is None:
        return "no page yet"
    if not measures.rounds_apply:
        return "1 per page by design (fill mode only)"
    text = f"mean {mean:.2g} · max {measures.max_calls} (fill mode; should stay at 1)"
    return text


def empty_text(measures: Measures) -> str:
    rate = measures.empty_rate
    if rate is None:
        return "no page yet"
    text = f"{measures.empty_with_key:,} of {measures.reads:,} ({percent(rate)})"
    if measures.empty_with_key:
        text += ", each with a key: keep paging"
    return text


def refusals_text(refusals: RefusalFigures) -> str:
    if not refusals.presented:
        return "none presented"
    if not refusals.refused:
        return f"0 refused of {refusals.presented:,}"
    why = ", ".join(f"{reason} {n}" for reason, n in refusals.by_reason)
    return f"{refusals.refused:,} refused of {refusals.presented:,} ({why})"


def price_lines(
    prices: PriceList | None, unit: str | None, figures: Sequence[tuple[str, float | None]]
) -> list[Line]:
    lines = [
        Line(
            "Est. per 1M views" if found.what == WHAT_SHAPE else f"Est. {found.what}",
            found.amounts_text(),
        )
        for found in estimates(prices, unit, figures)
    ]
    if lines and prices is not None:
        lines.append(Line("", f"an estimate: {prices.source}"))
    return lines


def unit_text(figures: UnitFigures) -> str:
    total = figures.total
    if total is None:
        return "not reported"
    parts = [
        (name, value)
        for name, value in (
            ("pages", figures.pages),
            ("counts", figures.counts),
            ("abandoned", figures.abandoned),
            ("what-if", figures.what_if),
            ("read ahead", figures.read_ahead),
        )
        if value is not None
    ]
    detail = ", ".join(
        f"{name} {'not reported' if c.headline is None else number(c.headline)}"
        for name, c in parts
    )
    return f"{number(total)} {figures.unit} ({detail})"


def covers(figures: SessionFigures) -> str:
    """What the session's figures cover: "12 pages read in 3 queries, 2 counts, 1
    abandoned read"."""
    queries = plural(figures.queries, "query", "queries")
    parts = [f"{plural(figures.pages_read, 'page')} read in {queries}"]
    if figures.counts:
        count = plural(figures.counts, "count")
        if figures.partial_counts:
            count += f" ({figures.partial_counts} stopped early)"
        parts.append(count)
    if figures.abandoned_reads:
        parts.append(plural(figures.abandoned_reads, "abandoned read"))
    if figures.what_ifs:
        what_if = plural(figures.what_ifs, "what-if estimate")
        if figures.partial_what_ifs:
            what_if += f" ({figures.partial_what_ifs} stopped early)"
        parts.append(what_if)
    if figures.read_ahead:
        parts.append(
            f"{plural(figures.read_ahead, 'page')} read ahead ({figures.read_ahead_shown} shown)"
        )
    return ", ".join(parts)


def session_lines(figures: SessionFigures, prices: PriceList | None = None) -> list[Line]:
    """The sidebar's "This session" block: everything since the app opened."""
    lines = [Line("This session", covers(figures))]
    for unit in figures.by_unit:
        lines.append(Line("Spent", unit_text(unit)))
    refusals = figures.refusals
    lines.append(Line("Cursors", refusals_text(refusals), bool(refusals.refused)))
    for unit in figures.by_unit:
        lines += price_lines(prices, unit.unit, [(WHAT_SESSION, unit.total)])
    return lines


def compact(measures: Measures) -> str:
    """The 80x24 strip's form: "p50 1.5 p99 12 RCU · kept 2.5% · rounds 1.8 · empty 3/40"."""
    if not measures.reads:
        return "no page yet"
    capacity = measures.capacity
    parts = [
        "cost n/r"
        if capacity is None
        else f"p50 {number(capacity.p50)} p99 {number(capacity.p99)} {capacity.unit}"
        + ("!" if capacity.swings else "")
    ]
    ratio = measures.selectivity
    if ratio is not None:
        parts.append(f"kept {percent(ratio)}")
    if measures.rounds_apply and measures.rounds_mean is not None:
        parts.append(f"rounds {measures.rounds_mean:.2g}")
    parts.append(f"empty {measures.empty_with_key}/{measures.reads}")
    return " · ".join(parts)


def stack_footer(measures: Measures, refusals: RefusalFigures | None = None) -> str:
    """The stack view's footer: the five measures in one line each way of reading."""
    if not measures.reads:
        return "No page read yet."
    capacity = measures.capacity
    parts = [f"{plural(measures.reads, 'read')}"]
    if capacity is None:
        parts.append("capacity not reported")
    else:
        swing = capacity.swing
        text = (
            f"{capacity.unit}/page p50 {number(capacity.p50)} p99 {number(capacity.p99)} "
            f"max {number(capacity.max)}"
        )
        if swing is not None:
            text += f" ({times(swing)}{', past 10x' if capacity.swings else ''})"
        parts.append(text)
    parts.append(f"Count/Scanned {selectivity_text(measures)}")
    if measures.rounds_apply and measures.rounds_mean is not None:
        parts.append(f"rounds mean {measures.rounds_mean:.2g} max {measures.max_calls}")
    parts.append(f"empty {empty_text(measures)}")
    if refusals is not None:
        parts.append(f"cursors {refusals_text(refusals)}")
    return " · ".join(parts)
