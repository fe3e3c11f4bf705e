"""The plan's own reads of a path: every entry it evaluates, one bounded call at a time.

A path's bill is made of the entries its key condition reaches, whatever the filter
keeps (DynamoDB bills before the filter), so the plan reads the key condition alone,
without filter or projection (neither changes what is evaluated or billed), eventually
consistent (half the units of a consistent read: the plan's reads are its own cost, not
the path's), and ``READ_LIMIT`` entries a call (few calls; the 1 MB limit still holds).
The entries are the path's own: the table's items, or an index's projected entries.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from dynotui.core.cancel import CancelToken
from dynotui.dynamodb.cost import Call
from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.expressions import placeholders
from dynotui.dynamodb.reader import call
from dynotui.dynamodb.spec import QuerySpec

READ_LIMIT = 1000
FIRST_LIMIT = 100  # the first call of a path: small, so a small key range costs little


class PathRead:
    """A path's key range (or its whole order, for a Scan), read call by call."""

    def __init__(
        self,
        client: Any,
        spec: QuerySpec,
        *,
        limit: int = READ_LIMIT,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.client = client
        self.spec = spec
        self.limit = limit
        self.clock = clock
        self.items: list[Item] = []
        self.calls: list[Call] = []
        self.complete = False
        self._next: Item | None = None

    @property
    def spent(self) -> float:
        return sum(c.capacity.total for c in self.calls if c.capacity is not None)

    def _limit(self) -> int:
        """100 entries, then four times more a call, up to ``limit``."""
        grown: int = FIRST_LIMIT * 4 ** min(len(self.calls), 4)
        return min(self.limit, grown)

    def _params(self) -> dict[str, Any]:
        spec = self.spec
        params: dict[str, Any] = {
            "TableName": spec.table,
            "Limit": self._limit(),
            "ReturnConsumedCapacity": "INDEXES",
        }
        if spec.index:
            params["IndexName"] = spec.index
        if spec.key_condition:
            params["KeyConditionExpression"] = spec.key_condition
            names, values = placeholders(spec.key_condition)
            kept_names = {k: v for k, v in spec.names.items() if k in names}
            kept_values = {k: v for k, v in spec.values.items() if k in values}
            if kept_names:
                params["ExpressionAttributeNames"] = kept_names
            if kept_values:
                params["ExpressionAttributeValues"] = kept_values
            if not spec.forward:
                params["ScanIndexForward"] = False
        if self._next is not None:
            params["ExclusiveStartKey"] = self._next
        return params

    def step(self, cancel: CancelToken) -> None:
        """One call; ``complete`` once no LastEvaluatedKey comes back."""
        operation = "query" if self.spec.key_condition else "scan"
        response, _ = call(
            self.client,
            operation,
            self._params(),
            self._limit(),
            cancel,
            self.calls,
            self.clock,
            self.spec.table,
        )
        self.items.extend(response.get("Items", []))
        self._next = response.get("LastEvaluatedKey")
        self.complete = self._next is None
