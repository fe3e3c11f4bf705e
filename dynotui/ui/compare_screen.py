"""Two pagers side by side on one table, each with its own order, keys, stack and costs.

The line on top compares like with like: cost per matching item over each side's
session, and the two result sets by name, since two orders often read different ones.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.events import DescendantFocus, Resize
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from dynotui.core.text import visible
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


def times(ratio: float) -> str:
    """2.5x, 0.31x, 251x: two significant digits, never an exponent."""
    return f"{ratio:,.0f}x" if ratio >= 10 else f"{ratio:.2g}x"


def _name(state: ViewState) -> str:
    mode = getattr(state.query, "mode", None)  # PostgreSQL sides differ by paging mode
    return state.query.order.name + (f" ({mode})" if mode else "")


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
        f"{arrow} {_name(state)}: page {page.number} · {headline} · scanned "
        f"{'?' if read is None else f'{read:,}'} · count {page.count:,} · waste "
        f"{page.waste_ratio:.0%} · {per_text} · {_matches(state)}"
    )


def comparison(left: ViewState | None, right: ViewState | None) -> str:
    """How the two sides compare, naming their result sets when they differ."""
    if left is None or right is None or left.pager.current is None or right.pager.current is None:
        return "Read a page on both sides to compare them."
    same = left.query.conditions() == right.query.conditions()
    modes = getattr(left.query, "mode", None), getattr(right.query, "mode", None)
    if same and left.query.order == right.query.order and modes[0] != modes[1]:
        sets = (
            f"Same result set ({left.query.conditions_text()}) in the same order, paged two "
            f"ways ({modes[0]} and {modes[1]})"
        )
    elif same:
        sets = f"Same result set ({left.query.conditions_text()}), read in two orders"
    else:
        sets = (
            f"Different result sets: left reads {left.query.conditions_text()}; right reads "
            f"{right.query.conditions_text()}"
        )
    a, b = _per_match(left), _per_match(right)
    page = _same_page(left, right)
    if a is None or b is None:
        return f"{sets}. No ratio until both sides have matched an item.{page}"
    ratio = b / a
    verdict = "the same" if 0.95 <= ratio <= 1.05 else f"{times(ratio)} what left costs"
    return f"{sets}. Per matching item, right costs {verdict}.{page}"


def _same_page(left: ViewState, right: ViewState) -> str:
    """Page k read two ways (keyset and OFFSET, raw and fill): what that one page cost each."""
    a, b = left.pager.current, right.pager.current
    if a is None or b is None or a.number != b.number or a.mode == b.mode:
        return ""
    x, y = a.cost.headline, b.cost.headline
    if x is None or y is None:
        return ""
    unit = a.cost.unit
    ratio = f" ({times(y / x)} left's)" if x else ""
    # The server's own time where the source reports it (PostgreSQL), else the round trip.
    tx = getattr(a.cost, "execution_ms", None) or a.cost.latency_ms
    ty = getattr(b.cost, "execution_ms", None) or b.cost.latency_ms
    how = "executed in" if hasattr(a.cost, "execution_ms") else "in"
    slower = f" ({times(ty / tx)})" if tx else ""
    return (
        f" Page {a.number}: left ({a.mode}) {x:,g} {unit}, {how} {tx:,.2f} ms; "
        f"right ({b.mode}) {y:,g} {unit}{ratio}, {how} {ty:,.2f} ms{slower}."
    )


class CompareScreen(Screen[None]):
    BINDINGS = [
        Binding("tab", "switch_side", "Other side"),
        Binding("N", "both('next')", "Next both"),
        Binding("P", "both('prev')", "Prev both"),
        Binding("G", "both('first')", "First both"),
        Binding("J", "jump_both", "Jump both", show=False),  # in the help and the README
        Binding("escape", "leave", "Back"),
    ]

    def __init__(self, session: Session, query: Any) -> None:
        super().__init__()
        self.session = session
        self.left_query = query
        self.active_id = "left"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="compare-line")
        with Container(id="compare-panes"):
            yield PagerView(self.session, id="left", classes="compare-side")
            # The app may give the right side a connection of its own (PostgreSQL).
            side_session = getattr(self.app, "side_session", None)
            right = side_session(self.session) if side_session is not None else self.session
            yield PagerView(right, id="right", classes="compare-side")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#left", PagerView).start(self.left_query)
        right = self.query_one("#right", PagerView)
        partner = getattr(self.app, "compare_partner", None)
        query = partner(self.left_query) if partner is not None else None
        if query is not None:
            right.start(query)
        else:
            right.query_one("#status-line", Static).update(
                Text(
                    "This side has no query yet: press tab to come here, then o to choose "
                    "its order."
                )
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

    def action_jump_both(self) -> None:
        """Both sides to page k: page k of one order (or mode) faces page k of the other."""
        from dynotui.ui.jump_screen import JumpScreen

        views = [v for v in self.query(PagerView) if v.pager is not None and v.pager.current]
        if not views:
            return
        known = min(v.pager.known_pages for v in views if v.pager is not None)
        current = self.active_view.pager.number if self.active_view.pager else 1

        def chosen(number: int | None) -> None:
            if number is not None:
                for view in views:
                    view.jump(number)

        self.app.push_screen(JumpScreen(known, current), chosen)

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
