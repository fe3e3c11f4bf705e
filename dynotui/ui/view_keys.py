"""The keys that act on the active view: moves, jump, the stack, columns, the sidebar,
help, and what users take elsewhere (items, pages, cursors, code). The base of ``PagerApp``
(``ui/app.py``), whose views they act on; they hold no paging logic (the view's pager
does)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.app import App

from dynotui.ui.widgets.safe_text import notify

if TYPE_CHECKING:
    from pathlib import Path

    from dynotui.core.pager import Target
    from dynotui.ui.actions import Action
    from dynotui.ui.adapter import Adapter
    from dynotui.ui.screens.main import MainScreen
    from dynotui.ui.session import Session
    from dynotui.ui.share import Share
    from dynotui.ui.widgets.pager_view import PagerView


class ViewKeysApp(App[None]):
    """The app's actions on its active view; ``PagerApp`` gives what they act on."""

    # Set by PagerApp once it is wired (ui/app.py).
    adapter: Adapter
    key_table: list[Action]
    session: Session
    share: Share
    export_folder: Path
    sidebar_mode: str | None

    @property
    def active_view(self) -> PagerView:
        raise NotImplementedError

    @property
    def main_screen(self) -> MainScreen:
        raise NotImplementedError

    def _apply_sidebar_mode(self, width: int | None = None) -> None:
        raise NotImplementedError

    # -- moves ----------------------------------------------------------------------------

    def _navigate(self, target: Target) -> None:
        self.active_view.navigate(target)

    def action_next(self) -> None:
        self._navigate("next")

    def action_prev(self) -> None:
        self._navigate("prev")

    def action_segment(self, delta: int) -> None:
        """``]`` and ``[``: another segment of a parallel Scan; on any other read, the
        next or previous page, as before."""
        if not self.active_view.step_segment(delta):
            self._navigate("next" if delta > 0 else "prev")

    def action_first(self) -> None:
        self._navigate("first")

    def action_refresh(self) -> None:
        self._navigate("refresh")

    def action_retry(self) -> None:
        self.active_view.retry()

    def action_cancel(self) -> None:
        screen = self.main_screen
        # Every side shown: J walks both, and Esc stops the walk (each side's cancel runs).
        stopped = [view.cancel() for view in (screen.views if screen.comparing else [])]
        busy = self.active_view.cancel() or any(stopped)
        if not busy and screen.comparing and self.screen is screen:
            screen.leave_compare()
            self._apply_sidebar_mode()  # one grid again: the sidebar back by width

    def action_jump(self) -> None:
        from dynotui.ui.screens.jump import JumpScreen, walk_words

        view = self.active_view
        pager = view.pager
        if pager is None or pager.current is None:
            return

        def chosen(number: int | None) -> None:
            if number is not None:
                view.jump(number)

        forecast = partial(walk_words, [("", pager)])
        self.push_screen(
            JumpScreen(pager.last_known, pager.number, pager.first_number, forecast), chosen
        )

    def action_show_stack(self) -> None:
        from dynotui.core.figures_text import stack_footer
        from dynotui.ui.screens.stack import StackScreen

        view = self.active_view
        state = view.state
        if state is None:
            return

        def jump(number: int | None) -> None:
            if number:
                view.navigate(number)

        footer = stack_footer(
            state.pager.measures.snapshot(), self.session.ledger.figures().refusals
        )
        self.push_screen(StackScreen(state.pager, state.query.boundary_text, footer), jump)

    # -- columns, sidebar, help --------------------------------------------------------

    def action_choose_columns(self) -> None:
        from dynotui.ui.screens.columns import ColumnChoice, ColumnsScreen

        view = self.active_view
        layout = view.column_layout
        if layout is None:
            notify(self, "No columns yet: read a page first.", severity="warning")
            return

        def chosen(choice: ColumnChoice | None) -> None:
            if choice is not None:
                view.redraw_columns(to_content=choice.apply_to(layout))

        self.push_screen(ColumnsScreen(layout), chosen)

    def action_entity_filter(self) -> None:
        """The rows of one entity kept in view (client-side), the next each time."""
        self.active_view.filter_entity()

    def action_scroll_sidebar(self) -> None:
        from dynotui.ui.sidebar_mode import scroll_sidebar

        words = scroll_sidebar(self.active_view)
        if words:
            notify(self, words)

    def action_toggle_sidebar(self) -> None:
        strip = self.active_view.has_class("-strip")
        self.sidebar_mode = "sidebar" if strip else "strip"
        self._apply_sidebar_mode()

    def action_help(self) -> None:
        from dynotui.ui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
        else:
            self.push_screen(HelpScreen(self.key_table))

    # -- what users take elsewhere --------------------------------------------------------

    def action_copy_item(self, typed: bool = False) -> None:
        self.share.copy_item(self.active_view, typed)

    def action_copy_page(self) -> None:
        self.share.copy_page(self.active_view)

    def action_copy_next_token(self) -> None:
        self.share.copy_next_token(self.active_view)

    def action_copy_current_token(self) -> None:
        self.share.copy_current_token(self.active_view)

    def action_copy_start_key(self) -> None:
        self.share.copy_start_key(self.active_view)

    def action_paste_cursor(self) -> None:
        self.share.paste_cursor(self.active_view)

    def action_inspect_cursor(self) -> None:
        self.share.inspect_cursor(self.active_view)

    def action_show_code(self) -> None:
        self.share.show_code(self.active_view, self.adapter.code_target())
