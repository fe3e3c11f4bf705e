"""What the current page, this query and the whole session cost: a sidebar of aligned
figures, or two lines when narrow.

Each block is a column of labels, the numbers right-aligned under one another with their
units beside them, and a note after ("Kept   2.5%  12 of 480"); a chart where one says
more than a number (the page's waste as a bar, capacity per page as a sparkline); money
only as what a million views of such pages would cost. "This query" is the current
cursor stack; "this session" everything read since the app opened. The figures and
their words come from ``core.figure_rows``; here they are only laid out, as ``Text``
(never markup).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.events import Resize

from dynotui.core.advisor import Finding
from dynotui.core.figure_rows import (
    Row,
    page_rows,
    prices_note,
    query_rows,
    session_rows,
)
from dynotui.core.figures_text import compact, covers, number, per_item_text
from dynotui.core.ledger import SessionFigures
from dynotui.core.measures import Measures
from dynotui.core.money import PriceList
from dynotui.core.page import Cost, PageSummary, Totals
from dynotui.core.text import plural, visible
from dynotui.ui.widgets.safe_text import TextStatic
from dynotui.ui.widgets.scaled_sparkline import ScaledSparkline
from dynotui.ui.widgets.segment_map import SegmentMap
from dynotui.ui.widgets.words import NEXT_PAGE, fitted

BAR_WIDTH = 16
LABEL = 9  # the label column: "Abandoned"; wider for a longer label, up to
LABEL_MAX = 14  # past which a label is cut (a part's name: "  signature")
WIDTH = 38  # the sidebar's text width when it has not been laid out yet
WARNING = "bold red"


def waste_bar(page: PageSummary[Any], width: int = BAR_WIDTH) -> Text:
    """What was read as a bar: the kept part, then the discarded part."""
    read = page.scanned_count
    if read is None:
        return Text("read count not reported", style="dim")
    if not read:
        return Text("nothing read", style="dim")
    kept = round(width * page.count / read)
    kept = min(width, max(kept, 1 if page.count else 0))
    bar = Text()
    bar.append("█" * kept, style="green")
    bar.append("█" * (width - kept), style="red" if page.waste_ratio > 0.5 else "yellow")
    return bar


def _wrapped(text: str, width: int, indent: int) -> list[str]:
    """``text`` in lines of ``width`` cells, the first starting at ``indent``."""
    room = max(width - indent, 8)
    return textwrap.wrap(text, room, break_long_words=True, break_on_hyphens=False) or [""]


def label_column(rows: Sequence[Row]) -> int:
    """The label column's width for ``rows``: the longest label, within its bounds."""
    labels = [visible(("  " + row.label) if row.part else row.label) for row in rows]
    return min(max([LABEL, *(cell_len(label) for label in labels)]), LABEL_MAX)


def rows_text(
    rows: Sequence[Row],
    width: int = WIDTH,
    numbers: int | None = None,
    column: int | None = None,
) -> Text:
    """Rows laid out as columns: the label (``column`` cells, else as wide as the widest
    here), the number right-aligned (``numbers`` cells, else as wide as the widest here),
    the unit, then the note, wrapped beside them so the numbers stay in their column
    (under the label where that is too narrow to hold its words whole)."""
    if numbers is None:
        numbers = max((cell_len(row.value) for row in rows), default=0)
    labels = [visible(("  " + row.label) if row.part else row.label) for row in rows]
    if column is None:
        column = label_column(rows)
    text = Text()
    for row, label in zip(rows, labels, strict=True):
        fits = cell_len(label) <= column
        head = label.ljust(column) if fits else label[: column - 1] + "…"
        style = WARNING if row.warning else ""
        text.append(head + " ", style=style or "dim")
        if row.value:
            text.append(visible(row.value).rjust(numbers), style=style or "bold")
            unit, note = visible(row.unit), visible(row.note)
            indent = column + 1 + numbers
            if unit and indent + 1 + cell_len(unit) > width:  # words, not a unit: a note
                unit, note = "", f"{unit}  {note}".strip()
            if unit:
                text.append(" " + unit, style=style)
                indent += 1 + cell_len(unit)
            indent += 2  # a note apart from its number and unit
            more: list[str] = []
            if note:
                room = width - indent
                longest = max((cell_len(word) for word in note.split()), default=0)
                beside = textwrap.wrap(note, room) if longest <= room else []
                if beside and len(beside) <= 2:
                    text.append("  " + beside[0], style=style or "dim")
                    more = beside[1:]
                else:  # too narrow beside the number (a compare's sidebar): whole words
                    # on lines of their own under the label, never "provision" / "ed"
                    indent, more = 2, _wrapped(note, width, 2)
        else:
            words = visible(row.note)
            if cell_len(words) <= width - column - 1:
                indent, lines = column + 1, [words]
                text.append(words, style=style)
            else:  # long words (a plan): under their label, the whole width
                indent, lines = 2, _wrapped(words, width, 2)
                text.append("\n" + "  " + lines[0], style=style)
            more = lines[1:]
        for line in more:
            text.append("\n" + " " * indent + line, style=style or "dim")
        text.append("\n")
    return text


