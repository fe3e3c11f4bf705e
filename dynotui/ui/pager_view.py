"""One pager on screen: its query line, status, results table and cost sidebar.

The main screen shows one; the compare screen shows two, each with its own order,
keys, stack and costs. Every DynamoDB call runs in a thread worker of one exclusive
group per view, so a new move cancels the one in flight and a late answer to a
cancelled one is dropped. The view adds no paging logic: figures come from the core.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.worker import Worker, WorkerState, get_current_worker

from dynotui.core.advisor import advise, tied_rows
from dynotui.core.errors import DynotuiError, InputError
from dynotui.core.expressions import substitute
from dynotui.core.page import HasNext, Page
from dynotui.core.pager import Move, Pager, StalePageError, Target
from dynotui.core.query_form import QueryForm, build_spec
from dynotui.core.schema import ITEM_COUNT_NOTE, TableSchema, describe_table
from dynotui.core.spec import QuerySpec
from dynotui.ui.cells import cell, columns
from dynotui.ui.item_screen import ItemScreen
from dynotui.ui.picker_screen import PickerScreen
from dynotui.ui.query_screen import QueryScreen
from dynotui.ui.sidebar import CostSidebar
from dynotui.ui.stack_screen import StackScreen

NAV = "navigation"


def _resolved(expression: str, spec: QuerySpec) -> str:
    values = {}
    for name, value in spec.values.items():
        ((kind, inner),) = value.items()
        values[name] = repr(inner) if kind == "S" else str(inner)
    return substitute(expression, spec.names, values)


def describe_spec(spec: QuerySpec, schema: TableSchema) -> str:
    order = schema.order(spec.index)
    what = "Scan (reads the whole table)" if spec.scan else "Query"
    parts = [f"{what} {schema.name} · {order.name} ({order.kind})"]
    if spec.key_condition:
        parts.append(_resolved(spec.key_condition, spec))
    if spec.filter:
        parts.append("filter " + _resolved(spec.filter, spec))
    parts.append("desc" if not spec.forward and not spec.scan else "asc")
    parts.append(f"{spec.mode} · {spec.page_size}/page")
    if order.kind == "gsi":
        parts.append("eventually consistent")
    if order.projection != "ALL":
        parts.append(f"projects {order.projection}")
    return " · ".join(parts)


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
    ties = tied_rows(page, pager.schema.order(pager.spec.index))
    if ties:
        line += f" · {ties} rows tie on the index key: no defined order among them"
    if page.empty_with_key:
        line += (
            " · EMPTY PAGE WITH A KEY: DynamoDB evaluated items but none passed the filter;"
            " this is not the end, press n"
        )
    return line


class PagerView(Horizontal):
    """A pager with its own schema, form, stack and costs."""

    class PageShown(Message):
        def __init__(self, view: PagerView, page: Page) -> None:
            super().__init__()
            self.view = view
            self.page = page

    def __init__(
        self,
        client: Any,
        *,
        form: QueryForm | None = None,
        clock: Callable[[], float] = time.perf_counter,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.client = client
        self.form = form or QueryForm()
        self.clock = clock
        self.schema: TableSchema | None = None
        self.pager: Pager | None = None
        self._pending: Pager | None = None  # a new query until its first page arrives

    def compose(self) -> ComposeResult:
        with Vertical(classes="results-pane"):
            yield Static("", id="query-line")
            yield Static("", id="status-line")
            yield DataTable(id="results", cursor_type="row", zebra_stripes=True)
        yield CostSidebar(id="sidebar")

    @property
    def table(self) -> DataTable:
        return self.query_one("#results", DataTable)

    # -- tables, orders, queries ---------------------------------------------------------

    @work(thread=True, exclusive=True, group="schema")
    def load_table(self, name: str, open_form: bool = False) -> None:
        try:
            schema = describe_table(self.client, name)
        except DynotuiError as exc:
            self.app.call_from_thread(self.notify, str(exc), title="Table", severity="error")
            return
        self.app.call_from_thread(self._table_loaded, schema, open_form)

    def _table_loaded(self, schema: TableSchema, open_form: bool) -> None:
        self.schema = schema
        if self.form.order not in {o.name for o in schema.orders}:
            self.form = QueryForm()
        if open_form:
            self.edit_query()
            return
        try:
            spec = build_spec(schema, self.form)
        except InputError as exc:
            self.notify(str(exc), title="Query", severity="error")
            self.edit_query()
            return
        self.start(spec)

    def use_query(self, schema: TableSchema, form: QueryForm) -> None:
        """Open this view on a query already known to be valid (the compare screen's left)."""
        self.schema = schema
        self.form = form
        self.start(build_spec(schema, form))

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
        self.table.loading = True
        self.read_page(candidate, candidate.plan("next"))

    def choose_order(self) -> None:
        if self.schema is None:
            return
        schema = self.schema
        choices = []
        for order in schema.orders:
            count = "?" if order.item_count is None else f"~{order.item_count:,}"
            choices.append((order.name, f"{order.describe()} · {count} items (stale)"))

        def chosen(name: str | None) -> None:
            if name and (name != self.form.order or self.pager is None):
                self.form = QueryForm(
                    order=name, page_size=self.form.page_size, mode=self.form.mode
                )
                self.edit_query()

        self.app.push_screen(
            PickerScreen(f"Sort orders of {schema.name} — item counts: {ITEM_COUNT_NOTE}", choices),
            chosen,
        )

    def edit_query(self) -> None:
        if self.schema is None:
            return

        def done(result: tuple[QueryForm, QuerySpec] | None) -> None:
            if result:
                self.form, spec = result
                self.start(spec)

        self.app.push_screen(QueryScreen(self.schema, self.form), done)

    def toggle_mode(self) -> None:
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
        self.table.loading = True
        self.read_page(self.pager, move)

    @work(thread=True, exclusive=True, group=NAV)
    def read_page(self, pager: Pager, move: Move) -> None:
        worker = get_current_worker()
        try:
            page = pager.read(move)
        except DynotuiError as exc:
            if not worker.is_cancelled:
                self.app.call_from_thread(
                    self.notify,
                    f"{exc} — the pages read so far are kept.",
                    title=f"Page {move.number}",
                    severity="error",
                    timeout=8,
                )
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._accept, pager, page)

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
        self.table.loading = any(
            w.group == NAV and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
            for w in self.workers
            if w.node is self
        )

    def show(self, page: Page) -> None:
        assert self.pager is not None and self.schema is not None
        table = self.table
        table.clear(columns=True)
        order = self.schema.order(self.pager.spec.index)
        key_names = self.schema.cursor_key_names(self.pager.spec.index)
        # Known attributes this order does not carry get a column saying so, rather than
        # looking like values that are missing.
        asked = self.pager.spec.projected_names() or self.schema.not_projected(
            self.pager.spec.index
        )
        names = columns(page.items, key_names, asked)
        for name in names:
            table.add_column(name, key=name)
        projected = {name: order.projects(name, self.schema.table_key_names) for name in names}
        for index, item in enumerate(page.items):
            table.add_row(*(cell(item.get(n), projected[n]) for n in names), key=str(index))
        self.query_one("#status-line", Static).update(status_line(self.pager))
        series = self.pager.series()
        findings = advise(self.schema, self.pager.spec, series, self.pager.totals)
        self.query_one(CostSidebar).show(page, self.pager.totals, series, findings)
        self.post_message(self.PageShown(self, page))

    # -- views of the stack and of items -------------------------------------------------

    def show_stack(self) -> None:
        if self.pager is None:
            return

        def jump(number: int | None) -> None:
            if number:
                self.navigate(number)

        self.app.push_screen(
            StackScreen(
                self.pager.stack,
                self.pager.number,
                self.pager.cached_numbers(),
                self.pager.schema.cursor_key_names(self.pager.spec.index),
            ),
            jump,
        )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if self.pager is None or self.pager.current is None or event.data_table is not self.table:
            return
        event.stop()
        index = int(event.row_key.value or 0)
        page = self.pager.current
        self.app.push_screen(ItemScreen(page.items[index], f"Page {page.number}, item {index + 1}"))
