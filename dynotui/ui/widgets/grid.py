"""The results grid: a virtual table on Textual's line API.

Textual's DataTable renders every cell through Rich (padding, wrapping, cropping) and
throws its caches away when rows are replaced: 100 ms for a 25-row page, 350 ms for
500. Here a row's cells are cut to their column widths when the row is first drawn, and
only the lines in view are drawn, each as a single styled segment: a page replaces rows
in place, and scrolling a 500-row page costs what scrolling a 5-row one does.

Sideways, the grid moves a whole column at a time and the keys stay in place: a cell is
shown whole or not at all, so a number is never cut by the edge of the screen into
another number (``sideways``). Angle quotes at either edge of the header say that columns
lie beyond (on every row they were noise).

Cells arrive as plain text already made visible (``core.text.visible``): nothing here
is parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from dynotui.ui.widgets import sideways

PADDING = 1  # one space each side of a cell
MORE_LEFT = "\u2039"  # single left-pointing angle quotation mark
MORE_RIGHT = "\u203a"  # single right-pointing angle quotation mark


@dataclass
class GridColumn:
    key: str
    label: str
    width: int

    @property
    def render_width(self) -> int:
        return self.width + 2 * PADDING


def fit(text: str, width: int) -> str:
    """``text`` cut or padded to exactly ``width`` cells; a cut ends in an ellipsis."""
    if text.isascii():  # one cell per character: the common case, and much the fastest
        if len(text) <= width:
            return text.ljust(width)
        return text[: width - 1] + "…" if width else ""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(text, max(width - 1, 0)) + "…" if width else ""


class Grid(ScrollView, can_focus=True):
    """Rows of text under a header; a row cursor; Enter selects the row."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home,ctrl+home", "first_row", "First row", show=False),
        Binding("end,ctrl+end", "last_row", "Last row", show=False),
        Binding("left", "scroll_left", "Left", show=False),
        Binding("right", "scroll_right", "Right", show=False),
        Binding("enter", "select", "Open", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "grid--header",
        "grid--cursor",
        "grid--even-row",
    }

    DEFAULT_CSS = """
    Grid {
        background: $surface;
        color: $foreground;
        height: 1fr;
        & > .grid--header {
            text-style: bold;
            background: $panel;
        }
        & > .grid--even-row {
            background: $surface-lighten-1 50%;
        }
        & > .grid--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
        }
        &:focus > .grid--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
    }
    """

    cursor_row: reactive[int] = reactive(0, always_update=True)

    class RowSelected(Message):
        def __init__(self, grid: Grid, row: int) -> None:
            super().__init__()
            self.grid = grid
            self.row = row

        @property
        def control(self) -> Grid:
            return self.grid

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.columns: list[GridColumn] = []
        self.fixed = 0  # the first columns, which stay in place sideways (the keys)
        self.first = 0  # the first of the other columns shown
        self.keys = sideways.BESIDE  # how the keys stand at this sideways position
        self._window: tuple[tuple[int, int, str], sideways.View] | None = None
        self._cells: Sequence[Sequence[str]] = []  # the cells as given
        self._fitted: dict[int, list[str]] = {}  # rows drawn so far, cut to their widths
        self._styles: tuple[Style, Style, Style, Style] | None = None
        self._header: list[str] | None = None
        self._rows_drawn = True  # a frame has drawn the rows held now
        self._after_drawn: list[Callable[[], object]] = []  # work waiting for that frame

    # -- content ---------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self._cells)

    @property
    def labels(self) -> list[str]:
        return [column.label for column in self.columns]

    def set_columns(self, columns: Sequence[GridColumn], fixed: int = 0) -> None:
        """New columns, the first ``fixed`` of them kept in place; the rows are given again
        with ``set_rows``, in this order."""
        self.columns = list(columns)
        self.fixed = min(fixed, len(self.columns))
        # The same place sideways, as near as the new columns allow (``_position``).
        self.first = min(self.first, max(len(self.columns) - 1, 0))
        self._window = None
        self._fitted = {}
        self._header = None

    def set_rows(self, cells: Sequence[Sequence[str]], *, keep_cursor: bool = False) -> None:
        """Replace every row (a new page): the columns stay, the cursor goes to the top.
        A row is cut to the column widths when it is first drawn, not before: a 500-row
        page costs what the rows in view cost."""
        drawn = max(len(self._cells), len(cells)) + 1  # the lines whose text changes
        self._cells = cells
        self._fitted = {}
        self.virtual_size = Size(0, len(cells) + 1)  # sideways the grid moves by columns
        if keep_cursor:
            self.cursor_row = min(self.cursor_row, max(len(cells) - 1, 0))
        else:
            self.set_reactive(Grid.cursor_row, 0)
            self.scroll_to(y=0, animate=False)
        # Only the lines that held or hold a row: a short page leaves the rest alone.
        self.refresh(Region(0, 0, self.size.width, min(drawn, self.size.height)))
        self._rows_drawn = False

    def _fit_row(self, row: Sequence[str]) -> list[str]:
        return [
            fit(row[i] if i < len(row) else "", column.width)
            for i, column in enumerate(self.columns)
        ]

    def _row(self, index: int) -> list[str]:
        fitted = self._fitted.get(index)
        if fitted is None:
            fitted = self._fitted[index] = self._fit_row(self._cells[index])
        return fitted

    def get_row_at(self, index: int) -> list[str]:
        """The cells of row ``index`` as shown: cut to their column's width."""
        row = self._cells[index]
        shown = []
        for i, column in enumerate(self.columns):
            text = row[i] if i < len(row) else ""
            shown.append(fit(text, column.width) if cell_len(text) > column.width else text)
        return shown

    # -- which columns are in view ---------------------------------------------------------

    def positions(self, width: int | None = None) -> list[sideways.Position]:
        """Every sideways position, left to right (``sideways.positions``)."""
        widths = [column.render_width for column in self.columns]
        return sideways.positions(widths, self.fixed, self._width() if width is None else width)

    def window(self, width: int | None = None) -> tuple[list[int], bool, bool]:
        """The columns in view (fixed first), and whether others lie left and right. Every
        column in view fits whole, markers included, but a single column wider than the
        grid by itself (cut to the grid's width with an ellipsis when drawn)."""
        view = self._view(self._width() if width is None else width)
        return view.shown, view.left, view.right

    def _view(self, width: int) -> sideways.View:
        """What is in view, worked out once per width and position, not per line drawn."""
        wanted = (width, self.first, self.keys)
        if self._window is not None and self._window[0] == wanted:
            return self._window[1]
        widths = [column.render_width for column in self.columns]
        steps = sideways.positions(widths, self.fixed, width)
        at = steps[sideways.nearest(steps, (self.first, self.keys))]
        view = sideways.view(widths, self.fixed, width, at)
        self._window = (wanted, view)
        return view

    def _line(self, cells: Sequence[str], width: int, marks: bool = True) -> tuple[str, int]:
        """The line of these cells in view, and its width in cells; ``marks``: the angle
        quotes that say columns lie beyond (the header's; a row has blanks there)."""
        view = self._view(width)
        shown, left, right = view.shown, view.left, view.right
        pad = " " * PADDING
        keys = [i for i in shown if i < self.fixed] if view.pinned else []
        beyond_left = (MORE_LEFT if marks else " ") if left else ""
        text = "".join(pad + cells[i] + pad for i in keys) + beyond_left
        room = width - (1 if right else 0)
        for i in shown[len(keys) :]:
            cell = cells[i]
            used = len(text) if text.isascii() else cell_len(text)
            if used + cell_len(cell) + 2 * PADDING > room:
                # The one column wider than the grid: cut to the room left, and said so.
                cell = fit(cell.rstrip(), max(room - used - 2 * PADDING, 1))
            text += pad + cell + pad
        size = len(text) if text.isascii() else cell_len(text)
        if right:
            text = text + " " * max(width - size - 1, 0) + (MORE_RIGHT if marks else " ")
            size = max(size + 1, width)
        return text, size

    # -- drawing ---------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        self._styles = None  # the CSS, the theme or focus changed: ask again
        super().notify_style_update()

    def _line_styles(self) -> tuple[Style, Style, Style, Style]:
        # Asking CSS walks the DOM (backgrounds, component classes): once per style change.
        if self._styles is None:
            base = self.rich_style
            self._styles = (
                base,
                base + self.get_component_rich_style("grid--header"),
                base + self.get_component_rich_style("grid--cursor"),
                base + self.get_component_rich_style("grid--even-row"),
            )
        return self._styles

    def _width(self) -> int:
        """The cells a line has: the widget's width less a vertical scrollbar's."""
        return self.scrollable_content_region.width or self.size.width

    def after_drawn(self, work: Callable[[], object]) -> None:
        """Run ``work`` once a frame showing the rows given last (``set_rows``) has been
        drawn: work that would otherwise hold that frame back (reading ahead, writing
        history). Textual's ``call_after_refresh`` is not that: its callback runs as soon
        as the screen finds nothing to draw, and a widget's repaint reaches the screen a
        message later, so on a busy machine it often ran before the frame."""
        if self._rows_drawn:
            self.call_later(work)
        else:
            self._after_drawn.append(work)

    def render_lines(self, crop: Region) -> list[Strip]:
        lines = super().render_lines(crop)
        # The compositor renders the grid's lines while it builds a frame, then hands the
        # frame to the terminal in the same call: work posted from here runs after that.
        # A mouse over the grid asks one line for its style, outside any frame: not that.
        if crop.height > 1 or crop.height == self.size.height:
            self._rows_drawn = True
            due, self._after_drawn = self._after_drawn, []
            for work in due:
                self.call_later(work)
        return lines

    def render_line(self, y: int) -> Strip:
        width = self._width()
        scroll_y = self.scroll_offset.y
        base, header, cursor, even = self._line_styles()
        if y == 0:
            if self._header is None:
                self._header = self._fit_row([c.label for c in self.columns])
            return self._strip(self._header, header, header, width, marks=True)
        index = scroll_y + y - 1
        if index >= len(self._cells):
            return Strip.blank(width, base)
        if index == self.cursor_row:
            style = cursor
        elif index % 2 == 0:
            style = even
        else:
            style = base
        return self._strip(self._row(index), style, base, width, marks=False)

    def _strip(
        self, cells: Sequence[str], style: Style, rest: Style, width: int, marks: bool
    ) -> Strip:
        text, size = self._line(cells, width, marks)
        if size >= width:
            return Strip([Segment(text, style)], size).crop(0, width)
        blank = Segment(" " * (width - size), rest)
        return Strip([Segment(text, style), blank] if text else [blank], width)

    def watch_cursor_row(self, old: int, new: int) -> None:
        top = round(self.scroll_offset.y)
        self._scroll_cursor_into_view()
        if round(self.scroll_offset.y) != top:
            self.refresh()  # the view moved: every line changed
            return
        # Only the row the cursor left and the one it reached change.
        for row in {old, new}:
            y = row - top + 1  # below the header
            if 1 <= y < self.size.height:
                self.refresh(Region(0, y, self.size.width, 1))

    def _scroll_cursor_into_view(self) -> None:
        visible = max(self.size.height - 1, 1)
        top = round(self.scroll_offset.y)
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False)
        elif self.cursor_row >= top + visible:
            self.scroll_to(y=self.cursor_row - visible + 1, animate=False)

    # -- keys and mouse --------------------------------------------------------------------

    def _move(self, rows: int) -> None:
        if self._cells:
            self.cursor_row = max(0, min(len(self._cells) - 1, self.cursor_row + rows))

    def action_cursor_up(self) -> None:
        self._move(-1)

    def action_cursor_down(self) -> None:
        self._move(1)

    def _page(self, direction: int) -> None:
        # As a pager does: the view moves a screenful, and the cursor with it.
        step = max(self.size.height - 2, 1) * direction
        self.scroll_to(y=max(round(self.scroll_offset.y) + step, 0), animate=False)
        self._move(step)

    def action_page_up(self) -> None:
        self._page(-1)

    def action_page_down(self) -> None:
        self._page(1)

    def action_first_row(self) -> None:
        self.first, self.keys = self.fixed, sideways.BESIDE  # and back to the first columns
        self.refresh()
        self._move(-len(self._cells))

    def action_last_row(self) -> None:
        self._move(len(self._cells))

    def _step(self, by: int) -> None:
        """One sideways position left (-1) or right (+1)."""
        width = self._width()
        steps = self.positions(width)
        at = sideways.nearest(steps, (self.first, self.keys))
        view = self._view(width)
        if by > 0 and not view.right and view.pinned:
            return  # the last column is in view, and the keys: nothing more to see
        to = max(0, min(len(steps) - 1, at + by))
        if to != at:
            self.first, self.keys = steps[to]
            self.refresh()

    def action_scroll_left(self) -> None:
        self._step(-1)

    def action_scroll_right(self) -> None:
        self._step(1)

    def action_select(self) -> None:
        if self._cells:
            self.post_message(self.RowSelected(self, self.cursor_row))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y == 0:
            return
        index = round(self.scroll_offset.y) + offset.y - 1
        if 0 <= index < len(self._cells):
            if index == self.cursor_row and event.chain >= 2:
                self.action_select()
            self.cursor_row = index
