"""The results grid: a virtual table on Textual's line API.

Textual's DataTable renders every cell through Rich (padding, wrapping, cropping) and
throws its caches away when rows are replaced: 100 ms for a 25-row page, 350 ms for
500. Here a row is one string, cut to the column widths when it is first drawn, and only the
lines in view are drawn, each as a single styled segment: a page replaces rows in
place, and scrolling a 500-row page costs what scrolling a 5-row one does.

Cells arrive as plain text already made visible (``core.text.visible``): nothing here
is parsed as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
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

PADDING = 1  # one space each side of a cell


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


def _strip(text: str, simple: bool, style: Style, rest: Style, start: int, width: int) -> Strip:
    """``width`` cells of ``text`` from cell ``start``; beyond its end, blanks in ``rest``.
    A line of one cell per character is cut by slicing: one Strip, not three."""
    if not simple:
        strip = Strip([Segment(text, style)], cell_len(text))
        return strip.crop_extend(start, start + width, rest)
    shown = text[start : start + width]
    if len(shown) == width:
        return Strip([Segment(shown, style)], width)
    blank = Segment(" " * (width - len(shown)), rest)
    return Strip([Segment(shown, style), blank] if shown else [blank], width)


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
        self._cells: Sequence[Sequence[str]] = []  # the cells as given
        self._lines: dict[int, tuple[str, bool]] = {}  # rows drawn so far, as lines
        self._styles: tuple[Style, Style, Style, Style] | None = None
        self._header: tuple[str, bool] | None = None

    # -- content ---------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self._cells)

    @property
    def labels(self) -> list[str]:
        return [column.label for column in self.columns]

    def set_columns(self, columns: Sequence[GridColumn]) -> None:
        """New columns; the rows are given again with ``set_rows``, in this order."""
        self.columns = list(columns)
        self._lines = {}
        self._header = None

    def set_rows(self, cells: Sequence[Sequence[str]], *, keep_cursor: bool = False) -> None:
        """Replace every row (a new page): the columns stay, the cursor goes to the top.
        A row is cut to the column widths when it is first drawn, not before: a 500-row
        page costs what the rows in view cost."""
        drawn = max(len(self._cells), len(cells)) + 1  # the lines whose text changes
        self._cells = cells
        self._lines = {}
        self.virtual_size = Size(sum(c.render_width for c in self.columns), len(cells) + 1)
        if keep_cursor:
            self.cursor_row = min(self.cursor_row, max(len(cells) - 1, 0))
        else:
            self.set_reactive(Grid.cursor_row, 0)
            self.scroll_to(y=0, animate=False)
        # Only the lines that held or hold a row: a short page leaves the rest alone.
        self.refresh(Region(0, 0, self.size.width, min(drawn, self.size.height)))

    def _line(self, index: int) -> tuple[str, bool]:
        """Row ``index`` as one line, and whether it takes one cell per character."""
        line = self._lines.get(index)
        if line is None:
            line = self._lines[index] = self._line_of(self._cells[index])
        return line

    def _line_of(self, row: Sequence[str]) -> tuple[str, bool]:
        pad = " " * PADDING
        text = "".join(
            pad + fit(row[i] if i < len(row) else "", column.width) + pad
            for i, column in enumerate(self.columns)
        )
        return text, text.isascii() or cell_len(text) == len(text)

    def get_row_at(self, index: int) -> list[str]:
        """The cells of row ``index`` as shown: cut to their column's width."""
        row = self._cells[index]
        shown = []
        for i, column in enumerate(self.columns):
            text = row[i] if i < len(row) else ""
            shown.append(fit(text, column.width) if cell_len(text) > column.width else text)
        return shown

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

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        base, header, cursor, even = self._line_styles()
        if y == 0:
            if self._header is None:
                self._header = self._line_of([c.label for c in self.columns])
            text, simple = self._header
            return _strip(text, simple, header, header, scroll_x, width)
        index = scroll_y + y - 1
        if index >= len(self._cells):
            return Strip.blank(width, base)
        text, simple = self._line(index)
        if index == self.cursor_row:
            style = cursor
        elif index % 2 == 0:
            style = even
        else:
            style = base
        return _strip(text, simple, style, base, scroll_x, width)

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
        self._move(-len(self._cells))

    def action_last_row(self) -> None:
        self._move(len(self._cells))

    def action_scroll_left(self) -> None:
        self.scroll_to(x=max(self.scroll_offset.x - 8, 0), animate=False)

    def action_scroll_right(self) -> None:
        self.scroll_to(x=self.scroll_offset.x + 8, animate=False)

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
