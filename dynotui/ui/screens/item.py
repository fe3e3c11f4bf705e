"""One item, whole: plain JSON or the database's own typed JSON, toggled.

An item may hold thousands of attributes: its text is made in a background thread and
shown in a TextArea, which draws only the lines in view, so Enter, ``d``, Esc and ``q``
never wait on it.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Footer, Label, TextArea

from dynotui.core.text import safe_json_text, visible_lines
from dynotui.ui.background import Done, Outcome, run_in_background
from dynotui.ui.query import Item, Query
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain


class ItemScreen(Dialog[None]):
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("d", "toggle_format", "Other format"),
    ]

    class TextMade(Message):
        def __init__(self, typed: bool, outcome: Outcome[str]) -> None:
            super().__init__()
            self.typed = typed
            self.outcome = outcome

    def __init__(self, item: Item, title: str, query: Query) -> None:
        super().__init__()
        self.item = item
        self.item_title = title
        self.item_query = query
        self.typed = False
        self.shown_json = ""  # the text on screen, once made
        self._made: dict[bool, str] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="item-box", classes="modal-box"):
            yield Label(self._heading(), id="item-title", classes="modal-title")
            yield TextArea(
                "Making the item's text…",
                read_only=True,
                soft_wrap=True,
                show_cursor=False,
                highlight_cursor_line=False,
                id="item-json",
            )
        yield Footer()

    def on_mount(self) -> None:
        self._make(self.typed)

    def _heading(self) -> Text:
        plain_name, typed_name = self.item_query.item_formats()
        kind = typed_name if self.typed else plain_name
        return plain(f"{self.item_title} — {kind} (d toggles)")

    def _make(self, typed: bool) -> None:
        if typed in self._made:
            self._show(typed)
            return
        item, query = self.item, self.item_query

        def work() -> str:
            # JSON escapes control characters; DEL, C1 and bidi controls are escaped too.
            return safe_json_text(query.item_json(item, typed))

        run_in_background(self, work, lambda outcome: self.TextMade(typed, outcome))

    @on(TextMade)
    def _text_made(self, message: TextMade) -> None:
        outcome = message.outcome
        if isinstance(outcome, Done):
            self._made[message.typed] = outcome.value
        else:
            self._made[message.typed] = visible_lines(f"Cannot show this item: {outcome.error}")
        if message.typed == self.typed:
            self._show(message.typed)

    def _show(self, typed: bool) -> None:
        self.shown_json = self._made[typed]
        self.query_one("#item-json", TextArea).load_text(self.shown_json)

    def action_toggle_format(self) -> None:
        self.typed = not self.typed
        self.query_one("#item-title", Label).update(self._heading())
        self._make(self.typed)
