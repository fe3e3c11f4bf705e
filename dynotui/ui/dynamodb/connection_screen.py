"""Change the connection in the app: profile, region, endpoint, timeouts.

Each field opens on the value in force and says where it came from (an option, a
variable, the profile, a default), so an endpoint set by AWS_ENDPOINT_URL_DYNAMODB is
seen, not hidden behind an empty field. An error stays at its field.
"""

from __future__ import annotations

import math
from dataclasses import replace

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Button, Footer, Input, Label

from dynotui.core.errors import FieldError, InputError
from dynotui.core.numbers import decimal_number, whole_number
from dynotui.dynamodb.connection import ConnectionOptions, check_endpoint, check_region
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain, plain_lines

FIELDS = (
    ("profile", "AWS profile (empty: the default chain)"),
    ("region", "Region, such as eu-west-1"),
    ("endpoint_url", "Endpoint URL (empty: AWS's own; e.g. http://localhost:8000)"),
    ("connect_timeout", "Connect timeout, seconds"),
    ("read_timeout", "Read timeout, seconds (per attempt)"),
    ("max_attempts", "Attempts per request (retries included)"),
)
InForce = dict[str, tuple[str, str]]


class ConnectionScreen(Dialog[ConnectionOptions | None]):
    """Dismisses with new options; the app makes the client, checks it answers, and
    keeps every stack."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel"), Binding("ctrl+s", "apply", "Connect")]

    def __init__(
        self,
        options: ConnectionOptions,
        in_force: InForce,
        why: str = "",
        tried: ConnectionOptions | None = None,
    ) -> None:
        """``in_force``: the connection in use, field by field, and where each value came
        from; ``tried``: options that did not connect, to edit again (the labels still say
        what is in force)."""
        super().__init__()
        self.options = options
        self.in_force = in_force
        self.why = why
        self.tried = tried

    def compose(self) -> ComposeResult:
        with Vertical(id="connection-box", classes="modal-box"):
            yield Label(
                "Connection: the queries and their stacks are kept; the failed move can be "
                "retried with R. ctrl+s connects, Esc cancels.",
                classes="modal-title",
            )
            if self.why:
                yield Label(plain_lines(self.why), classes="field-error")
            with VerticalScroll():
                for name, label in FIELDS:
                    value, source = self.in_force.get(name, ("", ""))
                    yield Label(plain(f"{label} · in force: {value or '(none)'}, from {source}"))
                    yield Input(value=self._typed(name, value), id=name)
                    yield Label("", id=f"{name}-error", classes="field-error")
            yield Button("Connect (ctrl+s)", variant="primary", id="connect")
        yield Footer()

    def _typed(self, name: str, in_force: str) -> str:
        """What the field holds: what was tried, if something was, else what is in force."""
        if self.tried is None:
            return in_force
        value = getattr(self.tried, name)
        if value is None:
            return ""
        return f"{value:g}" if isinstance(value, float) else str(value)

    def on_mount(self) -> None:
        self.query_one("#profile", Input).focus()

    def _number(self, name: str, text: str, whole: bool) -> float:
        try:
            value = whole_number(text, name) if whole else float(decimal_number(text, name))
        except InputError:
            kind = "a whole number" if whole else "a number of seconds"
            raise FieldError(name, f"{kind} in ASCII digits, got {text!r}") from None
        if not math.isfinite(value):
            raise FieldError(name, f"a finite number, got {text!r}")
        return value

    def read(self) -> ConnectionOptions:
        values = {name: self.query_one(f"#{name}", Input).value.strip() for name, _ in FIELDS}
        try:
            region = check_region(values["region"], "Region") if values["region"] else None
        except InputError as exc:
            raise FieldError("region", str(exc)) from None
        try:
            endpoint = (
                check_endpoint(values["endpoint_url"], "Endpoint")
                if values["endpoint_url"]
                else None
            )
        except InputError as exc:
            raise FieldError("endpoint_url", str(exc)) from None
        return replace(
            self.options,
            profile=values["profile"] or None,
            region=region,
            endpoint_url=endpoint,
            connect_timeout=self._number("connect_timeout", values["connect_timeout"], False),
            read_timeout=self._number("read_timeout", values["read_timeout"], False),
            max_attempts=int(self._number("max_attempts", values["max_attempts"], True)),
        )

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id:
            self.query_one(f"#{event.input.id}-error", Label).update("")

    def action_apply(self) -> None:
        try:
            options = self.read()
        except FieldError as exc:
            self.query_one(f"#{exc.field}-error", Label).update(plain_lines(str(exc)))
            return
        self.dismiss(options)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_apply()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_apply()
