"""Ask for a page number to go to; past the pages known, say first what the walk there
will take (the pages, the time and the cost measured so far), as a count does."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Footer, Input, Label

from dynotui.core.numbers import is_whole
from dynotui.core.pager import Pager
from dynotui.core.walk import forecast_walk, walk_text
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain_lines

MAX_PAGE = 1_000_000
Forecast = Callable[[int], str]  # a page number's walk in words ("" when none is needed)


def page_number(text: str) -> int | None:
    text = text.strip().replace(",", "")  # 1,000 as the stack writes it
    return int(text) if is_whole(text) and 1 <= int(text) <= MAX_PAGE else None


class JumpScreen(Dialog[int | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(
        self, known: int, current: int, first: int = 1, forecast: Forecast | None = None
    ) -> None:
        super().__init__()
        self.known = known
        self.current = current
        self.first = first  # a stack reopened at page 3 starts there
        self.forecast = forecast

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
            yield Label("", id="jump-forecast", classes="jump-forecast")
        yield Footer()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#jump-error", Label).update("")
        number = page_number(event.value)
        words = self.forecast(number) if number is not None and self.forecast else ""
        self.query_one("#jump-forecast", Label).update(plain_lines(words))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        number = page_number(event.value)
        if number is None:
            self.query_one("#jump-error", Label).update(
                plain_lines(f"a page number, 1 to {MAX_PAGE:,}, got {event.value!r}")
            )
            return
        self.dismiss(number)


def walk_words(sides: Sequence[tuple[str, Pager]], number: int) -> str:
    """Each side's walk to page ``number`` (``core.walk``), or "" when every side has it
    on its stack; the sides of a compare walk at once."""
    lines = []
    for name, pager in sides:
        forecast = forecast_walk(pager, number)
        if forecast is not None:
            said = walk_text(forecast)
            lines.append(
                f"{name.capitalize()}: {said}." if name else f"{said[0].upper()}{said[1:]}."
            )
    if not lines:
        return ""
    both = " Both sides walk at once." if len(lines) > 1 else ""
    return "\n".join(lines) + f"\nEsc stops the walk; the pages read are kept.{both}"
