"""One item, whole: plain JSON or the database's own typed JSON, toggled."""

from __future__ import annotations

from typing import Any

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Static

from dynotui.core.text import safe_json_text
from dynotui.ui.safe import plain


class ItemScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q", "dismiss", "Close"),
        Binding("d", "toggle_format", "Plain / typed JSON"),
    ]

    def __init__(self, item: Any, title: str, query: Any) -> None:
        super().__init__()
        self.item = item
        self.item_title = title
        self.query_adapter = query
        self.typed = False
        self.shown_json = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="item-box", classes="modal-box"):
            yield Label(self._heading(), id="item-title", classes="modal-title")
            with VerticalScroll():
                yield Static(self._body(), id="item-json")
        yield Footer()

    def _heading(self) -> Any:
        plain_name, typed_name = self.query_adapter.item_formats()
        kind = typed_name if self.typed else plain_name
        return plain(f"{self.item_title} — {kind} (d toggles)")

    def _body(self) -> Syntax:
        # JSON escapes control characters; DEL, C1 and bidi controls are escaped too.
        self.shown_json = safe_json_text(self.query_adapter.item_json(self.item, self.typed))
        return Syntax(self.shown_json, "json", word_wrap=True)

    def action_toggle_format(self) -> None:
        self.typed = not self.typed
        self.query_one("#item-title", Label).update(self._heading())
        self.query_one("#item-json", Static).update(self._body())