def heading(title: str, words: str, width: int = WIDTH) -> Text:
    """A block's title, and what it covers in words after it (wrapped)."""
    text = Text(title, style="bold")
    rest = visible(words)
    if not rest:
        return text.append("\n")
    if cell_len(title) + 2 + cell_len(rest) <= width:
        text.append("  " + rest + "\n", style="dim")
    else:
        text.append("\n" + "\n".join(_wrapped(rest, width, 0)) + "\n", style="dim")
    return text


def page_text(page: PageSummary[Any], width: int = WIDTH) -> Text:
    rows = page_rows(page)
    numbers = max((cell_len(row.value) for row in rows), default=0)
    column = label_column(rows)  # one column above and below the bar: numbers aligned
    counted = next((at for at, row in enumerate(rows) if row.label == "Count"), len(rows) - 1)
    text = heading(f"Page {page.number}", "cached" if page.cached else "fresh", width)
    text.append_text(rows_text(rows[: counted + 1], width, numbers, column))
    text.append_text(waste_bar(page))
    if page.scanned_count is not None:
        wasteful = page.waste_ratio > 0.5
        text.append(f" {page.waste_ratio:.0%} waste\n", style=WARNING if wasteful else "")
        if page.waste:
            text.append(
                f"{page.waste:,} read, paid for, discarded\n",
                style=WARNING if wasteful else "dim",
            )
    else:
        text.append("\n")
    text.append_text(rows_text(rows[counted + 1 :], width, numbers, column))
    for warning in page.cost.warnings():
        text.append(visible(warning) + "\n", style="yellow")
    text.append("Next".ljust(column) + " " + NEXT_PAGE[page.has_next] + "\n", style="bold")
    if page.empty_with_key:
        text.append(
            "Empty page, but a key came back:\nkeep paging, this is not the end.\n",
            style="bold yellow",
        )
    return text


def query_text(
    totals: Totals[Any],
    measures: Measures,
    per_item: float | None,
    prices: PriceList | None,
    width: int = WIDTH,
) -> Text:
    """This query: what its stack read and cost, cost per item shown, the five measures of
    its pages, and a million views' worth of them in money."""
    reads = plural(totals.pages_read, "page read", "pages read")
    text = heading("This query", f"{reads}, re-reads included", width)
    text.append_text(rows_text(query_rows(totals, measures, per_item, prices), width))
    return text


def session_text(figures: SessionFigures, prices: PriceList | None, width: int = WIDTH) -> Text:
    """This session: every stack's reads since the app opened, counts, abandoned reads,
    both sides of a compare, the cursors refused; where the money came from."""
    text = heading("This session", covers(figures), width)
    text.append_text(rows_text(session_rows(figures), width))
    units = {unit.unit for unit in figures.by_unit}
    note = next((prices_note(prices, unit) for unit in units if prices_note(prices, unit)), "")
    if note:
        text.append("\n".join(_wrapped(visible(note), width, 0)) + "\n", style="dim")
    return text


