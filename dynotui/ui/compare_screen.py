"""Two pagers side by side on one table, each with its own order, keys, stack and costs.

The line on top compares like with like: cost per matching item over each side's
session, and the two result sets by name, since two orders often read different ones.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.events import DescendantFocus, Resize
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from dynotui.core.text import visible
from dynotui.ui.dynamodb_query import DynamoQuery
from dynotui.ui.pager_view import PagerView, ViewState
from dynotui.ui.session import Session

NARROW = 120  # below this many columns the two sides stack vertically


def _per_match(state: ViewState) -> float | None:
    cost = state.pager.totals.cost
    if cost is None or not cost.matched or cost.headline is None:
        return None
    return cost.headline / cost.matched


def _matches(state: ViewState) -> str:
    pager = state.pager
    count = pager.totals.count
    complete = not pager.can_advance and pager.start_key_of(1) is None
    return f"all {count:,} matches" if complete else f"{count:,} matches so far"


def side_summary(arrow: str, state: ViewState | None) -> str:
    if state is None or state.pager.current is None:
        return f"{arrow} no page yet"
    page = state.pager.current
    cost = page.cost
    unit = cost.unit
    headline = "not reported" if cost.headline is None else f"{cost.headline:g} {unit}"
    per = _per_match(state)
    per_text = f"{per:.3g} {unit}/match" if per is not None else "no match yet"
    read = page.scanned_count
    return (
        f"{arrow} {state.query.order.name}: page {page.number} · {headline} · scanned "
        f"{'?' if read is None else f'{read:,}'} · count {page.count:,} · waste "
        f"{page.waste_ratio:.0%} · {per_text} · {_matches(state)}"
    )


def comparison(left: ViewState | None, right: ViewState | None) -> str:
    """How the two sides compare, naming their result sets when they differ."""
    if left is None or right is None or left.pager.current is None or right.pager.current is None:
        return "Read a page on both sides to compare them."
    same = left.query.conditions() == right.query.conditions()
    if same:
        sets = f"Same result set ({left.query.conditions_text()}), read in two orders"
    else:
        sets = (
            f"Different result sets: left reads {left.query.conditions_text()}; right reads "
            f"{right.query.conditions_text()}"
        )
    a, b = _per_match(left), _per_match(right)
    if a is None or b is None:
        return f"{sets}. No ratio until both sides have matched an item."
    ratio = b / a
    verdict = "the same" if 0.95 <= ratio <= 1.05 else f"{ratio:.2g}x what left costs"
    return f"{sets}. Per matching item, right costs {verdict}."


class CompareScreen(Screen[None]):
    BINDINGS = [
        Binding("tab", "switch_side", "Other side"),
        Binding("N", "both('next')", "Next both"),
        Binding("P", "both('prev')", "Prev both"),
        Binding("G", "both('first')", "First both"),
        Binding("escape", "leave", "Back"),
    ]

    def __init__(self, session: Session, query: DynamoQuery) -> None:
        super().__init__()
        self.session = session
        self.left_query = query
        self.active_id = "left"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="compare-line")
        with Container(id="compare-panes"):
            yield PagerView(self.session, id="left", classes="compare-side")
            yield PagerView(self.session, id="right", classes="compare-side")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#left", PagerView).start(self.left_query)
        right = self.query_one("#right", PagerView)
        right.query_one("#status-line", Static).update(
            Text("This side has no query yet: press tab to come here, then o to choose its order.")
        )
        self._activate("left")
        self._summarise()

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW, "-stacked")

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
        self.query_one(f"#{other}", PagerView).grid.focus()

    def action_both(self, target: str) -> None:
        """Move both sides together, so page k faces page k."""
        for view in self.query(PagerView):
            view.navigate(target)  # type: ignore[arg-type]

    def action_leave(self) -> None:
        if not self.active_view.cancel():
            self.dismiss()

    def on_pager_view_page_shown(self, message: PagerView.PageShown) -> None:
        for view in self.query(PagerView):
            if view is not message.view:
                view.refresh_costs()  # its advisor may now quote what this side measured
        self._summarise()

    def _summarise(self) -> None:
        left = self.query_one("#left", PagerView).state
        right = self.query_one("#right", PagerView).state
        line = Text(visible(side_summary("◀", left)) + "\n" + visible(side_summary("▶", right)))
        line.append("\n" + visible(comparison(left, right)), style="bold")
        self.query_one("#compare-line", Static).update(line)
