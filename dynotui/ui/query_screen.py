"""The query form: every field of a Query or Scan, errors shown at the field.

The switches and the mode come first, so they are in view on any terminal; an error
stays next to its field until that field changes.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Select, Switch

from dynotui.dynamodb.query_form import FieldError, QueryForm, build_spec
from dynotui.dynamodb.schema import SortOrder, TableSchema
from dynotui.dynamodb.spec import SORT_OPERATORS, QuerySpec
from dynotui.ui.safe import plain, plain_lines

TEXT_FIELDS = (
    ("partition_value", "Partition key value"),
    ("sort_value", "Sort key value"),
    ("sort_value2", "… and (BETWEEN)"),
    ("filter", "Filter expression (bare names are fine: status = :r)"),
    ("values", 'Filter values, JSON: {":r": "RETURNED"}'),
    ("projection", "Projection (empty: all projected attributes)"),
    ("page_size", "Page size (1-1000)"),
    ("max_rounds", "Max rounds (fill mode)"),
)
SWITCHES = (
    ("scan", "Scan"),
    ("descending", "Descending"),
    ("consistent_read", "Consistent read"),
)


class QueryScreen(ModalScreen[tuple[QueryForm, QuerySpec] | None]):
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("ctrl+s", "run", "Run query"),
    ]

    def __init__(self, schema: TableSchema, form: QueryForm, note: str = "") -> None:
        super().__init__()
        self.schema = schema
        self.form = form
        self.note = note
        self.order: SortOrder = schema.order(form.order)

    def compose(self) -> ComposeResult:
        order = self.order
        sort = f" / sort key {order.sort_key}" if order.sort_key else " (no sort key)"
        with Vertical(id="query-box", classes="modal-box"):
            yield Label(
                plain(
                    f"{self.schema.name} · {order.name} ({order.kind}): partition key "
                    f"{order.partition_key}{sort}"
                ),
                id="query-title",
                classes="modal-title",
            )
            if self.note:
                yield Label(plain_lines(self.note), id="query-note", classes="field-error")
            with VerticalScroll():
                with Horizontal(classes="switch-row"):
                    yield Select(
                        [
                            ("raw: one call per page", "raw"),
                            ("fill: fixed-size pages", "fill"),
                        ],
                        value=self.form.mode,
                        allow_blank=False,
                        id="mode",
                    )
                    for name, label in SWITCHES:
                        yield Switch(value=bool(getattr(self.form, name)), id=name)
                        yield Label(label, classes="switch-label")
                for name, _ in SWITCHES:
                    yield Label("", id=f"{name}-error", classes="field-error")
                for name, label in TEXT_FIELDS:
                    if name == "sort_value":
                        yield Label("Sort key condition")
                        yield Select(
                            [(op, op) for op in SORT_OPERATORS],
                            value=self.form.sort_operator or Select.NULL,
                            prompt="(none)",
                            id="sort_operator",
                            disabled=order.sort_key is None,
                        )
                    yield Label(label)
                    yield Input(value=str(getattr(self.form, name)), id=name)
                    yield Label("", id=f"{name}-error", classes="field-error")
            with Horizontal(id="query-buttons"):
                yield Button("Run (ctrl+s)", variant="primary", id="run")
                yield Button("Cancel", id="cancel")
        yield Footer()

    def on_mount(self) -> None:
        if not self.order.strongly_consistent_allowed:
            switch = self.query_one("#consistent_read", Switch)
            switch.value = False
            switch.disabled = True
            self.query_one("#consistent_read-error", Label).update(
                plain(f"'{self.order.name}' is a GSI: GSIs serve only eventually consistent reads")
            )
        self.query_one("#partition_value", Input).focus()

    def read_form(self) -> QueryForm:
        fields: dict[str, object] = {
            name: self.query_one(f"#{name}", Input).value for name, _ in TEXT_FIELDS
        }
        fields.update({name: self.query_one(f"#{name}", Switch).value for name, _ in SWITCHES})
        operator = self.query_one("#sort_operator", Select).value
        fields["sort_operator"] = "" if operator is Select.NULL else str(operator)
        fields["mode"] = str(self.query_one("#mode", Select).value)
        return self.form.with_(**fields)

    def _clear(self, field: str) -> None:
        if field == "consistent_read" and not self.order.strongly_consistent_allowed:
            return
        for label in self.query(f"#{field}-error"):
            label.update("")  # type: ignore[attr-defined]

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id:
            self._clear(event.input.id)

    def on_switch_changed(self, event: Switch.Changed) -> None:
        if event.switch.id:
            self._clear(event.switch.id)

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "sort_operator":
            self._clear("sort_value")

    def action_run(self) -> None:
        for name, _ in (*TEXT_FIELDS, *SWITCHES):
            self._clear(name)
        form = self.read_form()
        try:
            spec = build_spec(self.schema, form)
        except FieldError as exc:
            field = exc.field if exc.field != "sort_operator" else "sort_value"
            self.query_one(f"#{field}-error", Label).update(plain_lines(str(exc)))
            self.notify(
                plain_lines(str(exc)).plain, title="Check the query", severity="error", markup=False
            )
            return
        self.dismiss((form, spec))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_run()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "run":
            self.action_run()
        else:
            self.dismiss(None)