def _headline(cost: Cost | None) -> str:
    if cost is None:
        return "0"
    if cost.headline is None:
        return "cost not reported"
    return f"{number(cost.headline)} {cost.unit}"


def strip_text(
    page: PageSummary[Any] | None,
    totals: Totals[Any],
    measures: Measures | None = None,
    session: SessionFigures | None = None,
    advice: int = 0,
    *,
    width: int = 0,
    per_item: float | None = None,
) -> Text:
    """The sidebar in two lines, for narrow terminals, in its words: the page, then what
    the session spent, the advisor and the query's measures; each line keeps the parts
    that fit whole, the most telling first (``width`` 0: every part)."""
    if page is None:
        return Text("No page read yet.", style="dim")
    read = page.scanned_count
    first = [
        (f"p{page.number}{' cached' if page.cached else ''}", ""),
        (_headline(page.cost), ""),
    ]
    if read is None:
        first.append((f"count {page.count:,} (scanned not reported)", ""))
    else:
        wasteful = WARNING if page.waste_ratio > 0.5 else ""
        first += [
            (f"scanned {read:,}", ""),
            (f"count {page.count:,}", ""),
            (f"{page.waste_ratio:.0%} waste", wasteful),
        ]
    first.append((NEXT_PAGE[page.has_next], ""))
    spent = [u for u in session.by_unit if u.total is not None] if session is not None else []
    second = [f"session {number(u.total or 0)} {u.unit}" for u in spent]
    if not spent:
        second.append(f"stack {_headline(totals.cost)}")
    if advice:
        second.append(f"advisor: {advice} (b)")
    if measures is not None and totals.pages_read and not totals.calls:
        # No call made (a table export's files): no read units to measure, nor money.
        second += [f"no {page.cost.unit}: no call was made", *compact(measures).split(" · ")[1:]]
    elif measures is not None:
        shape, *rest = compact(measures).split(" · ")
        second.append(shape)
        if per_item is not None and measures.unit:
            second.append(f"{per_item_text(per_item)} {measures.unit}/item")
        second += rest
    text = fitted(first, width)
    text.append("\n")
    text.append_text(fitted([(part, "dim") for part in second], width))
    return text


class CostStrip(TextStatic):
    """The sidebar's figures in two lines, laid out again when its width changes (a
    resize, or shown in place of the sidebar)."""

    _figures: tuple[Any, ...] | None = None

    def show_figures(
        self,
        page: PageSummary[Any] | None,
        totals: Totals[Any],
        measures: Measures,
        session: SessionFigures,
        advice: int,
        per_item: float | None,
    ) -> None:
        self._figures = (page, totals, measures, session, advice, per_item)
        # Hidden (the sidebar shows): as wide as it will be, the screen less its padding.
        width = self.content_region.width or max(self.app.size.width - 2, 0)
        self.show(
            strip_text(page, totals, measures, session, advice, width=width, per_item=per_item)
        )

    def on_resize(self, event: Resize) -> None:
        if self._figures is not None:
            self.show_figures(*self._figures)


