"""Two pagers side by side on one table, each with its own order, keys, stack and costs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import DescendantFocus
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from dynotui.core.page import Page
from dynotui.core.query_form import QueryForm
from dynotui.core.schema import TableSchema
from dynotui.ui.pager_view import PagerView


def side_summary(name: str, view: PagerView) -> str:
    page = view.pager.current if view.pager else None
    if page is None or view.pager is None:
        return f"{name}: no page yet"
    order = view.pager.schema.order(view.pager.spec.index)
    return (
        f"{name} {order.name}: page {page.number} · {page.capacity.total:g} RCU · scanned "
        f"{page.scanned_count:,} · count {page.count:,} · waste {page.waste_ratio:.0%}"
    )


class CompareScreen(Screen[None]):
    BINDINGS = [
        Binding("tab", "switch_side", "Other side"),
        Binding("N", "both('next')", "Next both"),
        Binding("P", "both('prev')", "Prev both"),
        Binding("G", "both('first')", "First both"),
        Binding("escape", "app.pop_screen", "Back"),
    ]

    def __init__(
        self, client: Any, schema: TableSchema, form: QueryForm, clock: Callable[[], float]
    ) -> None:
        super().__init__()
        self.client = client
        self.schema = schema
        self.form = form
        self.clock = clock
        self.active_id = "left"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="compare-line")
        with Horizontal(id="compare-panes"):
            yield PagerView(
                self.client, form=self.form, clock=self.clock, id="left", classes="compare-side"
            )
            yield PagerView(
                self.client,
                form=QueryForm(page_size=self.form.page_size, mode=self.form.mode),
                clock=self.clock,
                id="right",
                classes="compare-side",
            )
        yield Footer()

    def on_mount(self) -> None:
        left = self.query_one("#left", PagerView)
        right = self.query_one("#right", PagerView)
        left.use_query(self.schema, self.form)
        right.schema = self.schema
        right.query_one("#status-line", Static).update(
            "This side has no query yet: press tab to come here, then o to choose its order."
        )
        self._activate("left")
        self._summarise()

    @property
    def active_view(self) -> PagerView:
        return self.query_one(f"#{self.active_id}", PagerView)

    def _activate(self, side: str) -> None:
        self.active_id = side
        for view in self.query(PagerView):
            view.set_class(view.id == side, "-active")

    @on(DescendantFocus)
    def _follow_focus(self, event: DescendantFocus) -> None:
        for ancestor in event.widget.ancestors_with_self:
            if isinstance(ancestor, PagerView) and ancestor.id:
                self._activate(ancestor.id)
                return

    def action_switch_side(self) -> None:
        other = "right" if self.active_id == "left" else "left"
        self._activate(other)
        self.query_one(f"#{other}", PagerView).table.focus()

    def action_both(self, target: str) -> None:
        """Move both sides together, so page k faces page k."""
        for view in self.query(PagerView):
            view.navigate(target)  # type: ignore[arg-type]

    def on_pager_view_page_shown(self, message: PagerView.PageShown) -> None:
        self._summarise()

    def _summarise(self) -> None:
        left = self.query_one("#left", PagerView)
        right = self.query_one("#right", PagerView)
        line = f"{side_summary('◀', left)}   ‖   {side_summary('▶', right)}"
        pages: list[Page] = [v.pager.current for v in (left, right) if v.pager and v.pager.current]
        if len(pages) == 2 and pages[0].capacity.total and pages[1].capacity.total:
            ratio = pages[1].capacity.total / pages[0].capacity.total
            line += (
                "   (same capacity)"
                if 0.95 <= ratio <= 1.05
                else f"   (right costs {ratio:.2g}x what left costs)"
            )
        self.query_one("#compare-line", Static).update(line)
