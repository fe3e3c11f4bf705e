"""What an adapter may ask of the app: the ``Host`` protocol, and nothing else of the UI.

The app asks, the adapter answers (as Harlequin's adapters do): the app calls an adapter
with a ``Host`` and the data it needs (the query shown, a history entry), and the adapter
answers with data: a new stack to open, a screen to show, words. What it may ask of the
app in return is only this: show a screen and get its answer, run work off the UI
thread, open a table (the one call that owns the "Opening table" line and its Esc),
report a failure or say something, copy text, tell the session what was spent, and put
a query beside the main one in the compare view. An adapter never sees the app, a view
or a widget, so the seam has one direction and no import circle.

This module imports nothing from the rest of the UI: the app implements it, adapters and
their screens use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, Protocol, TypeVar

from textual.screen import Screen

from dynotui.core.ledger import CountOutcome

A = TypeVar("A")
T = TypeVar("T")
Severity = Literal["information", "warning", "error"]


class Counted(Protocol):
    """A finished count, kept for its query (by scope) and shown in the status line."""

    @property
    def scope(self) -> str: ...

    def summary(self) -> str: ...


class Host(Protocol):
    def ask(self, screen: Screen[A], answered: Callable[[A | None], None]) -> None:
        """Show ``screen``; ``answered`` gets what it is dismissed with."""

    def call(
        self,
        work: Callable[[], T],
        done: Callable[[T], None],
        failed: Callable[[BaseException], None],
    ) -> None:
        """``work`` off the UI thread; ``done`` or ``failed`` then runs on the UI's."""

    def open_table(
        self,
        name: str,
        work: Callable[[], T],
        done: Callable[[T], None],
        failed: Callable[[BaseException], None],
    ) -> None:
        """Open table ``name`` on the main view: ``work`` (describing it) off the UI thread
        while the status line says so; ``done`` or ``failed`` runs only if the table is
        still wanted (Esc, or another table asked for since, abandons it)."""

    def after_refresh(self, work: Callable[[], None]) -> None:
        """``work`` on the UI thread once the screen has been drawn with what has changed
        so far: for work that can wait, and would hold back what is about to be drawn."""

    def after_page_drawn(self, work: Callable[[], None]) -> None:
        """``work`` on the UI thread once a frame showing the main view's next page shown
        has been drawn (``after_refresh`` may run before a page's rows reach the screen)."""

    def fail(self, error: BaseException, title: str) -> None:
        """A failure in words, shown for a while."""

    def say(
        self,
        words: str,
        *,
        title: str = "",
        severity: Severity = "information",
        timeout: float | None = None,
    ) -> None:
        """Words for the user (plain text: data in them is shown, never parsed)."""

    def read_clock(self) -> Callable[[], float]:
        """The clock a read is timed by (the session's: a test's fixed one)."""

    def copy(self, text: str, what: str) -> None:
        """``text`` to the clipboard, saying where it went (``what``: it in words)."""

    def count_of(self, scope: str) -> Counted | None:
        """The count kept for the query of ``scope`` (None: not counted yet)."""

    def count_finished(self, outcome: CountOutcome) -> None:
        """A count ended, complete or stopped: what it read is billed to the session."""

    def what_if_finished(self, outcome: CountOutcome) -> None:
        """A what-if estimate ended, complete or stopped: what it read is billed to the
        session (its own part, apart from pages and counts)."""

    def compare(self, query: object) -> None:
        """The compare view, with ``query`` (one of the adapter's own, a ``Query``: typed
        as ``object`` so this module imports no more of the UI) opened from its start on
        the right side; the main view's query stays on the left as it is."""

    def connection_changed(self) -> None:
        """The adapter's connection changed (a reconnect): the app reads the label and
        the clients again; every stack is kept."""
