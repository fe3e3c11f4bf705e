"""A read split into segments that run at once: each segment's own state, the whole's sums.

DynamoDB's parallel Scan (Segment / TotalSegments) is the case in point: N disjoint parts
of a table, read concurrently, each to its own end. Each segment keeps its own pager (its
own cursor stack), so a view can move between segments and between pages of one; a map of
the segments' figures (items, units, throttles, done) shows skew and hot segments by eye.

The threads are bounded; the first failure of any segment stops the others before their
next call, and is the outcome (never fewer items with success). When the database asks to
slow down, only the segment that was told waits (``Backoff``), the others read on.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import ReadCancelled, ThrottledError
from dynotui.core.measures import QueryMeasures
from dynotui.core.page import Page, Totals
from dynotui.core.pager import Move, Pager

MAX_WORKERS = 16  # threads at most, whatever the number of segments


@dataclass(frozen=True, slots=True)
class SegmentFigures:
    """One cell of the segment map."""

    segment: int
    reads: int  # pages read (a count: calls made)
    items: int  # matches
    scanned: int | None  # items read (None: not reported)
    units: float | None  # the cost's headline, e.g. RCU (None: not reported)
    retries: int  # attempts the driver repeated, whatever the cause
    throttles: int  # answers that said slow down
    backoffs: int  # waits of this segment after its driver gave up on a throttle
    done: bool  # read to its end
    failed: str | None = None  # why it stopped short, in words

    def as_json(self) -> dict[str, Any]:
        return {
            "segment": self.segment,
            "reads": self.reads,
            "items": self.items,
            "scanned_count": self.scanned,
            "units": self.units,
            "retries": self.retries,
            "throttles": self.throttles,
            "backoffs": self.backoffs,
            "done": self.done,
            "failed": self.failed,
        }


class Backoff:
    """One segment's waits after a read was throttled past its driver's own retries: full
    jitter, doubling up to ``cap`` seconds, at most ``attempts`` waits in a row. The wait
    ends early on cancel. ``rng`` is injected so tests decide the delays."""

    def __init__(
        self,
        attempts: int = 5,
        base: float = 0.2,
        cap: float = 10.0,
        rng: Callable[[], float] = random.random,
    ) -> None:
        self.attempts = attempts
        self.base = base
        self.cap = cap
        self.rng = rng
        self.in_a_row = 0
        self.total = 0

    def wait(self, cancel: CancelToken) -> bool:
        """Wait before the next try; False when the tries are used up (or on cancel)."""
        if self.in_a_row >= self.attempts:
            return False
        delay = self.rng() * min(self.cap, self.base * 2**self.in_a_row)
        self.in_a_row += 1
        self.total += 1
        return not cancel.wait(delay)

    def succeeded(self) -> None:
        self.in_a_row = 0


def run_segments(
    total: int,
    work: Callable[[int], None],
    *,
    cancel: CancelToken,
    workers: int = MAX_WORKERS,
) -> list[BaseException]:
    """``work(segment)`` for every segment on at most ``workers`` threads. The first
    failure cancels the rest (each stops before its next call); a ``ReadCancelled`` is a
    stop, not a failure. Returns the failures in the order they happened."""
    failures: list[BaseException] = []
    lock = threading.Lock()

    def one(segment: int) -> None:
        if cancel.cancelled:
            return
        try:
            work(segment)
        except ReadCancelled:
            return
        except BaseException as exc:  # reported once; the other segments stop
            with lock:
                failures.append(exc)
            cancel.cancel()

    if total == 1:
        one(0)
        return failures
    with ThreadPoolExecutor(
        max_workers=max(1, min(workers, total)), thread_name_prefix="segment"
    ) as pool:
        list(pool.map(one, range(total)))
    return failures


class Segment:
    """One segment of a segmented read: its pager (its own cursor stack) and figures."""

    def __init__(self, index: int, pager: Pager, throttles: Callable[[], int] = lambda: 0) -> None:
        self.index = index
        self.pager = pager
        self._throttles = throttles
        self.backoff = Backoff()
        self.failed: str | None = None

    @property
    def done(self) -> bool:
        return self.pager.current is not None and not self.pager.can_advance

    def figures(self) -> SegmentFigures:
        cost = self.pager.totals.cost
        abandoned = self.pager.totals.abandoned
        retries = (cost.retries if cost else 0) + (abandoned.retries if abandoned else 0)
        return SegmentFigures(
            segment=self.index,
            reads=self.pager.totals.pages_read,
            items=self.pager.totals.count,
            scanned=cost.read if cost is not None else 0,
            units=cost.headline if cost is not None else None,
            retries=retries,
            throttles=self._throttles(),
            backoffs=self.backoff.total,
            done=self.done,
            failed=self.failed,
        )


PageSink = Callable[[Segment, Page[Any]], None]


class SegmentedRead:
    """N segments read at once: each to its end (``drain``) or a page at a time by a view
    (``current``, ``select``, ``step``), with the sums over all of them."""

    def __init__(self, segments: Sequence[Segment]) -> None:
        if not segments:
            raise ValueError("a segmented read has one segment at least")
        self.segments = list(segments)
        self.selected = 0
        self.totals: Totals[Any] = Totals()
        self.measures = QueryMeasures()  # every segment's pages, as one query's
        self._lock = threading.Lock()

    @property
    def current(self) -> Segment:
        return self.segments[self.selected]

    def select(self, index: int) -> Segment:
        if not 0 <= index < len(self.segments):
            raise IndexError(f"segment {index} is not one of 0 to {len(self.segments) - 1}")
        self.selected = index
        return self.current

    def step(self, delta: int) -> Segment:
        """The next (1) or previous (-1) segment, round the ring: ``]`` and ``[``."""
        return self.select((self.selected + delta) % len(self.segments))

    @property
    def done(self) -> bool:
        return all(segment.done for segment in self.segments)

    def figures(self) -> list[SegmentFigures]:
        return [segment.figures() for segment in self.segments]

    def record(self, page: Page[Any]) -> None:
        """Fold a page freshly read by any segment into the sums (thread-safe); a page
        served from a segment's cache was counted when it was read."""
        if page.cached:
            return
        with self._lock:
            self.totals = self.totals.add(page.cost)
            self.measures.add(page)

    @staticmethod
    def read(segment: Segment, move: Move[Any, Any, Any], cancel: CancelToken) -> Page[Any]:
        """The page ``move`` leads to in ``segment`` (read, not accepted: a view accepts it
        on its own thread); a throttled read waits (this segment only) and is tried again
        from the same start key, so nothing is lost or read twice."""
        while True:
            try:
                page = segment.pager.read(move, cancel)
            except ThrottledError:
                if not segment.backoff.wait(cancel):
                    raise
                continue
            segment.backoff.succeeded()
            return page

    def read_next(self, segment: Segment, cancel: CancelToken) -> Page[Any]:
        """The segment's next page, read (see ``read``) and accepted."""
        try:
            page = self.read(segment, segment.pager.plan("next"), cancel)
        except ReadCancelled as stopped:
            segment.pager.abandon(stopped.cost)
            raise
        segment.pager.accept(page)
        self.record(page)
        return page

    def drain(
        self,
        on_page: PageSink,
        *,
        cancel: CancelToken,
        workers: int = MAX_WORKERS,
        max_pages: int | None = None,
    ) -> list[BaseException]:
        """Read every segment to its end (or ``max_pages`` pages each), ``on_page`` after
        each page from the segment's own thread. Returns the failures (see
        ``run_segments``); a failed segment says why in its figures."""

        def work(index: int) -> None:
            segment = self.segments[index]
            pager = segment.pager
            while pager.can_advance and (max_pages is None or pager.number < max_pages):
                try:
                    page = self.read_next(segment, cancel)
                except ReadCancelled:
                    raise
                except Exception as exc:
                    segment.failed = str(exc)
                    raise
                on_page(segment, page)

        return run_segments(len(self.segments), work, cancel=cancel, workers=workers)
