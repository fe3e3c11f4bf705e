"""Paste a cursor token to open the pager there, or inspect one."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timezone

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static

from dynotui.core.cursor import CursorError, CursorSigner, decode, duration
from dynotui.core.errors import InputError
from dynotui.ui.query import Boundary
from dynotui.ui.widgets.safe_text import plain_lines

READABLE = (
    "A cursor is signed, not encrypted: anyone holding it can read its start key "
    "(on a GSI, the table's key attributes too)."
)


class PasteCursorScreen(ModalScreen[Boundary]):
    """Verify a token against the current query's scope; dismiss with its start key."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(
        self,
        signer: Callable[[], CursorSigner],
        scope: str,
        key_from_json: Callable[[object], Boundary],
    ) -> None:
        super().__init__()
        self.signer = signer
        self.scope = scope
        self.key_from_json = key_from_json

    def compose(self) -> ComposeResult:
        with Vertical(id="cursor-box", classes="modal-box"):
            yield Label(
                "Paste a cursor token of this query; Enter opens its page.",
                id="cursor-title",
                classes="modal-title",
            )
            yield Input(placeholder="PAYLOAD.SIGNATURE", id="token")
            yield Label("", id="cursor-error", classes="field-error")
        yield Footer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        try:
            start_key = self.key_from_json(self.signer().verify(event.value, self.scope))
        except CursorError as exc:
            self.query_one("#cursor-error", Label).update(
                plain_lines(f"Refused ({exc.reason}): {exc}")
            )
            return
        except InputError as exc:  # the secret itself is unusable
            self.query_one("#cursor-error", Label).update(plain_lines(f"Cannot verify: {exc}"))
            return
        self.dismiss(start_key)


def describe_token(token: str, signer: Callable[[], CursorSigner], scope: str) -> str:
    """What a token holds, and whether it opens a page of the current query."""
    try:
        cursor = decode(token)
    except CursorError as exc:
        return f"Not a cursor: {exc}"
    issued = datetime.fromtimestamp(cursor.issued_at, timezone.utc).isoformat(timespec="seconds")
    try:
        current = signer()
        current.verify(token, scope)
        verdict = "verifies for the current query"
        valid_for = duration(current.max_age)
    except CursorError as exc:
        verdict = f"does NOT verify for the current query ({exc.reason}): {exc}"
        valid_for = "?"
    except InputError as exc:
        verdict = f"cannot be checked: {exc}"
        valid_for = "?"
    age = cursor.age()
    when = f"{duration(age)} ago" if age >= 0 else f"{duration(age)} in the future"
    return "\n".join(
        [
            f"Format version: {cursor.version}",
            f"Issued: {issued} ({when}; valid for {valid_for})",
            f"Scope tag: {cursor.scope_tag}",
            "Start key:",
            json.dumps(cursor.key, indent=2, ensure_ascii=False),
            "",
            f"Signature: {verdict}",
            "",
            READABLE,
        ]
    )


class InspectCursorScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", "Close")]

    def __init__(self, signer: Callable[[], CursorSigner], scope: str, token: str = "") -> None:
        super().__init__()
        self.signer = signer
        self.scope = scope
        self.token = token

    def compose(self) -> ComposeResult:
        with Vertical(id="cursor-box", classes="modal-box"):
            yield Label(
                "Inspect a cursor token: paste it, Enter decodes it.",
                id="cursor-title",
                classes="modal-title",
            )
            yield Input(value=self.token, placeholder="PAYLOAD.SIGNATURE", id="token")
            with VerticalScroll():
                yield Static(READABLE, id="cursor-details")
        yield Footer()

    def on_mount(self) -> None:
        if self.token:
            self.show(self.token)

    def show(self, token: str) -> None:
        self.query_one("#cursor-details", Static).update(
            plain_lines(describe_token(token, self.signer, self.scope))
        )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.show(event.value)
