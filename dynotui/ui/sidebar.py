"""The cost sidebar: what the current page and the whole session cost."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, Sparkline, Static

from dynotui.core.advisor import Finding
from dynotui.core.page import HasNext, Page, Totals

BAR_WIDTH = 20
NEXT_WORDS = {
    HasNext.YES: "next page: yes",
    HasNext.UNKNOWN: "next page: more may follow",
    HasNext.NO: "next page: none (end)",
}


def waste_bar(page: Page, width: int = BAR_WIDTH) -> Text:
    """ScannedCount as a bar: the kept part, then the discarded part."""
    if not page.scanned_count:
        return Text("nothing read", style="dim")
    kept = round(width * page.count / page.scanned_count)
    kept = min(width, max(kept, 1 if page.count else 0))
    bar = Text()
    bar.append("█" * kept, style="green")
    bar.append("█" * (width - kept), style="red" if page.waste_ratio > 0.5 else "yellow")
    return bar


def page_text(page: Page) -> Text:
    text = Text()
    text.append(f"Page {page.number}", style="bold")
    text.append("  cached\n" if page.cached else "  fresh\n", style="dim" if page.cached else "")
    cap = page.capacity
    text.append(f"Capacity   {cap.total:g} RCU\n")
    text.append(f"  table    {cap.table:g}\n")
    for name, units in sorted(cap.indexes.items()):
        text.append(f"  {name:<8} {units:g}\n")
    text.append(f"Scanned    {page.scanned_count:,}\n")
    text.append(f"Count      {page.count:,}   shown {len(page.items):,}\n")
    text.append_text(waste_bar(page))
    style = "bold red" if page.waste_ratio > 0.5 else ""
    text.append(f" {page.waste_ratio:.0%} waste\n", style=style)
    if page.waste:
        text.append(f"  {page.waste:,} read, paid for, discarded\n", style=style or "dim")
    text.append(f"Calls      {len(page.calls)}  {page.latency_ms:.1f} ms\n")
    cut = sum(1 for c in page.calls if c.last_evaluated_key and c.scanned < c.limit)
    text.append(f"Ended      {page.ended_by.words}\n")
    if cut:
        text.append(f"  1 MB limit cut {cut} call(s)\n", style="yellow")
    text.append(NEXT_WORDS[page.has_next] + "\n", style="bold")
    if page.empty_with_key:
        text.append(
            "Empty page, but a key came back:\nkeep paging, this is not the end.\n",
            style="bold yellow",
        )
    return text


def totals_text(totals: Totals) -> Text:
    text = Text()
    text.append("Session\n", style="bold")
    text.append(f"Pages read {totals.pages_read:,}  calls {totals.calls:,}\n")
    text.append(f"Capacity   {totals.capacity.total:g} RCU\n")
    text.append(f"Scanned    {totals.scanned:,}  Count {totals.count:,}\n")
    return text


class CostSidebar(Vertical):
    """Per page: capacity, ScannedCount vs Count, waste, calls, why it ended."""

    def compose(self) -> ComposeResult:
        yield Static("No page read yet.", id="page-cost")
        yield Static("", id="session-cost")
        yield Label("Capacity per page", id="spark-label")
        yield Sparkline([], id="capacity-spark")
        yield Static("", id="advice")

    def show(
        self,
        page: Page | None,
        totals: Totals,
        series: list[Page],
        findings: Sequence[Finding] = (),
    ) -> None:
        cost = self.query_one("#page-cost", Static)
        cost.update(page_text(page) if page else "No page read yet.")
        self.set_class(bool(page and page.waste_ratio > 0.5), "-wasteful")
        self.query_one("#session-cost", Static).update(totals_text(totals))
        self.query_one("#capacity-spark", Sparkline).data = [p.capacity.total for p in series]
        advice = Text()
        if findings:
            advice.append("Advisor\n", style="bold")
            for finding in findings:
                advice.append("• " + finding.text + "\n")
        self.query_one("#advice", Static).update(advice)
