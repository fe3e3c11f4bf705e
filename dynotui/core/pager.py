"""The cursor stack: page k is always re-read from the start key stored for it.

Going back never flips the direction; it re-reads from a stored boundary or serves
a cached copy (marked as cached). Each move is three steps so that a UI can run the
I/O in a worker and drop it if cancelled: ``plan`` (no I/O, may refuse), ``read``
(I/O only, changes nothing), ``accept`` (changes state, no I/O). A failed read
therefore leaves stack, page number and cache exactly as they were.

Memory stays flat however deep a session goes: one small summary per page, items
only for the pages in the bounded cache.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Generic, Literal

from dynotui.core.cancel import NEVER, CancelToken
from dynotui.core.errors import InputError, NoProgressError
from dynotui.core.ledger import SessionLedger
from dynotui.core.measures import QueryMeasures
from dynotui.core.page import C, HasNext, I, K, Page, PageSummary, Totals
from dynotui.core.per_item import PerItem
from dynotui.core.read_ahead import Ahead, AheadChain, AheadStore, wait_for
from dynotui.core.source import Source

Target = Literal["next", "prev", "first", "refresh"] | int
DEFAULT_CACHE_PAGES = 20  # a DynamoDB page is at most 1 MB per call, so this bounds memory
SPARK_PAGES = 120  # the sparkline shows capacity of at most this many pages
EMPTY: Mapping[str, int] = MappingProxyType({})


class StalePageError(RuntimeError):
    """A page read for a stack that has changed since; drop it."""


@dataclass(frozen=True)
class Move(Generic[C, K, I]):
    """Where a move leads: page ``number``, read from ``start_key``, served cached, or
    the page read ahead from that very boundary."""

    number: int
    start_key: K | None
    cached: Page[C, K, I] | None = None
    ahead: Page[C, K, I] | None = None

    @property
    def ready(self) -> Page[C, K, I] | None:
        """The page, if it needs no read: a cached copy, or one read ahead."""
        return self.cached if self.cached is not None else self.ahead


class Pager(Generic[K, I, C]):
    """The stack of one query's pages, generic over its source's boundary, item and cost."""

    def __init__(
        self,
        source: Source[K, I, C],
        *,
        start_key: K | None = None,
        first_number: int = 1,
        cache_pages: int = DEFAULT_CACHE_PAGES,
        ledger: SessionLedger | None = None,
    ) -> None:
        """``first_number``: the number of the stack's first page. A stack reopened at
        page 3 (from history, or a cursor of page 3) numbers its pages 3, 4, ... so that
        page numbers keep their meaning across the reopening."""
        if first_number < 1:
            raise ValueError(f"a page number is 1 or more, got {first_number}")
        self.source = source
        self.first_number = first_number
        self.cache_pages = cache_pages
        self._starts: list[K | None] = [start_key]
        # Each boundary on the stack as canonical JSON, and the first page it begins: an
        # endless walk is refused by construction, whatever the source returns.
        self._began: dict[str, int] = {}
        self._note_start(first_number, start_key)
        self._cache: OrderedDict[int, Page[C, K, I]] = OrderedDict()
        self._summaries: dict[int, PageSummary[C, K]] = {}  # the latest fresh read of each
        self.current: Page[C, K, I] | None = None
        self.totals: Totals[C] = Totals()
        self.advisor = source.advisor()
        self.measures = QueryMeasures()  # this query's five measures, page by page
        self.per_item = PerItem()  # cost per item shown: the one figure everyone quotes
        self.ledger = ledger  # the app's: every stack's reads add up there too
        self._scope: str | None = None
        self._ahead: AheadStore[Page[C, K, I]] = AheadStore()
        self._chain: AheadChain[C, K, I] = AheadChain(self, self._ahead)

    # -- state -------------------------------------------------------------------------

    @property
    def number(self) -> int:
        return self.current.number if self.current else 0

    @property
    def has_prev(self) -> bool:
        return self.number > self.first_number

    @property
    def has_next(self) -> HasNext:
        return self.current.has_next if self.current else HasNext.UNKNOWN

    @property
    def can_advance(self) -> bool:
        return self.current is None or self.current.next_start_key is not None

    @property
    def last_known(self) -> int:
        """The last page whose start key is known: those read, and the next one."""
        return self.first_number + len(self._starts) - 1

    @property
    def stack(self) -> list[tuple[int, K | None]]:
        """Every known page boundary: (page number, start key that opens it)."""
        return list(enumerate(self._starts, start=self.first_number))

    def start_key_of(self, number: int) -> K | None:
        return self._starts[number - self.first_number]

    def cached_page(self, number: int) -> Page[C, K, I] | None:
        return self._cache.get(number)

    def cached_numbers(self) -> list[int]:
        return sorted(self._cache)

    def ahead_numbers(self) -> list[int]:
        """The pages read ahead (or being read ahead) and not shown yet."""
        return self._ahead.numbers()

    def summary_of(self, number: int) -> PageSummary[C, K] | None:
        """The latest fresh read of page ``number``, without its items."""
        return self._summaries.get(number)

    def series(self, last: int = SPARK_PAGES) -> list[PageSummary[C, K]]:
        """The latest fresh read of up to ``last`` pages ending at the current one."""
        first = self.first_number
        end = max(self.number, first)
        return [
            self._summaries[n]
            for n in range(max(first, end - last + 1), end + 1)
            if n in self._summaries
        ]

    def latest_reads(self) -> C | None:
        """The cost of the latest fresh read of each page: the result read once, re-reads
        not counted twice (O(pages): for a count's forecast, not for every page)."""
        total: C | None = None
        for summary in self._summaries.values():
            total = summary.cost if total is None else total + summary.cost
        return total

    @property
    def read_whole_result(self) -> bool:
        """Every page from the start of the result to its end has been read."""
        if self._starts[0] is not None or not self._summaries:
            return False
        last = self.last_known
        summary = self._summaries.get(last)
        return (
            summary is not None
            and summary.next_start_key is None
            and all(n in self._summaries for n in range(self.first_number, last + 1))
        )

    @property
    def scope(self) -> str:
        """The source's scope, computed once: the query's identity for the ledger."""
        if self._scope is None:
            self._scope = self.source.scope()
        return self._scope

    def selectivity(self, read: int = 0, matched: int = 0) -> float | None:
        """Count / ScannedCount so far (with ``read`` and ``matched`` more: the pages read
        ahead before a page, which n will have added by the time it reads it)."""
        scanned = self.totals.scanned + read
        return (self.totals.count + matched) / scanned if scanned else None

    # -- moves -------------------------------------------------------------------------

    def plan(self, target: Target, *, fresh: bool = False) -> Move[C, K, I]:
        """Where ``target`` leads from here; refuses impossible moves, reads nothing."""
        first = self.first_number
        if target == "next":
            if self.current is None:
                number = first
            elif self.current.next_start_key is None:
                raise InputError("this is the last page: the data ends here")
            else:
                number = self.current.number + 1
        elif target == "prev":
            if not self.has_prev:
                raise InputError("already on the first page")
            number = self.number - 1
        elif target == "first":
            number = first
        elif target == "refresh":
            number, fresh = max(self.number, first), True
        elif isinstance(target, int) and not isinstance(target, bool):
            if not first <= target <= self.last_known:
                if target < first:
                    raise InputError(
                        f"page {target} comes before this stack, which was opened at page "
                        f"{first}; known pages are {first} to {self.last_known}"
                    )
                raise InputError(
                    f"page {target} has not been reached; known pages are {first} to "
                    f"{self.last_known}"
                )
            number = target
        else:
            raise ValueError(f"unknown move {target!r}")
        with self._ahead.lock:
            cached = None if fresh else self._cache.get(number)
            start = self.start_key_of(number)
        ahead = None
        if cached is None and not fresh:
            entry = self._ahead_entry(number, start)
            ahead = entry.page() if entry is not None else None
            try:
                if ahead is not None:
                    self.check_progress(ahead, number)  # as a read of it would be
            except NoProgressError:
                ahead = None  # read it, and be refused there, in words
        return Move(number, start, cached.as_cached() if cached else None, ahead)

    def _ahead_entry(self, number: int, start: K | None) -> Ahead[Page[C, K, I]] | None:
        """Page ``number`` read ahead as ``n`` would read it now: from ``start``, with
        this selectivity."""
        if not self._ahead.holds(number):
            return None
        return self._ahead.get(number, self.boundary(start), self.selectivity())

    def read(self, move: Move[C, K, I], cancel: CancelToken = NEVER) -> Page[C, K, I]:
        """The page ``move`` leads to: from the cache, or read from its start key. Refused
        (NoProgressError) if it ends where it or an earlier page began."""
        if move.cached is not None:
            return move.cached
        if move.ahead is not None:
            return move.ahead  # checked as it was planned
        under_way = self._ahead_entry(move.number, move.start_key)
        if under_way is not None:
            # Being read ahead: wait for that read rather than pay for the page twice.
            page = wait_for(under_way.future, cancel)
            if page is not None:
                self.check_progress(page, move.number)
                return page
        return self._read_fresh(move.start_key, move.number, cancel)

    def _read_fresh(self, start_key: K | None, number: int, cancel: CancelToken) -> Page[C, K, I]:
        page = self.source.read_page(
            start_key, number, selectivity=self.selectivity(), cancel=cancel
        )
        self.check_progress(page, number)
        return page

    def check_progress(
        self, page: Page[C, K, I], number: int, ahead: Mapping[str, int] = EMPTY
    ) -> None:
        """Refuse a page that ends where it or an earlier page began (``ahead``: where the
        pages read ahead before it begin)."""
        following = page.next_start_key
        if following is None:
            return
        boundary = self._canonical(following)
        began = min(
            (n for n in (self._began.get(boundary), ahead.get(boundary)) if n is not None),
            default=None,
        )
        if began is not None and began <= number:
            raise NoProgressError(
                f"page {number} ends where page {began} began: reading on would "
                f"repeat pages {began} to {number} without end, so the walk stops "
                "here (the source returned a boundary it had returned before)"
            )

    def _canonical(self, key: K) -> str:
        return json.dumps(
            self.source.key_to_json(key), sort_keys=True, separators=(",", ":"), default=str
        )

    def boundary(self, key: K | None) -> str:
        return "" if key is None else self._canonical(key)

    def _note_start(self, number: int, key: K | None) -> None:
        if key is not None:
            self._began.setdefault(self._canonical(key), number)

    def accept(self, page: Page[C, K, I]) -> Page[C, K, I]:
        """Make ``page`` the current one and record its boundary, cost and copy."""
        with self._ahead.lock:  # a chain reading ahead looks at the boundaries
            return self._accept(page)

    def _accept(self, page: Page[C, K, I]) -> Page[C, K, I]:
        k = page.number
        at = k - self.first_number  # its place in the stack
        if not 0 <= at < len(self._starts) or self._starts[at] != page.start_key:
            raise StalePageError(f"page {k} was read for a stack that has changed since")
        if not page.cached:
            following = page.next_start_key
            if len(self._starts) > at + 1 and self._starts[at + 1] != following:
                # The data (or the mode) moved this boundary: what lay beyond is unknown now.
                del self._starts[at + 1 :]
                self._began = {}
                for number, key in enumerate(self._starts, start=self.first_number):
                    self._note_start(number, key)
                for number in [n for n in self._cache if n > k]:
                    del self._cache[number]
                for number in [n for n in self._summaries if n > k]:
                    del self._summaries[number]
                self._ahead.drop_after(k)
            if len(self._starts) == at + 1 and following is not None:
                self._starts.append(following)
                self._note_start(k + 1, following)
            self._cache[k] = page
            self._summaries[k] = page.summary()
            self.totals = self.totals.add(page.cost)
            self.advisor.add(page)
            self.measures.add(page)
            self.per_item.read(k, page.cost.headline, page.shown)
            if self.ledger is not None and page.read_ahead:
                self.ledger.ahead_shown(self, self.scope)  # billed when it was read ahead
            elif self.ledger is not None:
                self.ledger.page_read(self, self.scope, page.cost)
        self._ahead.drop_through(k)  # shown, or passed
        if k in self._cache:
            self._cache.move_to_end(k)
        while len(self._cache) > self.cache_pages:
            self._cache.popitem(last=False)
        self.current = page
        return page

    def attach(self, ledger: SessionLedger) -> None:
        """Add up in ``ledger`` from now on: a stack made before the app was (page 1 read
        at open). What it abandoned before then (a page 1 read in vain, at open) is told
        now, so the session's spend holds it too."""
        if self.ledger is ledger:
            return
        self.ledger = ledger
        if self.totals.abandoned is not None:
            ledger.abandoned(self.totals.abandoned)

    def abandon(self, cost: C | None) -> None:
        """Count what a cancelled or superseded read spent: it is billed all the same."""
        if cost is not None:
            self.totals = self.totals.add_abandoned(cost)
            if self.ledger is not None:
                self.ledger.abandoned(cost)

    # -- reading ahead -----------------------------------------------------------------

    def start_reading_ahead(
        self, pages: int, each: Callable[[], None] | None = None
    ) -> Callable[[], int] | None:
        """Read up to ``pages`` pages past the current one, each as ``n`` would read it,
        and keep them until ``n`` reaches them: the work to run in a thread of the
        caller's, or None (``core/read_ahead.py``'s ``AheadChain.start`` says it all)."""
        return self._chain.start(pages, each)

    def stop_reading_ahead(self) -> None:
        """This stack is no longer shown: no further read ahead; what was read is dropped."""
        self._ahead.stop()

    def go(self, target: Target, *, fresh: bool = False) -> Page[C, K, I]:
        return self.accept(self.read(self.plan(target, fresh=fresh)))

    def next(self) -> Page[C, K, I]:
        return self.go("next")

    def prev(self) -> Page[C, K, I]:
        return self.go("prev")

    def first(self) -> Page[C, K, I]:
        return self.go("first")

    def refresh(self) -> Page[C, K, I]:
        return self.go("refresh")

    def goto(self, number: int) -> Page[C, K, I]:
        return self.go(number)