class CostSidebar(VerticalScroll):
    """Per page: capacity, ScannedCount vs Count, waste, calls, why it ended; this query
    and this session as aligned figures; capacity per page as a sparkline."""

    can_focus = False
    _shown: tuple[Any, ...] | None = None  # what was shown last, to lay out again
    # The compare view's one scale for both sides' charts (low, high); None: this chart's own.
    shared_scale: tuple[float, float] | None = None

    def compose(self) -> ComposeResult:
        # A parallel Scan's segments and the costs by entity are mounted when first shown.
        yield TextStatic("No page read yet.", id="page-cost")
        yield TextStatic("", id="query-cost")
        yield TextStatic("Cost per page", id="spark-label")
        yield ScaledSparkline([], id="capacity-spark")
        yield TextStatic("", id="session-cost")
        yield TextStatic("", id="advice")

    def _width(self) -> int:
        return (self.scrollable_content_region.width or WIDTH) - 1  # room for a scrollbar

    def share_scale(self, scale: tuple[float, float] | None) -> None:
        """Chart on ``scale`` (the compare view's, over both sides' pages), or on its own."""
        if scale != self.shared_scale:
            self.shared_scale = scale
            if self._shown is not None:
                self.show(*self._shown)

    def on_resize(self, event: Resize) -> None:
        # Narrower in the compare view, wider out of it: the figures laid out again.
        if self._shown is not None:
            self.show(*self._shown)

    def show(
        self,
        page: PageSummary[Any] | None,
        totals: Totals[Any],
        series: Sequence[PageSummary[Any]],
        findings: Sequence[Finding],
        measures: Measures,
        session: SessionFigures,
        prices: PriceList | None,
        per_item: float | None = None,
    ) -> None:
        self._shown = (page, totals, series, findings, measures, session, prices, per_item)
        width = self._width()
        self.query_one("#page-cost", TextStatic).show(
            page_text(page, width) if page else Text("No page read yet.")
        )
        self.set_class(bool(page and page.waste_ratio > 0.5), "-wasteful")
        self.query_one("#query-cost", TextStatic).show(
            query_text(totals, measures, per_item, prices, width)
        )
        self.query_one("#session-cost", TextStatic).show(session_text(session, prices, width))
        unit = page.cost.unit if page is not None else ""
        scale = self.shared_scale
        label = f"{unit} per page, last {len(series)}" if unit else "Cost per page"
        if scale is not None and unit:
            low, high = (number(end) for end in scale)
            label += f", on one scale with the other side ({low} to {high})"
        self.query_one("#spark-label", TextStatic).show(Text(label))
        spark = self.query_one("#capacity-spark", ScaledSparkline)
        data = [p.cost.headline or 0.0 for p in series]
        if spark.data != data:
            spark.data = data
        spark.set_scale(scale)
        # No chart of nothing: a side with no page yet, an endpoint reporting no cost, or
        # pages that all cost the same (a flat line, drawn blank; the figures say it),
        # unless the other side's chart gives the line a height to be read against.
        level = len(set(data)) > 1 or (scale is not None and scale[0] < scale[1])
        charted = any(data) and len(data) > 1 and level
        spark.display = charted
        self.query_one("#spark-label", TextStatic).display = charted
        advice = Text()
        if findings:
            advice.append("Advisor\n", style="bold")
            for finding in findings:
                advice.append("• " + visible(finding.text) + "\n")
        self.query_one("#advice", TextStatic).show(advice)

    def show_segments(self, figures: Any, selected: int | None) -> None:
        """A parallel Scan's segments (``SegmentMap.show_segments``), above the page."""
        found = list(self.query(SegmentMap))
        if not found and figures:
            found = [SegmentMap(id="segment-map")]
            self.mount(found[0], before="#page-cost")
        for segment_map in found:
            segment_map.show_segments(figures, selected)

    def show_entities(self, split: Sequence[tuple[str, int, float]], cost: Cost | None) -> None:
        """The page's read units by entity, each entity's share of the page's bytes."""
        blocks = list(self.query("#entity-cost").results(TextStatic))
        if not blocks and split:
            blocks = [TextStatic("", id="entity-cost")]
            self.mount(blocks[0], before="#query-cost")
        if not blocks:
            return
        block = blocks[0]
        block.display = bool(split)
        if split:
            block.show(entity_text(split, cost, self._width()))


def entity_text(
    split: Sequence[tuple[str, int, float]], cost: Cost | None, width: int = WIDTH
) -> Text:
    """``ORDER  0.3 RCU  60% · 12``: the page's units split by the rows' bytes (its share,
    and its rows)."""
    units = cost.headline if cost is not None else None
    unit = cost.unit if cost is not None else ""
    # The legend names both figures after the units ("60% · 12"): it said "...; rows", and
    # a lone "rows" wrapped onto a line of its own read as a stray word.
    text = heading("By entity", "the page's units split by its rows' bytes: share · rows", width)
    rows = [
        Row(
            name,
            f"{units * share:.2g}" if units is not None else f"{share:.0%}",
            unit if units is not None else "",
            f"{share:.0%} · {count:,}" if units is not None else f"{count:,} rows",
        )
        for name, count, share in split
    ]
    text.append_text(rows_text(rows, width))
    return text
