"""Paste a cursor token to open the pager there, or inspect one."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static

from dynotui.core.cursor import CursorError, CursorSigner, decode
from dynotui.core.dynamo_json import Item, to_wire

READABLE = (
    "A cursor is signed, not encrypted: anyone holding it can read its start key "
    "(on a GSI, the table's key attributes too)."
)


class PasteCursorScreen(ModalScreen[Item | None]):
    """Verify a token against the current query's scope; dismiss with its start key."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, signer: CursorSigner, scope: str) -> None:
        super().__init__()
        self.signer = signer
        self.scope = scope

    def compose(self) -> ComposeResult:
        with Vertical(id="cursor-box"):
            yield Label(
                "Paste a cursor token of this query; Enter opens its page.", id="cursor-title"
            )
            yield Input(placeholder="PAYLOAD.SIGNATURE", id="token")
            yield Label("", id="cursor-error", classes="field-error")
        yield Footer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        try:
            start_key = self.signer.verify(event.value, self.scope)
        except CursorError as exc:
            self.query_one("#cursor-error", Label).update(f"Refused ({exc.reason}): {exc}")
            return
        self.dismiss(start_key)


def describe_token(token: str, signer: CursorSigner, scope: str) -> str:
    """What a token holds, and whether it opens a page of the current query."""
    try:
        cursor = decode(token)
    except CursorError as exc:
        return f"Not a cursor: {exc}"
    issued = datetime.fromtimestamp(cursor.issued_at, timezone.utc).isoformat(timespec="seconds")
    try:
        signer.verify(token, scope)
        verdict = "verifies for the current query"
    except CursorError as exc:
        verdict = f"does NOT verify for the current query ({exc.reason}): {exc}"
    return "\n".join(
        [
            f"Format version: {cursor.version}",
            f"Issued: {issued} ({cursor.age():.0f} s ago; valid for {signer.max_age:.0f} s)",
            f"Scope tag: {cursor.scope_tag}",
            "Start key (ExclusiveStartKey):",
            json.dumps(to_wire(cursor.start_key), indent=2),
            "",
            f"Signature: {verdict}",
            "",
            READABLE,
        ]
    )


class InspectCursorScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", "Close")]

    def __init__(self, signer: CursorSigner, scope: str, token: str = "") -> None:
        super().__init__()
        self.signer = signer
        self.scope = scope
        self.token = token

    def compose(self) -> ComposeResult:
        with Vertical(id="cursor-box"):
            yield Label("Inspect a cursor token: paste it, Enter decodes it.", id="cursor-title")
            yield Input(value=self.token, placeholder="PAYLOAD.SIGNATURE", id="token")
            yield Static(READABLE, id="cursor-details")
        yield Footer()

    def on_mount(self) -> None:
        if self.token:
            self.show(self.token)

    def show(self, token: str) -> None:
        self.query_one("#cursor-details", Static).update(
            describe_token(token, self.signer, self.scope)
        )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.show(event.value)
