"""Counting what a Query or Scan matches: an explicit, costed action.

DynamoDB keeps no count of a query's matches. ``Select: COUNT`` still reads, and
bills, every item the key condition (or the Scan) covers, 1 MB per call, following
``LastEvaluatedKey`` to its absence. So a count has a forecast before it runs (from
what is known for free), a running cost while it runs, can be cancelled at any call,
and says when it was taken: concurrent writes make any count drift.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import ReadCancelled, ThrottledError
from dynotui.core.segments import Backoff, SegmentFigures, run_segments
from dynotui.core.text import plural
from dynotui.dynamodb.connection import cancellable, install_cancel_hook
from dynotui.dynamodb.cost import Capacity, DynamoCost
from dynotui.dynamodb.errors import translate
from dynotui.dynamodb.expressions import placeholders
from dynotui.dynamodb.query_form import MAX_SEGMENTS
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.segments import (
    check_segments,
    reading_segment,
    throttle_counter,
)
from dynotui.dynamodb.spec import QuerySpec

READ_UNIT_BYTES = 4096
__all__ = ["MAX_SEGMENTS", "CountProgress", "CountResult", "Forecast", "count", "forecast"]


@dataclass(frozen=True)
class Forecast:
    """What a count will read and cost, from what is known before it runs."""

    items: int | None  # items the count will read (None: unknown)
    read_units: float | None
    basis: str  # how the numbers were reached, in words
    exact_items: bool = False  # the pager already read the whole key range

    def as_json(self) -> dict[str, Any]:
        return {"items": self.items, "read_units": self.read_units, "basis": self.basis}


@dataclass(frozen=True)
class CountProgress:
    calls: int
    count: int
    scanned: int
    capacity: float
    seconds: float
    segments: tuple[SegmentFigures, ...] = ()  # each segment's own, when there are several

    @property
    def rate(self) -> float:
        """Items read per second."""
        return self.scanned / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class CountResult:
    scope: str
    count: int
    scanned: int
    capacity: Capacity | None
    calls: int
    retries: int
    seconds: float
    complete: bool
    forecast: Forecast
    segments: tuple[SegmentFigures, ...] = ()  # each segment's own, when there are several
    taken_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    @property
    def cost(self) -> DynamoCost:
        """What the count spent, shaped as a page's cost: how it reaches the session's
        ledger (``core.ledger.CountOutcome``), as ``PgCountResult.cost`` does."""
        return DynamoCost(
            requests=self.calls,
            read=self.scanned,
            matched=self.count,
            capacity=self.capacity,
            latency_ms=self.seconds * 1000,
            retries=self.retries,
        )

    def as_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "count": self.count,
            "scanned_count": self.scanned,
            "consumed_capacity": self.capacity.as_json() if self.capacity else None,
            "calls": self.calls,
            "retries": self.retries,
            "seconds": round(self.seconds, 3),
            "complete": self.complete,
            "taken_at": self.taken_at.isoformat(timespec="seconds"),
            "forecast": self.forecast.as_json(),
        }
        if self.segments:
            found["segments"] = [figures.as_json() for figures in self.segments]
        return found

    def summary(self) -> str:
        """For the status line: "11,449 matches, counted 14:02, cost 412 RCU"."""
        cost = f"{self.capacity.total:,.10g} RCU" if self.capacity else "cost not reported"
        when = self.taken_at.astimezone().strftime("%H:%M")
        matches = plural(self.count, "match", "matches")
        if not self.complete:
            return f"≥{matches} (partial count, stopped {when}, cost {cost})"
        return f"{matches}, counted {when}, cost {cost}"


def _units_per_item(schema: TableSchema, spec: QuerySpec) -> float | None:
    if not schema.item_count or not schema.size_bytes:
        return None
    per_item = schema.size_bytes / schema.item_count / READ_UNIT_BYTES
    return per_item if spec.consistent_read else per_item / 2


def forecast(
    schema: TableSchema,
    spec: QuerySpec,
    measured: DynamoCost | None = None,
    whole_range_read: bool = False,
) -> Forecast:
    """The free estimate: DescribeTable's (stale) counts and sizes, and what the pages read
    so far measured (capacity per item scanned)."""
    rate = None
    rate_words = ""
    if measured is not None and measured.read and measured.capacity is not None:
        rate = measured.capacity.total / measured.read
        rate_words = (
            f"{rate:.3g} RCU per item scanned, measured over {plural(measured.read, 'item')}"
        )
    note = schema.item_count_note()
    if spec.scan:
        order = schema.order(spec.index)
        items = order.item_count if order.kind != "table" else schema.item_count
        if rate is None:
            size_units = _units_per_item(schema, spec)
            if items is not None and size_units is not None:
                size = schema.size_bytes or 0
                consistency = (
                    "strongly consistent"
                    if spec.consistent_read
                    else ("eventually consistent: half")
                )
                return Forecast(
                    items,
                    math.ceil(items * size_units * 10) / 10,
                    f"the table's size {size / 1e6:.1f} MB / 4 KB ({consistency}); "
                    f"ItemCount {items:,} ({note})",
                )
            return Forecast(items, None, f"ItemCount ({note}); the size is unknown")
        units = math.ceil(items * rate * 10) / 10 if items is not None else None
        return Forecast(items, units, f"ItemCount {items or 0:,} ({note}) times {rate_words}")
    if whole_range_read and measured is not None and measured.read is not None:
        units = measured.capacity.total if measured.capacity else None
        return Forecast(
            measured.read,
            units,
            f"the pages read so far covered the whole key range: {plural(measured.read, 'item')}",
            exact_items=True,
        )
    if rate is not None and measured is not None:
        return Forecast(
            None,
            None,
            "an estimate from the pages seen so far: at least "
            f"{plural(measured.read or 0, 'item')}, "
            f"{rate_words}; the key range's size is unknown until counted",
        )
    units = _units_per_item(schema, spec)
    per = f"; about {units:.3g} RCU per item at the table's average item size" if units else ""
    return Forecast(None, None, f"no page read yet: the key range's size is unknown{per}")


def count_request(spec: QuerySpec, schema: TableSchema) -> dict[str, Any]:
    """The spec's request as ``Select: COUNT``: no Limit (1 MB per call), no projection."""
    params = spec.request(schema, None, 1)
    del params["Limit"]
    params.pop("ProjectionExpression", None)
    used = placeholders(spec.key_condition)[0] | placeholders(spec.filter)[0]
    names = {k: v for k, v in params.get("ExpressionAttributeNames", {}).items() if k in used}
    if names:
        params["ExpressionAttributeNames"] = names
    else:
        params.pop("ExpressionAttributeNames", None)
    params["Select"] = "COUNT"
    return params


