"""The dynotui app: one PagerView on the main screen, two on the compare screen.

Keys act on the active view; the app holds the session (connection, measurements),
the clipboard and the cursor secret, and no paging logic.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header

from dynotui.core import heap
from dynotui.core.cursor import CursorSigner
from dynotui.core.errors import DynotuiError
from dynotui.dynamodb.connection import ConnectionOptions, describe, make_client
from dynotui.dynamodb.opening import Opened, Opening
from dynotui.dynamodb.query_form import QueryForm
from dynotui.dynamodb.schema import list_tables
from dynotui.ui import clipboard, view_queries
from dynotui.ui.actions import ACTIONS, bindings
from dynotui.ui.background import run_in_background
from dynotui.ui.dynamodb_query import DynamoQuery
from dynotui.ui.pager_view import PagerView
from dynotui.ui.picker_screen import PickerScreen
from dynotui.ui.safe import notify
from dynotui.ui.session import Session
from dynotui.ui.share import ShareActions

NARROW = 120  # below this many columns the sidebar becomes a one-line cost strip


class OpeningDone(Message):
    def __init__(self, opened: Any) -> None:
        super().__init__()
        self.opened = opened


class TablesListed(Message):
    def __init__(self, result: Any) -> None:
        super().__init__()
        self.result = result


class Reconnected(Message):
    def __init__(self, options: ConnectionOptions, result: Any) -> None:
        super().__init__()
        self.options = options
        self.result = result  # a client, or the error


class DynotuiApp(ShareActions, App[None]):
    ACTIONS = ACTIONS  # help and the command palette list these
    CSS_PATH = "app.tcss"
    TITLE = "dynotui"
    BINDINGS = bindings(ACTIONS)

    def __init__(
        self,
        client: Any,
        *,
        connection_label: str = "",
        options: ConnectionOptions | None = None,
        table: str | None = None,
        form: QueryForm | None = None,
        open_form: bool | None = None,
        clock: Callable[[], float] = time.perf_counter,
        signer: CursorSigner | None = None,
        system_copy: Callable[[str], None] = clipboard.system_copy,
        opening: Opening | None = None,
    ) -> None:
        super().__init__()
        self._init_share(signer)
        self.system_copy = system_copy
        self.session = Session(
            client, options or ConnectionOptions(), connection_label, clock=clock
        )
        self.opening = opening
        if opening is not None:
            self.session.measurements = opening.measurements
        self.initial_table = table
        self.initial_form = form or QueryForm()
        self.open_form = open_form
        self.sidebar_mode: str | None = None  # None: by width; "sidebar" or "strip": chosen
        self._main: PagerView | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield PagerView(self.session, id="main-view")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.session.label
        self.open_initial()
        self.call_after_refresh(self._started)

    def _started(self) -> None:
        """The first screen is up: start-up is over."""
        heap.settle()
        warm = getattr(self.session.client, "warm", None)
        if warm is not None:  # a client not made yet (page 1 came from a child process)
            warm()

    def open_initial(self) -> None:
        """What the command line asked to open (Textual calls every class's on_mount, so
        subclasses override this instead)."""
        if self.opening is not None:
            opening, view = self.opening, self.main_view
            if opening.done.is_set():
                self._opened(OpeningDone(opening.opened))
            else:
                view.begin_opening(self.initial_table or "")
                run_in_background(
                    self,
                    lambda: opening.done.wait() and opening.opened,
                    OpeningDone,
                    OpeningDone,
                )
            return
        if self.initial_table:
            form = self.initial_form
            open_form = (
                self.open_form
                if self.open_form is not None
                else not form.partition_value and not form.scan
            )
            view_queries.load_table(self.main_view, self.initial_table, form, open_form)
        else:
            self.action_choose_table()

    @on(OpeningDone)
    def _opened(self, message: OpeningDone) -> None:
        """The table (and page 1) opened while the app loaded, as far as it got."""
        view, opened, form = self.main_view, message.opened, self.initial_form
        view.end_opening(self.initial_table or "")
        if self.opening is not None and self.opening.label != self.session.label:
            self.session.label = self.sub_title = self.opening.label  # as the client says
        if not isinstance(opened, Opened):
            opened = Opened(error=opened)
        if opened.error is not None:
            error = opened.error
            words = str(error) if isinstance(error, DynotuiError) else repr(error)
            notify(self, words, title=f"Table {self.initial_table}", severity="error", timeout=10)
        if opened.schema is None:
            if opened.error is None:
                self.action_choose_table()
            return
        if opened.pager is not None and opened.page is not None and opened.spec is not None:
            view.adopt(DynamoQuery(opened.schema, form, opened.spec), opened.pager, opened.page)
        else:
            view_queries.edit_query(view, opened.schema, form)

    # -- the view keys act on ------------------------------------------------------------

    @property
    def main_view(self) -> PagerView:
        if self._main is None:  # kept, so the last page stays readable after exit
            self._main = self.screen_stack[0].query_one("#main-view", PagerView)
        return self._main

    @property
    def active_view(self) -> PagerView:
        for screen in reversed(self.screen_stack):
            view = getattr(screen, "active_view", None)  # the compare screen's active side
            if isinstance(view, PagerView):
                return view
        return self.main_view

    @property
    def pager(self) -> Any:
        return self.active_view.pager

    def _views(self) -> list[PagerView]:
        views: list[PagerView] = []
        for screen in self.screen_stack:
            views.extend(screen.query(PagerView))
        return views

    def action_next(self) -> None:
        self.active_view.navigate("next")

    def action_prev(self) -> None:
        self.active_view.navigate("prev")

    def action_first(self) -> None:
        self.active_view.navigate("first")

    def action_jump(self) -> None:
        from dynotui.ui.jump_screen import JumpScreen

        view = self.active_view
        pager = view.pager
        if pager is None or pager.current is None:
            return

        def chosen(number: int | None) -> None:
            if number is not None:
                view.jump(number)

        self.push_screen(JumpScreen(pager.known_pages, pager.number), chosen)

    def action_refresh(self) -> None:
        self.active_view.navigate("refresh")

    def action_retry(self) -> None:
        self.active_view.retry()

    def action_cancel(self) -> None:
        self.active_view.cancel()

    def action_toggle_mode(self) -> None:
        view_queries.toggle_mode(self.active_view)

    def action_flip_direction(self) -> None:
        view_queries.flip_direction(self.active_view)

    def _compare_base(self) -> Any:
        for screen in self.screen_stack:
            if hasattr(screen, "left_query"):
                return screen.left_query
        return None

    def _schema_for(self, view: PagerView) -> Any:
        if view.state is not None:
            return view.state.query.schema
        base = self._compare_base()
        return base.schema if base is not None else None

    def action_choose_order(self) -> None:
        view = self.active_view
        base = self._compare_base()
        view_queries.choose_order(
            view, self._schema_for(view), base.form if base is not None else None
        )

    def action_partiql(self) -> None:
        from dynotui.ui.query_screen import QueryScreen

        view = self.active_view
        schema = self._schema_for(view)
        if schema is None:
            return
        state = view.state
        form = (getattr(state.query, "form", None) if state is not None else None) or QueryForm()
        statement = getattr(state.query, "statement", None) if state is not None else None

        def done(query: Any) -> None:
            if query is not None:
                view.start(query)

        self.push_screen(QueryScreen(schema, form, "", statement, "partiql-tab"), done)

    def action_edit_query(self) -> None:
        view = self.active_view
        schema = self._schema_for(view)
        if schema is not None:
            view_queries.edit_query(view, schema)

    def action_show_stack(self) -> None:
        from dynotui.ui.stack_screen import StackScreen

        view = self.active_view
        state = view.state
        if state is None:
            return

        def jump(number: int | None) -> None:
            if number:
                view.navigate(number)

        self.push_screen(StackScreen(state.pager, state.query.boundary_text), jump)

    def action_choose_columns(self) -> None:
        from dynotui.ui.columns_screen import ColumnChoice, ColumnsScreen

        view = self.active_view
        if view.column_layout is None:
            notify(self, "No columns yet: read a page first.", severity="warning")
            return
        layout = view.column_layout

        def chosen(choice: ColumnChoice | None) -> None:
            if choice is not None:
                layout.order[:] = choice.order
                layout.hidden = set(choice.hidden)
                view.redraw_columns(to_content=choice.fit)

        self.push_screen(ColumnsScreen(layout), chosen)

    def action_count(self) -> None:
        from dynotui.dynamodb.count import forecast
        from dynotui.ui.count_screen import CountScreen

        view = self.active_view
        state = view.state
        if state is None:
            return
        query = state.query
        if not isinstance(query, DynamoQuery):
            notify(
                self,
                "Count works on a Query or Scan (Select: COUNT); a PartiQL statement has none.",
                severity="warning",
            )
            return
        pager = state.pager
        prediction = forecast(
            query.schema, query.spec, pager.latest_reads(), pager.read_whole_result
        )

        def counted(result: Any) -> None:
            if result is not None:
                self.session.counts[result.scope] = result
                view.refresh_status()

        self.push_screen(CountScreen(self.session.client, query, prediction), counted)

    def action_compare(self) -> None:
        from dynotui.ui.compare_screen import CompareScreen

        view = self.main_view
        if view.state is None:
            notify(self, "Open a query first; the compare view starts from it.", severity="warning")
            return
        if isinstance(self.screen, CompareScreen):
            return
        self.push_screen(CompareScreen(self.session, view.state.query))

    def action_choose_table(self) -> None:
        client = self.session.client
        run_in_background(self, lambda: list_tables(client), TablesListed, TablesListed)

    @on(TablesListed)
    def _tables_listed(self, message: TablesListed) -> None:
        names = message.result
        if isinstance(names, BaseException):
            words = str(names) if isinstance(names, DynotuiError) else repr(names)
            notify(self, words, title="Tables", severity="error", timeout=10)
            return

        def chosen(name: str | None) -> None:
            if name:
                view_queries.load_table(self.main_view, name, QueryForm(), open_form=True)

        self.push_screen(
            PickerScreen(f"Tables ({len(names)}) — Enter opens one", [(n, n) for n in names]),
            chosen,
        )

    # -- connection ----------------------------------------------------------------------

    def action_connection(self) -> None:
        from dynotui.ui.connection_screen import ConnectionScreen

        def chosen(options: ConnectionOptions | None) -> None:
            if options is not None:
                run_in_background(
                    self,
                    lambda: make_client(options),
                    lambda client: Reconnected(options, client),
                    lambda error: Reconnected(options, error),
                )

        self.push_screen(ConnectionScreen(self.session.options), chosen)

    @on(Reconnected)
    def _reconnected(self, message: Reconnected) -> None:
        client = message.result
        if isinstance(client, BaseException):
            words = str(client) if isinstance(client, DynotuiError) else repr(client)
            notify(self, words, title="Connection", severity="error", timeout=10)
            return
        if self.opening is not None:
            self.opening.close()  # its child read for the old connection: not needed now
        self.session.client = client
        self.session.options = message.options
        self.session.label = describe(client, message.options)
        self.sub_title = self.session.label
        for view in self._views():
            view.use_client(client)
        notify(
            self,
            f"Connected to {self.session.label}. The stacks are kept; R retries a failed move.",
            title="Connection",
        )

    # -- layout --------------------------------------------------------------------------

    def on_resize(self, event: Resize) -> None:
        self._apply_sidebar_mode(event.size.width)

    def wants_strip(self, width: int | None = None) -> bool:
        width = width if width is not None else self.size.width
        return self.sidebar_mode == "strip" or (self.sidebar_mode is None and width < NARROW)

    def _apply_sidebar_mode(self, width: int | None = None) -> None:
        strip = self.wants_strip(width)
        for view in self._views():
            view.set_class(strip, "-strip")

    def action_toggle_sidebar(self) -> None:
        strip = self.active_view.has_class("-strip")
        self.sidebar_mode = "sidebar" if strip else "strip"
        self._apply_sidebar_mode()

    def action_help(self) -> None:
        from dynotui.ui.help_screen import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
        else:
            self.push_screen(HelpScreen(self.ACTIONS))

    # -- command palette -----------------------------------------------------------------

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        from dynotui.ui.help_screen import key_label

        yield from super().get_system_commands(screen)
        for key, action, title, help_text, _ in self.ACTIONS:
            if action in ("quit", "help", "cancel"):
                continue
            shown_key = key_label(key.split(",")[0])
            yield SystemCommand(
                f"{title} ({shown_key})", help_text, lambda action=action: self.run_action(action)
            )
