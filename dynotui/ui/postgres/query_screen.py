"""The query form for a PostgreSQL table: order, direction, filter with its parameters,
columns, page size, keyset or OFFSET, one line each. Errors stay under their field; keys
pressed before the form is drawn are dropped (``FormScreen``); it dismisses with a
``PostgresQuery`` ready to start (the filter's SQL is checked by PostgreSQL on page 1)."""

from __future__ import annotations

import json

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Checkbox, Footer, Input, Label, Select

from dynotui.core.errors import FieldError, InputError
from dynotui.postgres.schema import PgTable
from dynotui.postgres.sql import PAGE_SIZE_MAX, PgQuery, parse_params
from dynotui.ui.postgres.query import PostgresQuery
from dynotui.ui.screens.form_screen import FormScreen
from dynotui.ui.widgets.form import ErrorLine, FormRow
from dynotui.ui.widgets.safe_text import plain, plain_lines

# (field, label, placeholder)
FIELDS = (
    ("custom_order", "… or columns", "created_at desc, id  (overrides the index)"),
    ("where", "Filter", "status = $1 AND total > $2  (a WHERE fragment)"),
    ("params", "Parameters", '["RETURNED", 100]  (a JSON list, for $1 $2 …)'),
    ("columns", "Columns", "comma-separated; empty: all"),
    ("page_size", "Page size", "1-1000"),
)


class PgQueryScreen(FormScreen[PostgresQuery | None]):
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
        self._said_for: dict[str, str] = {}  # the field's value its error was said for

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
        with Vertical(id="query-box", classes="modal-box form"):
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
                yield FormRow(
                    "Paging",
                    Select(
                        [
                            ("keyset: seek past the last row", "keyset"),
                            ("OFFSET: skip the rows before", "offset"),
                        ],
                        value=query.mode if query is not None else "keyset",
                        allow_blank=False,
                        id="mode",
                        compact=True,
                    ),
                    Checkbox(
                        "Reverse the order",
                        value=bool(query and query.descending),
                        id="reverse",
                        compact=True,
                    ),
                )
                yield FormRow(
                    "Order",
                    Select(
                        named,
                        value=chosen if chosen in {n for _, n in named} else Select.NULL,
                        prompt="(an index, the primary key, or the columns below)",
                        id="order",
                        compact=True,
                    ),
                )
                yield ErrorLine(id="order-error")
                for name, label, hint in FIELDS:
                    yield FormRow(
                        label,
                        Input(value=initial.get(name, ""), placeholder=hint, id=name, compact=True),
                    )
                    yield ErrorLine(id=f"{name}-error")
            with Horizontal(id="query-buttons"):
                yield Button("Run (ctrl+s)", variant="primary", id="run", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.focus_when_shown(self.query_one("#where", Input))
        if self.error is not None:
            field, why = self.error
            known = {name for name, _, _ in FIELDS} | {"order"}
            # After the inputs' first Changed events, which clear errors.
            self.call_after_refresh(
                self._show, field if field in known else "where", f"PostgreSQL refused it: {why}"
            )

    def _value(self, name: str) -> str:
        return self.query_one(f"#{name}", Input).value.strip()

    def _show(self, field: str, message: str) -> None:
        widget = next(iter(self.query(f"#{field}").results(Input)), None)
        self._said_for = {field: widget.value} if widget is not None else {}
        self.query_one(f"#{field}-error", Label).update(plain_lines(message))
        self.notify(
            plain_lines(message).plain, title="Check the query", severity="error", markup=False
        )

    def on_input_changed(self, event: Input.Changed) -> None:
        # A field's error goes when its value changes from the one it was said for (not on
        # the Changed every field posts as the form is made).
        name = event.input.id
        if name and self._said_for.get(name) != event.value:
            self.query_one(f"#{name}-error", Label).update("")
            if name == "custom_order":
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
        reverse = self.query_one("#reverse", Checkbox).value
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
