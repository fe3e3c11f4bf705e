"""The cursor stack: page k is always re-read from the start key stored for it.

Going back never flips ``ScanIndexForward``; it re-reads from a stored start key or
serves a cached copy (marked as cached). Each move is three steps so that a UI can
run the I/O in a worker and drop it if cancelled: ``plan`` (no I/O, may refuse),
``read`` (I/O only, changes nothing), ``accept`` (changes state, no I/O). A failed
read therefore leaves stack, page number and cache exactly as they were.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Literal

from dynotui.core.dynamo_json import Item
from dynotui.core.errors import InputError
from dynotui.core.page import HasNext, Page, Totals
from dynotui.core.reader import Clock, read_page
from dynotui.core.schema import TableSchema
from dynotui.core.spec import QuerySpec

Target = Literal["next", "prev", "first", "refresh"] | int
DEFAULT_CACHE_PAGES = 20  # a page is at most 1 MB per call, so this bounds memory


class StalePageError(RuntimeError):
    """A page read for a stack that has changed since; drop it."""


@dataclass(frozen=True)
class Move:
    number: int
    start_key: Item | None
    cached: Page | None = None


class Pager:
    def __init__(
        self,
        client: Any,
        spec: QuerySpec,
        schema: TableSchema,
        *,
        start_key: Item | None = None,
        cache_pages: int = DEFAULT_CACHE_PAGES,
        clock: Clock = time.perf_counter,
    ) -> None:
        spec.validate(schema)  # refuse bad input before any call
        self.clock = clock
        self.client = client
        self.spec = spec
        self.schema = schema
        self.cache_pages = cache_pages
        self._starts: list[Item | None] = [start_key]
        self._cache: OrderedDict[int, Page] = OrderedDict()
        self._fresh: dict[int, Page] = {}  # latest fresh read of each page, for the charts
        self.current: Page | None = None
        self.totals = Totals()

    # -- state -------------------------------------------------------------------------

    @property
    def number(self) -> int:
        return self.current.number if self.current else 0

    @property
    def has_prev(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> HasNext:
        return self.current.has_next if self.current else HasNext.UNKNOWN

    @property
    def can_advance(self) -> bool:
        return self.current is None or self.current.next_start_key is not None

    @property
    def stack(self) -> list[tuple[int, Item | None]]:
        """Every known page boundary: (page number, start key that opens it)."""
        return [(number, key) for number, key in enumerate(self._starts, start=1)]

    def start_key_of(self, number: int) -> Item | None:
        return self._starts[number - 1]

    def cached_numbers(self) -> list[int]:
        return sorted(self._cache)

    def series(self) -> list[Page]:
        """The latest fresh read of each page, in page order: the sidebar's charts."""
        return [self._fresh[n] for n in sorted(self._fresh)]

    # -- moves -------------------------------------------------------------------------

    def plan(self, target: Target, *, fresh: bool = False) -> Move:
        """Where ``target`` leads from here; refuses impossible moves, reads nothing."""
        if target == "next":
            if self.current is None:
                number = 1
            elif self.current.next_start_key is None:
                raise InputError("this is the last page: DynamoDB returned no LastEvaluatedKey")
            else:
                number = self.current.number + 1
        elif target == "prev":
            if not self.has_prev:
                raise InputError("already on the first page")
            number = self.number - 1
        elif target == "first":
            number = 1
        elif target == "refresh":
            number, fresh = max(self.number, 1), True
        elif isinstance(target, int) and not isinstance(target, bool):
            if not 1 <= target <= len(self._starts):
                raise InputError(
                    f"page {target} has not been reached; known pages are 1 to {len(self._starts)}"
                )
            number = target
        else:
            raise ValueError(f"unknown move {target!r}")
        cached = None if fresh else self._cache.get(number)
        return Move(
            number, self._starts[number - 1], replace(cached, cached=True) if cached else None
        )

    def selectivity(self) -> float | None:
        return self.totals.count / self.totals.scanned if self.totals.scanned else None

    def read(self, move: Move) -> Page:
        """The page ``move`` leads to: from the cache, or read from its start key."""
        if move.cached is not None:
            return move.cached
        return read_page(
            self.client,
            self.spec,
            self.schema,
            move.start_key,
            move.number,
            selectivity=self.selectivity(),
            clock=self.clock,
        )

    def accept(self, page: Page) -> Page:
        """Make ``page`` the current one and record its boundary, cost and copy."""
        k = page.number
        if k > len(self._starts) or self._starts[k - 1] != page.start_key:
            raise StalePageError(f"page {k} was read for a stack that has changed since")
        if not page.cached:
            following = page.next_start_key
            if len(self._starts) > k and self._starts[k] != following:
                # The data (or the mode) moved this boundary: what lay beyond is unknown now.
                del self._starts[k:]
                for number in [n for n in self._cache if n > k]:
                    del self._cache[number]
                for number in [n for n in self._fresh if n > k]:
                    del self._fresh[number]
            if len(self._starts) == k and following is not None:
                self._starts.append(following)
            self._cache[k] = page
            self.totals = self.totals.add(page)
            self._fresh[k] = page
        if k in self._cache:
            self._cache.move_to_end(k)
        while len(self._cache) > self.cache_pages:
            self._cache.popitem(last=False)
        self.current = page
        return page

    def go(self, target: Target, *, fresh: bool = False) -> Page:
        return self.accept(self.read(self.plan(target, fresh=fresh)))

    def next(self) -> Page:
        return self.go("next")

    def prev(self) -> Page:
        return self.go("prev")

    def first(self) -> Page:
        return self.go("first")

    def refresh(self) -> Page:
        return self.go("refresh")

    def goto(self, number: int) -> Page:
        return self.go(number)
