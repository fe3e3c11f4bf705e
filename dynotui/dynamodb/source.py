"""A Query or Scan as a paging source: what the generic pager reads from."""

from __future__ import annotations

import base64
import binascii
import time
from dataclasses import replace
from typing import Any

from dynotui.core.cancel import CancelToken
from dynotui.core.cursor import CursorError
from dynotui.core.page import Page
from dynotui.core.pager import Pager
from dynotui.dynamodb.advice import DynamoAdvisor, Measurements
from dynotui.dynamodb.cost import DynamoCost, service_call_max
from dynotui.dynamodb.dynamo_json import Item, number_problem, to_wire
from dynotui.dynamodb.reader import Clock, read_page
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.spec import QuerySpec


def _malformed(detail: str) -> CursorError:
    # Copying the cursor again cannot mend a key of the wrong shape: say what is wrong.
    return CursorError("malformed", f"the cursor's start key is refused ({detail})")


def start_key_from_json(raw: Any, schema: TableSchema | None, index: str | None) -> Item:
    """A start key from untrusted JSON: only what DynamoDB accepts as ExclusiveStartKey on
    this order (its key attributes, typed as the table defines them)."""
    if not isinstance(raw, dict) or not 1 <= len(raw) <= 4:
        raise _malformed("start key must be an object of 1 to 4 attributes")
    expected = schema.cursor_key_names(index) if schema else None
    if expected is not None and set(raw) != set(expected):
        raise _malformed(f"start key holds {sorted(raw)}, this order's keys are {list(expected)}")
    key: Item = {}
    for name, value in raw.items():
        if not isinstance(name, str) or not name or len(name) > 255:
            raise _malformed("bad attribute name")
        if not isinstance(value, dict) or len(value) != 1:
            raise _malformed(f"attribute {name!r} is not one typed value")
        ((kind, inner),) = value.items()
        wanted = schema.attribute_type(name) if schema else None
        if wanted is not None and kind != wanted:
            raise _malformed(f"attribute {name!r} is {kind}, the table defines it as {wanted}")
        if not isinstance(inner, str):
            raise _malformed(f"attribute {name!r} is not a string-encoded value")
        if kind == "S":
            if not inner:
                raise _malformed(f"attribute {name!r} is an empty string")
            key[name] = {"S": inner}
        elif kind == "N":
            if number_problem(inner):
                raise _malformed(f"attribute {name!r} is not a number")
            key[name] = {"N": inner}
        elif kind == "B":
            try:
                key[name] = {"B": base64.b64decode(inner, validate=True)}
            except (binascii.Error, ValueError):
                raise _malformed(f"attribute {name!r} is not base64") from None
        else:
            raise _malformed(f"attribute {name!r} has type {kind!r}; keys are S, N or B")
    return key


class QuerySource:
    """One validated Query or Scan on one client."""

    def __init__(
        self,
        client: Any,
        spec: QuerySpec,
        schema: TableSchema,
        *,
        measurements: Measurements | None = None,
        clock: Clock = time.perf_counter,
    ) -> None:
        spec.validate(schema)  # refuse bad input before any call
        self.client = client
        self.spec = spec
        self.schema = schema
        self.measurements = measurements
        self.clock = clock

    def scope(self) -> str:
        return self.spec.scope()

    def read_page(
        self,
        start_key: Item | None,
        number: int,
        *,
        selectivity: float | None,
        cancel: CancelToken,
    ) -> Page[DynamoCost, Item, Item]:
        page = read_page(
            self.client,
            self.spec,
            self.schema,
            start_key,
            number,
            selectivity=selectivity,
            cancel=cancel,
            clock=self.clock,
        )
        if not self.schema.counts_live:  # read on the service
            return page
        # DynamoDB Local: its figures are its own, and every place that shows them says so.
        most = service_call_max(self.spec.consistent_read)
        return replace(page, cost=replace(page.cost, local_call_max=most))

    def key_to_json(self, key: Item) -> Any:
        return to_wire(key)

    def key_from_json(self, data: Any) -> Item:
        return start_key_from_json(data, self.schema, self.spec.index)

    def advisor(self) -> DynamoAdvisor:
        return DynamoAdvisor(self.schema, self.spec, self.measurements)

    def with_client(self, client: Any) -> QuerySource:
        return QuerySource(
            client, self.spec, self.schema, measurements=self.measurements, clock=self.clock
        )


def query_pager(
    client: Any,
    spec: QuerySpec,
    schema: TableSchema,
    *,
    start_key: Item | None = None,
    cache_pages: int = 20,
    measurements: Measurements | None = None,
    clock: Clock = time.perf_counter,
) -> Pager[Item, Item, DynamoCost]:
    """A pager over a Query or Scan: the common case, in one call."""
    source = QuerySource(client, spec, schema, measurements=measurements, clock=clock)
    return Pager(source, start_key=start_key, cache_pages=cache_pages)
