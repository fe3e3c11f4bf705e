"""Pages read before they are asked for (``--read-ahead N``), kept until ``n`` reaches them.

Opt-in: a page read ahead spends capacity the user did not ask for, so it is billed at
once, as read ahead, whether or not it is ever shown. The pager (``core/pager.py``) reads
each page ahead from the very boundary ``n`` would read it from, by the same call, so it
holds the items ``n`` would have shown at that moment; one it can no longer use (the
boundary before it moved, the stack was replaced) is dropped, never shown.

This module is the store: one entry per page number, each a future the reader ahead
fills, so a read of that page asked for while it is still under way waits for it rather
than paying for it twice. One chain of reads ahead runs per stack at a time.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from dynotui.core.cancel import CancelToken

P = TypeVar("P")  # a page


@dataclass(frozen=True)
class Ahead(Generic[P]):
    """Page ``number``, read (or being read) from the boundary ``start`` (canonical JSON)
    with the selectivity ``n`` will read it with (it sizes a fill-mode page's calls)."""

    number: int
    start: str
    selectivity: float | None
    future: Future[P] = field(default_factory=Future)

    def page(self) -> P | None:
        """The page, once read; None while under way or if its read failed."""
        if not self.future.done() or self.future.exception() is not None:
            return None
        return self.future.result()


class AheadStore(Generic[P]):
    """The pages one stack read ahead. ``lock`` also guards the stack's own boundaries
    while a chain looks for the next page to read (the pager holds it in ``accept``)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._pages: dict[int, Ahead[P]] = {}
        self._goal = 0  # the last page the chain is to reach
        self.token = CancelToken()  # the running chain's, or the next one's
        self._running: CancelToken | None = None  # the token of the chain running

    def want(self, goal: int) -> CancelToken | None:
        """Read on up to page ``goal`` (and no further: after a move back, not up to a
        goal set further on before). The token of the chain the caller is to run; None
        if a chain is running already (it now goes on to ``goal``)."""
        with self.lock:
            self._goal = goal
            if self._running is not None:
                return None
            self._running = self.token
            return self.token

    @property
    def goal(self) -> int:
        return self._goal

    def finished(self, token: CancelToken) -> None:
        """The chain with ``token`` makes no further read."""
        with self.lock:
            if self._running is token:
                self._running = None

    def holds(self, number: int) -> bool:
        """Whether page ``number`` was read ahead from some boundary (a cheap first look)."""
        return number in self._pages

    def get(self, number: int, start: str, selectivity: float | None) -> Ahead[P] | None:
        """The entry for page ``number`` read from ``start`` with ``selectivity``; None if
        none, or read otherwise: from a boundary that has moved since, or with another
        selectivity (another read since), it may not be the page ``n`` would read."""
        with self.lock:
            entry = self._pages.get(number)
        if entry is None or entry.start != start or entry.selectivity != selectivity:
            return None
        return entry

    def begin(self, number: int, start: str, selectivity: float | None) -> Ahead[P]:
        with self.lock:
            entry: Ahead[P] = Ahead(number, start, selectivity)
            self._pages[number] = entry
            return entry

    def starts(self) -> dict[str, int]:
        """Where the pages read ahead begin, and which page each begins (for the
        endless-walk check)."""
        with self.lock:
            return {entry.start: entry.number for entry in self._pages.values()}

    def numbers(self) -> list[int]:
        with self.lock:
            return sorted(self._pages)

    def drop_through(self, number: int) -> None:
        """Forget pages up to ``number``: shown, or passed."""
        with self.lock:
            for n in [n for n in self._pages if n <= number]:
                del self._pages[n]

    def drop_after(self, number: int) -> None:
        """Forget pages past ``number``: the boundary after it moved."""
        with self.lock:
            for n in [n for n in self._pages if n > number]:
                del self._pages[n]

    def stop(self) -> None:
        """The stack is no longer shown: the chain makes no further call, nothing read
        ahead is kept (what it spent stays billed)."""
        with self.lock:
            self.token.cancel()
            self.token = CancelToken()
            self._running = None  # the stopped chain reads nothing more: a new one may start
            self._pages.clear()
            self._goal = 0


def wait_for(future: Future[P], cancel: CancelToken) -> P | None:
    """The page a read ahead is reading, once it is read: None if that read failed (the
    caller reads the page itself). A cancelled wait raises ReadCancelled (nothing spent)."""
    woke = threading.Event()
    future.add_done_callback(lambda _: woke.set())
    withdraw = cancel.on_cancel(woke.set)
    try:
        woke.wait()
    finally:
        withdraw()
    cancel.check()
    if future.exception() is not None:
        return None
    return future.result()
