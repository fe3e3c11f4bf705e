"""The code that reproduces the current page: boto3, AWS CLI, JavaScript; copyable."""

from __future__ import annotations

from collections.abc import Callable

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Static, TabbedContent, TabPane

from dynotui.core.text import visible_lines
from dynotui.ui.widgets.safe_text import plain

LEXERS = {
    "boto3": "python",
    "aws-cli": "bash",
    "javascript": "javascript",
    "sql": "sql",
    "psycopg": "python",
}
TITLES = {
    "boto3": "Python (boto3)",
    "aws-cli": "AWS CLI",
    "javascript": "JavaScript (SDK v3)",
    "sql": "SQL",
    "psycopg": "Python (psycopg)",
}


class CodeScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q", "dismiss", "Close"),
        Binding("c", "copy", "Copy this code"),
    ]

    def __init__(self, title: str, code: dict[str, str], copy: Callable[[str, str], None]) -> None:
        """``copy(text, what)`` puts the code shown on the clipboard and says where."""
        super().__init__()
        self.code_title = title
        self.code = code
        self.copy = copy

    def compose(self) -> ComposeResult:
        with Vertical(id="code-box", classes="modal-box"):
            yield Label(plain(self.code_title), id="code-title", classes="modal-title")
            with TabbedContent(id="code-tabs"):
                for language, text in self.code.items():
                    with TabPane(TITLES[language], id=language), VerticalScroll():
                        # The code quotes values from the data: shown with escapes visible.
                        yield Static(Syntax(visible_lines(text), LEXERS[language], word_wrap=True))
        yield Footer()

    @property
    def language(self) -> str:
        return str(self.query_one(TabbedContent).active)

    def action_copy(self) -> None:
        self.copy(self.code[self.language], TITLES[self.language])
