"""The main screen: one pager, or two side by side to compare (``w``).

The compare view is this screen with a second pager shown beside the first, not a screen
of its own: the left side *is* the main view (its query, stack and page), and the right
side stays, hidden, when the user leaves with Esc, so ``w`` brings both back as they were.
Where the terminal is too small for two readable grids, one side is shown at a time and
``tab`` switches.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.events import DescendantFocus, Key, Resize
from textual.screen import Screen
from textual.widgets import Header

from dynotui.ui.host import Host
from dynotui.ui.screens.form_screen import TypedAhead
from dynotui.ui.session import Session
from dynotui.ui.widgets.compare_line import CompareLine
from dynotui.ui.widgets.key_footer import KeyFooter
from dynotui.ui.widgets.pager_view import PagerView, ViewEvents
from dynotui.ui.widgets.sidebar import CostSidebar

STACK_BELOW = 120  # below this many columns the two sides stack vertically
TWO_ROWS = 35  # below this many lines, stacked sides would show too few rows: one at a time
COMPARE_KEYS = {"switch_side", "both", "jump_both"}
# What the footer keeps on a narrow terminal, most important first (every key is in help).
FOOTER_IMPORTANCE = (
    "help",
    "quit",
    "next",
    "prev",
    "switch_side",
    "both('next')",
    "both('prev')",
    "jump_both",
    "edit_query",
    "choose_order",
    "compare",
    "show_code",
    "show_stack",
    "count",
    "report",
    "history",
    "choose_table",
)


class MainScreen(Screen[None]):
    BINDINGS = [
        # Short words, and G in the help only: at 80 columns the footer keeps ? and q.
        Binding("tab", "switch_side", "Side"),
        Binding("N", "both('next')", "Next both"),
        Binding("P", "both('prev')", "Prev both"),
        Binding("G", "both('first')", "First both", show=False),
        Binding("J", "jump_both", "Jump both"),
    ]

    def __init__(
        self,
        session: Session,
        client: object,
        ready: Callable[[], None] = lambda: None,
        *,
        events: ViewEvents | None = None,
        host: Host | None = None,
    ) -> None:
        """``ready`` is called once the screen and its views are mounted; ``events`` is
        told what the views do (the app); ``host`` shows the screens they open (the app)."""
        super().__init__()
        self.session = session
        self.ready = ready
        self.comparing = False
        self.active_id = "main-view"
        # Made here, not in compose: they stay readable after the app has exited. The
        # right side is mounted when the compare view first opens (mount_right): the
        # first frame composes what the first rows need.
        self._main_view = PagerView(session, client, events, host=host, id="main-view")
        self._right_view = PagerView(
            session, None, events, host=host, id="right", classes="compare-side"
        )
        self.typed_ahead = TypedAhead()  # keys typed for the form a table opening leads to

    def compose(self) -> ComposeResult:
        yield Header()
        yield CompareLine("", id="compare-line")
        with Container(id="panes"):
            yield self._main_view
        yield KeyFooter(FOOTER_IMPORTANCE)

    @property
    def right_mounted(self) -> bool:
        return self._right_view.is_mounted

    async def mount_right(self) -> None:
        """The compare side, mounted the first time it is wanted."""
        if not self._right_view.is_attached:
            await self.query_one("#panes", Container).mount(self._right_view)

    def on_mount(self) -> None:
        self.ready()

    @property
    def main_view(self) -> PagerView:
        return self._main_view

    @property
    def right_view(self) -> PagerView:
        return self._right_view

    @property
    def views(self) -> list[PagerView]:
        return [self.main_view, self.right_view] if self.comparing else [self.main_view]

    @property
    def active_view(self) -> PagerView:
        return self.right_view if self.comparing and self.active_id == "right" else self.main_view

    def on_key(self, event: Key) -> None:
        """While a table opens (its form comes next), keys typed are held for the form, not
        acted on here ("acme" would copy the page and open the code view); q still quits
        and Esc still stops the opening."""
        opening = self.main_view.machine.status.table_opening is not None
        if opening and event.is_printable and event.key not in ("q", "question_mark"):
            event.stop()
            event.prevent_default()
            self.typed_ahead.hold(event)

    # -- entering and leaving -----------------------------------------------------------------

    def open_compare(self) -> None:
        self.comparing = True
        self.set_class(True, "-compare")
        self.main_view.set_class(True, "compare-side")
        self._layout()
        self._activate(self.active_id)
        self.summarise()
        self.refresh_bindings()

    def leave_compare(self) -> None:
        """Back to one pager; the right side keeps its query, stack and page for next time."""
        self.comparing = False
        self.set_class(False, "-compare")
        self.main_view.set_class(False, "compare-side")
        self.main_view.set_class(False, "-active")
        self.main_view.query_one(CostSidebar).share_scale(None)
        self.active_id = "main-view"
        self._layout()
        self.main_view.results.focus()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in COMPARE_KEYS:
            return self.comparing  # hidden from the footer, and the key left to others
        return True

    # -- layout -----------------------------------------------------------------------------

    def on_resize(self, event: Resize) -> None:
        self._layout(event.size.width, event.size.height)

    def _layout(self, width: int | None = None, height: int | None = None) -> None:
        width = width if width is not None else self.size.width
        height = height if height is not None else self.size.height
        narrow = width < STACK_BELOW
        single = self.comparing and narrow and height < TWO_ROWS
        self.set_class(narrow, "-stacked")
        self.set_class(single, "-single")

    def _activate(self, side: str) -> None:
        self.active_id = side
        for view in (self.main_view, self.right_view):
            view.set_class(self.comparing and view.id == side, "-active")

    @on(DescendantFocus)
    def _follow_focus(self, event: DescendantFocus) -> None:
        if not self.comparing:
            return
        for ancestor in event.widget.ancestors_with_self:
            if isinstance(ancestor, PagerView) and ancestor.id:
                self._activate(ancestor.id)
                return

    # -- keys of the compare view -----------------------------------------------------------

    def action_switch_side(self) -> None:
        other = "right" if self.active_id == "main-view" else "main-view"
        self._activate(other)
        self.active_view.results.focus()
        self.summarise()

    def action_both(self, target: str) -> None:
        """Move both sides together, so page k faces page k."""
        for view in self.views:
            if target in ("next", "prev", "first"):
                view.navigate(target)  # type: ignore[arg-type]  # one of Target's words

    def action_jump_both(self) -> None:
        """Both sides to page k: page k of one order (or mode) faces page k of the other."""
        from dynotui.ui.screens.jump import JumpScreen, walk_words

        views = [v for v in self.views if v.pager is not None and v.pager.current]
        if not views:
            return
        known = min(v.pager.last_known for v in views if v.pager is not None)
        active = self.active_view.pager
        current = active.number if active is not None else 1

        def chosen(number: int | None) -> None:
            if number is not None:
                for view in views:
                    view.jump(number)

        sides = [
            ("left" if view is self.main_view else "right", view.pager)
            for view in views
            if view.pager is not None
        ]
        first = min(v.pager.first_number for v in views if v.pager is not None)
        forecast = partial(walk_words, sides)
        self.app.push_screen(JumpScreen(known, current, first, forecast), chosen)

    # -- the line on top --------------------------------------------------------------------

    def page_shown(self, shown: PagerView) -> None:
        """A page is on ``shown``: the other side's advisor may now quote what it measured."""
        self.typed_ahead.take()  # the table opened to a page, not a form: typed in vain
        if not self.comparing:
            return
        for view in self.views:
            if view is not shown:
                view.refresh_costs()  # its advisor may now quote what this side measured
        self.summarise()

    def summarise(self) -> None:
        left, right = self.main_view.state, self.right_view.state
        self.query_one(CompareLine).show_sides(
            (left.query, left.pager) if left is not None else None,
            (right.query, right.pager) if right is not None else None,
            single=self.has_class("-single"),
            active="right" if self.active_id == "right" else "left",
        )
        self._share_chart_scale()

    def _share_chart_scale(self) -> None:
        """Both sides' cost per page on one scale (the extent of both charts' pages), so
        bars of one height cost the same; out of compare, each chart on its own."""
        series = [
            [p.cost.headline or 0.0 for p in view.state.pager.series()]
            for view in self.views
            if view.state is not None
        ]
        values = [value for one in series for value in one]
        both = self.comparing and len(series) == 2 and all(series)
        scale = (min(values), max(values)) if both else None
        for view in (self.main_view, self.right_view):
            view.query_one(CostSidebar).share_scale(scale if view in self.views else None)
