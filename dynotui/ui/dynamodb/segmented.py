"""A Scan the query form splits into parallel segments, as the app pages it.

Each segment reads through a client of its own, as ``pages --segments`` does, so
botocore's backoff and retry quota are per segment and one hot segment's throttling
slows only that one. Making a client takes a moment (botocore loads its model), so they
are made off the UI thread, once, and kept for the next segmented Scan on the same
connection; segment 0 reads through the app's own client.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from dynotui.dynamodb.advice import Measurements
from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.cost import DynamoCost
from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.query_form import segment_count
from dynotui.dynamodb.segments import segmented_scan
from dynotui.ui.adapter import NewStack, Segments
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.host import Host

DynamoSegments = Segments[Any, Item, DynamoCost]
DynamoStack = NewStack[Any, Item, DynamoCost]


class SegmentClients:
    """The clients segmented Scans read through, made when first needed and kept."""

    def __init__(self, options: ConnectionOptions, first: Any) -> None:
        self._lock = threading.Lock()
        self.reset(options, first)

    def reset(self, options: ConnectionOptions, first: Any) -> None:
        """A new connection: its client first, the others made again when needed."""
        with self._lock:
            self.options = options
            self._clients = [first]

    def have(self, count: int) -> bool:
        with self._lock:
            return len(self._clients) >= count

    def take(self, count: int) -> list[Any]:
        """``count`` clients, those missing made now (off the UI thread: each takes a
        moment)."""
        with self._lock:
            options, have = self.options, len(self._clients)
        made = [make_client(options) for _ in range(count - have)]
        with self._lock:
            if options is self.options:  # not reconnected meanwhile
                self._clients.extend(made[: max(0, count - len(self._clients))])
                return self._clients[:count]
            return [self._clients[0], *made][:count]


def wanted(query: object) -> int:
    """How many segments ``query`` asks for (1: a read of its own)."""
    if not isinstance(query, DynamoQuery) or query.spec.segment is not None:
        return 1
    return segment_count(query.form)


def whole(query: DynamoQuery) -> DynamoQuery:
    """A segment's query as the read it is part of (what a count counts)."""
    if query.spec.segment is None:
        return query
    spec = query.spec.with_(segment=None, total_segments=None)
    return DynamoQuery(query.schema, query.form, spec, query.measurements)


def segments_of(
    query: DynamoQuery,
    clients: list[Any],
    measurements: Measurements,
    clock: Callable[[], float],
) -> DynamoSegments:
    """``query`` in ``len(clients)`` segments: the core's read (a pager per segment) and
    each segment's query, whose title, code and scope name its segment."""
    read = segmented_scan(clients, query.spec, query.schema, measurements=measurements, clock=clock)
    queries = tuple(
        DynamoQuery(query.schema, query.form, spec, measurements)
        for spec in (
            query.spec.with_(segment=segment.index, total_segments=len(clients))
            for segment in read.segments
        )
    )
    return Segments(read, queries)


def split(
    host: Host,
    clients: SegmentClients,
    measurements: Measurements,
    answer: Callable[[DynamoStack], None],
) -> Callable[[DynamoStack], None]:
    """``answer``, but a Scan the form splits is answered in its segments (once their
    clients are made)."""

    def answering(new: DynamoStack) -> None:
        query = new.query
        count = wanted(query) if new.segments is None else 1
        if count == 1 or not isinstance(query, DynamoQuery):
            answer(new)
            return
        clock = host.read_clock()
        # From the start: a start key opens one segment, never the whole read.
        new = replace(new, start_key=None, key_json=None, first_page=None, first_number=1)
        # As a table is opened: the status line says so, Esc abandons it, and the view is
        # busy until the segments' first page is read.
        host.open_table(
            f"{query.table} in {count} segments",
            lambda: segments_of(query, clients.take(count), measurements, clock),
            lambda segments: answer(replace(new, segments=segments)),
            lambda error: host.fail(error, "Segments"),
        )

    return answering


def split_now(
    host: Host, clients: SegmentClients, measurements: Measurements, new: DynamoStack
) -> DynamoStack:
    """``new`` in its segments at once (their clients exist: the view was segmented)."""
    query = new.query
    count = wanted(query)
    if count == 1 or not isinstance(query, DynamoQuery):
        return new
    segments = segments_of(query, clients.take(count), measurements, host.read_clock())
    return replace(new, start_key=None, key_json=None, first_number=1, segments=segments)
