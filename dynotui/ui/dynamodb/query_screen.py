"""The query form: every field of a Query or Scan, or a PartiQL SELECT; errors shown at
the field.

One line per field, so the whole form is in view at 120x35 and scrolls a little at 80x24;
the mode and the switches first. The second BETWEEN value is there only for BETWEEN, and a
sort value only with an operator, so Tab goes from the partition value to the filter in
two steps. An error stays under its field until that field changes. Keys pressed before
the form is drawn are dropped (``FormScreen``). It dismisses with the new query, ready to
start: a ``DynamoQuery`` or a ``PartiQLQuery``.
"""

from __future__ import annotations

import json

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import (
    Button,
    Checkbox,
    Footer,
    Input,
    Label,
    Select,
    TabbedContent,
    TabPane,
    TextArea,
)

from dynotui.core.errors import FieldError, InputError
from dynotui.core.numbers import is_whole
from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.dynamodb.partiql import Statement, parse_parameters
from dynotui.dynamodb.query_form import QueryForm, build_spec
from dynotui.dynamodb.schema import SortOrder, TableSchema
from dynotui.dynamodb.spec import PAGE_SIZE_MAX, SORT_OPERATORS, typed_value
from dynotui.ui.dynamodb.partiql import PartiQLQuery
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.external_editor import edit_field
from dynotui.ui.screens.form_screen import FormScreen
from dynotui.ui.widgets.form import ErrorLine, FormRow
from dynotui.ui.widgets.safe_text import plain, plain_lines

BETWEEN = "BETWEEN"
# (field, label, placeholder): the text fields of a Query or Scan, in the order of use.
TEXT_FIELDS = (
    ("partition_value", "Partition value", ""),
    ("sort_value", "", "sort key value"),
    ("sort_value2", "", "… and this (BETWEEN)"),
    ("filter", "Filter", "status = :r  (bare attribute names are fine)"),
    ("values", "Filter values", '{":r": "RETURNED"}'),
    ("projection", "Projection", "empty: every projected attribute"),
    ("page_size", "Page size", "1-1000"),
    ("max_rounds", "Max rounds", "fill mode"),
    ("segments", "Segments", "parallel Scan, 1-64; [ and ] move between them"),
)
VALUES_HINT = 'Filter values are JSON: {":r": "RETURNED"}; numbers keep every digit.'
SWITCHES = (
    ("scan", "Scan"),
    ("descending", "Descending"),
    ("consistent_read", "Consistent read"),
)


def _quoted(name: str) -> str:
    """A PartiQL quoted name: a double quote inside it is doubled."""
    return '"' + name.replace('"', '""') + '"'


def default_statement(schema: TableSchema, form: QueryForm) -> tuple[str, str]:
    """A first SELECT for the PartiQL tab: this table, its partition key, the form's value."""
    order = schema.order(form.order)
    source = _quoted(schema.name) + (f".{_quoted(order.name)}" if order.index_name else "")
    key = order.partition_key
    text = f"SELECT * FROM {source} WHERE {_quoted(key.name)} = ?"
    try:
        value = (
            typed_value(key, form.partition_value, "partition key")
            if form.partition_value
            else None
        )
    except InputError:
        value = None
    parameters = json.dumps([to_wire({"v": value})["v"]]) if value else ""
    return text, parameters


