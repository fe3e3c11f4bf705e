"""Every key: dynotui's own first, the grid's generic ones last. Esc closes it."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Footer, Label, Static

from dynotui.ui.actions import Action
from dynotui.ui.screens.dialog import Dialog

GRID_KEYS = (
    ("↑ ↓", "move the row cursor"),
    ("← →", "scroll a wide grid sideways"),
    ("PgUp PgDn", "a screenful up or down"),
    ("Home End", "first or last row (ctrl+home in the grid)"),
    ("Enter", "open the selected item"),
    ("ctrl+p", "command palette: every action by name"),
)
COMPARE_KEYS = (
    ("tab", "the other side"),
    ("N / P / G", "both sides to the next, previous or first page"),
    ("J", "both sides to page N (page k of one order faces page k of the other)"),
    ("Esc", "back to one pager (both sides are kept for the next w)"),
)


def key_label(key: str) -> str:
    names = {
        "question_mark": "?",
        "number_sign": "#",
        "left_square_bracket": "[",
        "right_square_bracket": "]",
        "escape": "Esc",
        "full_stop": ".",
        "colon": ":",
    }
    return " / ".join(names.get(k, k) for k in key.split(","))


class HelpScreen(Dialog[None]):
    BINDINGS = [Binding("escape,question_mark", "dismiss", "Close")]

    def __init__(self, actions: Sequence[Action]) -> None:
        super().__init__()
        self.actions = actions

    def compose(self) -> ComposeResult:
        ours = [
            (key_label(action.keys), f"{action.title}: {action.help}") for action in self.actions
        ]
        sections = [("", ours), ("The grid", GRID_KEYS), ("The compare view (w)", COMPARE_KEYS)]
        # One key column for every section, as wide as the widest key, and the headings on
        # lines of their own: a heading in the key column would widen it for every row.
        width = max(cell_len(key) for _, keys in sections for key, _ in keys)
        parts: list[RenderableType] = []
        for heading, keys in sections:
            if heading:
                parts.append(Text("\n" + heading, style="bold underline"))
            table = Table.grid(padding=(0, 2))
            table.add_column(style="bold", no_wrap=True, width=width)
            table.add_column()
            for key, text in keys:
                table.add_row(Text(key), Text(text))
            parts.append(table)
        with Vertical(id="help-box", classes="modal-box"):
            yield Label("Keys — Esc closes", id="help-title", classes="modal-title")
            with VerticalScroll():
                yield Static(Group(*parts), id="help-keys")
        yield Footer()
