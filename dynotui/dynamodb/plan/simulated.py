"""A path paged by dynotui's own pager over entries that are known, never calling DynamoDB.

``SimulatedPath`` answers ``query`` and ``scan`` as DynamoDB would on the path: from the
entries in the order the path returns them, ``Limit`` entries evaluated or 1 MB read, a
``LastEvaluatedKey`` when either stopped the call, the capacity of DynamoDB's formula
(``item_size.read_units``, whole for a consistent read, half otherwise) and the matches
the entries were marked with. The real ``Pager`` and ``read_page`` drive it, so the page
size, raw or fill mode, the fill loop's Limit sizing and its round cap are the drain's.

Entries come from reads (each the path's entry for an item, sized) or are made up
(``synthetic``): as many as DescribeTable counts, sized like the entries read, with the
known number of matches spread evenly, and keys of their own so no boundary repeats.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dynotui.core.pager import Pager
from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import QuerySpec
from dynotui.dynamodb.what_if.evaluate import order_key
from dynotui.dynamodb.what_if.item_size import CALL_BYTES, read_units

SEED = 43
SIMULATED_MAX = 100_000  # entries paged at most; beyond, a prefix scaled up


@dataclass(frozen=True, slots=True)
class SimEntry:
    returned: Item  # what the path returns for it (its keys at least)
    size: int  # bytes of the entry DynamoDB reads and bills
    matches: bool  # whether the path's filter keeps it


@dataclass(frozen=True)
class Drain:
    """What draining the path page by page costs."""

    pages: float
    calls: float
    matches: float
    scanned: float
    read_units: float
    p50: float | None
    p99: float | None
    mean_per_page: float | None


class SimulatedPath:
    dynotui_hooked = True  # no botocore events to hook: read_page must not try

    def __init__(
        self,
        spec: QuerySpec,
        schema: TableSchema,
        entries: Sequence[SimEntry],
    ) -> None:
        self.table = spec.table
        self.order = schema.order(spec.index)
        self.entries = entries
        self.cursor_keys = schema.cursor_key_names(spec.index)
        self._position = {self._identity(e.returned): n for n, e in enumerate(entries)}

    def _identity(self, item: Item) -> tuple[Any, ...]:
        return tuple(order_key(item[name]) for name in self.cursor_keys)

    def _call(self, params: dict[str, Any]) -> dict[str, Any]:
        start = params.get("ExclusiveStartKey")
        at = 0 if start is None else self._position[self._identity(start)] + 1
        limit = int(params["Limit"])
        evaluated: list[SimEntry] = []
        read = 0
        while at < len(self.entries) and len(evaluated) < limit and read < CALL_BYTES:
            entry = self.entries[at]
            evaluated.append(entry)
            read += entry.size
            at += 1
        items = [e.returned for e in evaluated if e.matches]
        consistent = bool(params.get("ConsistentRead"))
        units = read_units((e.size for e in evaluated), consistent) if evaluated else 0.0
        consumed: dict[str, Any] = {"TableName": self.table, "CapacityUnits": units}
        if self.order.kind == "table":
            consumed["Table"] = {"CapacityUnits": units}
        else:
            group = (
                "GlobalSecondaryIndexes" if self.order.kind == "gsi" else "LocalSecondaryIndexes"
            )
            consumed["Table"] = {"CapacityUnits": 0.0}
            consumed[group] = {self.order.name: {"CapacityUnits": units}}
        response: dict[str, Any] = {
            "Items": items,
            "Count": len(items),
            "ScannedCount": len(evaluated),
            "ConsumedCapacity": consumed,
        }
        if evaluated and (len(evaluated) == limit or read >= CALL_BYTES):
            last = evaluated[-1].returned
            response["LastEvaluatedKey"] = {name: last[name] for name in self.cursor_keys}
        return response

    def query(self, **params: Any) -> dict[str, Any]:
        return self._call(params)

    def scan(self, **params: Any) -> dict[str, Any]:
        return self._call(params)


def drain(spec: QuerySpec, schema: TableSchema, entries: Sequence[SimEntry]) -> Drain:
    """The path paged to its end by dynotui's pager over ``entries`` (at most
    ``SIMULATED_MAX``: a longer list is paged in part and the totals scaled)."""
    factor = 1.0
    if len(entries) > SIMULATED_MAX:
        factor = len(entries) / SIMULATED_MAX
        entries = entries[:SIMULATED_MAX]
    client = SimulatedPath(spec, schema, entries)
    pager = Pager(QuerySource(client, spec, schema), cache_pages=1)
    while pager.can_advance:
        pager.next()
    totals = pager.totals
    cost = totals.cost
    measures = pager.measures.snapshot()
    shown = sum(s.shown for n, _ in pager.stack if (s := pager.summary_of(n)) is not None)
    units = cost.capacity.total if cost is not None and cost.capacity is not None else 0.0
    capacity = measures.capacity
    return Drain(
        pages=math.ceil(totals.pages_read * factor),
        calls=math.ceil(totals.calls * factor),
        matches=round(shown * factor),
        scanned=round(((cost.read or 0) if cost is not None else 0) * factor),
        read_units=units * factor,
        p50=capacity.p50 if capacity is not None else None,
        p99=capacity.p99 if capacity is not None else None,
        mean_per_page=measures.capacity_mean,
    )


def _synthetic_key(kind: str, n: int) -> dict[str, Any]:
    if kind == "N":
        return {"N": str(-(10**30) - n)}
    if kind == "B":
        return {"B": b"\x00plan" + n.to_bytes(8, "big")}
    return {"S": f"\x00plan{n:012d}"}


def made_up(
    schema: TableSchema,
    index: str | None,
    count: int,
    sizes: Sequence[int],
    matches: int,
    first: int = 0,
) -> list[SimEntry]:
    """``count`` entries with sizes drawn from ``sizes`` (at random, with a fixed seed: a
    page's sum then varies as a page of real items does, where cycling the sizes in turn
    would repeat a few page sums), ``matches`` of them matching, spread evenly, each with
    keys of its own (made up, and unlike any real key: only the sizes and the matches
    count). ``first`` numbers them on from another list's."""
    draw = random.Random(SEED)
    order_keys = schema.cursor_key_names(index)
    types = {
        key.name: key.type
        for order in schema.orders
        for key in (order.partition_key, order.sort_key)
        if key is not None
    }
    entries: list[SimEntry] = []
    used = 0
    for n in range(count):
        # The n-th entry matches when the running share passes the next whole match.
        hit = math.floor((n + 1) * matches / count) > used
        used += int(hit)
        keys = {name: _synthetic_key(types.get(name, "S"), first + n) for name in order_keys}
        entries.append(SimEntry(keys, sizes[draw.randrange(len(sizes))] if sizes else 1, hit))
    return entries


def synthetic_drain(
    spec: QuerySpec,
    schema: TableSchema,
    count: int,
    sizes: Sequence[int],
    matches: int,
) -> Drain:
    """A drain of ``count`` made-up entries (``made_up``); past ``SIMULATED_MAX``, that
    many are paged and the totals scaled."""
    made = min(max(count, 0), SIMULATED_MAX)
    factor = count / made if made else 1.0
    entries = made_up(schema, spec.index, made, sizes, round(matches / factor))
    found = drain(spec, schema, entries)
    if factor == 1.0:
        return found
    return Drain(
        pages=math.ceil(found.pages * factor),
        calls=math.ceil(found.calls * factor),
        matches=matches,
        scanned=round(found.scanned * factor),
        read_units=found.read_units * factor,
        p50=found.p50,
        p99=found.p99,
        mean_per_page=found.mean_per_page,
    )