class QueryScreen(FormScreen[DynamoQuery | PartiQLQuery | None]):
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("ctrl+s", "run", "Run query"),
        Binding("ctrl+t", "switch_tab", "Query / PartiQL"),
        Binding("ctrl+o", "edit_externally", "$EDITOR"),  # ctrl+e: the fields' end of line
    ]

    def __init__(
        self,
        schema: TableSchema,
        form: QueryForm,
        note: str = "",
        statement: Statement | None = None,
        tab: str = "query-tab",
    ) -> None:
        super().__init__()
        self.schema = schema
        self.form = form
        self.note = note
        self.statement = statement
        self.tab = tab
        self.order: SortOrder = schema.order(form.order)

    def compose(self) -> ComposeResult:
        order = self.order
        sort = f" / sort key {order.sort_key}" if order.sort_key else " (no sort key)"
        with Vertical(id="query-box", classes="modal-box form"):
            yield Label(
                plain(
                    f"{self.schema.name} · {order.name} "
                    f"({'base table' if order.kind == 'table' else order.kind}): partition key "
                    f"{order.partition_key}{sort}"
                ),
                id="query-title",
                classes="modal-title",
            )
            if self.note:
                yield Label(plain_lines(self.note), id="query-note", classes="field-error")
            yield ErrorLine(id="form-error")
            with TabbedContent(initial=self.tab, id="query-tabs"):
                with TabPane("Query or Scan", id="query-tab"):
                    yield from self._query_fields()
                with TabPane("PartiQL", id="partiql-tab"):
                    yield from self._partiql_fields()
            with Horizontal(id="query-buttons"):
                yield Button("Run (ctrl+s)", variant="primary", id="run", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
        yield Footer()

    def _partiql_fields(self) -> ComposeResult:
        if self.statement is not None:
            text = self.statement.text
            parameters = json.dumps([to_wire({"v": p})["v"] for p in self.statement.parameters])
            page_size, consistent = str(self.statement.page_size), self.statement.consistent_read
        else:
            text, parameters = default_statement(self.schema, self.form)
            page_size, consistent = self.form.page_size, False
        with VerticalScroll():
            yield Label("SELECT statement (only SELECT is run; ? marks a parameter)")
            yield TextArea(text, id="statement", classes="statement")
            yield ErrorLine(id="statement-error")
            yield FormRow(
                "Parameters",
                Input(
                    value=parameters,
                    placeholder='the ?s in order, DynamoDB JSON: [{"S": "acme"}]',
                    id="parameters",
                    compact=True,
                ),
            )
            yield ErrorLine(id="parameters-error")
            yield FormRow(
                "Page size",
                Input(value=page_size, placeholder="1-1000", id="partiql_page_size", compact=True),
            )
            yield ErrorLine(id="partiql_page_size-error")
            yield FormRow(
                "Options",
                Checkbox(
                    "Consistent read", value=consistent, id="partiql_consistent", compact=True
                ),
            )

    def _query_fields(self) -> ComposeResult:
        order, form = self.order, self.form
        operator = form.sort_operator or None

        def text(name: str, placeholder: str) -> Input:
            return Input(
                value=str(getattr(form, name)), placeholder=placeholder, id=name, compact=True
            )

        with VerticalScroll():
            yield FormRow(
                "Mode",
                Select(
                    [("raw: one call per page", "raw"), ("fill: fixed-size pages", "fill")],
                    value=form.mode,
                    allow_blank=False,
                    id="mode",
                    compact=True,
                ),
            )
            switches = [
                Checkbox(label, value=bool(getattr(form, name)), id=name, compact=True)
                for name, label in SWITCHES
            ]
            yield FormRow("Options", *switches, id="switches")
            for name, _ in SWITCHES:
                yield ErrorLine(id=f"{name}-error")
            placeholders = {name: hint for name, _, hint in TEXT_FIELDS}
            for name, label, hint in TEXT_FIELDS:
                if name == "sort_value":
                    first, second = text("sort_value", hint), text("sort_value2", "")
                    second.placeholder = placeholders["sort_value2"]
                    first.disabled = operator is None  # no condition, no value to give
                    second.display = operator == BETWEEN
                    yield FormRow(
                        "Sort key",
                        Select(
                            [(op, op) for op in SORT_OPERATORS],
                            value=operator or Select.NULL,
                            prompt="(none)",
                            id="sort_operator",
                            disabled=order.sort_key is None,
                            compact=True,
                        ),
                        first,
                        second,
                        id="sort-row",
                    )
                    yield ErrorLine(id="sort_value-error")
                    yield ErrorLine(id="sort_value2-error")
                elif name != "sort_value2":
                    yield FormRow(label, text(name, hint))
                    yield ErrorLine(id=f"{name}-error")
            yield Label(VALUES_HINT, id="values-hint", classes="form-hint")

    def on_mount(self) -> None:
        if not self.order.strongly_consistent_allowed:
            switch = self.query_one("#consistent_read", Checkbox)
            switch.value = False
            switch.disabled = True
            self.query_one("#consistent_read-error", Label).update(
                plain(f"'{self.order.name}' is a GSI: GSIs serve only eventually consistent reads")
            )
        if self.tab == "partiql-tab":
            self.focus_when_shown(self.query_one("#statement", TextArea))
        else:
            self.focus_when_shown(self.query_one("#partition_value", Input))

    def read_form(self) -> QueryForm:
        fields: dict[str, object] = {
            name: self.query_one(f"#{name}", Input).value for name, _, _ in TEXT_FIELDS
        }
        fields.update({name: self.query_one(f"#{name}", Checkbox).value for name, _ in SWITCHES})
        operator = self.query_one("#sort_operator", Select).value
        fields["sort_operator"] = "" if operator is Select.NULL else str(operator)
        fields["mode"] = str(self.query_one("#mode", Select).value)
        return self.form.with_(**fields)

    def _clear(self, field: str) -> None:
        if field == "consistent_read" and not self.order.strongly_consistent_allowed:
            return
        for label in self.query(f"#{field}-error").results(Label):
            label.update("")

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id:
            self._clear(event.input.id)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._clear("statement")

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        if event.checkbox.id:
            self._clear(event.checkbox.id)

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "sort_operator":
            self._clear("sort_value")
            self._clear("sort_value2")
            operator = None if event.value is Select.NULL else str(event.value)
            self.query_one("#sort_value", Input).disabled = operator is None
            self.query_one("#sort_value2", Input).display = operator == BETWEEN

    def action_switch_tab(self) -> None:
        tabs = self.query_one(TabbedContent)
        tabs.active = "partiql-tab" if tabs.active == "query-tab" else "query-tab"
        if tabs.active == "partiql-tab":
            self.query_one("#statement", TextArea).focus()
        else:
            self.query_one("#partition_value", Input).focus()

    def action_edit_externally(self) -> None:
        """The focused field's text in $EDITOR; what is saved is checked at ctrl+s."""
        field = self.focused
        suffix = ".sql" if field is not None and field.id == "statement" else ".txt"
        said = edit_field(self.app, field, suffix)
        if said:
            self.notify(said, title="$EDITOR", severity="warning", markup=False)

    def _run_partiql(self) -> None:
        for name in ("statement", "parameters", "partiql_page_size"):
            self._clear(name)
        size_text = self.query_one("#partiql_page_size", Input).value.strip()
        if not is_whole(size_text) or not 1 <= int(size_text) <= PAGE_SIZE_MAX:
            self._show(
                "partiql_page_size", f"page size must be 1 to {PAGE_SIZE_MAX}, got {size_text!r}"
            )
            return
        try:
            parameters = parse_parameters(self.query_one("#parameters", Input).value)
        except InputError as exc:
            self._show("parameters", str(exc))
            return
        try:
            statement = Statement(
                self.query_one("#statement", TextArea).text,
                parameters,
                int(size_text),
                self.query_one("#partiql_consistent", Checkbox).value,
            )
            statement.check()
        except InputError as exc:
            self._show("statement", str(exc))
            return
        self.dismiss(PartiQLQuery(self.schema, self.form, statement))

    def _show(self, field: str, message: str) -> None:
        """The error beside its field (a field with no place of its own: under the title)."""
        label = next(iter(self.query(f"#{field}-error").results(Label)), None)
        (label or self.query_one("#form-error", Label)).update(plain_lines(message))
        self.notify(
            plain_lines(message).plain, title="Check the query", severity="error", markup=False
        )

    def action_run(self) -> None:
        if self.query_one(TabbedContent).active == "partiql-tab":
            self._run_partiql()
            return
        for name in (*(f for f, _, _ in TEXT_FIELDS), *(f for f, _ in SWITCHES), "form"):
            self._clear(name)
        form = self.read_form()
        try:
            spec = build_spec(self.schema, form)
        except InputError as exc:
            field = exc.field if isinstance(exc, FieldError) else "form"
            self._show("sort_value" if field == "sort_operator" else field, str(exc))
            return
        self.dismiss(DynamoQuery(self.schema, form, spec))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_run()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "run":
            self.action_run()
        else:
            self.dismiss(None)
