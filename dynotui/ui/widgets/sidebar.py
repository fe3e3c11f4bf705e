"""What the current page, this query and the whole session cost: a sidebar, or two lines
when narrow. "This query" is the current cursor stack (its five measures: capacity per
page p50/p99, Count ÷ ScannedCount, rounds per page, empty pages); "this session" is
everything read since the app opened."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Sparkline

from dynotui.core.advisor import Finding
from dynotui.core.figures_text import Line, compact, number, query_lines, session_lines
from dynotui.core.ledger import SessionFigures
from dynotui.core.measures import Measures
from dynotui.core.money import PriceList
from dynotui.core.page import Cost, PageSummary, Totals
from dynotui.core.text import visible
from dynotui.ui.widgets.safe_text import TextStatic
from dynotui.ui.widgets.segment_map import SegmentMap
from dynotui.ui.widgets.words import NEXT_PAGE, plural

BAR_WIDTH = 16


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


def page_text(page: PageSummary[Any]) -> Text:
    cost = page.cost
    text = Text()
    text.append(f"Page {page.number}", style="bold")
    text.append("  cached\n" if page.cached else "  fresh\n", style="dim" if page.cached else "")
    for label, value in cost.fields():
        text.append(f"{visible(label):<10} {visible(value)}\n")
    read = page.scanned_count
    text.append(f"Scanned    {'not reported' if read is None else f'{read:,}'}\n")
    text.append(f"Count      {page.count:,}   shown {page.shown:,}\n")
    text.append_text(waste_bar(page))
    if read is not None:
        style = "bold red" if page.waste_ratio > 0.5 else ""
        text.append(f" {page.waste_ratio:.0%} waste\n", style=style)
        if page.waste:
            text.append(f"  {page.waste:,} read, paid for, discarded\n", style=style or "dim")
    else:
        text.append("\n")
    text.append(f"Calls      {cost.requests}  {cost.latency_ms:.1f} ms\n")
    if cost.retries:
        text.append(
            f"Retries    {cost.retries} (throttled or failed, then served)\n", style="yellow"
        )
    text.append(f"Ended      {page.ended_by.words}\n")
    for warning in cost.warnings():
        text.append(f"  {visible(warning)}\n", style="yellow")
    text.append(f"Next page  {NEXT_PAGE[page.has_next]}\n", style="bold")
    if page.empty_with_key:
        text.append(
            "Empty page, but a key came back:\nkeep paging, this is not the end.\n",
            style="bold yellow",
        )
    return text


def _headline(cost: Cost | None) -> str:
    if cost is None:
        return "0"
    if cost.headline is None:
        return "not reported"
    return f"{cost.headline:,.10g} {cost.unit}"


def lines_text(lines: Sequence[Line]) -> Text:
    """A block of figures: its first line the heading, then label and value; a warning
    in red (and said in words too: colour is never the only sign)."""
    text = Text()
    if lines:
        text.append(visible(lines[0].label), style="bold")
        text.append(f"  {visible(lines[0].value)}\n", style="dim")
        text.append_text(_rows(lines[1:]))
    return text


def query_text(
    totals: Totals[Any],
    measures: Measures,
    page: PageSummary[Any] | None,
    prices: PriceList | None,
) -> Text:
    """This query: what its stack read and cost, and the five measures of its pages."""
    text = Text()
    text.append("This query", style="bold")
    text.append("  this cursor stack\n", style="dim")
    text.append(f"Pages read {totals.pages_read:,}  calls {totals.calls:,}\n")
    text.append(f"Cost       {_headline(totals.cost)}\n")
    read = totals.cost.read if totals.cost is not None else 0
    scanned = "not reported" if read is None else f"{read:,}"
    text.append(f"Scanned    {scanned}  Count {totals.count:,}\n")
    retries = totals.cost.retries if totals.cost is not None else 0
    if retries:
        text.append(f"Retries    {retries:,}\n", style="yellow")
    if totals.abandoned is not None:
        text.append(
            f"Spent on abandoned reads {_headline(totals.abandoned)} "
            f"({plural(totals.abandoned.requests, 'call')})\n",
            style="yellow",
        )
    if measures.reads:
        lines = [
            line
            for line in query_lines(measures, page=page, prices=prices)[1:]
            # Rounds per page only mean something in fill mode; the prices' source is
            # said once, under the session's figures.
            if line.label and (line.label != "Rounds" or measures.rounds_apply)
        ]
        text.append_text(_rows(lines))
    return text


def _rows(lines: Sequence[Line]) -> Text:
    text = Text()
    for line in lines:
        style = "bold red" if line.warning else ""
        text.append(f"{visible(line.label):<10} {visible(line.value)}\n", style=style)
    return text


def session_text(figures: SessionFigures, prices: PriceList | None) -> Text:
    """This session: every stack's reads since the app opened, counts, abandoned reads,
    both sides of a compare, the cursors refused."""
    return lines_text(session_lines(figures, prices))


def strip_text(
    page: PageSummary[Any] | None,
    totals: Totals[Any],
    measures: Measures | None = None,
    session: SessionFigures | None = None,
    advice: int = 0,
) -> Text:
    """The sidebar in two lines, for narrow terminals: the page, then the query's
    measures and what the session spent."""
    if page is None:
        return Text("No page read yet.", style="dim")
    read = page.scanned_count
    text = Text()
    text.append(f"p{page.number}{' cached' if page.cached else ''} · ")
    text.append(f"{_headline(page.cost)} · ")
    text.append(f"scanned {'?' if read is None else f'{read:,}'} count {page.count:,} ")
    if read:
        text.append(
            f"waste {page.waste_ratio:.0%}",
            style="bold red" if page.waste_ratio > 0.5 else "",
        )
    text.append(f" · {NEXT_PAGE[page.has_next]}")
    # The session's spend first, so a narrow line keeps it; then the query's measures.
    spent = [u for u in session.by_unit if u.total is not None] if session is not None else []
    second = [f"session {number(u.total or 0)} {u.unit}" for u in spent]
    if not spent:
        second.append(f"stack {_headline(totals.cost)}")
    if advice:
        second.append(f"advisor: {advice} (b)")
    if measures is not None:
        second.append(f"query {compact(measures)}")
    text.append("\n" + visible(" · ".join(second)), style="dim")
    return text


class CostSidebar(VerticalScroll):
    """Per page: capacity, ScannedCount vs Count, waste, calls, why it ended."""

    can_focus = False

    def compose(self) -> ComposeResult:
        yield SegmentMap(id="segment-map")  # a parallel Scan's segments (shown by the view)
        yield TextStatic("No page read yet.", id="page-cost")
        yield TextStatic("", id="query-cost")
        yield TextStatic("", id="session-cost")
        yield TextStatic("Cost per page", id="spark-label")
        yield Sparkline([], id="capacity-spark")
        yield TextStatic("", id="advice")

    def show(
        self,
        page: PageSummary[Any] | None,
        totals: Totals[Any],
        series: Sequence[PageSummary[Any]],
        findings: Sequence[Finding],
        measures: Measures,
        session: SessionFigures,
        prices: PriceList | None,
    ) -> None:
        self.query_one("#page-cost", TextStatic).show(
            page_text(page) if page else Text("No page read yet.")
        )
        self.set_class(bool(page and page.waste_ratio > 0.5), "-wasteful")
        self.query_one("#query-cost", TextStatic).show(query_text(totals, measures, page, prices))
        self.query_one("#session-cost", TextStatic).show(session_text(session, prices))
        unit = page.cost.unit if page is not None else ""
        label = f"{unit} per page (last {len(series)})" if unit else "Cost per page"
        self.query_one("#spark-label", TextStatic).show(Text(label))
        spark = self.query_one("#capacity-spark", Sparkline)
        data = [p.cost.headline or 0.0 for p in series]
        if spark.data != data:
            spark.data = data
        # No chart of nothing: a side with no page yet, or an endpoint reporting no cost.
        spark.display = any(data)
        self.query_one("#spark-label", TextStatic).display = any(data)
        advice = Text()
        if findings:
            advice.append("Advisor\n", style="bold")
            for finding in findings:
                advice.append("• " + visible(finding.text) + "\n")
        self.query_one("#advice", TextStatic).show(advice)
