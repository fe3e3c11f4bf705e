"""The pager app, one for every database: navigation, the cursor stack, jump, columns,
compare, sidebar, help, palette, clipboard and cursors. What only a database knows
(tables, its query form and orders, modes, count, connection, code target) its
``Adapter`` does; this module imports no database package.

The app is the adapter's ``Host`` (``ui/host.py``): it asks the adapter, with the data of
the view a key was pressed on (``Shown``), and opens what the adapter answers
(``NewStack``) on that view. Keys act on the active view: the main one, or the compare
side that has the focus. The app holds no paging logic (the core's ``Pager`` does, one
per view).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from textual import on
from textual.app import SystemCommand
from textual.events import Key, Resize
from textual.notifications import SeverityLevel
from textual.screen import Screen

from dynotui.core.text import visible, visible_lines
from dynotui.process import heap
from dynotui.ui import clipboard
from dynotui.ui.background import CallReported, call_in_background
from dynotui.ui.theme import ThemeKeeper
from dynotui.ui.view_keys import ViewKeysApp
from dynotui.ui.widgets.safe_text import notify, notify_error
from dynotui.ui.widgets.words import HEADER_AROUND, whole_parts

if TYPE_CHECKING:
    # What the app runs on is imported when it is wired (``_wire``): a start that draws
    # its first frame first (``Starting``) loads them after that frame.
    from dynotui.core.cursor import CursorError, CursorSigner
    from dynotui.core.errors import InputError
    from dynotui.core.history import HistoryEntry, HistoryStore
    from dynotui.core.ledger import CountOutcome
    from dynotui.core.page import Cost, Page
    from dynotui.core.pager import Pager
    from dynotui.ui.adapter import Adapter, NewStack, Shown
    from dynotui.ui.history import HistoryLog
    from dynotui.ui.host import A, Counted, Severity
    from dynotui.ui.query import Query
    from dynotui.ui.screens.main import MainScreen
    from dynotui.ui.starting import Starting
    from dynotui.ui.widgets.pager_view import PagerView, ViewState

T = TypeVar("T")


@dataclass(frozen=True)
class Said:
    """A notification as it was shown."""

    message: str
    title: str
    severity: SeverityLevel
    markup: bool


class PagerApp(ViewKeysApp):
    CSS_PATH = "app.tcss"
    TITLE = "dynotui"

    # Set by ``_wire``: at once with an adapter, after the first frame with a ``Starting``
    # (the rest in ViewKeysApp).
    history: HistoryLog
    report_folder: Path

    def __init__(
        self,
        adapter: Adapter | None = None,
        *,
        starting: Starting | None = None,
        clock: Callable[[], float] = time.perf_counter,
        signer: CursorSigner | None = None,
        system_copy: Callable[[str], None] = clipboard.system_copy,
        history: HistoryStore | None = None,
        report_folder: Path | None = None,
        export_folder: Path | None = None,
        notified: Callable[[Said], None] | None = None,
        read_ahead: int = 0,
    ) -> None:
        """The app on ``adapter``; or, given ``starting`` instead, the app draws a first
        frame (``ui/starting.py``) before its parts are imported and the adapter made.
        ``history``: where queries opened are kept (None: nowhere, as ``--no-history``);
        ``report_folder``: where ``S`` writes reports (default: the data folder's
        ``reports``); ``export_folder``: where ``X`` offers to write items (default: the
        data folder's ``exports``); ``notified``: told of every notification shown (a
        test's recorder); ``read_ahead``: pages each view reads ahead of the one shown
        (``--read-ahead``; off by default: it spends capacity nobody asked for)."""
        if (adapter is None) == (starting is None):
            raise TypeError("PagerApp takes an adapter or a start, one of them")
        super().__init__()
        self.starting = starting
        # What starting it failed on (a ``Starting``'s adapter not made): the command that
        # ran the app says it, as it says what fails before an app runs.
        self.start_error: Exception | None = None
        self.sidebar_mode: str | None = None  # None: by width; "sidebar" or "strip": chosen
        self.notified = notified
        self._main_screen: MainScreen | None = None
        self._after_next_page: list[Callable[[], None]] = []
        self._leaving = False  # quit on a start's first frame: its parts are never made
        self._wiring = partial(
            self._wire,
            clock=clock,
            signer=signer,
            system_copy=system_copy,
            history=history,
            report_folder=report_folder,
            export_folder=export_folder,
            read_ahead=read_ahead,
        )
        # Before the first frame: a configured theme is the first frame's too.
        self.themes = ThemeKeeper(self, lambda words, severity: self.say(words, severity=severity))
        if adapter is not None:
            self._wiring(adapter)

    def _wire(
        self,
        adapter: Adapter,
        *,
        clock: Callable[[], float],
        signer: CursorSigner | None,
        system_copy: Callable[[str], None],
        history: HistoryStore | None,
        report_folder: Path | None,
        export_folder: Path | None,
        read_ahead: int,
    ) -> None:
        """The app's parts, on ``adapter``."""
        from dynotui.core.history import history_dir
        from dynotui.report.files import reports_folder
        from dynotui.ui.history import HistoryLog
        from dynotui.ui.session import Session
        from dynotui.ui.share import Share

        self.adapter = adapter
        self.key_table = list(adapter.actions())
        for action in self.key_table:
            # Bound per app, from the adapter's table: each database words its own keys.
            self.bind(action.keys, action.action, description=action.title, show=action.footer)
        self.session = Session(clock=clock, prices=adapter.prices(), read_ahead=read_ahead)
        self.share = Share(self, self.adapter, signer, system_copy)
        self.history = HistoryLog(history, self._history_warning)
        self.report_folder = report_folder or reports_folder()
        self.export_folder = export_folder or history_dir() / "exports"

    @property
    def wired(self) -> bool:
        """The app's parts are made (at once, or after a start's first frame)."""
        return hasattr(self, "adapter")

    def get_default_screen(self) -> Screen[None]:
        if not self.wired:
            from dynotui.ui.starting import StartingScreen

            assert self.starting is not None
            return StartingScreen(self.starting.doing)
        return self._make_main_screen()

    def _make_main_screen(self) -> MainScreen:
        from dynotui.ui.screens.main import MainScreen

        self._main_screen = MainScreen(
            self.session,
            self.adapter.client("main"),
            self._main_screen_ready,
            events=self,
            host=self,
        )
        return self._main_screen

    def on_mount(self) -> None:
        self._show_label()
        self.themes.watch()
        if not self.wired:
            self.call_after_refresh(self._finish_start)

    async def _finish_start(self) -> None:
        """A start's first frame is drawn: the app's parts now, then the main screen in
        place of the first one, and the keys typed meanwhile, in order."""
        from dynotui.ui.starting import StartingScreen

        if self._leaving or self.starting is None:  # quit on the first frame
            return
        try:
            self._wiring(self.starting.adapter())
        except Exception as exc:  # raised by the command once the app has left
            self.start_error = exc
            self.exit(return_code=1)
            return
        self._show_label()
        first = self.screen_stack[0]  # nothing opens above it before now (check_action)
        assert isinstance(first, StartingScreen)
        # Pushed over the first frame's screen, which stays beneath it unseen: Textual
        # replaces no default screen, and a mode of its own re-reads every style sheet.
        pushed = self.push_screen(self._make_main_screen())
        # The keys it holds, then those it is still to be handed, go to the main screen,
        # in order, ahead of any key typed from now on.
        first.hand_on(lambda key: self.post_message(Key(key.key, key.character)))
        await pushed

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.wired and action != "quit":
            # A start's first frame: the app's actions come with its parts (ctrl+p's palette
            # would open beneath the main screen); the first frame holds the key for it.
            return False
        return super().check_action(action, parameters)

    def _show_label(self, width: int | None = None) -> None:
        """The connection's label in the header, its parts whole: never cut mid-word."""
        room = (width if width is not None else self.size.width) - HEADER_AROUND
        if self.wired:
            label = self.adapter.label
        elif self.starting is not None:
            label = self.starting.label
        else:
            return
        self.sub_title = whole_parts(label, max(room, 12))

    def _main_screen_ready(self) -> None:
        """The main screen and its views are up: open what the command line asked for."""
        self._apply_sidebar_mode()
        self.adapter.open(self, self._answer_for(self.main_view))
        self.call_after_refresh(self._started)

    def _started(self) -> None:
        """The first screen is up: start-up is over."""
        heap.settle()
        self.adapter.started()

    # -- the views ------------------------------------------------------------------------

    @property
    def main_screen(self) -> MainScreen:
        assert self._main_screen is not None, "the app has not started"
        return self._main_screen

    @property
    def main_view(self) -> PagerView:
        return self.main_screen.main_view

    @property
    def active_view(self) -> PagerView:
        return self.main_screen.active_view

    @property
    def pager(self) -> Pager | None:
        """The active view's pager (None before its first page)."""
        return self.active_view.pager

    @property
    def all_views(self) -> list[PagerView]:
        """Every pager, the compare side too, shown or not (once it has been mounted)."""
        screen = self.main_screen
        return [screen.main_view, *([screen.right_view] if screen.right_mounted else [])]

    def shown(self, view: PagerView) -> Shown:
        """``view``'s query and stack, as the adapter is given them."""
        from dynotui.ui.adapter import Shown

        state = view.state
        return Shown(
            query=state.query if state is not None else None,
            pager=state.pager if state is not None else None,
            origin=state.origin if state is not None else "",
            main_query=self.main_view.query_shown,
        )

    def _answer_for(self, view: PagerView) -> Callable[[NewStack], None]:
        """Where an adapter's answer goes: a new stack on ``view``."""

        def answer(new: NewStack) -> None:
            view.start(new)

        return answer

    def _open_on(self, view: PagerView, new: NewStack | None) -> None:
        if new is not None:
            view.start(new)

    # -- the host (ui/host.py): what an adapter may ask -----------------------------------

    def ask(self, screen: Screen[A], answered: Callable[[A | None], None]) -> None:
        self.push_screen(screen, answered)

    def call(
        self,
        work: Callable[[], T],
        done: Callable[[T], None],
        failed: Callable[[BaseException], None],
    ) -> None:
        """``work`` in a background thread; ``done`` or ``failed`` then runs on the UI's."""
        call_in_background(self, work, done, failed)

    def open_table(
        self,
        name: str,
        work: Callable[[], T],
        done: Callable[[T], None],
        failed: Callable[[BaseException], None],
    ) -> None:
        self.main_view.open_table(name, work, done, failed)

    def after_refresh(self, work: Callable[[], None]) -> None:
        self.call_after_refresh(work)

    def after_page_drawn(self, work: Callable[[], None]) -> None:
        view = self.main_view
        if view.pager is not None and view.pager.current is not None:
            view.after_page_drawn(work)  # once its rows are drawn (now, if they are)
        else:
            self._after_next_page.append(work)  # given to the view with its first page

    @on(CallReported)
    def _call_reported(self, message: CallReported) -> None:
        message.deliver()

    def fail(self, error: BaseException, title: str) -> None:
        notify_error(self, error, title)

    def say(
        self,
        words: str,
        *,
        title: str = "",
        severity: Severity = "information",
        timeout: float | None = None,
    ) -> None:
        notify(self, words, title=title, severity=severity, timeout=timeout)

    def read_clock(self) -> Callable[[], float]:
        return self.session.clock

    def copy(self, text: str, what: str) -> None:
        self.share.copy_text(text, what)

    def count_of(self, scope: str) -> Counted | None:
        return self.session.counts.get(scope)

    def count_finished(self, outcome: CountOutcome) -> None:
        """A count ended, complete or stopped: what it read was billed either way."""
        self.session.ledger.count_done(outcome)
        self.refresh_costs()

    def what_if_finished(self, outcome: CountOutcome) -> None:
        """A what-if ended, complete or stopped: what it read was billed either way."""
        self.session.ledger.what_if_done(outcome)
        self.refresh_costs()

    def compare(self, query: object) -> None:
        """``query`` on the compare view's right side; the left keeps what it shows."""
        self.call_later(self._compare, query)

    async def _compare(self, query: object) -> None:
        from dynotui.ui.adapter import NewStack

        screen = self.main_screen
        if not screen.comparing:
            await self.action_compare()
        if screen.comparing:
            screen.right_view.start(NewStack(cast("Query", query)))  # the adapter's own

    def connection_changed(self) -> None:
        """A new connection: its label in the title, every stack read through it."""
        self._show_label()
        for view in self.all_views:
            if view.client is not None:
                view.use_client(
                    self.adapter.client("main" if view is self.main_view else "compare")
                )

    # -- what the session counts ----------------------------------------------------------

    def counted(self, view: PagerView, result: Counted | None) -> None:
        """A count kept for its query: the status line shows it from now on."""
        if result is None:
            return
        self.session.counts[result.scope] = result
        view.refresh_status()

    def spent(self, cost: Cost) -> None:
        """A read outside any stack's pages (passing over a foreign cursor's items):
        billed all the same, so the session counts it."""
        self.session.ledger.read_outside(cost)
        self.refresh_costs()

    def cursor_refused(self, error: CursorError) -> None:
        """A pasted cursor was refused: the session counts it, by reason."""
        self.session.ledger.cursors.refused(error)
        self.refresh_costs()

    def cursor_accepted(self) -> None:
        self.session.ledger.cursors.accepted()

    def refresh_costs(self) -> None:
        """The session's figures changed outside a page: every sidebar says so."""
        for view in self.all_views:
            view.refresh_costs()

    def _history_warning(self, text: str) -> None:
        # From the writer's thread: posted, never waited on (quitting may be waiting on
        # the writer, and a blocking call back would stall both).
        self.post_message(CallReported(lambda: notify(self, text, severity="warning", timeout=10)))

    # -- what the views tell (ViewEvents) -------------------------------------------------

    def page_shown(self, view: PagerView, state: ViewState, page: Page[Any]) -> None:
        """Called by the view itself, so no page shown goes unrecorded: history keeps the
        query the first time, and where the user is now."""
        self.main_screen.page_shown(view)
        if view is self.main_view:
            due, self._after_next_page = self._after_next_page, []
            for work in due:
                view.after_page_drawn(work)
        # A segment's page resumes only within its segmented read: history keeps none.
        if self.history.enabled and state.segments is None:
            query = state.query
            # Once the page is drawn: describing the query and writing the file (on the
            # history's thread, beside this one) would otherwise hold that frame back.
            describe = partial(self.adapter.history_query, query)
            self.history.page_shown_later(state.pager, page, describe)
            view.after_page_drawn(self.history.record_shown)

    def costs_changed(self) -> None:
        self.refresh_costs()

    def query_refused(self, view: PagerView, query: Query, error: InputError) -> None:
        self.adapter.refused(self, query, error, self._answer_for(view))

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        if not markup:
            # Plain words may be data's (a catalog identifier, a service's message): every
            # notification of the app and its screens passes here, so none acts on the
            # terminal whichever way its caller wrote it. Markup is the app's own words.
            message, title = visible_lines(message), visible(title)
        if self.notified is not None:
            self.notified(Said(message, title, severity, markup))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    # -- what the adapter does ------------------------------------------------------------

    def action_edit_query(self) -> None:
        view = self.active_view
        self.adapter.edit_query(self, self.shown(view), self._answer_for(view))

    def action_choose_order(self) -> None:
        view = self.active_view
        self.adapter.choose_order(self, self.shown(view), self._answer_for(view))

    def action_toggle_mode(self) -> None:
        view = self.active_view
        self._open_on(view, self.adapter.toggle_mode(self, self.shown(view)))

    def action_flip_direction(self) -> None:
        view = self.active_view
        self._open_on(view, self.adapter.flip_direction(self, self.shown(view)))

    def action_count(self) -> None:
        view = self.active_view
        self.adapter.count(self, self.shown(view), lambda result: self.counted(view, result))

    def action_choose_table(self) -> None:
        self.adapter.choose_table(self, self._answer_for(self.main_view))

    def action_connection(self) -> None:
        self.adapter.reconnect(self, self.shown(self.main_view))

    def action_db(self, name: str) -> None:
        """A key only this database has: its adapter runs it."""
        view = self.active_view
        self.adapter.run(name, self, self.shown(view), self._answer_for(view))

    async def action_quit(self) -> None:
        """At once, whatever is in flight: the adapter stops what runs on the server, and
        history still being written gets a moment (a local file, not the network)."""
        if not self.wired:  # on a start's first frame: nothing runs yet, nor will
            self._leaving = True
            self.exit()
            return
        self.adapter.close()
        self.history.record_shown()  # a page shown just before q, its frame not yet drawn
        self.history.flush()
        self.exit()

    def action_report(self) -> None:
        """A report to share: this query (or both sides of the compare) and the session."""
        screen = self.main_screen
        views = screen.views if screen.comparing else [self.active_view]
        pagers = [v.pager for v in views if v.pager is not None and v.pager.current is not None]
        ledger = self.session.ledger
        from dynotui.ui.report_writing import write_session_report

        write_session_report(self, self.adapter, pagers, ledger, self.report_folder)

    def action_history(self) -> None:
        from dynotui.ui.screens.history import HistoryScreen

        store = self.history.store
        if store is None or not store.enabled:
            notify(
                self,
                "History is off (--no-history, or history = false in config.toml).",
                severity="warning",
            )
            return

        def chosen(entry: HistoryEntry | None) -> None:
            if entry is not None:
                self.adapter.reopen(self, entry, self._answer_for(self.main_view))

        self.push_screen(HistoryScreen(store), chosen)

    # -- columns, compare, sidebar, help --------------------------------------------------

    async def action_compare(self) -> None:
        from dynotui.ui.adapter import NewStack

        screen = self.main_screen
        main = screen.main_view
        if screen.comparing:
            return
        if main.state is None:
            notify(self, "Open a query first; the compare view starts from it.", severity="warning")
            return
        await screen.mount_right()
        right = screen.right_view
        if right.client is None:
            right.use_client(self.adapter.client("compare"))
        screen.open_compare()
        self._apply_sidebar_mode()
        self.refresh_costs()  # the right side's session figures are as old as its last page
        if right.state is None and right.pending is None:
            partner = self.adapter.compare_partner(main.state.query)
            if partner is None or not right.start(NewStack(partner)):
                right.show_hint(
                    "This side has no query yet: press tab to come here, then o to choose "
                    "its order."
                )

    def on_resize(self, event: Resize) -> None:
        if self._main_screen is not None:  # not on a start's first frame
            self._apply_sidebar_mode(event.size.width)
        self._show_label(event.size.width)

    def wants_strip(self, width: int | None = None) -> bool:
        from dynotui.ui.sidebar_mode import strip_wanted

        comparing = self._main_screen is not None and self._main_screen.comparing
        return strip_wanted(self.sidebar_mode, self._width(width), comparing)

    def _apply_sidebar_mode(self, width: int | None = None) -> None:
        from dynotui.ui.sidebar_mode import lay_out

        lay_out(self.main_screen, self.all_views, self.wants_strip(width), self._width(width))

    def _width(self, width: int | None) -> int:
        return width if width is not None else self.size.width

    def on_key(self, event: Key) -> None:
        # A key typed before the form it opened was pushed reaches here once that form is
        # the screen (no binding of it took the key): held for the form, to be typed in.
        from dynotui.ui.screens.form_screen import FormScreen

        screen = self.screen
        if isinstance(screen, FormScreen) and not screen.shown:
            screen.hold(event)

    def action_export_items(self) -> None:
        from dynotui.ui.exporting import export_items

        export_items(self, self.active_view, self.export_folder)

    # -- command palette ------------------------------------------------------------------

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        from dynotui.ui.palette import palette_commands

        yield from super().get_system_commands(screen)
        if not self.wired:  # a start's first frame: the app's own commands come with it
            return
        # Some keys are worded after what the view holds ("What if: an index on status").
        worded = {a.action: a for a in self.adapter.palette(self.shown(self.active_view))}
        yield from palette_commands(self.key_table, worded, self.run_action)