class _Tally:
    """Running sums over every segment, and each segment's own, shared by their threads."""

    def __init__(self, clock: Callable[[], float], segments: int) -> None:
        self.lock = threading.Lock()
        self.clock = clock
        self.began = clock()
        self.started = 0  # calls begun: a slot is taken before each call is made
        self.calls = 0
        self.count = 0
        self.scanned = 0
        self.retries = 0
        self.capacity: Capacity | None = None
        self.parts = [_Part() for _ in range(segments)]
        self.throttles: list[Callable[[], int]] = [lambda: 0] * segments

    def reserve(self, max_calls: int | None, max_read_units: float | None = None) -> bool:
        """Take the slot for one more call; False once ``max_calls`` are taken, or the
        calls made have cost ``max_read_units``. Segments race for slots, so the caps hold
        over all of them together (a call is never cut: one call more at most per
        segment)."""
        with self.lock:
            if max_calls is not None and self.started >= max_calls:
                return False
            spent = self.capacity.total if self.capacity is not None else 0.0
            if max_read_units is not None and spent >= max_read_units:
                return False
            self.started += 1
            return True

    def add(self, segment: int, response: dict[str, Any]) -> CountProgress:
        used = Capacity.from_response(response.get("ConsumedCapacity"))
        retries = response.get("ResponseMetadata", {}).get("RetryAttempts", 0)
        with self.lock:
            self.calls += 1
            self.count += response.get("Count", 0)
            self.scanned += response.get("ScannedCount", 0)
            self.retries += retries
            if used is not None:
                self.capacity = used if self.capacity is None else self.capacity + used
            self.parts[segment].add(response, used, retries)
            return self.progress()

    def figures(self) -> tuple[SegmentFigures, ...]:
        return tuple(
            part.figures(index, self.throttles[index]()) for index, part in enumerate(self.parts)
        )

    def progress(self) -> CountProgress:
        units = self.capacity.total if self.capacity else 0.0
        return CountProgress(
            self.calls,
            self.count,
            self.scanned,
            units,
            self.clock() - self.began,
            self.figures() if len(self.parts) > 1 else (),
        )


