"""Choose one of many (tables, sort orders), typing to filter."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, OptionList
from textual.widgets.option_list import Option


class PickerScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Close")]

    def __init__(self, title: str, choices: list[tuple[str, str]]) -> None:
        """``choices`` are (value, label) pairs."""
        super().__init__()
        self.picker_title = title
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Label(self.picker_title, id="picker-title")
            yield Input(placeholder="type to filter", id="picker-filter")
            yield OptionList(id="picker-options")
        yield Footer()

    def on_mount(self) -> None:
        self._fill("")

    def _fill(self, text: str) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        needle = text.lower()
        options.add_options(
            [Option(label, id=value) for value, label in self.choices if needle in label.lower()]
        )
        if options.option_count:
            options.highlighted = 0

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self.dismiss(options.get_option_at_index(options.highlighted).id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def on_key(self, event) -> None:  # arrows move the list while typing in the filter
        options = self.query_one(OptionList)
        if event.key in ("down", "up") and self.focused is self.query_one(Input):
            options.action_cursor_down() if event.key == "down" else options.action_cursor_up()
            event.stop()
