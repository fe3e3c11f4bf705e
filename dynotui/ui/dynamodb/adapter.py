"""DynamoDB in the pager app: tables, the query form (Query, Scan, PartiQL), sort orders
(base table, LSIs, GSIs), raw and fill mode, direction, Select COUNT, the connection
(profile, region, endpoint, timeouts) and the target of generated code.

Each change of query builds a whole new query and hands it to ``view.start``: nothing
changes on screen until that query's first page arrives, and a query refused here
changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from dynotui.core.errors import InputError, error_words
from dynotui.core.foreign import ForeignReader, ForeignStart
from dynotui.core.history import HistoryEntry, HistoryQuery
from dynotui.core.ledger import SessionLedger
from dynotui.core.money import PriceList
from dynotui.core.pager import Pager
from dynotui.dynamodb import history_entry
from dynotui.dynamodb.advice import Measurements
from dynotui.dynamodb.connection import ConnectionOptions, describe, in_force, make_client
from dynotui.dynamodb.foreign import foreign_reader
from dynotui.dynamodb.foreign_skip import resolve_start
from dynotui.dynamodb.opening import Opened, Opening
from dynotui.dynamodb.pricing import read_prices
from dynotui.dynamodb.query_form import QueryForm, build_spec, for_order
from dynotui.dynamodb.schema import BASE, TableSchema, describe_table, list_tables
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import QuerySpec
from dynotui.report.model import Report
from dynotui.ui.actions import GENERIC, Action, reworded, with_extra
from dynotui.ui.adapter import CursorStart, Side
from dynotui.ui.dynamodb.partiql import PartiQLQuery
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.query import Query
from dynotui.ui.widgets.safe_text import notify

if TYPE_CHECKING:
    from dynotui.ui.app import PagerApp
    from dynotui.ui.widgets.pager_view import PagerView

WORDS = {
    "edit_query": ("Query", "Edit the query: keys, filter, projection, page size"),
    "choose_order": ("Order", "Choose a sort order: base table, LSI or GSI"),
    "toggle_mode": ("Raw/Fill", "Toggle raw and fill mode (a new cursor stack)"),
    "compare": ("Compare", "Compare two sort orders side by side"),
    "connection": ("Connection", "Change profile, region, endpoint or timeouts"),
    "show_code": ("Code", "Code that reproduces this page: boto3, AWS CLI, JS"),
    "copy_item(True)": ("Copy item (DynamoDB JSON)", "Copy the item, lossless"),
    "copy_page": ("Copy page", "Copy the page as JSON lines (DynamoDB JSON)"),
    "copy_start_key": ("Copy start key", "Copy this page's start key (DynamoDB JSON)"),
    "paste_cursor": ("Paste cursor", "Open the page a pasted cursor token points at"),
    "inspect_cursor": ("Inspect cursor", "Decode a cursor token and check it"),
}
PARTIQL = Action("colon", "db('partiql')", "PartiQL", "Page a PartiQL SELECT (ExecuteStatement)")
ACTIONS = with_extra(reworded(GENERIC, WORDS), "choose_order", [PARTIQL])

DynamoDBQuery = DynamoQuery | PartiQLQuery
FOREIGN_ORIGIN = "from an unsigned foreign cursor (anyone could have edited it)"


class DynamoDBAdapter:
    """``client`` is a botocore client (or the ``LazyClient`` the opening made);
    ``opening`` the table and page 1 read while the app loaded, if the command line named
    them."""

    def __init__(
        self,
        client: Any,
        options: ConnectionOptions,
        *,
        label: str = "",
        table: str | None = None,
        form: QueryForm | None = None,
        open_form: bool | None = None,
        opening: Opening | None = None,
        resume: HistoryEntry | None = None,
        prices: PriceList | None = None,
    ) -> None:
        """``resume``: a history entry to reopen at once (``dynotui --resume``); ``prices``:
        what a read unit costs (default: the settings file's, else the dated default)."""
        self._client = client
        self._prices = prices
        self.options = options
        self._label = label or describe(client, options)
        self.table = table
        self.form = form or QueryForm()
        self.open_form = open_form
        self.opening = opening
        self.resume = resume
        # What each order measured, shared by every query so advisors can compare orders.
        self.measurements = opening.measurements if opening is not None else Measurements()

    # -- the adapter protocol ---------------------------------------------------------------

    @property
    def label(self) -> str:
        return self._label

    def actions(self) -> Sequence[Action]:
        return ACTIONS

    def client(self, side: Side) -> object:
        return self._client

    def open(self, app: PagerApp) -> None:
        if self.resume is not None:
            self.reopen(app, self.resume)
            return
        opening = self.opening
        if opening is not None:
            # Begun even when already read, so the end below finds it still wanted.
            app.main_view.begin_opening(self.table or "")
            if opening.done.is_set():
                self._opened(app, opening.opened)
            else:
                app.call(
                    lambda: opening.done.wait() and opening.opened,
                    lambda opened: self._opened(app, opened or Opened()),
                    lambda error: self._opened(app, Opened(error=error)),
                )
            return
        if self.table:
            form = self.form
            open_form = (
                self.open_form
                if self.open_form is not None
                else not form.partition_value and not form.scan
            )
            self._load_table(app, self.table, form, open_form)
        else:
            self.choose_table(app)

    def started(self, app: PagerApp) -> None:
        warm = getattr(self._client, "warm", None)  # a LazyClient: make the real client now
        if warm is not None:
            warm()

    def choose_table(self, app: PagerApp) -> None:
        from dynotui.ui.screens.picker import PickerScreen

        client = self._client

        def listed(names: list[str]) -> None:
            def chosen(name: str | None) -> None:
                if name:
                    self._load_table(app, name, QueryForm(), open_form=True)

            app.push_screen(
                PickerScreen(f"Tables ({len(names)}) — Enter opens one", [(n, n) for n in names]),
                chosen,
            )

        app.call(lambda: list_tables(client), listed, lambda e: app.fail(e, "Tables"))

    def edit_query(self, app: PagerApp, view: PagerView) -> None:
        schema = self._schema_for(app, view)
        if schema is not None:
            self._edit(app, view, schema, self._form_of(app, view))

    def choose_order(self, app: PagerApp, view: PagerView) -> None:
        from dynotui.ui.screens.picker import PickerScreen

        schema = self._schema_for(app, view)
        if schema is None:
            return
        current = self._form_of(app, view)
        choices = []
        for order in schema.orders:
            count = schema.item_count_text(order.item_count)
            choices.append((order.name, f"{order.describe()} · {count} items"))

        def chosen(name: str | None) -> None:
            if name:
                form, note = for_order(current, schema, name)
                self._edit(app, view, schema, form, note)

        app.push_screen(
            PickerScreen(
                f"Sort orders of {schema.name}\nItem counts: {schema.item_count_note()}", choices
            ),
            chosen,
        )

    def toggle_mode(self, app: PagerApp, view: PagerView) -> None:
        query = view.query_shown
        if isinstance(query, DynamoQuery):
            mode = "fill" if query.spec.mode == "raw" else "raw"
            self._restart_with(view, "Mode", mode=mode)
        elif isinstance(query, PartiQLQuery):
            self._partiql_has_no(view, "Mode")

    def flip_direction(self, app: PagerApp, view: PagerView) -> None:
        query = view.query_shown
        if isinstance(query, DynamoQuery):
            if query.spec.scan:
                notify(view, "A Scan has no direction.", severity="warning")
                return
            self._restart_with(view, "Direction", descending=not query.form.descending)
        elif isinstance(query, PartiQLQuery):
            self._partiql_has_no(view, "Direction")

    def count(self, app: PagerApp, view: PagerView) -> None:
        from dynotui.dynamodb.count import CountResult, forecast
        from dynotui.ui.dynamodb.count_screen import CountScreen

        state = view.state
        if state is None:
            return
        query = state.query
        if not isinstance(query, DynamoQuery):
            notify(
                app,
                "Count works on a Query or Scan (Select: COUNT); a PartiQL statement has none.",
                severity="warning",
            )
            return
        pager = state.pager
        prediction = forecast(
            query.schema, query.spec, pager.latest_reads(), pager.read_whole_result
        )

        def counted(result: CountResult | None) -> None:
            if result is not None:
                app.counted(view, result)

        before = app.session.counts.get(pager.source.scope())
        earlier = before if isinstance(before, CountResult) else None
        app.push_screen(
            CountScreen(self._client, query, prediction, earlier, app.count_finished), counted
        )

    def reconnect(
        self, app: PagerApp, why: str = "", tried: ConnectionOptions | None = None
    ) -> None:
        from dynotui.ui.dynamodb.connection_screen import ConnectionScreen

        table = self._table_shown(app)

        def connect(options: ConnectionOptions) -> Any:
            client = make_client(options)
            # Connected means a call answered: the table shown, or the list of tables.
            if table is not None:
                describe_table(client, table)
            else:
                list_tables(client)
            return client

        def chosen(options: ConnectionOptions | None) -> None:
            if options is None:
                return
            app.call(
                lambda: connect(options),
                lambda client: self._reconnected(app, options, client),
                lambda error: self.reconnect(
                    app,
                    f"Not connected: {error_words(error)} — the old connection is kept.",
                    options,
                ),
            )

        app.push_screen(
            ConnectionScreen(self.options, in_force(self._client, self.options), why, tried),
            chosen,
        )

    def _table_shown(self, app: PagerApp) -> str | None:
        query = app.main_view.query_shown
        return query.schema.name if isinstance(query, DynamoQuery | PartiQLQuery) else None

    def refused(self, app: PagerApp, view: PagerView, query: Query, error: InputError) -> None:
        from dynotui.ui.dynamodb.query_screen import QueryScreen

        if not isinstance(query, DynamoQuery | PartiQLQuery):
            return
        statement = query.statement if isinstance(query, PartiQLQuery) else None
        tab = "partiql-tab" if statement is not None else "query-tab"

        def done(again: DynamoDBQuery | None) -> None:
            if again is not None:
                view.start(self._with_measurements(again))

        note = f"DynamoDB refused this query: {error_words(error)}"
        app.push_screen(QueryScreen(query.schema, query.form, note, statement, tab), done)

    def compare_partner(self, query: Query) -> Query | None:
        return None  # the user picks the other order (tab, o)

    def prices(self) -> PriceList | None:
        if self._prices is None:
            self._prices = read_prices()
        return self._prices

    def report(self, pagers: Sequence[Pager], ledger: SessionLedger, code_page: int) -> Report:
        from dynotui.dynamodb.report import dynamodb_report  # only when a report is asked for

        return dynamodb_report(pagers, prices=self.prices(), ledger=ledger, code_page=code_page)

    def code_target(self) -> object:
        from dynotui.dynamodb.codegen import code_target  # only when code is asked for

        return code_target(self._client)

    def foreign_reader(self, view: PagerView) -> ForeignReader | None:
        state = view.state
        return foreign_reader(state.pager.source) if state is not None else None

    def foreign_start(
        self, view: PagerView, start: ForeignStart, note: str
    ) -> Callable[[], CursorStart] | None:
        state = view.state
        source = state.pager.source if state is not None else None
        if not isinstance(source, QuerySource):
            return None  # a PartiQL read resumes only from dynotui's signed tokens

        def read() -> CursorStart:
            found = resolve_start(source, start)  # past the items the cursor had shown
            return CursorStart(found.start_key, found.note, FOREIGN_ORIGIN, found.cost)

        return read

    def history_query(self, query: Query) -> HistoryQuery | None:
        if isinstance(query, DynamoQuery):
            return history_entry.query_entry(query.spec, self.options, query.form)
        if isinstance(query, PartiQLQuery):
            return history_entry.statement_entry(query.statement, self.options)
        return None

    def reopen(self, app: PagerApp, entry: HistoryEntry) -> None:
        try:
            reopening = history_entry.reopen(entry)
        except InputError as exc:
            app.fail(exc, "History")
            return
        if history_entry.connection_record(self.options) != entry.connection:
            # Read on another connection: that one, as E would make it, then the entry.
            options = reopening.connection
            spec, statement = reopening.spec, reopening.statement
            table = spec.table if spec is not None else statement.target()[0] if statement else ""

            def connect() -> Any:
                client = make_client(options)
                describe_table(client, table)  # it answers, or the old connection stays
                return client

            def connected(client: Any) -> None:
                self._reconnected(app, options, client)
                self._reopen(app, reopening)

            app.call(connect, connected, lambda error: app.fail(error, "History"))
            return
        self._reopen(app, reopening)

    def _reopen(self, app: PagerApp, reopening: history_entry.DynamoReopening) -> None:
        client, view = self._client, app.main_view
        spec, statement = reopening.spec, reopening.statement
        table = spec.table if spec is not None else statement.target()[0] if statement else ""
        view.begin_opening(table)

        def described(schema: TableSchema) -> None:
            if not view.end_opening(table):
                return
            query: DynamoDBQuery
            form = reopening.form or QueryForm(order=spec.index or BASE if spec else BASE)
            if spec is not None:
                query = self._query(schema, form, spec)
            else:
                assert statement is not None
                query = PartiQLQuery(schema, form, statement)
            app.reopen_at(query, reopening.start_json, reopening.page, reopening.note)

        def failed(error: BaseException) -> None:
            if view.end_opening(table):
                app.fail(error, "History")

        app.call(lambda: describe_table(client, table), described, failed)

    def run(self, action: str, app: PagerApp, view: PagerView) -> None:
        if action == "partiql":
            self._partiql(app, view)

    def close(self) -> None:
        if self.opening is not None:
            self.opening.close()

    # -- opening a table ----------------------------------------------------------------

    def _opened(self, app: PagerApp, opened: Opened) -> None:
        """The table (and page 1) opened while the app loaded, as far as it got."""
        view, form = app.main_view, self.form
        if not view.end_opening(self.table or ""):
            return  # abandoned with Esc while it was read
        if self.opening is not None and self.opening.label and self.opening.label != self._label:
            self._label = self.opening.label  # as the client says
            app.set_connection_label(self._label)
        if opened.error is not None:
            app.fail(opened.error, f"Table {self.table}")
        if opened.schema is None:
            if opened.error is None:
                self.choose_table(app)
            return
        if opened.pager is not None and opened.page is not None and opened.spec is not None:
            view.adopt(self._query(opened.schema, form, opened.spec), opened.pager, opened.page)
        else:
            self._edit(app, view, opened.schema, form)

    def _load_table(self, app: PagerApp, name: str, form: QueryForm, open_form: bool) -> None:
        """DescribeTable in the background; then the form, or the query straight away."""
        client, view = self._client, app.main_view
        view.begin_opening(name)

        def described(schema: TableSchema) -> None:
            if not view.end_opening(name):
                return  # abandoned with Esc meanwhile
            chosen = form if form.order in {o.name for o in schema.orders} else QueryForm()
            if open_form:
                self._edit(app, view, schema, chosen)
                return
            try:
                spec = build_spec(schema, chosen)
            except InputError as exc:
                notify(view, str(exc), title="Query", severity="error")
                self._edit(app, view, schema, chosen)
                return
            view.start(self._query(schema, chosen, spec))

        def failed(error: BaseException) -> None:
            if view.end_opening(name):
                app.fail(error, f"Table {name}")

        app.call(lambda: describe_table(client, name), described, failed)

    # -- queries ------------------------------------------------------------------------

    def _query(self, schema: TableSchema, form: QueryForm, spec: QuerySpec) -> DynamoQuery:
        return DynamoQuery(schema, form, spec, self.measurements)

    def _schema_for(self, app: PagerApp, view: PagerView) -> TableSchema | None:
        """The table of ``view``'s query, else of the main view's (a compare side with no
        query yet starts from the table the main view reads)."""
        for query in (view.query_shown, app.main_view.query_shown):
            if isinstance(query, DynamoQuery | PartiQLQuery):
                return query.schema
        return None

    def _form_of(self, app: PagerApp, view: PagerView) -> QueryForm:
        for query in (view.query_shown, app.main_view.query_shown):
            if isinstance(query, DynamoQuery | PartiQLQuery):
                return query.form
        return QueryForm()

    def _edit(
        self,
        app: PagerApp,
        view: PagerView,
        schema: TableSchema,
        form: QueryForm,
        note: str = "",
    ) -> None:
        """The query form, on ``view``'s query (the PartiQL tab for a statement)."""
        from dynotui.ui.dynamodb.query_screen import QueryScreen

        current = view.query_shown
        statement, tab = None, "query-tab"
        if isinstance(current, PartiQLQuery) and not note:
            statement, tab = current.statement, "partiql-tab"

        def done(query: DynamoDBQuery | None) -> None:
            if query is not None:
                view.start(self._with_measurements(query))

        app.push_screen(QueryScreen(schema, form, note, statement, tab), done)

    def _with_measurements(self, query: DynamoDBQuery) -> DynamoDBQuery:
        if isinstance(query, DynamoQuery):
            return DynamoQuery(query.schema, query.form, query.spec, self.measurements)
        return query

    def _partiql(self, app: PagerApp, view: PagerView) -> None:
        from dynotui.ui.dynamodb.query_screen import QueryScreen

        schema = self._schema_for(app, view)
        if schema is None:
            return
        current = view.query_shown
        statement = current.statement if isinstance(current, PartiQLQuery) else None

        def done(query: DynamoDBQuery | None) -> None:
            if query is not None:
                view.start(self._with_measurements(query))

        form = self._form_of(app, view)
        app.push_screen(QueryScreen(schema, form, "", statement, "partiql-tab"), done)

    def _restart_with(self, view: PagerView, what: str, **changes: Any) -> None:
        """The same query with other options (mode, direction): a new stack, if valid."""
        state = view.state
        if state is None or not isinstance(state.query, DynamoQuery):
            return
        query = state.query
        form = query.form.with_(**changes)
        try:
            spec = build_spec(query.schema, form)
        except InputError as exc:
            notify(view, f"{exc} — nothing was changed.", title=what, severity="error")
            return
        new = self._query(query.schema, form, spec)
        if "mode" in changes:
            # Page boundaries differ between modes: a new stack from where this one began.
            view.start(
                new,
                state.pager.start_key_of(1),
                note=f"{spec.mode} mode: a new cursor stack",
                origin=state.origin,
                page_offset=state.page_offset,
            )
        else:
            order = "descending" if form.descending else "ascending"
            view.start(new, None, note=f"{order}: a new cursor stack from the start")

    def _partiql_has_no(self, view: PagerView, what: str) -> None:
        notify(
            view,
            "A PartiQL statement pages one ExecuteStatement call per page, in the order its "
            "SELECT reads: no fill mode, no direction to flip.",
            title=what,
            severity="warning",
        )

    # -- the connection -----------------------------------------------------------------

    def _reconnected(self, app: PagerApp, options: ConnectionOptions, client: Any) -> None:
        if self.opening is not None:
            self.opening.close()  # its child read for the old connection: not needed now
        self._client = client
        self.options = options
        self._label = describe(client, options)
        app.set_connection_label(self._label)
        for view in app.all_views:
            if view.client is not None:
                view.use_client(client)
        notify(
            app,
            f"Connected to {self._label} (it answered). The stacks are kept; R retries a "
            "failed move.",
            title="Connection",
        )
