"""The query form for a PostgreSQL table: order, direction, filter with its parameters,
columns, page size, keyset or OFFSET. Errors stay at their field; it dismisses with a
``PostgresQuery`` ready to start (the filter's SQL is checked by PostgreSQL on page 1)."""

from __future__ import annotations

import json

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Select, Switch

from dynotui.core.errors import FieldError, InputError
from dynotui.postgres.schema import PgTable
from dynotui.postgres.sql import PAGE_SIZE_MAX, PgQuery, parse_params
from dynotui.ui.postgres.query import PostgresQuery
from dynotui.ui.widgets.safe_text import plain, plain_lines

FIELDS = (
    ("custom_order", "… or order by columns (overrides the index): created_at desc, id"),
    ("where", "Filter: a WHERE fragment, $1 $2 for parameters: status = $1 AND total > $2"),
    ("params", 'Parameters, a JSON list: ["RETURNED", 100]'),
    ("columns", "Columns to show, comma-separated (empty: all)"),
    ("page_size", "Page size (1-1000)"),
)


class PgQueryScreen(ModalScreen[PostgresQuery | None]):
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("ctrl+s", "run", "Run query"),
    ]

    def __init__(
        self,
        table: PgTable,
        current: PostgresQuery | None,
        note: str = "",
        *,
        error: tuple[str, str] | None = None,
    ) -> None:
        """``error``: (field, why) of a query the server refused, shown at its field."""
        super().__init__()
        self.table = table
        self.current = current
        self.note = note
        self.error = error

    def _initial(self) -> dict[str, str]:
        query = self.current.query if self.current is not None else None
        if query is None:
            return {"page_size": "25"}
        named = {o.name for o in self.table.orders}
        return {
            "custom_order": "" if query.order.name in named else query.order.name,
            "where": query.where or "",
            "params": json.dumps(list(query.params), ensure_ascii=False) if query.params else "",
            "columns": ", ".join(query.projection),
            "page_size": str(query.page_size),
        }

    def compose(self) -> ComposeResult:
        query = self.current.query if self.current is not None else None
        initial = self._initial()
        named = [(plain(o.describe()), o.name) for o in self.table.orders]
        chosen = query.order.name if query is not None else None
        with Vertical(id="query-box", classes="modal-box"):
            yield Label(
                plain(
                    f"{self.table.label} · primary key ({', '.join(self.table.primary_key)})"
                    if self.table.primary_key
                    else f"{self.table.label} · no primary key"
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
                            ("keyset: seek past the last row", "keyset"),
                            ("OFFSET: skip the rows before", "offset"),
                        ],
                        value=query.mode if query is not None else "keyset",
                        allow_blank=False,
                        id="mode",
                    )
                    yield Switch(value=bool(query and query.descending), id="reverse")
                    yield Label("Reverse the order", classes="switch-label")
                yield Label("Order (an index, or the primary key)")
                yield Select(
                    named,
                    value=chosen if chosen in {n for _, n in named} else Select.NULL,
                    prompt="(columns below)",
                    id="order",
                )
                yield Label("", id="order-error", classes="field-error")
                for name, label in FIELDS:
                    yield Label(label)
                    yield Input(value=initial.get(name, ""), id=name)
                    yield Label("", id=f"{name}-error", classes="field-error")
            with Horizontal(id="query-buttons"):
                yield Button("Run (ctrl+s)", variant="primary", id="run")
                yield Button("Cancel", id="cancel")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#where", Input).focus()
        if self.error is not None:
            field, why = self.error
            known = {name for name, _ in FIELDS} | {"order"}
            # After the inputs' first Changed events, which clear errors.
            self.call_after_refresh(
                self._show, field if field in known else "where", f"PostgreSQL refused it: {why}"
            )

    def _value(self, name: str) -> str:
        return self.query_one(f"#{name}", Input).value.strip()

    def _show(self, field: str, message: str) -> None:
        self.query_one(f"#{field}-error", Label).update(plain_lines(message))
        self.notify(
            plain_lines(message).plain, title="Check the query", severity="error", markup=False
        )

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id:
            self.query_one(f"#{event.input.id}-error", Label).update("")
            if event.input.id == "custom_order":
                self.query_one("#order-error", Label).update("")

    def build(self) -> PostgresQuery | None:
        """The query the form describes, or None with the first error shown at its field."""
        table = self.table
        custom = self._value("custom_order")
        selected = self.query_one("#order", Select).value
        try:
            if custom:
                order = table.order(custom)
            elif selected is not Select.NULL:
                order = table.order(str(selected))
            else:
                order = table.default_order()
        except InputError as exc:
            self._show("custom_order" if custom else "order", str(exc))
            return None
        reverse = self.query_one("#reverse", Switch).value
        if reverse:
            order = order.reversed()
        size = self._value("page_size")
        if not size.isdigit() or not 1 <= int(size) <= PAGE_SIZE_MAX:
            self._show("page_size", f"page size must be 1 to {PAGE_SIZE_MAX}, got {size!r}")
            return None
        try:
            params = parse_params(self._value("params"))
        except InputError as exc:
            self._show("params", str(exc))
            return None
        columns = tuple(c.strip() for c in self._value("columns").split(",") if c.strip())
        query = PgQuery(
            table,
            order,
            where=self._value("where") or None,
            params=params,
            projection=columns,
            page_size=int(size),
            mode="offset" if self.query_one("#mode", Select).value == "offset" else "keyset",
            descending=reverse,
        )
        try:
            query.check()
        except InputError as exc:
            self._show(exc.field if isinstance(exc, FieldError) else "where", str(exc))
            return None
        return PostgresQuery(query)

    def action_run(self) -> None:
        view = self.build()
        if view is not None:
            self.dismiss(view)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_run()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "run":
            self.action_run()
        else:
            self.dismiss(None)
