"""What a view does to its query: open a table, edit, switch order, mode or direction.

Each builds a whole new query and hands it to ``start``; nothing changes on screen
until that query's first page arrives, and a query refused here changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message

from dynotui.core.errors import DynotuiError, InputError
from dynotui.dynamodb.query_form import QueryForm, build_spec, for_order
from dynotui.dynamodb.schema import TableSchema, describe_table
from dynotui.ui.background import run_in_background
from dynotui.ui.dynamodb_query import DynamoQuery
from dynotui.ui.safe import notify

if TYPE_CHECKING:
    from dynotui.ui.pager_view import PagerView


class SchemaLoaded(Message):
    def __init__(self, name: str, form: QueryForm, open_form: bool, result: Any) -> None:
        super().__init__()
        self.name = name
        self.form = form
        self.open_form = open_form
        self.result = result  # a TableSchema, or the error


def load_table(view: PagerView, name: str, form: QueryForm, open_form: bool) -> None:
    """DescribeTable in the background; then the form, or the query straight away."""
    client = view.session.client
    view.begin_opening(name)
    run_in_background(
        view,
        lambda: describe_table(client, name),
        lambda schema: SchemaLoaded(name, form, open_form, schema),
        lambda error: SchemaLoaded(name, form, open_form, error),
    )


def schema_loaded(view: PagerView, message: SchemaLoaded) -> None:
    if not view.end_opening(message.name):
        return  # abandoned with Esc meanwhile
    result = message.result
    if isinstance(result, BaseException):
        words = str(result) if isinstance(result, DynotuiError) else repr(result)
        notify(view, words, title=f"Table {message.name}", severity="error", timeout=10)
        return
    form = message.form
    if form.order not in {o.name for o in result.orders}:
        form = QueryForm()
    if message.open_form:
        edit_query(view, result, form)
        return
    try:
        spec = build_spec(result, form)
    except InputError as exc:
        notify(view, str(exc), title="Query", severity="error")
        edit_query(view, result, form)
        return
    view.start(DynamoQuery(result, form, spec))


def edit_query(
    view: PagerView,
    schema: TableSchema | None = None,
    form: QueryForm | None = None,
    note: str = "",
) -> None:
    """The query form, on this view's query (the PartiQL tab for a statement)."""
    state = view.state
    if schema is None:
        if state is None:
            return
        schema = state.query.schema
    if form is None:
        form = getattr(state.query, "form", None) if state is not None else None
        form = form or QueryForm()
    from dynotui.ui.query_screen import QueryScreen

    statement = None
    tab = "query-tab"
    if state is not None and state.query.kind == "partiql" and not note:
        statement, tab = getattr(state.query, "statement", None), "partiql-tab"

    def done(query: Any) -> None:
        if query is not None:
            view.start(query)

    view.app.push_screen(QueryScreen(schema, form, note, statement, tab), done)


def choose_order(
    view: PagerView, schema: TableSchema | None = None, base: QueryForm | None = None
) -> None:
    """Pick an order; the form keeps what applies from this view's query, or from
    ``base`` (the compare view's left query, for a side with none yet)."""
    from dynotui.ui.picker_screen import PickerScreen

    state = view.state
    schema = schema or (state.query.schema if state else None)
    if schema is None:
        return
    current = getattr(state.query, "form", None) if state is not None else None
    current = current or base or QueryForm()
    note = schema.count_note()
    choices = []
    for order in schema.orders:
        count = "?" if order.item_count is None else f"~{order.item_count:,}"
        choices.append((order.name, f"{order.describe()} · {count} items"))

    def chosen(name: str | None) -> None:
        if name:
            form, note = for_order(current, schema, name)
            edit_query(view, schema, form, note)

    view.app.push_screen(
        PickerScreen(f"Sort orders of {schema.name}\nItem counts: {note}", choices), chosen
    )


def restart_with(view: PagerView, what: str, **changes: Any) -> None:
    """The same query with other options (mode, direction): a new stack, if it is valid."""
    state = view.state
    if state is None:
        return
    query = state.query
    if not isinstance(query, DynamoQuery):
        notify(
            view,
            "A PartiQL statement pages one ExecuteStatement call per page, in the order its "
            "SELECT reads: no fill mode, no direction to flip.",
            title=what,
            severity="warning",
        )
        return
    form = query.form.with_(**changes)
    try:
        spec = build_spec(query.schema, form)
    except InputError as exc:
        notify(view, f"{exc} — nothing was changed.", title=what, severity="error")
        return
    new = DynamoQuery(query.schema, form, spec)
    if "mode" in changes:
        # Page boundaries differ between modes: a new stack from where this one began.
        view.start(new, state.pager.start_key_of(1), note=f"{spec.mode} mode: a new cursor stack")
    else:
        order = "descending" if form.descending else "ascending"
        view.start(new, None, note=f"{order}: a new cursor stack from the start")


def toggle_mode(view: PagerView) -> None:
    state = view.state
    if state is None:
        return
    spec = getattr(state.query, "spec", None)
    mode = "fill" if spec is not None and spec.mode == "raw" else "raw"
    restart_with(view, "Mode", mode=mode)


def flip_direction(view: PagerView) -> None:
    state = view.state
    if state is None:
        return
    query = state.query
    if isinstance(query, DynamoQuery) and query.spec.scan:
        notify(view, "A Scan has no direction.", severity="warning")
        return
    descending = not query.form.descending if isinstance(query, DynamoQuery) else False
    restart_with(view, "Direction", descending=descending)
