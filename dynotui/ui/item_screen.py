"""One item, whole: plain JSON or DynamoDB JSON, toggled."""

from __future__ import annotations

import json

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Static

from dynotui.core.dynamo_json import Item, plain_item, to_wire


def item_json(item: Item, dynamodb_json: bool) -> str:
    data = to_wire(item) if dynamodb_json else plain_item(item)
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False)


class ItemScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q", "dismiss", "Close"),
        Binding("d", "toggle_format", "Plain / DynamoDB JSON"),
    ]

    def __init__(self, item: Item, title: str) -> None:
        super().__init__()
        self.item = item
        self.item_title = title
        self.dynamodb_json = False
        self.shown_json = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="item-box"):
            yield Label(self._heading(), id="item-title")
            with VerticalScroll():
                yield Static(self._body(), id="item-json")
        yield Footer()

    def _heading(self) -> str:
        kind = "DynamoDB JSON" if self.dynamodb_json else "plain JSON"
        return f"{self.item_title} — {kind} (d toggles)"

    def _body(self) -> Syntax:
        self.shown_json = item_json(self.item, self.dynamodb_json)
        return Syntax(self.shown_json, "json", word_wrap=True)

    def action_toggle_format(self) -> None:
        self.dynamodb_json = not self.dynamodb_json
        self.query_one("#item-title", Label).update(self._heading())
        self.query_one("#item-json", Static).update(self._body())
