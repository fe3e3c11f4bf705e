"""The cursor stack: every known page and the start key that opens it; pick one to jump."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Label

from dynotui.core.dynamo_json import Item
from dynotui.ui.cells import key_text


class StackScreen(ModalScreen[int | None]):
    BINDINGS = [Binding("escape,q", "dismiss(None)", "Close")]

    def __init__(
        self,
        stack: list[tuple[int, Item | None]],
        current: int,
        cached: list[int],
        key_names: tuple[str, ...] = (),
    ) -> None:
        super().__init__()
        self.key_names = key_names
        self.stack = stack
        self.current = current
        self.cached = set(cached)

    def compose(self) -> ComposeResult:
        with Vertical(id="stack-box"):
            yield Label(
                "Cursor stack: page k is re-read from the start key stored for it. "
                "Enter jumps there.",
                id="stack-title",
            )
            yield DataTable(id="stack-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("page", "", "start key (ExclusiveStartKey)")
        for number, key in self.stack:
            marks = []
            if number == self.current:
                marks.append("current")
            if number in self.cached:
                marks.append("cached")
            if number > max(self.current, 1) and number == len(self.stack):
                marks.append("next, not read yet")
            table.add_row(
                str(number), ", ".join(marks), key_text(key, self.key_names), key=str(number)
            )
        table.move_cursor(row=max(self.current - 1, 0))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.dismiss(int(event.row_key.value or 0) or None)
