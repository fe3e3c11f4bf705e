"""Entities of a live table or index from a bounded parallel Scan.

The Scan is DynamoDB's parallel Scan, read the way ``dynotui pages --segments`` reads it:
a client per segment (``dynamodb/segments.py``: its own retries, its throttles counted),
the segments run by ``core/segments.run_segments`` (bounded threads, the first failure
stops the rest), a throttled segment waiting alone (``Backoff``). It reads in rounds:
each round reads one call of every segment not yet at its end, so the sample grows evenly
over the key space. It stops when every segment has ended (the read is complete: counts
are exact), or once ``max_read_units`` are spent.

No call starts once the budget is spent, but the calls under way finish (their items are
paid for). So that those are few, each round is sized by what the budget has left: how
many items a call may read (``Limit``, at the items' mean size so far) and how many
segments call at once (at the dearest call so far; one before any). The budget is passed
by about one call, more only when one call costs far more than any before it (an item of
hundreds of KB). Ctrl-C stops the read the same way; what was read is still counted.
"""

from __future__ import annotations

import functools
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from dynotui.core.cancel import NEVER, CancelToken
from dynotui.core.errors import ReadCancelled, ThrottledError
from dynotui.core.segments import Backoff, run_segments
from dynotui.dynamodb.cost import Call
from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.entities.figures import Entities, entities_of
from dynotui.dynamodb.entities.tally import Census, cluster_key
from dynotui.dynamodb.reader import call
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.segments import check_segments, reading_segment, throttle_counter
from dynotui.dynamodb.spec import QuerySpec
from dynotui.dynamodb.what_if.item_size import READ_UNIT_BYTES

DEFAULT_MAX_READ_UNITS = 50
DEFAULT_SEGMENTS = 8
PAGE_LIMIT = 100  # items per call at most
MIN_LIMIT = 10
FIRST_ITEM_BYTES = 1024  # what an item is taken to weigh before any is read
BYTES_PER_UNIT = 2 * READ_UNIT_BYTES  # a Scan reads eventually consistent

Progress = Callable[[int, float], None]  # (items read, units spent)


@dataclass
class _Segment:
    index: int
    client: Any
    next_key: Item | None = None
    done: bool = False
    open_partition: Any = None  # the partition its last call stopped inside, if any
    calls: list[Call] = field(default_factory=list)
    backoff: Backoff = field(default_factory=Backoff)


class _Sample:
    """The segments' state and the sums, shared by the reading threads."""

    def __init__(self, segments: list[_Segment], census: Census, budget: float) -> None:
        self.segments = segments
        self.census = census
        self.budget = budget
        self.lock = threading.Lock()
        self.units = 0.0
        self.calls = 0
        self.dearest = 0.0  # the most units one call has cost

    @property
    def done(self) -> bool:
        return all(s.done for s in self.segments)

    def left(self) -> float:
        with self.lock:
            return self.budget - self.units

    def round_size(self) -> tuple[int, int]:
        """(Limit, segments at once) for the next round: Limit from the items the budget
        left pays for at their mean size so far (at least ``MIN_LIMIT``: each call rounds
        its bytes up to 4 KB, so tiny calls waste units), and as many segments at once as
        the budget left pays for at the dearest call so far (one, before any call)."""
        with self.lock:
            items, read_bytes = self.census.seen_items, self.census.seen_bytes
            left, dearest = self.budget - self.units, self.dearest
        active = sum(1 for s in self.segments if not s.done)
        weight = read_bytes / items if items else FIRST_ITEM_BYTES
        affordable = max(0.0, left) * BYTES_PER_UNIT / max(weight, 1.0)
        limit = max(MIN_LIMIT, min(PAGE_LIMIT, math.floor(affordable / max(active, 1))))
        if dearest <= 0:
            return limit, 1
        return limit, max(1, min(active, math.floor(left / dearest)))

    def charge(self, calls: Sequence[Call]) -> None:
        with self.lock:
            for made in calls:
                self.calls += 1
                if made.capacity is not None:
                    self.units += made.capacity.total
                    self.dearest = max(self.dearest, made.capacity.total)

    def record(self, segment: _Segment, response: dict[str, Any], made: Call) -> None:
        self.charge([made])
        with self.lock:
            self.census.add_all(response.get("Items", []))
        segment.next_key = response.get("LastEvaluatedKey")
        segment.done = segment.next_key is None
        # A Scan reads a partition's items together, in sort-key order: every partition
        # a segment has read past is whole, the one its last call stopped in may not be.
        segment.open_partition = (
            None if segment.done else cluster_key(segment.next_key or {}, self.census.partition_key)
        )


