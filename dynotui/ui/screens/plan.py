"""A plan on screen, for any database: its progress while it is made (Esc stops it where
the adapter can stop it), then a table of every path, the cheapest starred, and the
highlighted path's words below.

The adapter answers with data (``PlanAsk``: the words, the columns, how to make the plan,
``PlanShown``: the rows); the screen knows no database and no planner. Enter answers
``("open", name)``; space marks a path (two at most) and ``w`` answers
``("compare", left, right)``; ``c`` copies the adapter's JSON.

At a narrow width the table keeps the columns that fit, first ones first (the adapter
orders them by what decides first), with short headings; the figures it drops are said
below the table for the highlighted path, so nothing scrolls sideways out of sight.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from rich.cells import cell_len, set_cell_size
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Footer, Label, Static

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import error_words
from dynotui.core.text import visible
from dynotui.ui.background import Done, Outcome, run_in_background
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain, plain_lines

P = TypeVar("P")  # the adapter's own plan: handed back, never read here
R = TypeVar("R")  # what the adapter's making returns, turned into rows on the UI thread

PlanAnswer = tuple[str, ...]  # ("open", name) or ("compare", left, right)
CELL_PADDING = 1  # DataTable's, each side of a cell
NAME_FLOOR = 16  # cells a name may be cut down to so that every column shows


@dataclass(frozen=True)
class PlanColumn:
    heading: str
    short: str = ""  # the heading where the full table does not fit ("" = the same)
    # The row's detail says this figure in words: left out of the table, it is not said
    # again on the line of figures the table left out.
    in_detail: bool = False

    def at(self, narrow: bool) -> str:
        return self.short if narrow and self.short else self.heading


@dataclass(frozen=True)
class PlanRow:
    name: str  # what Enter and compare answer with; the table's row key
    cells: tuple[str, ...]  # one a column, the first the path's name as shown
    usable: bool  # False: drawn dim
    detail: tuple[str, ...]  # below the table when highlighted; the first line names it
    refused: str | None = None  # Enter says this (and space refuses) instead of answering


@dataclass(frozen=True)
class PlanShown(Generic[P]):
    plan: P
    said: str  # the line above the table: what the plan cost, which path is cheapest
    cheapest: str | None
    rows: tuple[PlanRow, ...]
    copied: str  # what c copies
    warn: bool = False  # said in yellow: the plan is incomplete


@dataclass(frozen=True)
class PlanFailed:
    said: str


@dataclass(frozen=True)
class PlanAsk(Generic[P, R]):
    """What the adapter asks the screen to show and how the plan is made.

    ``make(report, cancel)`` runs off the UI thread (``report`` a progress line); its
    result goes to ``ended`` on the UI thread, which answers what to show. ``made``: a
    plan made before, shown at once (nothing is made)."""

    title: str
    asked: str  # the query the plan is for
    starting: str
    columns: tuple[PlanColumn, ...]
    hint: str
    copy_what: str  # the clipboard's words for what c copies
    mark_first: str  # said when w is pressed without two marked
    copy: Callable[[str, str], None]
    make: Callable[[Callable[[str], None], CancelToken], R] | None = None
    ended: Callable[[R], PlanShown[P] | PlanFailed] = lambda _: PlanFailed("nothing to show")
    made: PlanShown[P] | None = None
    stoppable: bool = False  # Esc stops the making (the plan of what was read) before closing


class PlanStep(Message):
    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words


class PlanEnded(Message):
    def __init__(self, shown: Callable[[], PlanShown[Any] | PlanFailed]) -> None:
        super().__init__()
        self.shown = shown  # called on the UI thread: the adapter's ``ended``


def widths(columns: tuple[PlanColumn, ...], rows: tuple[PlanRow, ...], narrow: bool) -> list[int]:
    """Each column's width in cells with its padding, as DataTable draws it."""
    return [
        max([cell_len(column.at(narrow)), *(cell_len(visible(r.cells[i])) for r in rows)])
        + 2 * CELL_PADDING
        for i, column in enumerate(columns)
    ]


@dataclass(frozen=True)
class Fit:
    columns: int  # how many, first ones first
    narrow: bool  # the short headings
    name: int | None = None  # the name column's cells, names longer cut in the middle


