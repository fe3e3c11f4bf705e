"""What one pager view is doing, as a state machine with no Textual in it.

A view is in one of five phases:

- ``idle``: nothing in flight (a page, or nothing yet, on screen);
- ``opening``: a table is being described before its form or first page;
- ``reading``: one page is being read (a move, or a new query's first page);
- ``walking``: reading on towards a goal page (held ``n``, or a jump past the known pages);
- ``failed``: the last read failed; what failed stays said until a read succeeds.

The moves between them are the methods below; each returns what the caller must do (a
read id to cancel, whether an answer is still wanted). Every move makes a new
``ReadStatus``, an immutable snapshot: a view keeps it in one reactive attribute and
redraws its status line from it, rather than from calls spread through its handlers.
Reads are told apart by id, so an answer to a read that was cancelled or superseded is
recognised as such (its cost still counts; that is the caller's business).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Generic, Literal, TypeVar

P = TypeVar("P")  # what the caller keeps with a read (its stack, move and cancel token)
Phase = Literal["idle", "opening", "reading", "walking", "failed"]


@dataclass(frozen=True)
class TableOpening:
    """A table being described: its name, since when, and which opening it is."""

    name: str
    began: float
    token: int


@dataclass(frozen=True)
class Reading(Generic[P]):
    """The one read in flight: which page, whether it is a new query's first page."""

    id: int
    number: int
    began: float
    first_page: bool
    payload: P


@dataclass(frozen=True)
class Failure:
    """The move that failed, kept in the status line until a read succeeds."""

    page: int
    words: str
    at: datetime


@dataclass(frozen=True)
class ReadStatus(Generic[P]):
    """Everything the status line says of reading, at one moment."""

    table_opening: TableOpening | None = None
    reading: Reading[P] | None = None
    goal_page: int | None = None  # the page held n (or a jump) is heading for
    quiet: bool = False  # a jump's walk: pages on the way are not drawn
    failure: Failure | None = None

    @property
    def phase(self) -> Phase:
        if self.reading is not None:
            return "walking" if self.goal_page is not None else "reading"
        if self.table_opening is not None:
            return "opening"
        if self.failure is not None:
            return "failed"
        return "idle"

    @property
    def busy(self) -> bool:
        """Something Esc would stop: a read, a walk, a table being opened."""
        return self.phase in ("opening", "reading", "walking") or self.goal_page is not None


class ReadMachine(Generic[P]):
    """The moves of one view's reading. ``status`` is the state after the last move."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.status: ReadStatus[P] = ReadStatus()
        self._ids = 0

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    # -- opening a table ------------------------------------------------------------------

    def open_table(self, name: str) -> TableOpening:
        """Describe table ``name``: the opening asked for last is the one wanted."""
        opening = TableOpening(name, self.clock(), self._next_id())
        self.status = replace(self.status, table_opening=opening)
        return opening

    def table_opened(self, opening: TableOpening) -> bool:
        """Its answer came: True if that opening is still wanted (not abandoned with Esc,
        nor replaced by another table asked for since)."""
        if self.status.table_opening != opening:
            return False
        self.status = replace(self.status, table_opening=None)
        return True

    # -- reading --------------------------------------------------------------------------

    def begin(self, number: int, payload: P, *, first_page: bool = False) -> Reading[P]:
        """A read of page ``number`` replaces any read in flight (the caller cancels
        that one: it is ``status.reading`` before this move)."""
        reading = Reading(self._next_id(), number, self.clock(), first_page, payload)
        self.status = replace(self.status, reading=reading)
        return reading

    def walk_to(self, goal_page: int, *, quiet: bool = False) -> None:
        """Go on reading until page ``goal_page`` (held n, a jump); ``quiet``: draw only
        the page the walk ends on."""
        self.status = replace(self.status, goal_page=goal_page, quiet=quiet)

    def end_walk(self) -> None:
        """The goal was reached, or the data ended before it."""
        self.status = replace(self.status, goal_page=None, quiet=False)

    def is_current(self, read_id: int) -> bool:
        reading = self.status.reading
        return reading is not None and reading.id == read_id

    def arrived(self, read_id: int) -> Reading[P] | None:
        """A read answered with a page. The read, if it was the current one (the page is
        to be shown: the failure said before is over); None for a read superseded or
        cancelled since."""
        reading = self.status.reading
        if reading is None or reading.id != read_id:
            return None
        self.status = replace(self.status, reading=None)
        return reading

    def shown(self) -> None:
        """A page was shown: an earlier failure is over."""
        if self.status.failure is not None:
            self.status = replace(self.status, failure=None)

    def failed(self, read_id: int, words: str, at: datetime) -> Reading[P] | None:
        """A read failed. The read, if it was the current one (the walk ends, what failed
        is said until a read succeeds); None for one superseded or cancelled since."""
        reading = self.status.reading
        if reading is None or reading.id != read_id:
            return None
        failure = Failure(reading.number, words, at)
        self.status = ReadStatus(
            table_opening=self.status.table_opening, reading=None, failure=failure
        )
        return reading

    def stopped(self, read_id: int) -> Reading[P] | None:
        """A read ended without a page and without a failure to say (cancelled where it
        ran, or refused as the user's input): the walk ends, nothing else changes."""
        reading = self.status.reading
        if reading is None or reading.id != read_id:
            return None
        self.status = replace(self.status, reading=None, goal_page=None, quiet=False)
        return reading

    def drop_read(self) -> Reading[P] | None:
        """Another move replaces the read in flight and any walk (a table being opened
        stays asked for). The read that was in flight, for the caller to cancel."""
        reading = self.status.reading
        self.status = replace(self.status, reading=None, goal_page=None, quiet=False)
        return reading

    def cancel(self) -> Reading[P] | None:
        """Esc, or a move that replaces what was in flight: no read, no walk, no table
        opening any more. The read that was in flight (for the caller to cancel)."""
        reading = self.status.reading
        self.status = ReadStatus(failure=self.status.failure)
        return reading
