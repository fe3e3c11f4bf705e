"""PostgreSQL in the pager app: tables, the query form (order, filter, columns), orders
from the table's indexes (or any columns), keyset and OFFSET paging, reverse, count(*),
reconnecting, and OFFSET beside keyset in the compare view on a connection of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from dynotui.core.errors import FieldError, InputError
from dynotui.core.foreign import ForeignReader, ForeignStart
from dynotui.core.history import HistoryEntry, HistoryQuery
from dynotui.core.ledger import SessionLedger
from dynotui.core.money import PriceList
from dynotui.core.pager import Pager
from dynotui.postgres import history_entry
from dynotui.postgres.connection import PgOptions, PgSession, redacted
from dynotui.postgres.foreign import foreign_reader, server_text
from dynotui.postgres.schema import PgTable, PgTableRef, describe_table, table_refs
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery
from dynotui.report.model import Report
from dynotui.ui.actions import GENERIC, Action, reworded
from dynotui.ui.adapter import CursorStart, Side
from dynotui.ui.postgres.query import PostgresQuery
from dynotui.ui.query import Query
from dynotui.ui.widgets.safe_text import notify

if TYPE_CHECKING:
    from dynotui.postgres.count import PgCountResult
    from dynotui.ui.app import PagerApp
    from dynotui.ui.widgets.pager_view import PagerView

CUSTOM = "\0custom"
CLOSE_WAIT = 2.0  # q waits at most this long for a cancel request to reach the server
FOREIGN_ORIGIN = "from an unsigned boundary row (anyone could have edited it)"
WORDS = {
    "edit_query": ("Query", "Edit the query: order, filter and its parameters, columns, size"),
    "choose_order": ("Order", "Choose an order: the primary key, an index, or any columns"),
    "toggle_mode": ("Keyset/Offset", "Toggle keyset and OFFSET paging (a new cursor stack)"),
    "flip_direction": ("Reverse", "Read the order backwards (a new stack from the start)"),
    "compare": ("Compare", "Keyset beside OFFSET, or two orders, side by side"),
    "count": ("Count", "The free estimate, then count(*) with its buffers and time"),
    "connection": ("Reconnect", "Open the connection again (after the server went away)"),
    "show_code": ("Code", "Code that reproduces this page: SQL, Python (psycopg)"),
    "copy_item(True)": ("Copy row (typed)", "Copy the row with its column types"),
    "copy_item(False)": ("Copy row", "Copy the selected row as JSON (values as text)"),
    "copy_page": ("Copy page", "Copy the page as JSON lines"),
    "copy_start_key": ("Copy boundary", "Copy this page's boundary (its sort values) as JSON"),
}
ACTIONS = reworded(GENERIC, WORDS)


def _rows(rows: int | None) -> str:
    return "?" if rows is None else f"~{rows:,}"


class PostgresAdapter:
    def __init__(
        self,
        connection: PgSession,
        options: PgOptions,
        *,
        query: PgQuery | None = None,
        table: str | None = None,
        note: str = "",
        resume: HistoryEntry | None = None,
    ) -> None:
        """``resume``: a history entry to reopen at once (``dynotui --resume``)."""
        self.connection = connection
        self.resume = resume
        # Said once, while the connection is open: a closed one has no host to name.
        self._label = connection.label
        self.options = options
        self.initial_query = query
        self.initial_table = table
        self.initial_note = note
        self._side: PgSession | None = None

    # -- the adapter protocol ---------------------------------------------------------------

    @property
    def label(self) -> str:
        return self._label

    def actions(self) -> Sequence[Action]:
        return ACTIONS

    def client(self, side: Side) -> object:
        if side == "main":
            return self.connection
        # The compare side reads on a connection of its own, so that keyset and OFFSET walk
        # to page k side by side rather than taking turns.
        if self._side is None:
            self._side = self.connection.fork()
        return self._side

    def open(self, app: PagerApp) -> None:
        if self.resume is not None:
            self.reopen(app, self.resume)
        elif self.initial_query is not None:
            app.main_view.start(PostgresQuery(self.initial_query), note=self.initial_note)
        elif self.initial_table:
            self._load_table(app, self.initial_table)
        else:
            self.choose_table(app)

    def started(self, app: PagerApp) -> None:
        pass  # the connection is open before the app starts

    def choose_table(self, app: PagerApp) -> None:
        from dynotui.ui.screens.picker import PickerScreen

        connection = self.connection

        def listed(tables: list[PgTableRef]) -> None:
            # The value is the identifier that opens exactly that table ("Order Items",
            # "Orders" beside orders); the label is the name as the catalog spells it.
            choices = [(ref.identifier, f"{ref.label} · {_rows(ref.rows)} rows") for ref in tables]

            def chosen(name: str | None) -> None:
                if name:
                    self._load_table(app, name)

            app.push_screen(
                PickerScreen(f"Tables ({len(tables)}) — Enter opens one", choices), chosen
            )

        app.call(lambda: table_refs(connection), listed, lambda e: app.fail(e, "Tables"))

    def edit_query(self, app: PagerApp, view: PagerView) -> None:
        current = self._current(app, view)
        if current is not None:
            self._edit(app, view, current.schema, current if view.state is not None else None)

    def choose_order(self, app: PagerApp, view: PagerView) -> None:
        from dynotui.ui.screens.picker import PickerScreen

        current = self._current(app, view)
        if current is None:
            return
        table = current.schema
        choices = [(o.name, o.describe()) for o in table.orders]
        choices.append((CUSTOM, "Columns of your choice (no index: a sort per page)…"))

        def chosen(name: str | None) -> None:
            if name == CUSTOM:
                self._edit(app, view, table, current, "Type the columns to order by.")
            elif name:
                query = current.with_(order=table.order(name), descending=False)
                view.start(query, note=f"Order {name}: a new cursor stack")

        app.push_screen(
            PickerScreen(
                f"Orders of {table.label}: keyset paging needs a unique order, so the primary "
                "key is appended where an index is not unique",
                choices,
            ),
            chosen,
        )

    def toggle_mode(self, app: PagerApp, view: PagerView) -> None:
        current = view.query_shown
        if not isinstance(current, PostgresQuery):
            return
        mode = "offset" if current.mode == "keyset" else "keyset"
        # A keyset boundary is sort values, an OFFSET one a row count: a new stack.
        view.start(current.with_(mode=mode), note=f"{mode} paging: a new cursor stack")

    def flip_direction(self, app: PagerApp, view: PagerView) -> None:
        current = view.query_shown
        if not isinstance(current, PostgresQuery):
            return
        query = current.query
        flipped = current.with_(order=query.order.reversed(), descending=not query.descending)
        view.start(flipped, note="Reversed: a new cursor stack from the start")

    def count(self, app: PagerApp, view: PagerView) -> None:
        from dynotui.ui.postgres.count_screen import PgCountScreen

        current = view.query_shown
        if not isinstance(current, PostgresQuery):
            return

        def counted(result: PgCountResult | None) -> None:
            if result is not None:
                app.counted(view, result)

        app.push_screen(PgCountScreen(self.connection, current, app.count_finished), counted)

    def reconnect(self, app: PagerApp) -> None:
        connection = self.connection
        notify(app, f"Reconnecting to {self._label}…", title="Connection")
        app.call(
            connection.reopen,
            lambda _: notify(app, "Connected again; the stacks are kept. R retries a failed move."),
            lambda error: app.fail(error, "Connection"),
        )

    def refused(self, app: PagerApp, view: PagerView, query: Query, error: InputError) -> None:
        from dynotui.ui.postgres.query_screen import PgQueryScreen

        if not isinstance(query, PostgresQuery):
            return

        def done(again: PostgresQuery | None) -> None:
            if again is not None:
                view.start(again)

        field = error.field if isinstance(error, FieldError) else "where"
        app.push_screen(PgQueryScreen(query.schema, query, error=(field, str(error))), done)

    def compare_partner(self, query: Query) -> Query | None:
        """The same query paged the other way."""
        if isinstance(query, PostgresQuery):
            return query.with_(mode="offset" if query.mode == "keyset" else "keyset")
        return None

    def prices(self) -> PriceList | None:
        return None  # buffers are not billed per unit

    def report(self, pagers: Sequence[Pager], ledger: SessionLedger, code_page: int) -> Report:
        from dynotui.postgres.report import postgres_report  # only when a report is asked for

        return postgres_report(
            pagers, uri=redacted(self.options.uri), ledger=ledger, code_page=code_page
        )

    def code_target(self) -> object:
        return redacted(self.options.uri)

    def foreign_reader(self, view: PagerView) -> ForeignReader | None:
        state = view.state
        if state is None or not isinstance(state.pager.source, PgSource):
            return None
        return foreign_reader(state.pager.source)

    def foreign_start(
        self, view: PagerView, start: ForeignStart, note: str
    ) -> Callable[[], CursorStart] | None:
        state = view.state
        if state is None or not isinstance(state.query, PostgresQuery):
            return None
        query, connection = state.query.query, self.connection

        def read() -> CursorStart:
            found = server_text(connection, query, start)  # as the server reads each value
            return CursorStart(found.start_key, note, FOREIGN_ORIGIN)

        return read

    def history_query(self, query: Query) -> HistoryQuery | None:
        if isinstance(query, PostgresQuery):
            return history_entry.query_entry(query.query, self.options.uri)
        return None

    def reopen(self, app: PagerApp, entry: HistoryEntry) -> None:
        try:
            reopening = history_entry.reopen(entry)
            here = history_entry.connection_record(self.options.uri)["conninfo"]
        except InputError as exc:
            app.fail(exc, "History")
            return
        if reopening.conninfo != here:
            notify(
                app,
                "That query was read on another PostgreSQL connection "
                f"({reopening.conninfo or 'the PG* variables'}): open it with dynotui "
                "--postgres on that connection, or dynotui --resume.",
                title="History",
                severity="warning",
                timeout=10,
            )
            return
        connection = self.connection

        def opened(query: PgQuery) -> None:
            shown = PostgresQuery(query)
            app.reopen_at(shown, reopening.start_json, reopening.page, reopening.note)

        app.call(
            lambda: history_entry.query_from_record(connection, reopening.record),
            opened,
            lambda error: app.fail(error, "History"),
        )

    def run(self, action: str, app: PagerApp, view: PagerView) -> None:
        pass  # PostgreSQL has no keys of its own

    def close(self) -> None:
        """Cancel what runs on the server, so it does not run on until statement_timeout:
        each connection waits until its cancel request is sent (at most CLOSE_WAIT
        seconds, a server that does not answer included) and takes no statement after."""
        for session in (self.connection, self._side):
            if session is not None:
                session.cancel_running(timeout=CLOSE_WAIT, closing=True)
        if self._side is not None:
            # The compare side's connection is the adapter's own: let it go.
            side = self._side
            threading.Thread(target=side.close, name="dynotui-close", daemon=True).start()

    # -- tables and queries -------------------------------------------------------------

    def _load_table(self, app: PagerApp, name: str) -> None:
        connection, view = self.connection, app.main_view
        view.begin_opening(name)

        def described(table: PgTable) -> None:
            if view.end_opening(name):
                self._edit(app, view, table, None)

        def failed(error: BaseException) -> None:
            if view.end_opening(name):
                app.fail(error, f"Table {name}")

        app.call(lambda: describe_table(connection, name), described, failed)

    def _edit(
        self,
        app: PagerApp,
        view: PagerView,
        table: PgTable,
        current: PostgresQuery | None,
        note: str = "",
    ) -> None:
        from dynotui.ui.postgres.query_screen import PgQueryScreen

        def done(query: PostgresQuery | None) -> None:
            if query is not None:
                view.start(query)

        app.push_screen(PgQueryScreen(table, current, note), done)

    def _current(self, app: PagerApp, view: PagerView) -> PostgresQuery | None:
        for query in (view.query_shown, app.main_view.query_shown):
            if isinstance(query, PostgresQuery):
                return query
        return None