def fitting(
    columns: tuple[PlanColumn, ...], rows: tuple[PlanRow, ...], room: int | None, marks: int
) -> Fit:
    """The columns that fit in ``room`` cells (None: all) beside the marks (``marks``
    cells wide): every one with its full heading, else with the short ones and names cut
    down to ``NAME_FLOOR``, else the first ones first with the room left to the names."""
    room_left = None if room is None else room - marks - 2 * CELL_PADDING
    if room_left is None or sum(widths(columns, rows, narrow=False)) <= room_left:
        return Fit(len(columns), narrow=False)
    name, *rest = widths(columns, rows, narrow=True)
    floor = min(name, NAME_FLOOR + 2 * CELL_PADDING)
    shown, used = 0, 0
    for width in rest:
        if floor + used + width > room_left:
            break
        shown, used = shown + 1, used + width
    cut = max(floor, room_left - used) - 2 * CELL_PADDING
    return Fit(1 + shown, narrow=True, name=cut if cut < name - 2 * CELL_PADDING else None)


def cut_middle(text: str, cells: int) -> str:
    """``text`` in ``cells`` cells: its start and its end kept (a name's two telling
    parts, as ``…(imagined)``), the middle as ``…``; the whole name is said below."""
    if cell_len(text) <= cells:
        return text
    tail = (cells - 1) // 2
    head = cells - 1 - tail
    return f"{set_cell_size(text, head)}…{set_cell_size(text[::-1], tail)[::-1]}"


