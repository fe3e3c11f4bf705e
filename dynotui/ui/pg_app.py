"""The dynotui app on PostgreSQL: the same views, stack, sidebar and compare screen; the
keys that build a query build a PostgreSQL one (order, keyset or OFFSET, reverse)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual import on
from textual.message import Message

from dynotui.core.errors import DynotuiError
from dynotui.postgres.connection import PgOptions, PgSession, redacted
from dynotui.postgres.schema import PgTable, describe_table, list_tables
from dynotui.postgres.sql import PgQuery
from dynotui.ui.actions import PG_ACTIONS, bindings
from dynotui.ui.app import DynotuiApp
from dynotui.ui.background import run_in_background
from dynotui.ui.pager_view import PagerView
from dynotui.ui.picker_screen import PickerScreen
from dynotui.ui.postgres_query import PgQueryView
from dynotui.ui.safe import notify
from dynotui.ui.session import Session

CUSTOM = "\0custom"


class TableDescribed(Message):
    def __init__(self, name: str, result: Any) -> None:
        super().__init__()
        self.name = name
        self.result = result  # a PgTable, or the error


class PgTablesListed(Message):
    def __init__(self, result: Any) -> None:
        super().__init__()
        self.result = result


class Reopened(Message):
    def __init__(self, result: Any) -> None:
        super().__init__()
        self.result = result


class PgApp(DynotuiApp):
    ACTIONS = PG_ACTIONS
    BINDINGS = bindings(PG_ACTIONS)

    def __init__(
        self,
        session: PgSession,
        options: PgOptions,
        *,
        table: str | None = None,
        query: PgQuery | None = None,
        note: str = "",
        **kwargs: Any,
    ) -> None:
        super().__init__(session, connection_label=session.label, **kwargs)
        self.session.options = options
        self.initial_table = table
        self.initial_query = query
        self.initial_note = note
        self._side: Session | None = None

    def open_initial(self) -> None:
        if self.initial_query is not None:
            self.main_view.start(PgQueryView(self.initial_query), note=self.initial_note)
        elif self.initial_table:
            self._load_table(self.initial_table)
        else:
            self.action_choose_table()

    # -- tables -----------------------------------------------------------------------------

    def _load_table(self, name: str) -> None:
        session, view = self.session.client, self.main_view
        view.begin_opening(name)
        run_in_background(
            self,
            lambda: describe_table(session, name),
            lambda table: TableDescribed(name, table),
            lambda error: TableDescribed(name, error),
        )

    @on(TableDescribed)
    def _described(self, message: TableDescribed) -> None:
        if not self.main_view.end_opening(message.name):
            return
        if isinstance(message.result, BaseException):
            self._error(message.result, f"Table {message.name}")
            return
        self._edit(self.main_view, message.result, None)

    def action_choose_table(self) -> None:
        session = self.session.client
        run_in_background(self, lambda: list_tables(session), PgTablesListed, PgTablesListed)

    @on(PgTablesListed)
    def _pg_tables_listed(self, message: PgTablesListed) -> None:
        if isinstance(message.result, BaseException):
            self._error(message.result, "Tables")
            return
        tables = message.result
        choices = [
            (name, f"{name} · {'?' if rows is None else f'~{rows:,}'} rows")
            for name, rows in tables
        ]

        def chosen(name: str | None) -> None:
            if name:
                self._load_table(name)

        self.push_screen(PickerScreen(f"Tables ({len(tables)}) — Enter opens one", choices), chosen)

    # -- queries ----------------------------------------------------------------------------

    def _edit(
        self, view: PagerView, table: PgTable, current: PgQueryView | None, note: str = ""
    ) -> None:
        from dynotui.ui.pg_query_screen import PgQueryScreen

        def done(query: PgQueryView | None) -> None:
            if query is not None:
                view.start(query)

        self.push_screen(PgQueryScreen(table, current, note), done)

    def _current(self, view: PagerView) -> PgQueryView | None:
        if view.state is not None and isinstance(view.state.query, PgQueryView):
            return view.state.query
        base = self._compare_base()
        return base if isinstance(base, PgQueryView) else None

    def action_edit_query(self) -> None:
        view = self.active_view
        current = self._current(view)
        if current is not None:
            self._edit(view, current.schema, current if view.state is not None else None)

    def action_choose_order(self) -> None:
        view = self.active_view
        current = self._current(view)
        if current is None:
            return
        table = current.schema
        choices = [(o.name, o.describe()) for o in table.orders]
        choices.append((CUSTOM, "Columns of your choice (no index: a sort per page)…"))

        def chosen(name: str | None) -> None:
            if name == CUSTOM:
                self._edit(view, table, current, "Type the columns to order by.")
            elif name:
                query = current.with_(order=table.order(name), descending=False)
                view.start(query, note=f"Order {name}: a new cursor stack")

        self.push_screen(
            PickerScreen(
                f"Orders of {table.label}: keyset paging needs a unique order, so the primary "
                "key is appended where an index is not unique",
                choices,
            ),
            chosen,
        )

    def action_partiql(self) -> None:
        notify(self, "PartiQL is DynamoDB's; e edits this SQL query.", severity="warning")

    def action_toggle_mode(self) -> None:
        view = self.active_view
        current = view.state.query if view.state is not None else None
        if not isinstance(current, PgQueryView):
            return
        mode = "offset" if current.mode == "keyset" else "keyset"
        # A keyset boundary is sort values, an OFFSET one a row count: a new stack.
        view.start(current.with_(mode=mode), note=f"{mode} paging: a new cursor stack")

    def action_flip_direction(self) -> None:
        view = self.active_view
        current = view.state.query if view.state is not None else None
        if not isinstance(current, PgQueryView):
            return
        query = current.query
        flipped = current.with_(order=query.order.reversed(), descending=not query.descending)
        view.start(flipped, note="Reversed: a new cursor stack from the start")

    def compare_partner(self, query: Any) -> Any:
        """The compare view's right side: the same query paged the other way."""
        if isinstance(query, PgQueryView):
            return query.with_(mode="offset" if query.mode == "keyset" else "keyset")
        return None

    def side_session(self, session: Session) -> Session:
        """The compare view's right side reads on a connection of its own, so that keyset
        and OFFSET walk to page k side by side rather than taking turns."""
        if self._side is None:
            self._side = replace(session, client=session.client.fork())
        return self._side

    def action_count(self) -> None:
        from dynotui.ui.pg_count_screen import PgCountScreen

        view = self.active_view
        state = view.state
        if state is None or not isinstance(state.query, PgQueryView):
            return

        def counted(result: Any) -> None:
            if result is not None:
                self.session.counts[result.scope] = result
                view.refresh_status()

        self.push_screen(PgCountScreen(self.session.client, state.query), counted)

    # -- connection -------------------------------------------------------------------------

    def action_connection(self) -> None:
        session: PgSession = self.session.client
        notify(self, f"Reconnecting to {self.session.label}…", title="Connection")
        run_in_background(self, session.reopen, Reopened, Reopened)

    @on(Reopened)
    def _reopened(self, message: Reopened) -> None:
        if isinstance(message.result, BaseException):
            self._error(message.result, "Connection")
            return
        notify(self, "Connected again; the stacks are kept. R retries a failed move.")

    def code_target(self) -> Any:
        options: PgOptions = self.session.options
        return redacted(options.uri)

    def _error(self, error: BaseException, title: str) -> None:
        words = str(error) if isinstance(error, DynotuiError) else repr(error)
        notify(self, words, title=title, severity="error", timeout=10)
