"""PostgreSQL in the pager app: tables, the query form (order, filter, columns), orders
from the table's indexes (or any columns), keyset and OFFSET paging, reverse, count(*),
reconnecting, and OFFSET beside keyset in the compare view on a connection of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from dynotui.core.errors import FieldError, InputError
from dynotui.core.foreign import ForeignReader, ForeignStart
from dynotui.core.history import HistoryEntry, HistoryQuery
from dynotui.core.ledger import SessionLedger
from dynotui.core.pager import Pager
from dynotui.postgres import history_entry
from dynotui.postgres.connection import PgOptions, PgSession, redacted
from dynotui.postgres.cost import PgCost
from dynotui.postgres.foreign import foreign_reader, server_text
from dynotui.postgres.schema import PgTable, PgTableRef, describe_table, table_refs
from dynotui.postgres.source import PgBoundary, PgRow, PgSource
from dynotui.postgres.sql import PgQuery
from dynotui.report.model import Report
from dynotui.ui.actions import GENERIC, Action, reworded, with_extra
from dynotui.ui.adapter import Adapter, Answer, CursorStart, NewStack, Shown, Side
from dynotui.ui.host import Counted, Host
from dynotui.ui.postgres.query import PostgresQuery
from dynotui.ui.query import Query

if TYPE_CHECKING:
    from dynotui.postgres.plan.planner import PgPlan  # loaded when a plan is first made

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
PLAN = Action(
    "A",
    "db('plan')",
    "Plan: every order",
    "This filter's matches read in each order of the table, costed by the planner (EXPLAIN, "
    "nothing run): buffers a page and a drain, the cheapest starred; Enter opens one, two "
    "marked open in compare",
)
ACTIONS = with_extra(reworded(GENERIC, WORDS), "count", [PLAN])


# The adapter's boundaries, rows and costs: those of its one kind of query.
PgShown = Shown[PgBoundary, PgRow, PgCost]
PgStack = NewStack[PgBoundary, PgRow, PgCost]
PgAnswer = Answer[PgBoundary, PgRow, PgCost]
PgPager = Pager[PgBoundary, PgRow, PgCost]
PgQueryShown = Query[PgBoundary, PgRow, PgCost]


def _rows(rows: int | None) -> str:
    return "?" if rows is None else f"~{rows:,}"


class PostgresAdapter(Adapter[PgBoundary, PgRow, PgCost]):
    """The connection is open before the app starts (nothing waits for ``started``);
    buffers are not billed per unit (no ``prices``); no key is PostgreSQL's own (no
    ``run``) nor worded after what a view holds (no ``palette``)."""

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
        self.latest_plan: PgPlan | None = None  # the report carries it

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

    def open(self, host: Host, answer: PgAnswer) -> None:
        if self.resume is not None:
            self.reopen(host, self.resume, answer)
        elif self.initial_query is not None:
            answer(NewStack(PostgresQuery(self.initial_query), note=self.initial_note))
        elif self.initial_table:
            self._load_table(host, self.initial_table, answer)
        else:
            self.choose_table(host, answer)

    def choose_table(self, host: Host, answer: PgAnswer) -> None:
        from dynotui.ui.screens.picker import PickerScreen

        connection = self.connection

        def listed(tables: list[PgTableRef]) -> None:
            # The value is the identifier that opens exactly that table ("Order Items",
            # "Orders" beside orders); the label is the name as the catalog spells it.
            choices = [
                (
                    ref.identifier,
                    f"{ref.label} · {_rows(ref.rows)} {'row' if ref.rows == 1 else 'rows'}",
                )
                for ref in tables
            ]

            def chosen(name: str | None) -> None:
                if name:
                    self._load_table(host, name, answer)

            host.ask(PickerScreen(f"Tables ({len(tables)}) — Enter opens one", choices), chosen)

        host.call(lambda: table_refs(connection), listed, lambda e: host.fail(e, "Tables"))

    def edit_query(self, host: Host, shown: PgShown, answer: PgAnswer) -> None:
        current = self._current(shown)
        if current is not None:
            mine = current if shown.query is not None else None
            self._edit(host, current.schema, mine, answer)

    def choose_order(self, host: Host, shown: PgShown, answer: PgAnswer) -> None:
        from dynotui.ui.screens.picker import PickerScreen

        current = self._current(shown)
        if current is None:
            return
        table = current.schema
        choices = [(o.name, o.describe()) for o in table.orders]
        choices.append((CUSTOM, "Columns of your choice (no index: a sort per page)…"))

        def chosen(name: str | None) -> None:
            if name == CUSTOM:
                self._edit(host, table, current, answer, "Type the columns to order by.")
            elif name:
                query = current.with_(order=table.order(name), descending=False)
                answer(NewStack(query, note=f"Order {name}: a new cursor stack"))

        host.ask(
            PickerScreen(
                f"Orders of {table.label}: keyset paging needs a unique order, so the primary "
                "key is appended where an index is not unique",
                choices,
            ),
            chosen,
        )

    def toggle_mode(self, host: Host, shown: PgShown) -> PgStack | None:
        current = shown.query
        if not isinstance(current, PostgresQuery):
            return None
        mode = "offset" if current.mode == "keyset" else "keyset"
        # A keyset boundary is sort values, an OFFSET one a row count: a new stack.
        return NewStack(current.with_(mode=mode), note=f"{mode} paging: a new cursor stack")

    def flip_direction(self, host: Host, shown: PgShown) -> PgStack | None:
        current = shown.query
        if not isinstance(current, PostgresQuery):
            return None
        query = current.query
        flipped = current.with_(order=query.order.reversed(), descending=not query.descending)
        return NewStack(flipped, note="Reversed: a new cursor stack from the start")

    def count(self, host: Host, shown: PgShown, counted: Callable[[Counted | None], None]) -> None:
        from dynotui.ui.postgres.count_screen import PgCountScreen

        current = shown.query
        if isinstance(current, PostgresQuery):
            host.ask(PgCountScreen(self.connection, current, host.count_finished), counted)

    def reconnect(self, host: Host, shown: PgShown) -> None:
        connection = self.connection
        host.say(f"Reconnecting to {self._label}…", title="Connection")

        host.call(
            connection.reopen,  # the same session object: every stack reads through it still
            lambda _: host.say("Connected again; the stacks are kept. R retries a failed move."),
            lambda error: host.fail(error, "Connection"),
        )

    def refused(self, host: Host, query: PgQueryShown, error: InputError, answer: PgAnswer) -> None:
        from dynotui.ui.postgres.query_screen import PgQueryScreen

        if not isinstance(query, PostgresQuery):
            return
        field = error.field if isinstance(error, FieldError) else "where"
        host.ask(
            PgQueryScreen(query.schema, query, error=(field, str(error))), self._answering(answer)
        )

    def compare_partner(self, query: PgQueryShown) -> PgQueryShown | None:
        """The same query paged the other way."""
        if isinstance(query, PostgresQuery):
            return query.with_(mode="offset" if query.mode == "keyset" else "keyset")
        return None

    def report(self, pagers: Sequence[PgPager], ledger: SessionLedger, code_page: int) -> Report:
        from dynotui.postgres.report import postgres_report  # only when a report is asked for

        report = postgres_report(
            pagers, uri=redacted(self.options.uri), ledger=ledger, code_page=code_page
        )
        if self.latest_plan is None:
            return report
        from dynotui.postgres.plan.report_section import plan_section

        return replace(report, tables=(*report.tables, plan_section(self.latest_plan)))

    def code_target(self) -> object:
        return redacted(self.options.uri)

    def foreign_reader(self, shown: PgShown) -> ForeignReader | None:
        if shown.pager is None or not isinstance(shown.pager.source, PgSource):
            return None
        return foreign_reader(shown.pager.source)

    def foreign_start(
        self, shown: PgShown, start: ForeignStart, note: str
    ) -> Callable[[], CursorStart[PgBoundary, PgCost]] | None:
        if not isinstance(shown.query, PostgresQuery):
            return None
        query, connection = shown.query.query, self.connection

        def read() -> CursorStart:
            found = server_text(connection, query, start)  # as the server reads each value
            return CursorStart(found.start_key, note, FOREIGN_ORIGIN)

        return read

    def history_query(self, query: PgQueryShown) -> HistoryQuery | None:
        if isinstance(query, PostgresQuery):
            return history_entry.query_entry(query.query, self.options.uri, self.options.demo)
        return None

    def reopen(self, host: Host, entry: HistoryEntry, answer: PgAnswer) -> None:
        try:
            reopening = history_entry.reopen(entry)
            here = history_entry.connection_record(self.options.uri)["conninfo"]
        except InputError as exc:
            host.fail(exc, "History")
            return
        if reopening.demo and not self.options.demo:
            host.say(
                "That query was read on the PostgreSQL demo: reopen it in dynotui demo "
                "--postgres (h), or with dynotui --resume, which starts the demo for it.",
                title="History",
                severity="warning",
                timeout=10,
            )
            return
        if not reopening.demo and reopening.conninfo != here:
            host.say(
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
            page = max(reopening.page, 1)
            answer(
                NewStack(
                    PostgresQuery(query),
                    note=reopening.note,
                    origin=f"reopened from history at page {page}",
                    first_number=page,
                    key_json=reopening.start_json,
                )
            )

        host.call(
            lambda: history_entry.query_from_record(connection, reopening.record),
            opened,
            lambda error: host.fail(error, "History"),
        )

    def run(self, action: str, host: Host, shown: PgShown, answer: PgAnswer) -> None:
        if action == "plan":
            self._plan(host, shown, answer)

    def _plan(self, host: Host, shown: PgShown, answer: PgAnswer) -> None:
        from dynotui.ui.postgres.plan_rows import plan_ask
        from dynotui.ui.screens.plan import PlanScreen

        current = shown.query
        if not isinstance(current, PostgresQuery):
            host.say("Open a table first: a plan costs each order that reads its filter.")
            return
        ask = plan_ask(self.connection, current, copy=host.copy, clock=host.read_clock())
        screen = PlanScreen(ask)

        def answered(choice: tuple[str, ...] | None) -> None:
            plan = screen.plan
            if plan is not None:
                self.latest_plan = plan  # for the report
            if choice is None or plan is None:
                return
            opened = [
                current.with_(order=plan.path(name).order, mode="keyset") for name in choice[1:]
            ]
            note = "Plan order {}: its pages are measured as you read them"
            answer(NewStack(opened[0], note=note.format(choice[1])))
            if choice[0] == "compare" and len(opened) == 2:
                host.compare(opened[1])

        host.ask(screen, answered)

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

    def _load_table(self, host: Host, name: str, answer: PgAnswer) -> None:
        connection = self.connection
        host.open_table(
            name,
            lambda: describe_table(connection, name),
            lambda table: self._edit(host, table, None, answer),
            lambda error: host.fail(error, f"Table {name}"),
        )

    def _answering(self, answer: PgAnswer) -> Callable[[PostgresQuery | None], None]:
        def done(query: PostgresQuery | None) -> None:
            if query is not None:
                answer(NewStack(query))

        return done

    def _edit(
        self,
        host: Host,
        table: PgTable,
        current: PostgresQuery | None,
        answer: PgAnswer,
        note: str = "",
    ) -> None:
        from dynotui.ui.postgres.query_screen import PgQueryScreen

        host.ask(PgQueryScreen(table, current, note), self._answering(answer))

    def _current(self, shown: PgShown) -> PostgresQuery | None:
        for query in shown.queries:
            if isinstance(query, PostgresQuery):
                return query
        return None
