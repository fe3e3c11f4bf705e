"""DynamoDB's parallel Scan: Segment / TotalSegments, one client per segment.

boto3 clients are thread-safe, but each segment gets its own: botocore's standard retry
mode keeps its backoff and retry quota per client, so one segment's throttling slows that
segment, not the others, and its retries are its own to count. Throttled answers are
counted from botocore's ``needs-retry`` event (emitted after every attempt, in the thread
that made it), per segment.
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from dynotui.core.errors import InputError
from dynotui.core.pager import Pager
from dynotui.core.segments import Segment, SegmentedRead
from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.errors import THROTTLING
from dynotui.dynamodb.query_form import MAX_SEGMENTS
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import QuerySpec

_EVENT = "needs-retry.dynamodb"
_reading = threading.local()


class ThrottleCounter:
    """Throttled answers a client received, by the segment its reading thread was on."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[int | None] = Counter()

    def seen(self, response: Any = None, **_: Any) -> None:
        parsed = response[1] if isinstance(response, tuple) and len(response) > 1 else None
        code = parsed.get("Error", {}).get("Code") if isinstance(parsed, dict) else None
        if code in THROTTLING:
            with self._lock:
                self._counts[getattr(_reading, "segment", None)] += 1
        # None: this handler never decides whether to retry.

    def of(self, segment: int | None) -> int:
        with self._lock:
            return self._counts[segment]

    @property
    def total(self) -> int:
        with self._lock:
            return sum(self._counts.values())


def throttle_counter(client: Any) -> ThrottleCounter:
    """The client's counter, installed on first use."""
    counter = getattr(client.meta, "dynotui_throttles", None)
    if counter is None:
        counter = ThrottleCounter()
        client.meta.events.register(_EVENT, counter.seen, unique_id="dynotui-throttles")
        client.meta.dynotui_throttles = counter
    return counter


@contextlib.contextmanager
def reading_segment(segment: int) -> Iterator[None]:
    """Within this block, this thread's throttled answers count for ``segment``."""
    previous = getattr(_reading, "segment", None)
    _reading.segment = segment
    try:
        yield
    finally:
        _reading.segment = previous


def check_segments(segments: int, spec: QuerySpec) -> None:
    if not 1 <= segments <= MAX_SEGMENTS:
        raise InputError(f"segments must be 1 to {MAX_SEGMENTS}, got {segments}")
    if segments > 1 and not spec.scan:
        raise InputError("segments split a Scan; a Query reads one key range in order")


def segment_clients(options: ConnectionOptions, segments: int) -> list[Any]:
    """One client per segment, each from the same options."""
    return [make_client(options) for _ in range(segments)]


class _SegmentSource(QuerySource):
    """A segment's source: its reads count their throttles for the segment."""

    def read_page(self, start_key: Any, number: int, **options: Any) -> Any:
        assert self.spec.segment is not None
        with reading_segment(self.spec.segment):
            return super().read_page(start_key, number, **options)

    def with_client(self, client: Any) -> QuerySource:
        throttle_counter(client)
        return _SegmentSource(
            client, self.spec, self.schema, measurements=self.measurements, clock=self.clock
        )


def segmented_scan(
    clients: Sequence[Any],
    spec: QuerySpec,
    schema: TableSchema,
    *,
    cache_pages: int = 20,
    **source_options: Any,
) -> SegmentedRead:
    """A Scan in ``len(clients)`` segments, each read through its own client and pager;
    ``source_options`` go to each segment's source (what orders measured, the clock)."""
    total = len(clients)
    check_segments(total, spec)
    segments = []
    for index, client in enumerate(clients):
        counter = throttle_counter(client)
        part = spec.with_(segment=index, total_segments=total)
        source = _SegmentSource(client, part, schema, **source_options)
        segments.append(
            Segment(index, Pager(source, cache_pages=cache_pages), _throttles_of(counter, index))
        )
    return SegmentedRead(segments)


def _throttles_of(counter: ThrottleCounter, index: int) -> Callable[[], int]:
    return lambda: counter.of(index)
