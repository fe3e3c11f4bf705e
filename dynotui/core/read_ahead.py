"""Pages read before they are asked for (``--read-ahead N``), kept until ``n`` reaches them.

Opt-in: a page read ahead spends capacity the user did not ask for, so it is billed at
once, as read ahead, whether or not it is ever shown. The pager (``core/pager.py``) reads
each page ahead from the very boundary ``n`` would read it from, by the same call, so it
holds the items ``n`` would have shown at that moment; one it can no longer use (the
boundary before it moved, the stack was replaced) is dropped, never shown.

This module is the store (``AheadStore``: one entry per page number, each a future the
reader ahead fills, so a read of that page asked for while it is still under way waits
for it rather than paying for it twice) and the chain that fills it (``AheadChain``: the
pages after the one shown, read in order, each claimed before it is read). One chain runs
per stack at a time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from typing import Generic, Protocol, TypeVar

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import NoProgressError, ReadCancelled
from dynotui.core.ledger import SessionLedger
from dynotui.core.page import C, I, K, Page
from dynotui.core.source import Source

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


class Stack(Protocol[C, K, I]):
    """What a chain reads ahead for: a pager (``core/pager.py``), which imports this
    module, so the chain knows it by this shape only."""

    source: Source[K, I, C]
    ledger: SessionLedger | None

    @property
    def number(self) -> int: ...

    @property
    def current(self) -> Page[C, K, I] | None: ...

    def cached_page(self, number: int) -> Page[C, K, I] | None: ...

    def selectivity(self, read: int = 0, matched: int = 0) -> float | None: ...

    def boundary(self, key: K | None) -> str: ...

    def check_progress(
        self, page: Page[C, K, I], number: int, ahead: Mapping[str, int] = ...
    ) -> None: ...


class AheadChain(Generic[C, K, I]):
    """The reads ahead of one stack, into its store: the pages after the current one, in
    order, each from the boundary ``n`` would read it from and with the selectivity ``n``
    will have by then (the pages read ahead before it added). Page j read and j+1 claimed
    under the store's lock, so ``n`` never finds a page between the two."""

    def __init__(self, pager: Stack[C, K, I], store: AheadStore[Page[C, K, I]]) -> None:
        self.pager = pager
        self.store = store

    def start(self, pages: int, each: Callable[[], None] | None = None) -> Callable[[], int] | None:
        """Read up to ``pages`` pages past the current one, in order, each as ``n`` would
        read it (from its boundary, with the selectivity it will have then), and keep
        them until ``n`` reaches them. The first page is claimed now, so ``n`` pressed at
        once waits for it rather than reading it twice; the reads are the work returned,
        to run in a thread of the caller's (None: nothing to read, or a chain already
        running goes that far instead). Each page is billed as read ahead as it is read,
        then ``each`` is called (in that thread). The chain stops at the end of the data,
        at a failure (the user's own ``n`` reads that page and says what failed) or at
        the store's ``stop``. The work returns how many pages it read."""
        token = self.store.want(self.pager.number + pages) if pages > 0 else None
        if token is None:
            return None
        claim = self._claim_next(token)
        if claim is None:
            return None
        return partial(self._read_from, claim, token, each)

    def _claim_next(self, token: CancelToken) -> tuple[Ahead[Page[C, K, I]], K] | None:
        """The next page to read ahead, its entry made; None (the chain ends there and
        then, so a goal set meanwhile starts a new one) when there is none."""
        store = self.store
        with store.lock:
            following = None if token.cancelled else self._next_to_read(store.goal)
            if following is None:
                store.finished(token)
                return None
            number, start, selectivity = following
            return store.begin(number, self.pager.boundary(start), selectivity), start

    def _read_from(
        self,
        claim: tuple[Ahead[Page[C, K, I]], K] | None,
        token: CancelToken,
        each: Callable[[], None] | None,
    ) -> int:
        try:
            return self._read_chain(claim, token, each)
        except BaseException:
            self.store.finished(token)  # a bug of ours: no chain left running in name
            raise

    def _read_chain(
        self,
        claim: tuple[Ahead[Page[C, K, I]], K] | None,
        token: CancelToken,
        each: Callable[[], None] | None,
    ) -> int:
        read = 0
        while claim is not None:  # the last claim (None) ended the chain
            entry, start = claim
            try:
                page = self.pager.source.read_page(
                    start, entry.number, selectivity=entry.selectivity, cancel=token
                )
            except Exception as exc:  # said when n reads the page itself
                if isinstance(exc, ReadCancelled) and self.pager.ledger is not None:
                    self.pager.ledger.read_ahead(exc.cost)  # billed all the same
                entry.future.set_exception(exc)
                self.store.finished(token)
                return read
            if self.pager.ledger is not None:
                self.pager.ledger.read_ahead(page.cost)  # spent, whether it is shown or refused
            try:
                self.pager.check_progress(page, entry.number, self.store.starts())
            except NoProgressError as exc:
                entry.future.set_exception(exc)
                self.store.finished(token)
                return read
            with self.store.lock:  # page j read and j+1 claimed at once: n never between
                entry.future.set_result(page.as_read_ahead())
                claim = self._claim_next(token)
            read += 1
            if each is not None:
                each()
        return read

    def _next_to_read(self, goal: int) -> tuple[int, K, float | None] | None:
        """The first page after the current one, up to ``goal``, neither cached nor read
        ahead, its boundary and the selectivity ``n`` will read it with (the pages read
        ahead before it added); None if there is none (or the data ends first)."""
        current = self.pager.current
        if current is None:
            return None
        start = current.next_start_key
        read = matched = 0  # of the pages read ahead before it
        for number in range(current.number + 1, goal + 1):
            if start is None:
                return None  # the data ends before it
            cached = self.pager.cached_page(number)
            if cached is not None and cached.start_key == start:
                start = cached.next_start_key  # shown from the cache: adds nothing
                continue
            selectivity = self.pager.selectivity(read, matched)
            entry = self.store.get(number, self.pager.boundary(start), selectivity)
            if entry is None:
                return number, start, selectivity
            page = entry.page()
            if page is None:
                return None  # failed (or under way): not asked again until n reads it
            read += page.cost.read or 0
            matched += page.cost.matched
            start = page.next_start_key
        return None
