"""Choose one of many (tables, sort orders), typing to filter."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Footer, Input, Label, OptionList
from textual.widgets.option_list import Option

from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain, plain_lines


class PickerScreen(Dialog[str | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Close")]

    def __init__(self, title: str, choices: list[tuple[str, str]]) -> None:
        """``choices`` are (value, label) pairs; labels may hold names from the service."""
        super().__init__()
        self.picker_title = title
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box", classes="modal-box"):
            yield Label(plain_lines(self.picker_title), id="picker-title", classes="modal-title")
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
            [
                Option(plain(label), id=str(index))
                for index, (_, label) in enumerate(self.choices)
                if needle in label.lower()
            ]
        )
        if options.option_count:
            options.highlighted = 0

    def _value(self, option_id: str | None) -> str | None:
        return self.choices[int(option_id)][0] if option_id is not None else None

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self.dismiss(self._value(options.get_option_at_index(options.highlighted).id))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self._value(event.option.id))

    def on_key(self, event: events.Key) -> None:  # arrows move the list while typing
        options = self.query_one(OptionList)
        if event.key in ("down", "up") and self.focused is self.query_one(Input):
            options.action_cursor_down() if event.key == "down" else options.action_cursor_up()
            event.stop()
