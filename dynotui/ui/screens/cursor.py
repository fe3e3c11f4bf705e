"""Paste a cursor to open the pager there, or inspect one.

A cursor is dynotui's own signed token (verified against the current query's scope) or
a foreign one: a start key as JSON, base64 or base64url of it, an AWS CLI NextToken, a
PostgreSQL boundary row. A foreign cursor is unsigned and is said to be; it is checked
against the current read's keys before it opens anything.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Footer, Input, Label, Static

from dynotui.core.cursor import CursorError, CursorSigner
from dynotui.core.errors import InputError
from dynotui.core.foreign import ForeignReader
from dynotui.core.pasted import READABLE, PastedCursor, describe_pasted, open_pasted
from dynotui.ui.query import Boundary
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain_lines

PLACEHOLDER = "a dynotui token, or a cursor from elsewhere: a start key as JSON or base64, …"


class PasteCursorScreen(Dialog[PastedCursor | None]):
    """Dismisses with where the pasted cursor opens; ``refused`` hears every refusal."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(
        self,
        signer: Callable[[], CursorSigner],
        scope: str,
        key_from_json: Callable[[object], Boundary],
        foreign: ForeignReader | None,
        refused: Callable[[CursorError], None] = lambda error: None,
    ) -> None:
        super().__init__()
        self.signer = signer
        self.scope = scope
        self.key_from_json = key_from_json
        self.foreign = foreign
        self.refused = refused

    def compose(self) -> ComposeResult:
        with Vertical(id="cursor-box", classes="modal-box"):
            yield Label(
                "Paste a cursor of this query; Enter opens its page as a new stack. A "
                "foreign cursor (not signed by dynotui) is checked against this read's keys.",
                id="cursor-title",
                classes="modal-title",
            )
            yield Input(placeholder=PLACEHOLDER, id="token")
            yield Label("", id="cursor-error", classes="field-error")
        yield Footer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        error = self.query_one("#cursor-error", Label)
        try:
            pasted = open_pasted(
                event.value,
                signer=self.signer,
                scope=self.scope,
                key_from_json=self.key_from_json,
                foreign=self.foreign,
            )
        except CursorError as exc:
            self.refused(exc)
            error.update(plain_lines(f"Refused ({exc.reason}): {exc}"))
            return
        except InputError as exc:  # the secret itself is unusable
            error.update(plain_lines(f"Cannot verify: {exc}"))
            return
        self.dismiss(pasted)


class InspectCursorScreen(Dialog[None]):
    BINDINGS = [Binding("escape", "dismiss", "Close")]

    def __init__(
        self,
        signer: Callable[[], CursorSigner],
        scope: str,
        foreign: ForeignReader | None,
        token: str = "",
    ) -> None:
        super().__init__()
        self.signer = signer
        self.scope = scope
        self.foreign = foreign
        self.token = token

    def compose(self) -> ComposeResult:
        with Vertical(id="cursor-box", classes="modal-box"):
            yield Label(
                "Inspect a cursor: paste it, Enter says what it is and whether it opens a page "
                "of this query.",
                id="cursor-title",
                classes="modal-title",
            )
            yield Input(value=self.token, placeholder=PLACEHOLDER, id="token")
            with VerticalScroll():
                yield Static(READABLE, id="cursor-details")
        yield Footer()

    def on_mount(self) -> None:
        if self.token:
            self.show(self.token)

    def show(self, token: str) -> None:
        words = describe_pasted(token, signer=self.signer, scope=self.scope, foreign=self.foreign)
        self.query_one("#cursor-details", Static).update(plain_lines(words))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.show(event.value)
