"""A table export in the app: ``dynotui --from-export PATH`` pages the export as the live
table pages, with DuckDB and no read units (``table_export/source.py``), in the key order
of the table or an index, both directions.

Everything that opens a stack here makes an ``ExportQuery``, whose source is the export,
so no key of the app reaches the live table: the query form, the order picker, the mode,
history and cursors all answer with pages of the export. Every page says it comes from
the export and when that was taken; the title bar names the export. ``#`` counts the
filter over the whole export (exact, 0 read units), ``H`` shows the largest partitions
(Enter opens one as a Query), ``c`` gives the Athena SQL of the same question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from dynotui.core.errors import InputError
from dynotui.core.history import HistoryEntry, HistoryQuery
from dynotui.core.ledger import SessionLedger
from dynotui.core.page import Page
from dynotui.core.text import visible
from dynotui.dynamodb.query_form import QueryForm, build_spec
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.spec import QuerySpec
from dynotui.report.model import Report
from dynotui.table_export.reading import OpenExport
from dynotui.table_export.source import ExportSource
from dynotui.ui.actions import Action, reworded
from dynotui.ui.adapter import NewStack
from dynotui.ui.dynamodb.adapter import DynamoDBAdapter
from dynotui.ui.dynamodb.keys import ACTIONS
from dynotui.ui.dynamodb.plans import PLAN
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.dynamodb.stacks import (
    DynamoAnswer,
    DynamoDBQuery,
    DynamoPager,
    DynamoQueryShown,
    DynamoShown,
    DynamoStack,
)
from dynotui.ui.dynamodb.what_ifs import WHAT_IF
from dynotui.ui.host import Counted, Host
from dynotui.ui.query import Clock, CodeTab

PARTITIONS = Action(
    "H", "db('partitions')", "Partitions", "The export's largest partitions: Enter opens one", True
)
TOP_PARTITIONS = 100


def export_time(opened: OpenExport) -> str:
    return opened.export.export_time.strftime("%Y-%m-%d %H:%M UTC")


@dataclass(frozen=True)
class ExportQuery(DynamoQuery):
    """A Query or Scan of the export: its pages come from the export's files."""

    opened: OpenExport | None = field(default=None, compare=False)

    @property
    def export(self) -> OpenExport:
        assert self.opened is not None
        return self.opened

    def make_source(self, client: object, clock: Clock) -> Any:  # an ExportSource
        return ExportSource(self.export, self.spec, self.schema, clock=clock)

    def title(self) -> str:
        # What the live read would cost is not this one's: no mode, nothing billed.
        words = [w for w in super().title().split(" · ") if w not in ("raw", "fill")]
        words[0] = re.sub(r" \(reads the whole [^)]*\)", "", words[0])
        return visible(
            f"Export of {export_time(self.export)} (not live data) · " + " · ".join(words)
        )

    def notes(self, page: Page[Any]) -> list[str]:
        return [f"from the export of {export_time(self.export)}, 0 read units"]

    def code(self, page: Page[Any], target: object) -> dict[str, CodeTab]:
        from dynotui.table_export.athena import athena_code  # when asked for

        order = self.order
        index_keys: tuple[tuple[str, str], ...] = ()
        if order.kind != "table":
            index_keys = tuple(
                (key.name, key.type) for key in (order.partition_key, order.sort_key) if key
            )
        try:
            code = athena_code(self.spec, self.export.export, None, index_keys)
        except InputError as exc:
            return {"athena": CodeTab("Athena", "sql", f"-- not written: {exc}")}
        return {
            "export": CodeTab("Make an export (AWS CLI)", "bash", code.export_command),
            "create": CodeTab("Athena: CREATE EXTERNAL TABLE", "sql", code.create_table),
            "select": CodeTab("Athena: the count", "sql", code.select),
        }


