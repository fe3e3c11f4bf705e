"""What both renderers say, in the same words: the report's tables as rows of text.

Rows are (label, value) or lists of cells, plain text; each renderer escapes them for
its own language. Keeping the wording here means the HTML and the Markdown report
hold the same content.
"""

from __future__ import annotations

from dynotui.core import figures_text as words
from dynotui.core.figures_text import number, per_item_text
from dynotui.core.ledger import SessionFigures
from dynotui.core.money import WHAT_SESSION, WHAT_SHAPE, estimates, per_page_views
from dynotui.report.model import PageRow, Side

LEDGER_HEADER = (
    "page",
    "start key",
    "shown",
    "Count",
    "Scanned",
    "capacity",
    "by part",
    "rounds",
    "latency ms",
    "ended",
    "next",
)


def totals(side: Side) -> list[tuple[str, str, str]]:
    """(key, label, value): the key names the figure for machines (data-figure)."""
    capacity = side.capacity
    scanned = side.scanned
    return [
        ("pages", "pages read", f"{len(side.pages):,}"),
        (
            "capacity",
            f"capacity ({side.unit})",
            "not reported" if capacity is None else number(capacity),
        ),
        ("count", "Count", f"{side.count:,}"),
        ("shown", "items shown", f"{side.shown:,}"),
        ("scanned", "Scanned", "not reported" if scanned is None else f"{scanned:,}"),
        ("calls", "calls", f"{side.calls:,}"),
        ("latency", "latency (ms, summed)", f"{side.latency_ms:,.1f}"),
        (
            "per-match",
            f"{side.unit} per item shown",
            "not reported" if side.per_match is None else per_item_text(side.per_match),
        ),
    ]


def measures(side: Side, session: SessionFigures | None) -> list[tuple[str, str, bool]]:
    """The five measures: (measure, value, warning)."""
    m = side.measures
    capacity = m.capacity
    rows = [
        (
            f"capacity per page ({side.unit}; nearest-rank)",
            words.capacity_text(capacity, m.unit),
            False,
        ),
    ]
    if capacity is not None:
        rows.append(("p99 / p50", words.swing_text(capacity), capacity.swings))
    rows += [
        ("Count ÷ ScannedCount", words.selectivity_text(m), m.wasteful),
        ("rounds per page", words.rounds_text(m), m.rounds_high),
        ("empty pages (0 shown, key present)", words.empty_text(m), bool(m.empty_with_key)),
    ]
    if session is not None:
        refusals = session.refusals
        rows.append(
            ("cursors refused (session)", words.refusals_text(refusals), bool(refusals.refused))
        )
    return rows


def money(side: Side) -> list[tuple[str, str]]:
    prices = side.prices
    if prices is None or prices.unit != side.unit:
        return []
    last = side.pages[-1].capacity if side.pages else None
    found = estimates(
        prices,
        side.unit,
        [
            (f"page {side.pages[-1].number}" if side.pages else "last page", last),
            ("these pages", side.capacity),
            (WHAT_SHAPE, per_page_views(side.measures.capacity_mean)),
        ],
    )
    rows = [(e.what, e.amounts_text()) for e in found]
    rows += [(f"rate: {r.name}", r.basis) for r in prices.rates]
    rows.append(("source", f"an estimate: {prices.source}"))
    return rows


def session_rows(session: SessionFigures, side: Side | None) -> list[tuple[str, str]]:
    rows = [(line.label, line.value) for line in words.session_lines(session)]
    prices = side.prices if side is not None else None
    for unit in session.by_unit:
        for found in estimates(prices, unit.unit, [(WHAT_SESSION, unit.total)]):
            rows.append((f"Est. {found.what}", found.amounts_text()))
    return rows


def ledger_row(page: PageRow) -> list[str]:
    parts = ", ".join(f"{name} {number(value)}" for name, value in page.parts)
    return [
        str(page.number),
        page.start_key,
        f"{page.shown:,}",
        f"{page.count:,}",
        "not reported" if page.scanned is None else f"{page.scanned:,}",
        "not reported" if page.capacity is None else number(page.capacity),
        parts,
        str(page.rounds),
        f"{page.latency_ms:,.1f}",
        page.ended_by + (" · empty, key present" if page.empty_with_key else ""),
        page.has_next,
    ]
