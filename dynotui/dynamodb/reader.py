"""Read one page from a start key, in raw mode (one call) or fill mode (a capped loop).

Every call checks the cancel token first, and botocore's retries check it too (see
``connection.cancellable``), so a superseded read makes no further call; what its
calls cost is carried by ``ReadCancelled``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import ReadCancelled
from dynotui.core.page import EndedBy, HasNext, Page
from dynotui.dynamodb.connection import cancellable, install_cancel_hook
from dynotui.dynamodb.cost import Call, Capacity, DynamoCost
from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.errors import translate
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.spec import PAGE_SIZE_MAX, QuerySpec

Clock = Callable[[], float]


def key_of(item: Item, key_names: tuple[str, ...]) -> Item:
    """The start key that resumes right after ``item`` on an order with these key names."""
    missing = [name for name in key_names if name not in item]
    if missing:
        raise ValueError(f"item lacks key attributes {missing}; cannot derive a start key")
    return {name: item[name] for name in key_names}


def fill_limit(
    need: int,
    has_filter: bool,
    scanned: int,
    matched: int,
    last_limit: int | None,
    hint: float | None,
) -> int:
    """Limit for the next call of a fill loop that still needs ``need`` matches.

    Without a filter every evaluated item matches, so Limit = need reads nothing extra.
    With one, size the call by the selectivity seen so far, so a rare match does not
    burn one round per handful of items; anything read past the last shown item is
    read again by the next page, so do not overshoot either.
    """
    if not has_filter:
        return need
    if matched:
        estimate = need * scanned / matched
    elif scanned and last_limit:
        estimate = last_limit * 4
    elif hint:
        estimate = need / hint
    else:
        estimate = need
    return max(need, min(PAGE_SIZE_MAX, math.ceil(estimate)))


def call(
    client: Any,
    operation: str,
    params: dict[str, Any],
    limit: int,
    cancel: CancelToken,
    spent: list[Call],
    clock: Clock,
    table: str | None = None,
) -> tuple[dict[str, Any], Call]:
    """One request, cancellable; its cost is appended to ``spent`` as soon as it is known."""
    cancel.check(DynamoCost.of(tuple(spent)) if spent else None)
    began = clock()
    try:
        with cancellable(cancel):
            response = getattr(client, operation)(**params)
    except ReadCancelled:
        raise ReadCancelled(DynamoCost.of(tuple(spent)) if spent else None) from None
    except Exception as exc:
        raise translate(exc, table) from exc
    made = Call(
        limit=limit,
        count=response["Count"] if "Count" in response else len(response.get("Items", [])),
        scanned=response.get("ScannedCount"),
        capacity=Capacity.from_response(response.get("ConsumedCapacity")),
        latency_ms=(clock() - began) * 1000,
        retries=response.get("ResponseMetadata", {}).get("RetryAttempts", 0),
        more=bool(response.get("LastEvaluatedKey") or response.get("NextToken")),
    )
    spent.append(made)
    cancel.check(DynamoCost.of(tuple(spent)))
    return response, made


def read_page(
    client: Any,
    spec: QuerySpec,
    schema: TableSchema,
    start_key: Item | None,
    number: int,
    *,
    selectivity: float | None,
    cancel: CancelToken,
    clock: Clock = time.perf_counter,
) -> Page[DynamoCost]:
    """Read page ``number`` starting after ``start_key``; changes nothing anywhere."""
    install_cancel_hook(client)
    wanted = spec.page_size if spec.mode == "raw" else spec.page_size + 1
    rounds = 1 if spec.mode == "raw" else spec.max_rounds
    collected: list[Item] = []
    calls: list[Call] = []
    key = start_key
    while len(calls) < rounds:
        need = wanted - len(collected)
        limit = (
            need
            if spec.mode == "raw"
            else fill_limit(
                need,
                bool(spec.filter),
                sum(c.scanned or 0 for c in calls),
                sum(c.count for c in calls),
                calls[-1].limit if calls else None,
                selectivity,
            )
        )
        response, _ = call(
            client,
            spec.operation,
            spec.request(schema, key, limit),
            limit,
            cancel,
            calls,
            clock,
            spec.table,
        )
        collected.extend(response.get("Items", []))
        key = response.get("LastEvaluatedKey")
        if len(collected) >= wanted or key is None:
            break
    cost = DynamoCost.of(tuple(calls))
    last = {"last_evaluated_key": key}
    if spec.mode == "fill" and len(collected) > spec.page_size:
        shown = collected[: spec.page_size]
        # Never the LastEvaluatedKey: it points past matches the user has not seen.
        next_key = key_of(shown[-1], schema.cursor_key_names(spec.index))
        return Page(
            number=number,
            mode="fill",
            start_key=start_key,
            items=shown,
            shown=len(shown),
            next_start_key=next_key,
            has_next=HasNext.YES,
            ended_by=EndedBy.PAGE_SIZE,
            cost=cost,
            extra=last,
        )
    if key is None:
        ended, has_next = EndedBy.END, HasNext.NO
    elif spec.mode == "fill":
        ended, has_next = EndedBy.ROUNDS, HasNext.UNKNOWN
    else:
        ended = EndedBy.SIZE if calls[-1].cut_by_size else EndedBy.LIMIT
        has_next = HasNext.UNKNOWN
    return Page(
        number=number,
        mode=spec.mode,
        start_key=start_key,
        items=collected,
        shown=len(collected),
        next_start_key=key,
        has_next=has_next,
        ended_by=ended,
        cost=cost,
        extra=last,
    )
