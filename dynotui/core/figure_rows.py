"""The sidebar's figures as rows of label, number and unit, for any front end to align.

A row's number is its own column so that a front end can right-align it (digits under
digits), its unit beside it, and a note after: "Scanned   1,234 items". A row with words
instead of a number ("Ended  Limit reached") leaves the number empty. Money is said where
it helps: what a million views of pages like these cost, not a page's fraction of a cent.
Nothing here is markup; every figure says what it covers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dynotui.core.figures_text import (
    number,
    per_item_text,
    percent,
    refusals_text,
    times,
)
from dynotui.core.ledger import SessionFigures
from dynotui.core.measures import Measures
from dynotui.core.money import WHAT_SHAPE, PriceList, estimates, per_page_views, usd
from dynotui.core.page import PageSummary, Totals
from dynotui.core.text import plural

# A figure a source wrote as text ("3 RCU", "1,234", "0.52 ms", "12 by filter"): its
# number, and the rest as its unit or note.
NUMBER_FIRST = re.compile(r"^(-?[0-9][0-9,]*(?:\.[0-9]+)?(?:E[+-]?[0-9]+)?)(?:\s+(.*))?$")


@dataclass(frozen=True, slots=True)
class Row:
    label: str
    value: str = ""  # a number, right-aligned (empty: the note says it in words)
    unit: str = ""
    note: str = ""
    warning: bool = False  # drawn in colour, and said in words in the note too
    part: bool = False  # a part of the row above (indented): "table", "hit"


def split_figure(label: str, text: str, *, part: bool = False) -> Row:
    """A source's (label, value) line as a row: its leading number apart from the rest."""
    label = label.strip()
    match = NUMBER_FIRST.match(text.strip())
    if match is None:
        return Row(label, note=text.strip(), part=part)
    return Row(label, match.group(1), match.group(2) or "", part=part)


def source_rows(fields: Sequence[tuple[str, str]]) -> list[Row]:
    """A cost's own lines (``Cost.fields``): an indented label is a part of the row
    above it, in that row's unit ("  table 3" under "Capacity 3 RCU"); a line with no
    label is more words about the row above."""
    rows: list[Row] = []
    parent: Row | None = None
    for label, text in fields:
        if not label.strip() and rows:
            last = rows[-1]
            rows[-1] = Row(last.label, last.value, last.unit, f"{last.note} {text}".strip())
            continue
        part = label.startswith(" ") and parent is not None
        row = split_figure(label, text, part=part)
        if part and parent is not None and row.value and not row.unit:
            row = Row(row.label, row.value, parent.unit, row.note, part=True)
        if not part:
            parent = row
        rows.append(row)
    return rows


def page_rows(page: PageSummary[Any]) -> list[Row]:
    """One page: its cost, what it read and kept, its calls, why it ended, what is next."""
    cost = page.cost
    rows = source_rows(cost.fields())
    read = page.scanned_count
    rows.append(
        Row("Scanned", f"{read:,}", "items")
        if read is not None
        else Row("Scanned", note="not reported")
    )
    rows.append(Row("Count", f"{page.count:,}", "items", f"shown {page.shown:,}"))
    rows.append(Row("Calls", f"{cost.requests:,}", "", f"in {cost.latency_ms:,.1f} ms"))
    if cost.retries:
        rows.append(Row("Retries", f"{cost.retries:,}", "", "throttled or failed, then served"))
    rows.append(Row("Ended", note=page.ended_by.words))
    return rows


def query_rows(
    totals: Totals[Any],
    measures: Measures,
    per_item: float | None,
    prices: PriceList | None,
) -> list[Row]:
    """This query (the cursor stack): what it read and cost, cost per item shown, the five
    measures of its pages, and what a million views of such pages would cost."""
    cost = totals.cost
    unit = measures.unit or (cost.unit if cost is not None else "")
    rows = [Row("Calls", f"{totals.calls:,}")]
    if totals.pages_read and not totals.calls:
        # Pages read with no call (a table export's files): no read units, so no cost per
        # item or page and no money to say, rather than "0 RCU" and "$0".
        return [*rows, Row("Cost", note=f"no {unit}: no call was made"), *_shape_rows(measures)]
    if cost is not None and cost.headline is not None:
        rows.append(Row("Cost", number(cost.headline), unit))
    elif cost is not None:
        rows.append(Row("Cost", note="not reported"))
    if per_item is not None:
        rows.append(Row("Per item", per_item_text(per_item), unit, "shown"))
    if cost is not None and cost.retries:
        rows.append(Row("Retries", f"{cost.retries:,}", warning=True))
    if totals.abandoned is not None:
        spent = totals.abandoned.headline
        rows.append(
            Row(
                "Abandoned",
                number(spent) if spent is not None else "",
                unit if spent is not None else "",
                f"billed, {plural(totals.abandoned.requests, 'call')}",
                warning=True,
            )
        )
    if not measures.reads:
        return rows
    rows += _measure_rows(measures)
    rows += money_rows(prices, measures.unit, measures.capacity_mean)
    return rows


