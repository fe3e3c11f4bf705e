"""The line above the grid: which page, what it holds, whether more follows; while a read
or a walk to a distant page is under way, a spinner with its seconds; after a failure,
what failed and when, until a read succeeds."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual.events import Resize
from textual.visual import visualize

from dynotui.core.page import Page
from dynotui.core.text import plural, visible
from dynotui.ui.host import Counted
from dynotui.ui.query import Query
from dynotui.ui.widgets.safe_text import TextStatic
from dynotui.ui.widgets.words import NEXT_PAGE

if TYPE_CHECKING:
    from textual.css.styles import RulesMap

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def status_line(
    query: Query, page: Page[Any] | None, counted: Counted | None = None, before: str = ""
) -> Text:
    """The current page in one line (``query`` adds its notes, ``counted`` a count,
    ``before`` what the stack does not hold before this page)."""
    if page is None:
        return Text("No page read yet: press n to read page 1.")
    line = f"Page {page.number} · {plural(page.shown, 'item')} · {NEXT_PAGE[page.has_next]}"
    if page.cached:
        line += " · served from cache"
    elif page.read_ahead:
        line += " · read ahead"
    for note in query.notes(page):
        line += f" · {note}"
    if counted is not None:
        line += f" · {counted.summary()}"
    text = Text(visible(line), style="bold")
    if before:
        text.append(f" · {before}", style="yellow")
    if page.empty_with_key:
        text.append(
            " · EMPTY PAGE WITH A KEY: items were read but none passed the filter;"
            " this is not the end, press n",
            style="bold yellow",
        )
    return text


def busy(what: str, began: float, escape: str) -> Text:
    """``⠙ Reading page 4… 0.6 s (Esc cancels)``; ``what`` is already made visible."""
    elapsed = time.monotonic() - began
    spin = SPINNER[int(elapsed * 10) % len(SPINNER)]
    return Text(f"{spin} {what}… {elapsed:.1f} s (Esc {escape})", style="bold")


def walking(target: int, reading: int) -> Text:
    return Text(f"→ page {target}, reading {reading} (Esc stops)  ", style="bold")


class StatusLine(TextStatic):
    """The line's widget. For one stack's pages it keeps the most lines a page's status has
    needed: a note that comes and goes (folded columns) would otherwise move the rows up
    and down a line from page to page. A new stack, or a new width, starts again."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._rows = 0  # the most lines a page's status has needed in this stack
        self._rows_for: object = None  # that stack
        self._held: int | None = None  # the min-height set, if any
        self._width = 0

    def hold_for(self, stack: object, page_status: Text) -> None:
        """``page_status``, about to be shown for a page of ``stack``, counts towards the
        lines the line keeps (a read's spinner or a failure shown with it does not)."""
        if stack is not self._rows_for:
            self._rows_for, self._rows = stack, 0
        self._rows = max(self._rows, self._rows_of(page_status))
        self._hold(self._rows if self._rows > 1 else None)

    def _rows_of(self, text: Text) -> int:
        """The lines ``text`` takes at this width, measured as Textual lays it out, at most
        the max-height (0 before the widget has a width)."""
        width = self.content_region.width
        if not width:
            return 0
        # The styles are the mapping of rules Textual's own layout passes here; the
        # annotation names the TypedDict they are read through.
        rows = visualize(self, text, markup=False).get_height(cast("RulesMap", self.styles), width)
        cap = self.styles.max_height
        return min(rows, int(cap.value)) if cap is not None and cap.is_cells else rows

    def _hold(self, rows: int | None) -> None:
        if rows != self._held:  # setting it, even to the same, lays out the screen
            self._held = self.styles.min_height = rows

    def on_resize(self, event: Resize) -> None:
        # Only a new width: the held height changing resizes the line too.
        if event.size.width != self._width:
            self._width = event.size.width
            self._rows = 0
            self._hold(None)  # measured again from the next page's status
