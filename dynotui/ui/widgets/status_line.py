"""The line above the grid: which page, what it holds, whether more follows; while a read
or a walk to a distant page is under way, a spinner with its seconds; after a failure,
what failed and when, until a read succeeds."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text

from dynotui.core.figures_text import plural
from dynotui.core.page import Page
from dynotui.core.text import visible
from dynotui.ui.host import Counted
from dynotui.ui.query import Query
from dynotui.ui.widgets.words import NEXT_PAGE

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def status_line(query: Query, page: Page[Any] | None, counted: Counted | None = None) -> Text:
    """The current page in one line (``query`` adds its notes, ``counted`` a count)."""
    if page is None:
        return Text("No page read yet: press n to read page 1.")
    line = f"Page {page.number} · {plural(page.shown, 'item')} · {NEXT_PAGE[page.has_next]}"
    if page.cached:
        line += " · served from cache"
    for note in query.notes(page):
        line += f" · {note}"
    if counted is not None:
        line += f" · {counted.summary()}"
    text = Text(visible(line), style="bold")
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