def _nth(
    read: Callable[[_Segment, int], None], segments: list[_Segment], limit: int, n: int
) -> None:
    read(segments[n], limit)


# DynamoDB Local reads each segment of a GSI in the index's key order, so every segment
# starts at the index's first partitions (on the demo's shop all eight at CITY#...); the
# service spreads a segment's start by hash. Ranges assume the spread: say they lack it.
LOCAL_GSI_NOTE = (
    "DynamoDB Local starts every segment of a GSI's Scan at the index's first partitions "
    "in key order (the service spreads them by hash): this sample is not spread over the "
    "index, and its ranges can miss"
)


def sample_entities(
    clients: Sequence[Any],
    schema: TableSchema,
    *,
    index: str | None = None,
    max_read_units: float = DEFAULT_MAX_READ_UNITS,
    attribute: str | None = None,
    use_attribute: bool = True,
    cancel: CancelToken = NEVER,
    progress: Progress | None = None,
    clock: Callable[[], float] = time.perf_counter,
    spent: list[Call] | None = None,
) -> Entities:
    """The entities of ``schema``'s table (or ``index``), read in ``len(clients)``
    segments up to ``max_read_units``; every call made is added to ``spent`` however the
    read ends (to bill it)."""
    order = schema.order(index)
    spec = QuerySpec(table=schema.name, index=index, scan=True)
    spec.validate(schema)
    check_segments(len(clients), spec)
    census = Census(
        order.partition_key.name,
        order.sort_key.name if order.sort_key else None,
        attribute=attribute,
        use_attribute=use_attribute,
    )
    sample = _Sample(
        [_Segment(i, client) for i, client in enumerate(clients)], census, max_read_units
    )
    for segment in sample.segments:
        throttle_counter(segment.client)
    stop = CancelToken()  # the budget spent, Ctrl-C, or a segment's failure
    withdraw = cancel.on_cancel(stop.cancel)

    def read_one(segment: _Segment, limit: int) -> None:
        if sample.left() <= 0:
            stop.cancel()  # no call starts once the budget is spent
            return
        params: dict[str, Any] = {
            "TableName": schema.name,
            "Limit": limit,
            "ReturnConsumedCapacity": "INDEXES",
            "Segment": segment.index,
            "TotalSegments": len(sample.segments),
        }
        if index:
            params["IndexName"] = index
        if segment.next_key is not None:
            params["ExclusiveStartKey"] = segment.next_key
        while True:
            before = len(segment.calls)
            try:
                with reading_segment(segment.index):
                    # The user's token, not ``stop``: a call under way when the budget
                    # runs out keeps its items (they are paid for).
                    response, made = call(
                        segment.client,
                        "scan",
                        params,
                        limit,
                        cancel,
                        segment.calls,
                        clock,
                        schema.name,
                    )
            except ReadCancelled:
                sample.charge(segment.calls[before:])  # paid for, its items not kept
                raise
            except ThrottledError:
                if not segment.backoff.wait(stop):
                    raise
                continue
            segment.backoff.succeeded()
            break
        sample.record(segment, response, made)
        if progress is not None:
            progress(census.seen_items, sample.units)

    try:
        while not sample.done and not stop.cancelled and sample.left() > 0:
            limit, workers = sample.round_size()
            active = [s for s in sample.segments if not s.done]
            failures = run_segments(
                len(active),
                functools.partial(_nth, read_one, active, limit),
                cancel=stop,
                workers=workers,
            )
            if failures:
                raise failures[0]  # every item, or a failure
    finally:
        withdraw()
        if spent is not None:
            for segment in sample.segments:
                spent.extend(segment.calls)
    found = entities_of(
        census,
        table=schema.name,
        index=index,
        complete=sample.done,
        read_units=sample.units,
        source="table",
        population=order.item_count,
        segments=len(clients),
        calls=sample.calls,
        open_partitions=[s.open_partition for s in sample.segments if not s.done],
        # An index's size is not kept in the schema: its units stay the sample's mean.
        size_bytes=schema.size_bytes if index is None else None,
    )
    if not sample.done and schema.counts_live and order.kind == "gsi":
        found = replace(found, notes=(*found.notes, LOCAL_GSI_NOTE))
    return found
