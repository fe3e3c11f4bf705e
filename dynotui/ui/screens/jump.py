"""Ask for a page number to go to."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label

from dynotui.ui.widgets.safe_text import plain_lines

MAX_PAGE = 1_000_000


class JumpScreen(ModalScreen[int | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, known: int, current: int, first: int = 1) -> None:
        super().__init__()
        self.known = known
        self.current = current
        self.first = first  # a stack reopened at page 3 starts there

    def compose(self) -> ComposeResult:
        with Vertical(id="cursor-box", classes="modal-box"):
            yield Label(
                plain_lines(
                    f"Go to page (on page {self.current:,}; pages {self.first:,} to "
                    f"{self.known:,} are on the stack). Beyond them, every page between is "
                    "read in order, as a reader paging there would: Esc stops."
                ),
                classes="modal-title",
            )
            yield Input(placeholder="page number", id="page-number")
            yield Label("", id="jump-error", classes="field-error")
        yield Footer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip().replace(",", "").replace("_", "")
        if not text.isdigit() or not 1 <= int(text) <= MAX_PAGE:
            self.query_one("#jump-error", Label).update(
                plain_lines(f"a page number, 1 to {MAX_PAGE:,}, got {event.value!r}")
            )
            return
        self.dismiss(int(text))
