"""What the estimate reads: the current query as ``dynotui pages`` reads it, and a bounded,
spread sample of the table.

**The current query.** DynamoDB bills a call by the items it *evaluates*, before any
filter, and ``Limit`` counts evaluated items too, so a call without the filter evaluates
the same items, stops at the same ``LastEvaluatedKey`` and consumes the same capacity.
``SeeingClient`` sends the query that way and applies the filter here (``evaluate.holds``,
DynamoDB's semantics), so the pager gets the matches it would get while the estimate sees
every item the query reads, including those the filter drops: the index's reads are made
of them. The projection is left out for the same reason (it changes no capacity either).

**The table.** When the rewritten query reads items the current query cannot see (another
partition), or for the index's storage, a Scan sample is read: ``SEGMENTS`` parallel-scan
segments in turn, one call each, so a bounded sample spreads over the key space instead of
being the first partitions in hash order.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from dynotui.core.cancel import CancelToken
from dynotui.dynamodb.condition import Tree
from dynotui.dynamodb.cost import Call
from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.expressions import placeholders
from dynotui.dynamodb.reader import call
from dynotui.dynamodb.what_if.evaluate import holds

SEGMENTS = 16
SAMPLE_LIMIT = 200  # items per Scan call of the table sample


class SeeingClient:
    """The real client for the current query's reads, with the filter applied here."""

    def __init__(self, client: Any, filter_tree: Tree | None, seen: list[Item]) -> None:
        self._client = client
        self._filter = filter_tree
        self.seen = seen  # every item the query evaluated, in the order read

    @property
    def dynotui_hooked(self) -> bool:
        return bool(getattr(self._client, "dynotui_hooked", False))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def _send(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        sent = dict(params)
        sent.pop("FilterExpression", None)
        sent.pop("ProjectionExpression", None)
        names, values = placeholders(sent.get("KeyConditionExpression"))
        kept_names = {
            k: v for k, v in sent.pop("ExpressionAttributeNames", {}).items() if k in names
        }
        kept_values = {
            k: v for k, v in sent.pop("ExpressionAttributeValues", {}).items() if k in values
        }
        if kept_names:
            sent["ExpressionAttributeNames"] = kept_names
        if kept_values:
            sent["ExpressionAttributeValues"] = kept_values
        response = dict(getattr(self._client, operation)(**sent))
        items = response.get("Items", [])
        self.seen.extend(items)
        matched = [item for item in items if holds(self._filter, item)]
        response["Items"] = matched
        response["Count"] = len(matched)
        return response

    def query(self, **params: Any) -> dict[str, Any]:
        return self._send("query", params)

    def scan(self, **params: Any) -> dict[str, Any]:
        return self._send("scan", params)


class TableSample:
    """A Scan of the base table, one segment's call at a time, stoppable at any call."""

    def __init__(
        self,
        client: Any,
        table: str,
        *,
        segments: int = SEGMENTS,
        limit: int = SAMPLE_LIMIT,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.client = client
        self.table = table
        self.limit = limit
        self.clock = clock
        self.items: list[Item] = []
        self.calls: list[Call] = []
        # Each segment's next start key; absent once the segment has ended.
        self._next: dict[int, Item | None] = {s: None for s in range(segments)}
        self._segments = segments
        self._turn = 0

    @property
    def complete(self) -> bool:
        return not self._next

    @property
    def spent(self) -> float:
        return sum(c.capacity.total for c in self.calls if c.capacity is not None)

    def step(self, cancel: CancelToken) -> None:
        """One call of the next segment that has not ended."""
        segments = sorted(self._next)
        segment = segments[self._turn % len(segments)]
        self._turn += 1
        params: dict[str, Any] = {
            "TableName": self.table,
            "Limit": self.limit,
            "ReturnConsumedCapacity": "INDEXES",
            "Segment": segment,
            "TotalSegments": self._segments,
        }
        start = self._next[segment]
        if start is not None:
            params["ExclusiveStartKey"] = start
        response, _ = call(
            self.client, "scan", params, self.limit, cancel, self.calls, self.clock, self.table
        )
        self.items.extend(response.get("Items", []))
        key = response.get("LastEvaluatedKey")
        if key is None:
            del self._next[segment]
        else:
            self._next[segment] = key
