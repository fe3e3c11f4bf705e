"""What the whole session spent: every stack, count, abandoned read and what-if estimate.

A pager's ``Totals`` belongs to one cursor stack, and a new query, a mode switch or a
pasted cursor starts a new stack. The ledger is the app's, made once when it opens and
handed to every pager (both sides of a compare included): each fresh page read, each
abandoned read and each finished count lands here, and every figure says what it
covers ("12 pages read in 3 queries, 2 counts, 1 abandoned read").

Costs are summed per unit and never across units: RCU and buffers do not add up.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any, Protocol

from dynotui.core.page import Cost
from dynotui.core.refusals import CursorRefusals, RefusalFigures


class CountOutcome(Protocol):
    """A finished (or stopped) count: what it cost, and whether it ran to the end.
    ``dynamodb.count.CountResult`` and ``postgres.count.PgCountResult`` both are one."""

    @property
    def cost(self) -> Cost | None:
        """None: nothing is known of what it spent (count(*) cancelled mid-statement)."""

    @property
    def complete(self) -> bool: ...


def _plus(total: Any, cost: Any) -> Any:
    return cost if total is None else total + cost


def headline(cost: Any) -> float | None:
    """A summed cost's headline; None for no cost or one not reported."""
    return None if cost is None else cost.headline


@dataclass(frozen=True, slots=True)
class UnitFigures:
    """The session's spending in one unit (RCU, buffers)."""

    unit: str
    pages: Any = None  # the summed Cost of every fresh page read
    counts: Any = None
    abandoned: Any = None
    what_if: Any = None  # what the what-if estimates read (the query, a table sample)
    read_ahead: Any = None  # pages read before they were asked for, shown or not

    @property
    def total(self) -> float | None:
        """Everything spent in this unit; None when no part reported a figure."""
        parts = [
            headline(c)
            for c in (self.pages, self.counts, self.abandoned, self.what_if, self.read_ahead)
        ]
        known = [p for p in parts if p is not None]
        return sum(known) if known else None

    def as_json(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "pages": headline(self.pages),
            "counts": headline(self.counts),
            "abandoned": headline(self.abandoned),
            "what_if": headline(self.what_if),
            "read_ahead": headline(self.read_ahead),
            "total": self.total,
        }


@dataclass(frozen=True, slots=True)
class SessionFigures:
    pages_read: int
    queries: int  # distinct scopes (result sets) read
    stacks: int  # cursor stacks that read at least one page
    counts: int
    partial_counts: int  # stopped before the end (still billed)
    abandoned_reads: int  # cancelled or superseded reads that had spent something
    by_unit: tuple[UnitFigures, ...]
    refusals: RefusalFigures
    what_ifs: int = 0  # what-if estimates made (each read the query, or part of it)
    partial_what_ifs: int = 0  # stopped before the end (still billed)
    read_ahead: int = 0  # pages read ahead (--read-ahead), billed as read ahead
    read_ahead_shown: int = 0  # of those, the ones n reached: not billed again

    def unit(self, name: str) -> UnitFigures | None:
        return next((u for u in self.by_unit if u.unit == name), None)

    def as_json(self) -> dict[str, Any]:
        return {
            "pages_read": self.pages_read,
            "queries": self.queries,
            "stacks": self.stacks,
            "counts": self.counts,
            "partial_counts": self.partial_counts,
            "abandoned_reads": self.abandoned_reads,
            "what_ifs": self.what_ifs,
            "read_ahead": self.read_ahead,
            "read_ahead_shown": self.read_ahead_shown,
            "cost": [u.as_json() for u in self.by_unit],
            "cursors": self.refusals.as_json(),
        }


class SessionLedger:
    """One per app. Fed by every pager it is given (``Pager(..., ledger=)``) and by the
    UI for counts; safe to feed from any thread."""

    def __init__(self, refusals: CursorRefusals | None = None) -> None:
        self._lock = threading.Lock()
        self.cursors = refusals or CursorRefusals()
        self._pages = 0
        self._scopes: set[str] = set()
        self._stacks: weakref.WeakSet[Any] = weakref.WeakSet()
        self._stack_count = 0
        self._counts = 0
        self._partial = 0
        self._abandoned = 0
        self._what_ifs = 0
        self._partial_what_ifs = 0
        self._read_ahead = 0
        self._read_ahead_shown = 0
        self._units: dict[str, UnitFigures] = {}

    def _fold(self, cost: Cost, part: str) -> None:
        now = self._units.get(cost.unit) or UnitFigures(cost.unit)
        values = {
            "pages": now.pages,
            "counts": now.counts,
            "abandoned": now.abandoned,
            "what_if": now.what_if,
            "read_ahead": now.read_ahead,
        }
        values[part] = _plus(values[part], cost)
        self._units[cost.unit] = UnitFigures(cost.unit, **values)

    def page_read(self, stack: Any, scope: str, cost: Cost) -> None:
        """A fresh page read by ``stack`` (its pager) of the query with this scope. A page
        of an index that does not exist (what-if) was worked out, not read: not billed."""
        if cost.estimated:
            return
        with self._lock:
            self._pages += 1
            self._stack_read(stack, scope)
            self._fold(cost, "pages")

    def _stack_read(self, stack: Any, scope: str) -> None:
        self._scopes.add(scope)
        if stack not in self._stacks:
            self._stacks.add(stack)
            self._stack_count += 1

    def read_ahead(self, cost: Cost | None) -> None:
        """A page read ahead (``--read-ahead``), or a read ahead stopped after it had
        spent ``cost``: billed now, as read ahead, whether or not it is ever shown."""
        if cost is None or cost.estimated:
            return
        with self._lock:
            self._read_ahead += 1
            self._fold(cost, "read_ahead")

    def ahead_shown(self, stack: Any, scope: str) -> None:
        """A page read ahead is shown: one more page of that query, already billed."""
        with self._lock:
            self._read_ahead_shown += 1
            self._stack_read(stack, scope)

    def read_outside(self, cost: Cost) -> None:
        """Items read for a stack but shown on none of its pages (passing over what a
        foreign cursor had shown): billed, so the session's spend includes them."""
        with self._lock:
            self._fold(cost, "pages")

    def abandoned(self, cost: Cost | None) -> None:
        """A read cancelled or superseded after it had spent ``cost`` (an estimated page
        of an imagined index spent nothing)."""
        if cost is None or cost.estimated:
            return
        with self._lock:
            self._abandoned += 1
            self._fold(cost, "abandoned")

    def count_done(self, result: CountOutcome) -> None:
        """A count that finished or was stopped: either way, what it read was billed."""
        with self._lock:
            self._counts += 1
            if not result.complete:
                self._partial += 1
            if result.cost is not None:
                self._fold(result.cost, "counts")

    def what_if_done(self, result: CountOutcome) -> None:
        """A what-if estimate that finished or was stopped: what it read was billed."""
        with self._lock:
            self._what_ifs += 1
            if not result.complete:
                self._partial_what_ifs += 1
            if result.cost is not None:
                self._fold(result.cost, "what_if")

    def figures(self) -> SessionFigures:
        with self._lock:
            return SessionFigures(
                pages_read=self._pages,
                queries=len(self._scopes),
                stacks=self._stack_count,
                counts=self._counts,
                partial_counts=self._partial,
                abandoned_reads=self._abandoned,
                by_unit=tuple(self._units.values()),
                refusals=self.cursors.figures(),
                what_ifs=self._what_ifs,
                partial_what_ifs=self._partial_what_ifs,
                read_ahead=self._read_ahead,
                read_ahead_shown=self._read_ahead_shown,
            )
