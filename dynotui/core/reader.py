"""Read one page from a start key, in raw mode (one call) or fill mode (a capped loop)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from dynotui.core.dynamo_json import Item
from dynotui.core.errors import translate
from dynotui.core.page import Call, Capacity, EndedBy, HasNext, Page
from dynotui.core.schema import TableSchema
from dynotui.core.spec import PAGE_SIZE_MAX, QuerySpec

Clock = Callable[[], float]


def key_of(item: Item, key_names: tuple[str, ...]) -> Item:
    """The start key that resumes right after ``item`` on an order with these key names."""
    missing = [name for name in key_names if name not in item]
    if missing:
        raise ValueError(f"item lacks key attributes {missing}; cannot derive a start key")
    return {name: item[name] for name in key_names}


def _call(
    client: Any,
    spec: QuerySpec,
    schema: TableSchema,
    start_key: Item | None,
    limit: int,
    clock: Clock,
) -> tuple[list[Item], Call]:
    operation = client.scan if spec.scan else client.query
    params = spec.request(schema, start_key, limit)
    began = clock()
    try:
        response = operation(**params)
    except Exception as exc:
        raise translate(exc, spec.table) from exc
    latency = (clock() - began) * 1000
    call = Call(
        limit=limit,
        count=response["Count"],
        scanned=response["ScannedCount"],
        capacity=Capacity.from_response(response.get("ConsumedCapacity")),
        latency_ms=latency,
        last_evaluated_key=response.get("LastEvaluatedKey"),
    )
    return response.get("Items", []), call


def read_page(
    client: Any,
    spec: QuerySpec,
    schema: TableSchema,
    start_key: Item | None,
    number: int,
    *,
    selectivity: float | None = None,
    clock: Clock = time.perf_counter,
) -> Page:
    """Read page ``number`` starting after ``start_key``; changes nothing anywhere."""
    if spec.mode == "raw":
        return _read_raw(client, spec, schema, start_key, number, clock)
    return _read_fill(client, spec, schema, start_key, number, selectivity, clock)


def _read_raw(
    client: Any,
    spec: QuerySpec,
    schema: TableSchema,
    start_key: Item | None,
    number: int,
    clock: Clock,
) -> Page:
    items, call = _call(client, spec, schema, start_key, spec.page_size, clock)
    key = call.last_evaluated_key
    if key is None:
        ended, has_next = EndedBy.END, HasNext.NO
    else:
        ended = EndedBy.LIMIT if call.scanned >= spec.page_size else EndedBy.SIZE
        has_next = HasNext.UNKNOWN
    return Page(number, "raw", start_key, items, (call,), key, has_next, ended)


def _fill_limit(need: int, spec: QuerySpec, calls: list[Call], hint: float | None) -> int:
    # Without a filter every evaluated item matches, so Limit = need reads nothing extra.
    # With one, size the call by the selectivity seen so far, so a rare match does not
    # burn one round per handful of items; anything read past the last shown item is
    # read again by the next page, so do not overshoot either.
    if not spec.filter:
        return need
    scanned = sum(c.scanned for c in calls)
    matched = sum(c.count for c in calls)
    if matched:
        estimate = need * scanned / matched
    elif scanned:
        estimate = calls[-1].limit * 4
    elif hint:
        estimate = need / hint
    else:
        estimate = need
    return max(need, min(PAGE_SIZE_MAX, math.ceil(estimate)))


def _read_fill(
    client: Any,
    spec: QuerySpec,
    schema: TableSchema,
    start_key: Item | None,
    number: int,
    selectivity: float | None,
    clock: Clock,
) -> Page:
    wanted = spec.page_size + 1  # the extra match answers "is there a next page?"
    collected: list[Item] = []
    calls: list[Call] = []
    key = start_key
    while len(calls) < spec.max_rounds:
        limit = _fill_limit(wanted - len(collected), spec, calls, selectivity)
        items, call = _call(client, spec, schema, key, limit, clock)
        collected.extend(items)
        calls.append(call)
        key = call.last_evaluated_key
        if len(collected) >= wanted or key is None:
            break
    if len(collected) > spec.page_size:
        shown = collected[: spec.page_size]
        # Never the LastEvaluatedKey: it points past matches the user has not seen.
        next_key = key_of(shown[-1], schema.cursor_key_names(spec.index))
        return Page(
            number,
            "fill",
            start_key,
            shown,
            tuple(calls),
            next_key,
            HasNext.YES,
            EndedBy.PAGE_SIZE,
        )
    if key is None:
        return Page(
            number, "fill", start_key, collected, tuple(calls), None, HasNext.NO, EndedBy.END
        )
    return Page(
        number, "fill", start_key, collected, tuple(calls), key, HasNext.UNKNOWN, EndedBy.ROUNDS
    )
