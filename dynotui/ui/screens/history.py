"""The queries opened before, newest first, with when and what they cost; Enter reopens one
at the page it was left on (re-read from its stored start key)."""

from __future__ import annotations

from datetime import datetime

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Footer, Label

from dynotui.core.errors import error_words
from dynotui.core.history import HistoryEntry, HistoryStore
from dynotui.ui.background import Done, Outcome, run_in_background
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain, plain_lines

COLUMNS = ("viewed", "query", "page", "cost so far", "database", "opened")


def when(moment: float) -> str:
    return datetime.fromtimestamp(moment).astimezone().strftime("%Y-%m-%d %H:%M")


class HistoryScreen(Dialog[HistoryEntry | None]):
    BINDINGS = [Binding("escape,h", "dismiss(None)", "Close")]

    class Read(Message):
        def __init__(self, outcome: Outcome[list[HistoryEntry]]) -> None:
            super().__init__()
            self.outcome = outcome

    def __init__(self, store: HistoryStore) -> None:
        super().__init__()
        self.store = store
        self.entries: list[HistoryEntry] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="history-box", classes="modal-box"):
            yield Label(
                plain_lines(
                    f"History ({self.store.path}): Enter reopens a query at the page it was "
                    "left on, re-read from its stored start key."
                ),
                id="history-title",
                classes="modal-title",
            )
            yield Label("", id="history-error", classes="field-error")
            yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label in COLUMNS:
            table.add_column(label, key=label)
        run_in_background(self, self.store.entries, self.Read)

    @on(Read)
    def _read(self, message: Read) -> None:
        outcome = message.outcome
        if not isinstance(outcome, Done):
            self.query_one("#history-error", Label).update(plain_lines(error_words(outcome.error)))
            return
        self.entries = outcome.value
        table = self.query_one(DataTable)
        if not self.entries:
            self.query_one("#history-error", Label).update(
                "No query kept yet (or history is off: --no-history, history = false)."
            )
        for index, entry in enumerate(self.entries):
            table.add_row(
                plain(when(entry.viewed_at)),
                plain(entry.label),
                plain(str(entry.page or "-")),
                plain(entry.cost_words()),
                plain(entry.database),
                plain(when(entry.opened_at)),
                key=str(index),
            )
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        index = int(event.row_key.value or 0)
        if 0 <= index < len(self.entries):
            self.dismiss(self.entries[index])