class _Part:
    """One segment's sums (a cell of the segment map)."""

    def __init__(self) -> None:
        self.calls = self.count = self.scanned = self.retries = self.backoffs = 0
        self.units: float | None = None
        self.done = False
        self.failed: str | None = None

    def add(self, response: dict[str, Any], used: Capacity | None, retries: int) -> None:
        self.calls += 1
        self.count += response.get("Count", 0)
        self.scanned += response.get("ScannedCount", 0)
        self.retries += retries
        if used is not None:
            self.units = (self.units or 0.0) + used.total

    def figures(self, index: int, throttles: int) -> SegmentFigures:
        return SegmentFigures(
            segment=index,
            reads=self.calls,
            items=self.count,
            scanned=self.scanned,
            units=self.units,
            retries=self.retries,
            throttles=throttles,
            backoffs=self.backoffs,
            done=self.done,
            failed=self.failed,
        )


def count(
    client: Any,
    spec: QuerySpec,
    schema: TableSchema,
    *,
    segments: int = 1,
    clients: Sequence[Any] | None = None,
    cancel: CancelToken | None = None,
    progress: Callable[[CountProgress], None] | None = None,
    max_calls: int | None = None,
    prediction: Forecast | None = None,
    clock: Callable[[], float] = time.monotonic,
    max_read_units: float | None = None,
) -> CountResult:
    """Count the matches; a cancel (or ``max_calls``, or ``max_read_units`` spent) stops
    before the next call and the partial result says so. A Scan may run ``segments``
    parallel segments, each through its own client of ``clients`` (or all through
    ``client``)."""
    spec.validate(schema)
    check_segments(segments, spec)
    if clients is not None and len(clients) != segments:
        raise ValueError(f"{len(clients)} clients for {segments} segments")
    token = cancel or CancelToken()
    inner = CancelToken()  # also cancelled by a segment's failure, which token is not
    token.on_cancel(inner.cancel)
    tally = _Tally(clock, segments)
    base = count_request(spec, schema)
    capped = threading.Event()

    def run(index: int) -> None:
        reader = clients[index] if clients is not None else client
        install_cancel_hook(reader)
        counter = throttle_counter(reader)
        tally.throttles[index] = lambda: counter.of(index)
        part = tally.parts[index]
        operation = getattr(reader, spec.operation)
        params = dict(base)
        if segments > 1:
            params.update(Segment=index, TotalSegments=segments)
        backoff = Backoff()
        while not (inner.cancelled or capped.is_set()):
            if not tally.reserve(max_calls, max_read_units):
                capped.set()  # the calls that took a slot are made: no cancel
                return
            try:
                with cancellable(inner), reading_segment(index):
                    response = operation(**params)
            except ReadCancelled:
                return
            except Exception as exc:
                error = translate(exc, spec.table)
                if isinstance(error, ThrottledError) and backoff.wait(inner):
                    part.backoffs = backoff.total
                    continue
                part.failed = str(error)
                raise error from exc
            backoff.succeeded()
            snapshot = tally.add(index, response)
            if progress is not None:
                progress(snapshot)
            key = response.get("LastEvaluatedKey")
            if key is None:
                part.done = True
                return
            params["ExclusiveStartKey"] = key

    failures = run_segments(segments, run, cancel=inner)
    if failures and not (token.cancelled or capped.is_set()):
        raise failures[0]
    complete = all(part.done for part in tally.parts)
    return CountResult(
        scope=spec.scope(),
        count=tally.count,
        scanned=tally.scanned,
        capacity=tally.capacity,
        calls=tally.calls,
        retries=tally.retries,
        seconds=clock() - tally.began,
        complete=complete,
        forecast=prediction or forecast(schema, spec),
        segments=tally.figures() if segments > 1 else (),
    )
