"""The cursor stack as a ledger: every known page, the start key that opens it, and what
reading it cost. Enter jumps there."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Label

from dynotui.core.page import PageSummary
from dynotui.core.pager import Pager
from dynotui.ui.query import Boundary
from dynotui.ui.widgets.safe_text import plain, plain_lines

# The figures first and the start key last: at 80 columns a long key would push what
# each page cost off the screen.
COLUMNS = (
    "page",
    "Count",
    "Scanned",
    "cost",
    "of which",
    "calls",
    "ended",
    "",
    "start key (where the page opens)",
)


def _cost_parts(summary: PageSummary[Any]) -> tuple[str, str]:
    cost = summary.cost
    headline = cost.headline
    total = "not reported" if headline is None else f"{headline:,.10g} {cost.unit}"
    detail = ", ".join(f"{label.strip()} {value}".strip() for label, value in cost.fields()[1:])
    return total, detail


def ledger_rows(pager: Pager, boundary_text: Callable[[Boundary], str]) -> list[list[Text]]:
    rows = []
    cached = set(pager.cached_numbers())
    for number, key in pager.stack:
        summary = pager.summary_of(number)
        marks = []
        if number == pager.number:
            marks.append("current")
        if number in cached:
            marks.append("cached")
        if summary is None:
            marks.append("not read yet")
            cells = [str(number), "", "", "", "", "", "", ", ".join(marks), boundary_text(key)]
        else:
            total, detail = _cost_parts(summary)
            read = summary.scanned_count
            cells = [
                str(number),
                f"{summary.count:,}",
                "not reported" if read is None else f"{read:,}",
                total,
                detail,
                str(summary.cost.requests),
                summary.ended_by.words,
                ", ".join(marks),
                boundary_text(key),
            ]
        rows.append([plain(c) for c in cells])
    return rows


class StackScreen(ModalScreen[int | None]):
    BINDINGS = [Binding("escape,q,s", "dismiss(None)", "Close")]

    def __init__(
        self, pager: Pager, boundary_text: Callable[[Boundary], str], footer: str = ""
    ) -> None:
        """``footer``: the five measures of this stack and the session's cursor refusals."""
        super().__init__()
        self.pager = pager
        self.boundary_text = boundary_text
        self.footer = footer

    def compose(self) -> ComposeResult:
        with Vertical(id="stack-box", classes="modal-box"):
            yield Label(
                "Cursor stack: page k is re-read from the start key stored for it; each row "
                "shows what its latest read cost. Enter jumps there.",
                id="stack-title",
                classes="modal-title",
            )
            yield DataTable(id="stack-table", cursor_type="row", zebra_stripes=True)
            yield Label(plain_lines(self.footer), id="stack-measures")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label in COLUMNS:
            table.add_column(label, key=label or "marks")
        for number, row in enumerate(ledger_rows(self.pager, self.boundary_text), start=1):
            table.add_row(*row, key=str(number))
        table.move_cursor(row=max(self.pager.number - 1, 0))
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.dismiss(int(event.row_key.value or 0) or None)
