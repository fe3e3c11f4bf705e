"""The dynotui app: results, cursor stack and cost sidebar over one Pager.

The app adds no paging logic: every figure it shows comes from the core's Pager and
Page. boto3 calls run in thread workers of one exclusive group, so a new navigation
cancels the one in flight and a late answer to a cancelled one is dropped.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable
from typing import Any

import pyperclip
from textual import work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import Worker, WorkerState, get_current_worker

from dynotui.core.cursor import CursorSigner
from dynotui.core.errors import DynotuiError, InputError
from dynotui.core.page import HasNext, Page
from dynotui.core.pager import Move, Pager, StalePageError, Target
from dynotui.core.query_form import QueryForm, build_spec
from dynotui.core.schema import ITEM_COUNT_NOTE, TableSchema, describe_table, list_tables
from dynotui.core.spec import QuerySpec
from dynotui.ui.cells import cell, columns
from dynotui.ui.item_screen import ItemScreen
from dynotui.ui.picker_screen import PickerScreen
from dynotui.ui.query_screen import QueryScreen
from dynotui.ui.share import ShareActions
from dynotui.ui.sidebar import CostSidebar
from dynotui.ui.stack_screen import StackScreen

NAV = "navigation"

# key, action, title, help, shown in the footer; the help panel and the command
# palette list them all.
ACTIONS = [
    ("n,right", "next", "Next", "Read the next page from the start key stored for it", True),
    ("p,left", "prev", "Prev", "Previous page: cached, or re-read from its start key", True),
    ("g,home", "first", "First", "Go to page 1", True),
    ("r", "refresh", "Refresh", "Re-read the current page", True),
    ("m", "toggle_mode", "Raw/Fill", "Toggle raw and fill mode (a new cursor stack)", True),
    ("o", "choose_order", "Order", "Choose a sort order: base table, LSI or GSI", True),
    ("e", "edit_query", "Query", "Edit the query: keys, filter, projection, page size", True),
    ("s", "show_stack", "Stack", "The cursor stack: jump to any page reached", True),
    ("t", "choose_table", "Tables", "Choose another table", False),
    ("c", "show_code", "Code", "Code that reproduces this page: boto3, AWS CLI, JS", True),
    ("y", "copy_item(False)", "Copy item", "Copy the selected item as plain JSON", False),
    ("Y", "copy_item(True)", "Copy item (DynamoDB JSON)", "Copy the item, lossless", False),
    ("a", "copy_page", "Copy page", "Copy the page as JSON lines (DynamoDB JSON)", False),
    ("k", "copy_next_token", "Copy next cursor", "Copy a signed cursor of the next page", True),
    ("K", "copy_current_token", "Copy this cursor", "Copy a signed cursor of this page", False),
    ("x", "copy_start_key", "Copy start key", "Copy this page's start key (DynamoDB JSON)", False),
    ("v", "paste_cursor", "Paste cursor", "Open the page a pasted cursor token points at", True),
    ("i", "inspect_cursor", "Inspect cursor", "Decode a cursor token and check it", False),
    ("question_mark", "help", "Help", "Show or hide the help panel with every key", True),
    ("q", "quit", "Quit", "Quit dynotui", True),
]


def describe_spec(spec: QuerySpec, schema: TableSchema) -> str:
    order = schema.order(spec.index)
    what = "Scan" if spec.scan else "Query"
    parts = [f"{what} {schema.name} · {order.name} ({order.kind})"]
    if spec.key_condition:
        parts.append(_resolved(spec.key_condition, spec))
    if spec.filter:
        parts.append("filter " + _resolved(spec.filter, spec))
    parts.append("desc" if not spec.forward and not spec.scan else "asc")
    parts.append(f"{spec.mode} · {spec.page_size}/page")
    if order.kind == "gsi":
        parts.append("eventually consistent")
    return " · ".join(parts)


def _resolved(expression: str, spec: QuerySpec) -> str:
    from dynotui.core.expressions import substitute

    values = {}
    for name, value in spec.values.items():
        ((kind, inner),) = value.items()
        values[name] = repr(inner) if kind == "S" else str(inner)
    return substitute(expression, spec.names, values)


def status_line(pager: Pager) -> str:
    page = pager.current
    if page is None:
        return "No page read yet: press n to read page 1."
    words = {
        HasNext.YES: "a next page exists",
        HasNext.UNKNOWN: "more may follow",
        HasNext.NO: "this is the last page",
    }[page.has_next]
    line = f"Page {page.number} · {len(page.items)} items · {words}"
    if page.cached:
        line += " · served from cache"
    if page.empty_with_key:
        line += (
            " · EMPTY PAGE WITH A KEY: DynamoDB evaluated items but none passed the filter;"
            " this is not the end, press n"
        )
    return line


class DynotuiApp(ShareActions, App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "dynotui"
    BINDINGS = [
        Binding(key, action, title, show=shown, tooltip=help_text)
        for key, action, title, help_text, shown in ACTIONS
    ]

    def __init__(
        self,
        client: Any,
        *,
        connection_label: str = "",
        table: str | None = None,
        form: QueryForm | None = None,
        clock: Callable[[], float] = time.perf_counter,
        signer: CursorSigner | None = None,
        system_copy: Callable[[str], None] = pyperclip.copy,
    ) -> None:
        super().__init__()
        self._signer = signer
        self.system_copy = system_copy
        self.client = client
        self.connection_label = connection_label
        self.initial_table = table
        self.form = form or QueryForm()
        self.clock = clock
        self.schema: TableSchema | None = None
        self.pager: Pager | None = None
        self._pending: Pager | None = None  # a new query until its first page arrives

    # -- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="results-pane"):
                yield Static("", id="query-line")
                yield Static("", id="status-line")
                yield DataTable(id="results", cursor_type="row", zebra_stripes=True)
            yield CostSidebar(id="sidebar")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.connection_label
        if self.initial_table:
            self.load_table(
                self.initial_table, open_form=not self.form.partition_value and not self.form.scan
            )
        else:
            self.action_choose_table()

    # -- tables, orders, queries ---------------------------------------------------------

    @work(thread=True, exclusive=True, group="schema")
    def load_table(self, name: str, open_form: bool = False) -> None:
        try:
            schema = describe_table(self.client, name)
        except DynotuiError as exc:
            self.call_from_thread(self.notify, str(exc), title="Table", severity="error")
            return
        self.call_from_thread(self._table_loaded, schema, open_form)

    def _table_loaded(self, schema: TableSchema, open_form: bool) -> None:
        self.schema = schema
        if self.form.order not in {o.name for o in schema.orders}:
            self.form = QueryForm()
        if open_form:
            self.action_edit_query()
            return
        try:
            spec = build_spec(schema, self.form)
        except InputError as exc:
            self.notify(str(exc), title="Query", severity="error")
            self.action_edit_query()
            return
        self.start(spec)

    def start(self, spec: QuerySpec, start_key: Any = None) -> None:
        """A new stack (the scope changed). It replaces the current one only once its
        first page has been read, so a query that fails keeps what is on screen."""
        assert self.schema is not None
        try:
            candidate = Pager(self.client, spec, self.schema, start_key=start_key, clock=self.clock)
        except InputError as exc:
            self.notify(str(exc), title="Query", severity="error")
            return
        self._pending = candidate
        self.query_one("#results", DataTable).loading = True
        self.read_page(candidate, candidate.plan("next"))

    @work(thread=True, exclusive=True, group="schema")
    def action_choose_table(self) -> None:
        try:
            names = list_tables(self.client)
        except DynotuiError as exc:
            self.call_from_thread(self.notify, str(exc), title="Tables", severity="error")
            return

        def chosen(name: str | None) -> None:
            if name:
                self.form = QueryForm()
                self.load_table(name, open_form=True)

        self.call_from_thread(
            self.push_screen,
            PickerScreen(f"Tables ({len(names)}) — Enter opens one", [(n, n) for n in names]),
            chosen,
        )

    def action_choose_order(self) -> None:
        if self.schema is None:
            return
        schema = self.schema
        choices = []
        for order in schema.orders:
            count = "?" if order.item_count is None else f"~{order.item_count:,}"
            choices.append((order.name, f"{order.describe()} · {count} items (stale)"))

        def chosen(name: str | None) -> None:
            if name and name != self.form.order:
                self.form = QueryForm(
                    order=name, page_size=self.form.page_size, mode=self.form.mode
                )
                self.action_edit_query()

        self.push_screen(
            PickerScreen(f"Sort orders of {schema.name} — item counts: {ITEM_COUNT_NOTE}", choices),
            chosen,
        )

    def action_edit_query(self) -> None:
        if self.schema is None:
            return

        def done(result: tuple[QueryForm, QuerySpec] | None) -> None:
            if result:
                self.form, spec = result
                self.start(spec)

        self.push_screen(QueryScreen(self.schema, self.form), done)

    def action_toggle_mode(self) -> None:
        if self.pager is None:
            return
        mode = "fill" if self.pager.spec.mode == "raw" else "raw"
        self.form = self.form.with_(mode=mode)
        # Page boundaries differ between modes: a new stack from where this one began.
        self.start(self.pager.spec.with_(mode=mode), self.pager.start_key_of(1))
        self.notify(f"{mode} mode: a new cursor stack from the same start")

    # -- navigation ----------------------------------------------------------------------

    def navigate(self, target: Target, fresh: bool = False) -> None:
        if self.pager is None:
            return
        try:
            move = self.pager.plan(target, fresh=fresh)
        except InputError as exc:
            self.notify(str(exc), severity="warning")
            return
        self._pending = None  # navigating the current query abandons a pending one
        if move.cached is not None:
            self.workers.cancel_group(self, NAV)
            self.show(self.pager.accept(move.cached))
            return
        self.query_one("#results", DataTable).loading = True
        self.read_page(self.pager, move)

    @work(thread=True, exclusive=True, group=NAV)
    def read_page(self, pager: Pager, move: Move) -> None:
        worker = get_current_worker()
        try:
            page = pager.read(move)
        except DynotuiError as exc:
            if not worker.is_cancelled:
                self.call_from_thread(
                    self.notify,
                    f"{exc} — the pages read so far are kept.",
                    title=f"Page {move.number}",
                    severity="error",
                    timeout=8,
                )
            return
        if not worker.is_cancelled:
            self.call_from_thread(self._accept, pager, page)

    def _accept(self, pager: Pager, page: Page) -> None:
        if pager is self._pending:
            self.pager, self._pending = pager, None  # its first page arrived: promote it
            self.query_one("#query-line", Static).update(describe_spec(pager.spec, pager.schema))
        elif pager is not self.pager:
            return  # a page of a stack that has been replaced since
        with contextlib.suppress(StalePageError):
            self.show(pager.accept(page))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != NAV or event.state == WorkerState.RUNNING:
            return
        busy = any(
            w.group == NAV and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
            for w in self.workers
        )
        self.query_one("#results", DataTable).loading = busy

    def show(self, page: Page) -> None:
        assert self.pager is not None and self.schema is not None
        table = self.query_one("#results", DataTable)
        table.clear(columns=True)
        key_names = self.schema.cursor_key_names(self.pager.spec.index)
        names = columns(page.items, key_names)
        for name in names:
            table.add_column(name, key=name)
        for index, item in enumerate(page.items):
            table.add_row(*(cell(item.get(name)) for name in names), key=str(index))
        self.query_one("#status-line", Static).update(status_line(self.pager))
        self.query_one(CostSidebar).show(page, self.pager.totals, self.pager.series())

    def action_next(self) -> None:
        self.navigate("next")

    def action_prev(self) -> None:
        self.navigate("prev")

    def action_first(self) -> None:
        self.navigate("first")

    def action_refresh(self) -> None:
        self.navigate("refresh")

    def action_help(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_show_stack(self) -> None:
        if self.pager is None:
            return

        def jump(number: int | None) -> None:
            if number:
                self.navigate(number)

        self.push_screen(
            StackScreen(
                self.pager.stack,
                self.pager.number,
                self.pager.cached_numbers(),
                self.pager.schema.cursor_key_names(self.pager.spec.index),
            ),
            jump,
        )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if self.pager is None or self.pager.current is None or event.data_table.id != "results":
            return
        index = int(event.row_key.value or 0)
        page = self.pager.current
        self.push_screen(ItemScreen(page.items[index], f"Page {page.number}, item {index + 1}"))

    # -- command palette -----------------------------------------------------------------

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for key, action, title, help_text, _ in ACTIONS:
            if action in ("quit", "help"):
                continue
            shown_key = key.split(",")[0].replace("question_mark", "?")
            yield SystemCommand(
                f"{title} ({shown_key})",
                help_text,
                lambda action=action: self.run_action(action),
            )
