"""The query form: every field of a Query or Scan, errors shown at the field."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Select, Switch

from dynotui.core.query_form import FieldError, QueryForm, build_spec
from dynotui.core.schema import SortOrder, TableSchema
from dynotui.core.spec import SORT_OPERATORS, QuerySpec

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
    ("scan", "Scan (reads the whole table or index)"),
    ("descending", "Descending (ScanIndexForward = false)"),
    ("consistent_read", "Consistent read"),
)


class QueryScreen(ModalScreen[tuple[QueryForm, QuerySpec] | None]):
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("ctrl+s", "run", "Run query"),
    ]

    def __init__(self, schema: TableSchema, form: QueryForm) -> None:
        super().__init__()
        self.schema = schema
        self.form = form
        self.order: SortOrder = schema.order(form.order)

    def compose(self) -> ComposeResult:
        order = self.order
        sort = f" / sort key {order.sort_key}" if order.sort_key else " (no sort key)"
        with Vertical(id="query-box"):
            yield Label(
                f"{self.schema.name} · {order.name} ({order.kind}): partition key "
                f"{order.partition_key}{sort}",
                id="query-title",
            )
            with VerticalScroll():
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
                yield Label("Mode")
                yield Select(
                    [
                        ("raw: one call per page, Limit = page size", "raw"),
                        ("fill: fixed-size pages, capped rounds", "fill"),
                    ],
                    value=self.form.mode,
                    allow_blank=False,
                    id="mode",
                )
                for name, label in SWITCHES:
                    with Horizontal(classes="switch-row"):
                        yield Switch(value=bool(getattr(self.form, name)), id=name)
                        yield Label(label)
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
                f"'{self.order.name}' is a GSI: GSIs serve only eventually consistent reads"
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

    def action_run(self) -> None:
        for label in self.query(".field-error"):
            if label.id != "consistent_read-error" or self.order.strongly_consistent_allowed:
                label.update("")
        form = self.read_form()
        try:
            spec = build_spec(self.schema, form)
        except FieldError as exc:
            field = exc.field if exc.field != "sort_operator" else "sort_value"
            self.query_one(f"#{field}-error", Label).update(str(exc))
            self.notify(str(exc), title="Check the query", severity="error")
            return
        self.dismiss((form, spec))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_run()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "run":
            self.action_run()
        else:
            self.dismiss(None)