class ExportAdapter(DynamoDBAdapter):
    """The DynamoDB adapter on an export: what opens is always an ``ExportQuery``; what
    needs the live table (tables, the connection, PartiQL, segments) says so instead."""

    def __init__(
        self, opened: OpenExport, schema: TableSchema, form: QueryForm, label: str = ""
    ) -> None:
        super().__init__(
            None,
            _no_connection(),
            label=label or f"export {opened.export.table_name} · {export_time(opened)}",
            table=opened.export.table_name,
            form=form,
        )
        self.opened = opened
        self.schema = schema

    # -- every query an ExportQuery -------------------------------------------------------

    def _query(self, schema: TableSchema, form: QueryForm, spec: QuerySpec) -> DynamoQuery:
        return ExportQuery(schema, form.with_(segments="1"), spec, self.measurements, self.opened)

    def _with_measurements(self, query: DynamoDBQuery) -> DynamoDBQuery:
        if isinstance(query, DynamoQuery):
            return self._query(query.schema, query.form, query.spec)
        return query  # a PartiQL statement never gets here: refused at its key

    # -- opening ---------------------------------------------------------------------------

    def open(self, host: Host, answer: DynamoAnswer) -> None:
        form = self.form
        try:
            spec = build_spec(self.schema, form)
        except InputError as exc:
            host.say(str(exc), title="Query", severity="error")
            self._edit(host, NO_QUERY, self.schema, form, answer)
            return
        answer(NewStack(self._query(self.schema, form, spec)))

    def started(self) -> None:
        pass

    def actions(self) -> Sequence[Action]:
        # A statement, an index, a plan: the live table's.
        live = ("db('partiql')", WHAT_IF.action, PLAN.action)
        # Another table and the connection keep their keys, so a press is answered, but the
        # help and the palette say what they do here instead of offering what they cannot.
        words = {
            "show_code": ("Code", "Make an export with the AWS CLI; query it with Athena"),
            "choose_table": ("Tables", "None here: an export holds one table"),
            "connection": ("Connection", "None here: an export is read from its files"),
        }
        return [*reworded([a for a in ACTIONS if a.action not in live], words), PARTITIONS]

    def palette(self, shown: DynamoShown) -> Sequence[Action]:
        return []  # no what-if is offered: the export's keys keep their words

    def client(self, side: Any) -> object:
        return None  # an export is read with DuckDB

    def choose_table(self, host: Host, answer: DynamoAnswer) -> None:
        host.say("An export holds one table: this one.", severity="warning")

    def reconnect(self, host: Host, shown: DynamoShown, *_: Any) -> None:
        host.say(
            "An export is read from its files, with no connection to DynamoDB.", severity="warning"
        )

    def run(self, action: str, host: Host, shown: DynamoShown, answer: DynamoAnswer) -> None:
        if action == "partitions":
            self._partitions(host, shown, answer)
        elif action == "entities":
            self._entities(host, shown)  # the whole export, exact, 0 read units
        else:
            host.say("That reads the live table; this app reads an export.", severity="warning")

    def _entities_reader(self, query: DynamoQuery) -> tuple[Any, str]:
        """The entity view of an export: every item read, exact, with no read unit."""
        from dynotui.table_export.entities import export_entities
        from dynotui.ui.dynamodb.entities_screen import EntitiesRead

        if not isinstance(query, ExportQuery):
            return super()._entities_reader(query)
        opened, schema, index = query.export, query.schema, query.spec.index

        def read(cancel: Any, report: Any, spent: Any) -> EntitiesRead:
            found = export_entities(opened, schema, index=index, cancel=cancel)
            return EntitiesRead(found, None, True)

        return read, "Enter reads the whole export (0 read units); Esc closes."

    # -- whole-export questions -------------------------------------------------------------

    def count(
        self, host: Host, shown: DynamoShown, counted: Callable[[Counted | None], None]
    ) -> None:
        from dynotui.table_export.count import count_export

        query = shown.query
        if not isinstance(query, ExportQuery):
            return
        opened = self.opened

        def work() -> Any:
            with opened.lock:
                return count_export(opened, query.spec, query.schema)

        def done(result: Any) -> None:
            host.say(f"{result.summary()} (the whole export).", title="Count", timeout=20)
            counted(result)

        host.say("Counting the whole export (DuckDB, no read units)…", title="Count")
        host.call(work, done, lambda error: host.fail(error, "Count"))

    def _partitions(self, host: Host, shown: DynamoShown, answer: DynamoAnswer) -> None:
        from dynotui.table_export.count import partition_sizes
        from dynotui.ui.screens.picker import PickerScreen

        query = shown.query
        if not isinstance(query, ExportQuery):
            return
        opened, schema = self.opened, query.schema
        order = query.order

        def work() -> Any:
            with opened.lock:
                return partition_sizes(opened, query.spec, schema, TOP_PARTITIONS)

        def found(sizes: Any) -> None:
            choices = []
            for rank, part in enumerate(sizes.top, start=1):
                ((kind, value),) = part.key.items()
                share = part.items / sizes.items if sizes.items else 0.0
                choices.append(
                    (
                        str(rank - 1),
                        f"{rank:>3}. {visible(value)} ({kind}) · {part.items:,} items "
                        f"({share:.1%}) · {part.json_bytes:,} bytes",
                    )
                )
            title = (
                f"Largest partitions of {order.name} by {order.partition_key.name} "
                f"({sizes.partitions:,} values, {sizes.items:,} items kept by the filter), "
                f"export of {export_time(opened)} — Enter opens one as a Query"
            )

            def chosen(rank: str | None) -> None:
                if rank is None:
                    return
                ((_kind, value),) = sizes.top[int(rank)].key.items()
                # The form's text of the value: a number's digits, binary as base64.
                text = value if isinstance(value, str) else str(value)
                form = replace(query.form, scan=False, partition_value=text, segments="1")
                try:
                    spec = build_spec(schema, form)
                except InputError as exc:
                    host.fail(exc, "Partitions")
                    return
                answer(NewStack(self._query(schema, form, spec)))

            host.ask(PickerScreen(title, choices), chosen)

        host.call(work, found, lambda error: host.fail(error, "Partitions"))

    def report(
        self, pagers: Sequence[DynamoPager], ledger: SessionLedger, code_page: int
    ) -> Report:
        from dynotui.table_export.report import export_report
        from dynotui.ui.dynamodb.entity_report import with_entities

        return with_entities(export_report(pagers[0]), pagers[:1], self.entity_tables)

    def code_target(self) -> object:
        return None

    def history_query(self, query: DynamoQueryShown) -> HistoryQuery | None:
        return None  # a page of an export reopens only from the export

    def reopen(self, host: Host, entry: HistoryEntry, answer: DynamoAnswer) -> None:
        host.say("History reopens live queries; this app reads an export.", severity="warning")

    def toggle_mode(self, host: Host, shown: DynamoShown) -> DynamoStack | None:
        host.say("An export's pages are exact pages in key order: no raw or fill.")
        return None

    def close(self) -> None:
        self.opened.close()


NO_QUERY: DynamoShown = DynamoShown()


def _no_connection() -> Any:
    from dynotui.dynamodb.connection import ConnectionOptions

    return ConnectionOptions()
