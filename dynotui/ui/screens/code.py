"""The code that reproduces the current page, a tab for each language its query gives;
copyable."""

from __future__ import annotations

from collections.abc import Callable

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Footer, Label, Static, TabbedContent, TabPane

from dynotui.core.text import visible_lines
from dynotui.ui.query import CodeTab
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain


class CodeScreen(Dialog[None]):
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("c", "copy", "Copy this code"),
    ]

    def __init__(
        self, title: str, tabs: dict[str, CodeTab], copy: Callable[[str, str], None]
    ) -> None:
        """``tabs``: the query's code by language; ``copy(text, what)`` puts the code shown
        on the clipboard and says where."""
        super().__init__()
        self.code_title = title
        self.tabs = tabs
        self.code = {language: tab.text for language, tab in tabs.items()}
        self.copy = copy

    def compose(self) -> ComposeResult:
        with Vertical(id="code-box", classes="modal-box"):
            yield Label(plain(self.code_title), id="code-title", classes="modal-title")
            with TabbedContent(id="code-tabs"):
                for language, tab in self.tabs.items():
                    with TabPane(tab.title, id=language), VerticalScroll():
                        # The code quotes values from the data: shown with escapes visible.
                        yield Static(Syntax(visible_lines(tab.text), tab.lexer, word_wrap=True))
        yield Footer()

    @property
    def language(self) -> str:
        return str(self.query_one(TabbedContent).active)

    def action_copy(self) -> None:
        self.copy(self.code[self.language], self.tabs[self.language].title)
