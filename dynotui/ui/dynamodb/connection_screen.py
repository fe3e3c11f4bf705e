"""Change the connection in the app: profile, region, endpoint, timeouts."""

from __future__ import annotations

from dataclasses import replace

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label

from dynotui.core.errors import InputError
from dynotui.dynamodb.connection import ConnectionOptions
from dynotui.ui.widgets.safe_text import plain_lines

FIELDS = (
    ("profile", "AWS profile (empty: the default chain)"),
    ("region", "Region (empty: AWS_REGION or the profile's)"),
    ("endpoint_url", "Endpoint URL (empty: AWS's own; e.g. http://localhost:8000)"),
    ("connect_timeout", "Connect timeout, seconds"),
    ("read_timeout", "Read timeout, seconds (per attempt)"),
    ("max_attempts", "Attempts per request (retries included)"),
)


class ConnectionScreen(ModalScreen[ConnectionOptions | None]):
    """Dismisses with new options; the app makes the client and keeps every stack."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel"), Binding("ctrl+s", "apply", "Connect")]

    def __init__(self, options: ConnectionOptions, why: str = "") -> None:
        super().__init__()
        self.options = options
        self.why = why

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
                    value = getattr(self.options, name)
                    yield Label(label)
                    yield Input(value="" if value is None else str(value), id=name)
                yield Label("", id="connection-error", classes="field-error")
            yield Button("Connect (ctrl+s)", variant="primary", id="connect")
        yield Footer()

    def read(self) -> ConnectionOptions:
        values = {name: self.query_one(f"#{name}", Input).value.strip() for name, _ in FIELDS}
        try:
            return replace(
                self.options,
                profile=values["profile"] or None,
                region=values["region"] or None,
                endpoint_url=values["endpoint_url"] or None,
                connect_timeout=float(values["connect_timeout"]),
                read_timeout=float(values["read_timeout"]),
                max_attempts=int(values["max_attempts"]),
            )
        except ValueError:
            raise InputError("timeouts are numbers of seconds, attempts a whole number") from None

    def action_apply(self) -> None:
        try:
            options = self.read()
        except InputError as exc:
            self.query_one("#connection-error", Label).update(plain_lines(str(exc)))
            return
        self.dismiss(options)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_apply()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_apply()