class PlanScreen(Dialog[PlanAnswer | None], Generic[P, R]):
    BINDINGS = [
        # One key, two meanings: check_action leaves the one that applies (and footers it).
        Binding("escape", "stop", "Stop / close"),
        Binding("escape", "close", "Close"),
        Binding("enter", "open", "Open", priority=True),
        Binding("space", "mark", "Mark"),
        Binding("w", "compare", "Compare marked"),
        Binding("c", "copy", "Copy JSON"),
    ]

    DEFAULT_CSS = """
    #plan-progress, #plan-for, #plan-hint { width: 100%; height: auto; }
    #plan-table { height: 1fr; min-height: 4; }
    #plan-detail { height: auto; max-height: 50%; }
    """

    def __init__(self, ask: PlanAsk[P, R]) -> None:
        super().__init__()
        self.ask = ask
        self.token = CancelToken()
        self.shown: PlanShown[P] | None = ask.made
        self.ended = ask.made is not None
        self.marked: list[str] = []
        self.fit = Fit(len(ask.columns), narrow=False)  # what _fill drew

    @property
    def plan(self) -> P | None:
        """The adapter's plan, once made (what the adapter reads back when answered)."""
        return None if self.shown is None else self.shown.plan

    def compose(self) -> ComposeResult:
        ask = self.ask
        with Vertical(id="plan-box", classes="modal-box"):
            yield Label(plain(ask.title), classes="modal-title")
            yield Label(plain_lines(ask.asked), id="plan-for")
            yield Static(plain(ask.starting), id="plan-progress")
            table: DataTable[object] = DataTable(id="plan-table", cursor_type="row")
            yield table
            yield Static("", id="plan-detail")
            yield Label(plain(ask.hint), id="plan-hint")
        yield Footer()

    def on_mount(self) -> None:
        box = self.query_one("#plan-box")
        box.styles.width = box.styles.height = "100%"
        self.query_one(".modal-title").styles.padding = (0, 0)
        if self.shown is not None:
            self._show(self.shown)
            return
        make, ended, token = self.ask.make, self.ask.ended, self.token
        if make is None:
            return

        def report(words: str) -> None:
            self.post_message(PlanStep(words))

        def reported(outcome: Outcome[R]) -> PlanEnded:
            if isinstance(outcome, Done):
                value = outcome.value
                return PlanEnded(lambda: ended(value))
            failed = PlanFailed(f"The plan failed: {error_words(outcome.error)}")
            return PlanEnded(lambda: failed)

        run_in_background(self, lambda: make(report, token), reported)

    def on_resize(self, event: events.Resize) -> None:
        if self.shown is not None:
            self.call_after_refresh(self._fill)

    @on(PlanStep)
    def _step(self, message: PlanStep) -> None:
        if not self.ended:
            self.query_one("#plan-progress", Static).update(plain(message.words))

    @on(PlanEnded)
    def _ended(self, message: PlanEnded) -> None:
        self.ended = True
        self.refresh_bindings()  # Esc now closes
        shown = message.shown()
        if isinstance(shown, PlanFailed):
            self._failed(shown.said)
        else:
            self._show(shown)

    def _failed(self, words: str) -> None:
        self.query_one("#plan-progress", Static).update(plain_lines(words, style="bold red"))

    def _show(self, shown: PlanShown[P]) -> None:
        self.shown = shown
        style = "yellow" if shown.warn else ""
        self.query_one("#plan-progress", Static).update(plain(shown.said, style=style))
        self._fill()
        self.call_after_refresh(self._fill)  # again once the table has its width

    def _room(self, table: DataTable[object], rows: int) -> int | None:
        """The cells a row may take without scrolling sideways (None: not laid out yet)."""
        width, height = table.size.width, table.size.height
        if width <= 0:
            return None
        if rows + 1 > height:  # the header and every row: a vertical scrollbar shows
            width -= table.styles.scrollbar_size_vertical
        return width

    def _fill(self) -> None:
        shown = self.shown
        if shown is None:
            return
        table = self.query_one(DataTable)
        columns = self.ask.columns
        marks = [
            ("+" if r.name in self.marked else "") + ("*" if r.name == shown.cheapest else "")
            for r in shown.rows
        ]
        room = self._room(table, len(shown.rows))
        fit = fitting(columns, shown.rows, room, max(map(len, marks), default=0))
        at = table.cursor_row
        table.clear(columns=True)  # the columns that fit may change with a mark or a resize
        self.fit = fit
        # Widths as fitting counted them: DataTable's own, measured later, can lag a refill.
        table.add_column("", key="mark", width=max(map(len, marks), default=0))
        sizes = widths(columns, shown.rows, fit.narrow)
        if fit.name is not None:
            sizes[0] = fit.name + 2 * CELL_PADDING
        for column, size in zip(columns[: fit.columns], sizes, strict=False):
            table.add_column(column.at(fit.narrow), width=size - 2 * CELL_PADDING)
        for planned, mark in zip(shown.rows, marks, strict=True):
            style = "" if planned.usable else "dim"
            name, *figures = planned.cells[: fit.columns]
            if fit.name is not None:
                name = cut_middle(visible(name), fit.name)
            cells = (mark, name, *figures)
            table.add_row(*(plain(v, style) for v in cells), key=planned.name)
        if shown.rows:
            table.move_cursor(row=min(max(at, 0), len(shown.rows) - 1))
        self._describe()

    def _highlighted(self) -> PlanRow | None:
        if self.shown is None or not self.shown.rows:
            return None
        rows = self.shown.rows
        return rows[min(self.query_one(DataTable).cursor_row, len(rows) - 1)]

    def _describe(self) -> None:
        planned = self._highlighted()
        if planned is None:
            return
        lines = list(planned.detail)
        dropped = [
            f"{column.heading} {planned.cells[i]}"
            for i, column in enumerate(self.ask.columns)
            if i >= self.fit.columns and not column.in_detail and planned.cells[i] not in ("", "-")
        ]
        if dropped:
            lines[1:1] = [" · ".join(dropped)]
        self.query_one("#plan-detail", Static).update(plain_lines("\n".join(lines)))

    @on(DataTable.RowHighlighted)
    def _highlight(self) -> None:
        self._describe()

    # -- keys --------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        stopping = self.ask.stoppable and not self.ended
        if action == "stop":
            return stopping
        if action == "close":
            return not stopping
        return True

    def action_stop(self) -> None:
        self.token.cancel()  # the plan of what was read arrives as PlanEnded
        self.query_one("#plan-progress", Static).update("Stopping at the next call…")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_open(self) -> None:
        planned = self._highlighted()
        if planned is None:
            self.app.bell()
            return
        if planned.refused is not None:
            self.notify(planned.refused, severity="warning", markup=False)
            return
        self.dismiss(("open", planned.name))

    def action_mark(self) -> None:
        planned = self._highlighted()
        if planned is None or planned.refused is not None:
            self.app.bell()
            return
        name = planned.name
        if name in self.marked:
            self.marked.remove(name)
        else:
            self.marked = [*self.marked[-1:], name]  # two at most: the latest two
        self._fill()

    def action_compare(self) -> None:
        if len(self.marked) != 2:
            self.notify(self.ask.mark_first, severity="warning", markup=False)
            return
        self.dismiss(("compare", *self.marked))

    def action_copy(self) -> None:
        if self.shown is None:
            self.app.bell()
            return
        self.ask.copy(self.shown.copied, self.ask.copy_what)