def _measure_rows(measures: Measures) -> list[Row]:
    """The pages' cost measures (p50, p99, max), then their shape."""
    rows: list[Row] = []
    capacity = measures.capacity
    if capacity is None:
        rows.append(Row("Per page", note="cost not reported"))
    else:
        # Which figure is in the label, not a note: a note may go under its number in a
        # narrow sidebar, and "p50" alone on a line says nothing.
        rows += [
            Row("Page p50", number(capacity.p50), capacity.unit),
            Row("Page p99", number(capacity.p99), capacity.unit),
            Row("Page max", number(capacity.max), capacity.unit),
        ]
        if capacity.swing is not None and capacity.swings:
            rows.append(Row("", times(capacity.swing), "", "p99/p50, pages differ", True))
    return rows + _shape_rows(measures)


def _shape_rows(measures: Measures) -> list[Row]:
    """What the pages kept, their rounds and their empty pages."""
    if not measures.reads:
        return []
    rows: list[Row] = []
    ratio = measures.selectivity
    if measures.scanned is None:
        rows.append(Row("Kept", note="ScannedCount not reported"))
    elif ratio is not None:
        rows.append(
            Row(
                "Kept",
                percent(ratio),
                "",
                f"{measures.matched:,} of {measures.scanned:,}"
                + (", below half" if measures.wasteful else ""),
                measures.wasteful,
            )
        )
    if measures.rounds_apply and measures.rounds_mean is not None:
        rows.append(
            Row(
                "Rounds",
                f"{measures.rounds_mean:.2g}",
                "",
                f"a page, max {measures.max_calls}" + (", high" if measures.rounds_high else ""),
                measures.rounds_high,
            )
        )
    rows.append(
        Row(
            "Empty",
            f"{measures.empty_with_key:,}",
            "",
            f"of {plural(measures.reads, 'page')}"
            + (", each with a key: keep paging" if measures.empty_with_key else ""),
            bool(measures.empty_with_key),
        )
    )
    return rows


def money_rows(prices: PriceList | None, unit: str | None, mean: float | None) -> list[Row]:
    """What a million views of pages like these would cost, each way of paying: the one
    amount of money a page's figures make worth saying."""
    found = estimates(prices, unit, [(WHAT_SHAPE, per_page_views(mean))])
    rows: list[Row] = []
    for estimate in found:
        if estimate.units is None:
            rows.append(Row("1M views", note="cost not reported, no estimate"))
            continue
        for at, (name, amount) in enumerate(estimate.amounts):
            rows.append(Row("1M views" if at == 0 else "", usd(amount), "", name))
    return rows


def prices_note(prices: PriceList | None, unit: str | None) -> str:
    """Where the amounts came from, once: "$ estimated: us-east-1 list prices …"."""
    if prices is None or unit != prices.unit:
        return ""
    return f"$ estimated from {prices.source}"


def session_rows(figures: SessionFigures) -> list[Row]:
    """This session: every stack's reads since the app opened, by unit, and the cursors
    refused."""
    rows: list[Row] = []
    for unit in figures.by_unit:
        total = unit.total
        if total is None:
            rows.append(Row("Spent", note=f"{unit.unit} not reported"))
            continue
        rows.append(Row("Spent", number(total), unit.unit))
        for name, part in (
            ("pages", unit.pages),
            ("counts", unit.counts),
            ("abandoned", unit.abandoned),
            ("what-if", unit.what_if),  # what-if estimates and plans: billed all the same
            ("read ahead", unit.read_ahead),
        ):
            if part is not None and part.headline is not None and part.headline != total:
                rows.append(Row(name, number(part.headline), unit.unit, part=True))
    refusals = figures.refusals
    if refusals.refused:
        rows.append(
            Row("Cursors", f"{refusals.refused:,}", "", f"refused of {refusals.presented:,}", True)
        )
        rows += [Row(reason, f"{n:,}", part=True, warning=True) for reason, n in refusals.by_reason]
    else:
        rows.append(Row("Cursors", note=refusals_text(refusals)))
    return rows
