"""DynamoDB in the pager app: tables, the query form (Query, Scan, PartiQL), sort orders
(base table, LSIs, GSIs), raw and fill mode, direction, Select COUNT, the connection
(profile, region, endpoint, timeouts) and the target of generated code.

Each change of query builds a whole new query and answers it as a ``NewStack``: nothing
changes on screen until that query's first page arrives, and a query refused here
changes nothing. The adapter asks the app only through its ``Host``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from dynotui.core.errors import InputError, error_words
from dynotui.core.history import HistoryEntry, HistoryQuery
from dynotui.core.ledger import SessionLedger
from dynotui.core.money import PriceList
from dynotui.dynamodb.advice import Measurements
from dynotui.dynamodb.connection import ConnectionOptions, describe, in_force, make_client
from dynotui.dynamodb.cost import DynamoCost
from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.opening import Opened, Opening
from dynotui.dynamodb.pricing import read_prices
from dynotui.dynamodb.query_form import QueryForm, build_spec, for_order
from dynotui.dynamodb.query_form import segment_count as wanted_segments
from dynotui.dynamodb.schema import TableSchema, describe_table, list_tables
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import QuerySpec
from dynotui.ui.actions import Action
from dynotui.ui.adapter import Adapter, CursorStart, FirstPage, NewStack, Shown, Side
from dynotui.ui.dynamodb.client_warming import ClientWarming
from dynotui.ui.dynamodb.imagined_query import ImaginedQuery
from dynotui.ui.dynamodb.keys import ACTIONS
from dynotui.ui.dynamodb.partiql import PartiQLQuery
from dynotui.ui.dynamodb.plans import Plans
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.dynamodb.segmented import SegmentClients, split, whole
from dynotui.ui.dynamodb.stacks import (
    DynamoAnswer,
    DynamoDBQuery,
    DynamoPager,
    DynamoQueryShown,
    DynamoShown,
    DynamoStack,
)
from dynotui.ui.dynamodb.what_ifs import WhatIfs
from dynotui.ui.host import Counted, Host

if TYPE_CHECKING:
    from dynotui.core.foreign import ForeignReader, ForeignStart  # read when pasted
    from dynotui.report.model import Report  # made by the report, when one is asked for

FOREIGN_ORIGIN = "from an unsigned foreign cursor (anyone could have edited it)"


class DynamoDBAdapter(Adapter[Any, Item, DynamoCost]):
    """``client`` is a botocore client (or the ``LazyClient`` the early read made);
    ``preread`` the table and page 1 read while the app loaded, if the command line named
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
        preread: Opening | None = None,
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
        self.preread = preread
        self.resume = resume
        # What each order measured, shared by every query so advisors can compare orders.
        self.measurements = preread.measurements if preread is not None else Measurements()
        self.segment_clients = SegmentClients(options, client)
        self._listed_at_open: list[str] | None = None  # the table names read at open
        self.warming = ClientWarming(lambda: self._client, reading_at_open=preread is not None)
        self.what_ifs = WhatIfs()  # the session's estimates, the latest per query
        self.plans = Plans()  # the session's plans; the latest goes into the report
        # The entity view's last table of each (table, index), for the report.
        self.entity_tables: dict[tuple[str, str | None], Any] = {}

    # -- the adapter protocol ---------------------------------------------------------------

    @property
    def label(self) -> str:
        return self._label

    def actions(self) -> Sequence[Action]:
        return ACTIONS

    def client(self, side: Side) -> object:
        return self._client

    def open(self, host: Host, answer: DynamoAnswer) -> None:
        answer = self._split(host, answer)
        if self.resume is not None:
            self.reopen(host, self.resume, answer)
            return
        preread = self.preread
        if preread is not None:
            if preread.done.is_set():  # read before the app was up: nothing to wait for
                self._opened(host, preread.opened, answer)
            else:
                host.open_table(
                    self.table or "",
                    lambda: preread.done.wait() and preread.opened,
                    lambda opened: self._opened(host, opened or Opened(), answer),
                    lambda error: self._opened(host, Opened(error=error), answer),
                )
            return
        if self.table:
            form = self.form
            open_form = (
                self.open_form
                if self.open_form is not None
                else not form.partition_value and not form.scan
            )
            self._load_table(host, self.table, form, open_form, answer)
        else:
            self.choose_table(host, answer)

    def started(self) -> None:
        self.warming.started()

    def choose_table(self, host: Host, answer: DynamoAnswer) -> None:
        """The table picker, on the names ListTables gives (the first time, as it gave
        them while the app loaded, when it did)."""
        from dynotui.ui.screens.picker import PickerScreen

        answer = self._split(host, answer)
        client = self._client

        def listed(names: list[str]) -> None:
            def chosen(name: str | None) -> None:
                if name:
                    self._load_table(host, name, QueryForm(), True, answer)

            host.ask(
                PickerScreen(f"Tables ({len(names)}) — Enter opens one", [(n, n) for n in names]),
                chosen,
            )

        listed_already, self._listed_at_open = self._listed_at_open, None
        if listed_already is not None:
            listed(listed_already)
            return
        host.call(lambda: list_tables(client), listed, lambda e: host.fail(e, "Tables"))

    def edit_query(self, host: Host, shown: DynamoShown, answer: DynamoAnswer) -> None:
        answer = self._split(host, answer)
        schema = self._schema_for(shown)
        if schema is not None:
            self._edit(host, shown, schema, self._form_of(shown), answer)

    def choose_order(self, host: Host, shown: DynamoShown, answer: DynamoAnswer) -> None:
        from dynotui.ui.screens.picker import PickerScreen

        answer = self._split(host, answer)
        schema = self._schema_for(shown)
        if schema is None:
            return
        current = self._form_of(shown)
        choices = []
        for order in schema.orders:
            count = schema.item_count_text(order.item_count)
            items = "item" if count in ("1", "~1") else "items"
            choices.append((order.name, f"{order.describe()} · {count} {items}"))

        choices += self.what_ifs.order_choices(schema.name)

        def chosen(name: str | None) -> None:
            imagined = self.what_ifs.chosen(name) if name else None
            if imagined is not None:
                answer(NewStack(imagined, note=imagined.imagined.words()))
            elif name:
                form, note = for_order(current, schema, name)
                self._edit(host, shown, schema, form, answer, note)

        host.ask(
            PickerScreen(
                f"Sort orders of {schema.name}\nItem counts: {schema.item_count_note()}", choices
            ),
            chosen,
        )

    def toggle_mode(self, host: Host, shown: DynamoShown) -> DynamoStack | None:
        from dynotui.ui.dynamodb.restart import toggle_mode  # after the first frame (#46)

        return toggle_mode(host, shown, self._query, self.segment_clients, self.measurements)

    def flip_direction(self, host: Host, shown: DynamoShown) -> DynamoStack | None:
        from dynotui.ui.dynamodb.restart import flip_direction  # after the first frame

        return flip_direction(host, shown, self._query)

    def count(
        self, host: Host, shown: DynamoShown, counted: Callable[[Counted | None], None]
    ) -> None:
        from dynotui.ui.dynamodb.count_screen import ask_count

        ask_count(host, self._client, shown, counted)

    def reconnect(
        self,
        host: Host,
        shown: DynamoShown,
        why: str = "",
        tried: ConnectionOptions | None = None,
    ) -> None:
        from dynotui.ui.dynamodb.connection_screen import ConnectionScreen

        main = shown.main_query
        table = main.schema.name if isinstance(main, DynamoQuery | PartiQLQuery) else None

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
            host.call(
                lambda: connect(options),
                lambda client: self._reconnected(host, options, client),
                lambda error: self.reconnect(
                    host,
                    shown,
                    f"Not connected: {error_words(error)} — the old connection is kept.",
                    options,
                ),
            )

        host.ask(
            ConnectionScreen(self.options, in_force(self._client, self.options), why, tried),
            chosen,
        )

    def refused(
        self, host: Host, query: DynamoQueryShown, error: InputError, answer: DynamoAnswer
    ) -> None:
        from dynotui.ui.dynamodb.query_screen import QueryScreen

        answer = self._split(host, answer)
        if not isinstance(query, DynamoQuery | PartiQLQuery):
            return
        statement = query.statement if isinstance(query, PartiQLQuery) else None
        tab = "partiql-tab" if statement is not None else "query-tab"
        note = f"DynamoDB refused this query: {error_words(error)}"
        host.ask(
            QueryScreen(query.schema, query.form, note, statement, tab), self._answering(answer)
        )

    def compare_partner(self, query: DynamoQueryShown) -> DynamoQueryShown | None:
        # The index this query's latest what-if imagined; else the user picks (tab, o).
        return self.what_ifs.imagined_for(query)

    def prices(self) -> PriceList | None:
        if self._prices is None:
            self._prices = read_prices()
        return self._prices

    def report(
        self, pagers: Sequence[DynamoPager], ledger: SessionLedger, code_page: int
    ) -> Report:
        from dynotui.dynamodb.codegen import code_target
        from dynotui.dynamodb.report import dynamodb_report  # only when a report is asked for

        measured, what_if, notes = self.what_ifs.report(pagers, code_target(self._client))
        report = dynamodb_report(
            measured,
            prices=self.prices(),
            ledger=ledger,
            code_page=code_page,
            notes=notes,
            what_if=what_if,
        )
        plan = self.plans.report_section()
        report = report if plan is None else replace(report, tables=(*report.tables, plan))
        from dynotui.ui.dynamodb.entity_report import with_entities

        return with_entities(report, pagers, self.entity_tables)

    def code_target(self) -> object:
        from dynotui.dynamodb.codegen import code_target  # only when code is asked for

        return code_target(self._client)

    def foreign_reader(self, shown: DynamoShown) -> ForeignReader | None:
        # Loaded when a cursor is pasted, not before the first screen.
        from dynotui.dynamodb.foreign import foreign_reader

        return foreign_reader(shown.pager.source) if shown.pager is not None else None

    def foreign_start(
        self, shown: DynamoShown, start: ForeignStart, note: str
    ) -> Callable[[], CursorStart[Any, DynamoCost]] | None:
        source = shown.pager.source if shown.pager is not None else None
        if not isinstance(source, QuerySource):
            return None  # a PartiQL read resumes only from dynotui's signed tokens

        def read() -> CursorStart:
            from dynotui.dynamodb.foreign_skip import resolve_start

            found = resolve_start(source, start)  # past the items the cursor had shown
            return CursorStart(found.start_key, found.note, FOREIGN_ORIGIN, found.cost)

        return read

    def history_query(self, query: DynamoQueryShown) -> HistoryQuery | None:
        from dynotui.ui.dynamodb.reopen import history_query  # and PartiQL's grammar: later

        return history_query(query, self.options)

    def reopen(self, host: Host, entry: HistoryEntry, answer: DynamoAnswer) -> None:
        from dynotui.dynamodb import history_entry  # as history_query: when used
        from dynotui.ui.dynamodb.reopen import connect_for, reopen_on, table_of

        answer = self._split(host, answer)
        try:
            reopening = history_entry.reopen(entry, self.options)
        except InputError as exc:
            host.fail(exc, "History")
            return
        if history_entry.connection_record(self.options) != entry.connection:
            # Read on another connection: that one, as E would make it, then the entry.
            options = reopening.connection

            def connected(client: Any) -> None:
                self._reconnected(host, options, client)
                reopen_on(host, self._client, reopening, self._query, answer)

            host.call(
                lambda: connect_for(options, table_of(reopening)),
                connected,
                lambda error: host.fail(error, "History"),
            )
            return
        reopen_on(host, self._client, reopening, self._query, answer)

    def palette(self, shown: DynamoShown) -> Sequence[Action]:
        return self.what_ifs.palette(shown.query, shown.pager)

    def run(self, action: str, host: Host, shown: DynamoShown, answer: DynamoAnswer) -> None:
        if action == "partiql":
            self._partiql(host, shown, self._split(host, answer))
        elif action == "what_if":
            self._what_if(host, shown)
        elif action == "plan":
            self._plan(host, shown, answer)
        elif action == "entities":
            self._entities(host, shown)

    def _plan(self, host: Host, shown: DynamoShown, answer: DynamoAnswer) -> None:
        query = shown.query
        if isinstance(query, ImaginedQuery):
            query = query.base  # the plan of the query the index was imagined for
        if not isinstance(query, DynamoQuery):
            host.say("Open a Query or Scan first: a plan costs every path that answers it.")
            return
        if query.spec.segment is not None:
            query = whole(query)  # a segment's view: the plan of the whole Scan
        self.plans.start(host, self._client, query, shown.pager, self.prices(), self._query, answer)

    def _entities(self, host: Host, shown: DynamoShown) -> None:
        """The entity view of the table (or index) the query reads."""
        from dynotui.ui.dynamodb.entities_screen import EntitiesScreen  # when asked for

        query = shown.query
        if isinstance(query, ImaginedQuery):
            query = query.base
        if not isinstance(query, DynamoQuery):
            host.say("Open a Query or Scan first: the entities are its table's.")
            return
        read, hint = self._entities_reader(query)
        key = (query.table, query.spec.index)

        def finished(done: Any) -> None:
            if done.cost is not None:  # an export's read costs no read unit
                host.count_finished(done)  # billed with the counts: a whole-table read
            if done.entities is not None:
                self.entity_tables[key] = done.entities  # for the report

        host.ask(EntitiesScreen(query, read, hint, finished), lambda _: None)

    def _entities_reader(self, query: DynamoQuery) -> tuple[Any, str]:
        """How the entity view reads, and what it says first: a bounded live sample."""
        from dynotui.ui.dynamodb.entities_screen import LIVE_HINT, live_reader

        return live_reader(self._client, query), LIVE_HINT

    def _what_if(self, host: Host, shown: DynamoShown) -> None:
        query = shown.query
        if isinstance(query, ImaginedQuery):
            query = query.base  # another estimate for the query it was imagined for
        if isinstance(query, PartiQLQuery):
            host.say(
                "What-if estimates an index for a Query or Scan; a PartiQL statement reads "
                "where it names.",
                severity="warning",
            )
            return
        if not isinstance(query, DynamoQuery):
            host.say("Open a query first: a what-if estimates an index for it.")
            return
        if query.spec.segment is not None:
            query = whole(query)  # a segment's view: the index would serve the whole Scan
        self.what_ifs.start(host, self._client, query, self.prices(), self._code_target)

    def _code_target(self) -> Any:
        from dynotui.dynamodb.codegen import code_target

        return code_target(self._client)

    def close(self) -> None:
        if self.preread is not None:
            self.preread.close()

    # -- opening a table ----------------------------------------------------------------

    def _opened(self, host: Host, opened: Opened, answer: DynamoAnswer) -> None:
        """The table (and page 1) read while the app loaded, as far as it got."""
        page_given = False
        try:
            page_given = self._show_opened(host, opened, answer)
        finally:
            self.warming.handed_over(host, page_given)

    def _show_opened(self, host: Host, opened: Opened, answer: DynamoAnswer) -> bool:
        """What was read at open, shown; True if that is a page of items (read already)."""
        form = self.form
        preread = self.preread
        if preread is not None and preread.label and preread.label != self._label:
            self._label = preread.label  # as the client says
            host.connection_changed()
        if opened.error is not None:
            host.fail(opened.error, f"Table {self.table}")
        if opened.schema is None:
            if opened.error is None:
                self._listed_at_open = opened.tables
                self.choose_table(host, answer)
            return False
        if opened.spec is not None and opened.page is None and wanted_segments(form) > 1:
            # A segmented Scan: page 1 of each segment is read by the view, as it opens it.
            answer(NewStack(self._query(opened.schema, form, opened.spec)))
        elif opened.pager is not None and opened.page is not None and opened.spec is not None:
            query = self._query(opened.schema, form, opened.spec)
            answer(NewStack(query, first_page=FirstPage(opened.pager, opened.page)))
            return True
        else:
            self._edit(host, Shown(), opened.schema, form, answer)
        return False

    def _load_table(
        self, host: Host, name: str, form: QueryForm, open_form: bool, answer: DynamoAnswer
    ) -> None:
        """DescribeTable in the background; then the form, or the query straight away."""
        client = self._client

        def described(schema: TableSchema) -> None:
            chosen = form if form.order in {o.name for o in schema.orders} else QueryForm()
            if open_form:
                self._edit(host, Shown(), schema, chosen, answer)
                return
            try:
                spec = build_spec(schema, chosen)
            except InputError as exc:
                host.say(str(exc), title="Query", severity="error")
                self._edit(host, Shown(), schema, chosen, answer)
                return
            answer(NewStack(self._query(schema, chosen, spec)))

        host.open_table(
            name,
            lambda: describe_table(client, name),
            described,
            lambda error: host.fail(error, f"Table {name}"),
        )

    # -- queries ------------------------------------------------------------------------

    def _split(self, host: Host, answer: DynamoAnswer) -> DynamoAnswer:
        """``answer``, with a Scan the form splits answered in its segments."""
        return split(host, self.segment_clients, self.measurements, answer)

    def _query(self, schema: TableSchema, form: QueryForm, spec: QuerySpec) -> DynamoQuery:
        return DynamoQuery(schema, form, spec, self.measurements)

    def _schema_for(self, shown: DynamoShown) -> TableSchema | None:
        """The table of the view's query, else of the main view's (a compare side with no
        query yet starts from the table the main view reads)."""
        for query in _readable(shown.queries):
            return query.schema
        return None

    def _form_of(self, shown: DynamoShown) -> QueryForm:
        for query in _readable(shown.queries):
            return query.form
        return QueryForm()

    def _answering(self, answer: DynamoAnswer) -> Callable[[DynamoDBQuery | None], None]:
        """A form's answer as a new stack (its query sharing what each order measured)."""

        def done(query: DynamoDBQuery | None) -> None:
            if query is not None:
                answer(NewStack(self._with_measurements(query)))

        return done

    def _edit(
        self,
        host: Host,
        shown: DynamoShown,
        schema: TableSchema,
        form: QueryForm,
        answer: DynamoAnswer,
        note: str = "",
    ) -> None:
        """The query form, on the view's query (the PartiQL tab for a statement)."""
        from dynotui.ui.dynamodb.query_screen import QueryScreen

        current = shown.query
        statement, tab = None, "query-tab"
        if isinstance(current, PartiQLQuery) and not note:
            statement, tab = current.statement, "partiql-tab"
        host.ask(QueryScreen(schema, form, note, statement, tab), self._answering(answer))

    def _with_measurements(self, query: DynamoDBQuery) -> DynamoDBQuery:
        if isinstance(query, DynamoQuery):
            return DynamoQuery(query.schema, query.form, query.spec, self.measurements)
        return query

    def _partiql(self, host: Host, shown: DynamoShown, answer: DynamoAnswer) -> None:
        from dynotui.ui.dynamodb.query_screen import QueryScreen

        schema = self._schema_for(shown)
        if schema is None:
            return
        current = shown.query
        statement = current.statement if isinstance(current, PartiQLQuery) else None
        form = self._form_of(shown)
        host.ask(QueryScreen(schema, form, "", statement, "partiql-tab"), self._answering(answer))

    # -- the connection -----------------------------------------------------------------

    def _reconnected(self, host: Host, options: ConnectionOptions, client: Any) -> None:
        if self.preread is not None:
            self.preread.close()  # its child read for the old connection: not needed now
        self._client = client
        self.options = options
        self.segment_clients.reset(options, client)
        self._label = describe(client, options)
        host.connection_changed()
        host.say(
            f"Connected to {self._label} (it answered). The stacks are kept; R retries a "
            "failed move.",
            title="Connection",
        )


def _readable(queries: Iterable[object]) -> Iterator[DynamoDBQuery]:
    """The queries that read the table, in order: an imagined index's stands for the query
    it was imagined for (e and o start from what was estimated)."""
    for query in queries:
        if isinstance(query, ImaginedQuery):
            query = query.base
        if isinstance(query, DynamoQuery | PartiQLQuery):
            yield query
