"""The cursor stack as a ledger: every known page, the start key that opens it, and what
reading it cost. Enter jumps there.

Nothing is cut by the edge: the figures take the columns that fit, the most telling
first, and the start key is a column only where every key fits whole beside them. The
highlighted page's start key and every figure of its row are said in full below the
table, wrapped, at any width.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Resize
from textual.widgets import DataTable, Footer, Label

from dynotui.core.page import PageSummary
from dynotui.core.pager import Pager
from dynotui.ui.query import Boundary
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain, plain_lines
from dynotui.ui.widgets.words import JOINT, flowed

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
KEY = len(COLUMNS) - 1
# Which columns a narrow screen keeps, the most telling first: the start key only where
# every key fits whole (it is said below the table in any case).
IMPORTANCE = (0, 1, 2, 3, 6, 7, 5, 4)
CELL_PADDING = 1  # the table's own padding, each side of a cell


def chosen_columns(rows: Sequence[Sequence[Text]], width: int) -> list[int]:
    """The columns that fit whole in ``width`` cells, in their usual order: the figures
    by importance (the first that does not fit ends the choice), then the start key if
    every key fits beside them."""

    def need(column: int) -> int:
        cells = [cell_len(COLUMNS[column])] + [cell_len(row[column].plain) for row in rows]
        return max(cells) + 2 * CELL_PADDING

    kept: list[int] = []
    used = 0
    for column in IMPORTANCE:
        if kept and used + need(column) > width:
            break
        kept.append(column)
        used += need(column)
    if len(kept) == len(IMPORTANCE) and used + need(KEY) <= width:
        kept.append(KEY)
    return sorted(kept)


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


class StackScreen(Dialog[int | None]):
    BINDINGS = [Binding("escape,s", "dismiss(None)", "Close")]

    def __init__(
        self, pager: Pager, boundary_text: Callable[[Boundary], str], footer: str = ""
    ) -> None:
        """``footer``: the five measures of this stack and the session's cursor refusals."""
        super().__init__()
        self.pager = pager
        self.boundary_text = boundary_text
        self.footer = footer
        self.rows = ledger_rows(pager, boundary_text)
        self.shown_columns: list[int] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="stack-box", classes="modal-box"):
            yield Label(
                "Cursor stack: page k is re-read from the start key stored for it; each row "
                "shows what its latest read cost. Enter jumps there.",
                id="stack-title",
                classes="modal-title",
            )
            yield DataTable(id="stack-table", cursor_type="row", zebra_stripes=True)
            yield Label("", id="stack-detail")
            yield Label("", id="stack-measures")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self.call_after_refresh(self._fill)

    def on_resize(self, event: Resize) -> None:
        self.call_after_refresh(self._fill)

    def _fill(self) -> None:
        """The rows in the columns that fit the table's width (again after a resize)."""
        table = self.query_one(DataTable)
        width = table.scrollable_content_region.width or table.size.width
        # The measures in whole parts: never "Count/Scanned 27 /" at a line's end.
        measures = self.query_one("#stack-measures", Label)
        room = measures.content_region.width or width
        measures.update(plain_lines(flowed(self.footer.split(JOINT), room)))
        columns = chosen_columns(self.rows, width)
        if columns == self.shown_columns and table.row_count:
            return
        row = table.cursor_row if table.row_count else max(self.pager.number - 1, 0)
        self.shown_columns = columns
        table.clear(columns=True)
        for column in columns:
            table.add_column(COLUMNS[column], key=COLUMNS[column] or "marks")
        for number, cells in enumerate(self.rows, start=1):
            table.add_row(*(cells[c] for c in columns), key=str(number))
        table.move_cursor(row=min(row, len(self.rows) - 1))
        self._detail(table.cursor_row)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail(event.cursor_row)

    def _detail(self, index: int) -> None:
        """The highlighted page in full, wrapped: its start key and every figure."""
        if not 0 <= index < len(self.rows):
            return
        cells = [cell.plain for cell in self.rows[index]]
        parts = [f"Page {cells[0]}"]
        if cells[3]:  # read: its figures
            cost = f"{cells[3]} ({cells[4]})" if cells[4] else cells[3]
            calls = f"{cells[5]} {'call' if cells[5] == '1' else 'calls'}"
            parts += [f"Count {cells[1]}", f"Scanned {cells[2]}", cost, calls, cells[6]]
        if cells[7]:
            parts.append(cells[7])
        detail = self.query_one("#stack-detail", Label)
        room = detail.content_region.width or self.app.size.width
        text = plain_lines(flowed(parts, room) + "\nopens at " + cells[KEY])
        detail.update(text)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.dismiss(int(event.row_key.value or 0) or None)
