"""Tables on DynamoDB Local: define, create and fill them (the demo, tests, benchmarks).

The pager never writes; everything here refuses any endpoint not on this machine.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from dynotui.core.errors import InputError
from dynotui.core.text import visible
from dynotui.dynamodb.loopback import client_proxy, loopback_problem

Key = tuple[str, str]  # (attribute name, S | N | B)


class NotLocalError(InputError):
    """A write was asked of an endpoint that is not on this machine."""


@dataclass(frozen=True)
class Index:
    name: str
    hash_key: Key
    range_key: Key | None = None
    projection: str = "ALL"  # ALL, KEYS_ONLY or INCLUDE
    include: tuple[str, ...] = ()


def _key_schema(hash_key: Key, range_key: Key | None) -> list[dict[str, str]]:
    schema = [{"AttributeName": hash_key[0], "KeyType": "HASH"}]
    if range_key:
        schema.append({"AttributeName": range_key[0], "KeyType": "RANGE"})
    return schema


def _index(index: Index) -> dict[str, Any]:
    projection: dict[str, Any] = {"ProjectionType": index.projection}
    if index.include:
        projection["NonKeyAttributes"] = list(index.include)
    return {
        "IndexName": index.name,
        "KeySchema": _key_schema(index.hash_key, index.range_key),
        "Projection": projection,
    }


def table_definition(
    name: str,
    hash_key: Key,
    range_key: Key | None = None,
    *,
    local_indexes: tuple[Index, ...] = (),
    global_indexes: tuple[Index, ...] = (),
) -> dict[str, Any]:
    """CreateTable parameters, on demand, with every key attribute defined once."""
    keys = [hash_key, range_key]
    for index in (*local_indexes, *global_indexes):
        keys += [index.hash_key, index.range_key]
    types = dict(k for k in keys if k)
    definition: dict[str, Any] = {
        "TableName": name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": attr, "AttributeType": kind} for attr, kind in types.items()
        ],
        "KeySchema": _key_schema(hash_key, range_key),
    }
    if local_indexes:
        definition["LocalSecondaryIndexes"] = [_index(i) for i in local_indexes]
    if global_indexes:
        definition["GlobalSecondaryIndexes"] = [_index(i) for i in global_indexes]
    return definition


def require_local(client: Any) -> None:
    endpoint = client.meta.endpoint_url
    problem = loopback_problem(endpoint)
    if problem is None and (proxy := client_proxy(client)) is not None:
        from botocore.httpsession import mask_proxy_url

        problem = f"its requests would go through the proxy {visible(mask_proxy_url(proxy))}"
    if problem is not None:
        raise NotLocalError(
            f"refusing to create or seed the demo table on {visible(endpoint)}: {problem}; the "
            "demo writes only to a DynamoDB Local on this machine (localhost, 127.0.0.1, [::1])."
        )


def create_table(client: Any, definition: dict[str, Any]) -> bool:
    """Create the table unless it exists; True when it was created."""
    require_local(client)
    name = definition["TableName"]
    try:
        client.describe_table(TableName=name)
        return False
    except client.exceptions.ResourceNotFoundException:
        pass
    client.create_table(**definition)
    client.get_waiter("table_exists").wait(
        TableName=name, WaiterConfig={"Delay": 0.2, "MaxAttempts": 100}
    )
    return True


def write_items(
    client: Any,
    table: str,
    items: list[dict[str, Any]],
    workers: int = 4,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """BatchWriteItem in batches of 25, retrying unprocessed items with backoff;
    ``progress(written, total)`` after each batch."""
    from boto3.dynamodb.types import TypeSerializer

    require_local(client)
    serializer = TypeSerializer()
    requests = [
        {"PutRequest": {"Item": {k: serializer.serialize(v) for k, v in item.items()}}}
        for item in items
    ]
    batches = [requests[i : i + 25] for i in range(0, len(requests), 25)]
    written = [0]
    lock = threading.Lock()

    def send(batch: list[dict[str, Any]]) -> int:
        pending = {table: batch}
        for attempt in range(10):
            response = client.batch_write_item(RequestItems=pending)
            pending = response.get("UnprocessedItems") or {}
            if not pending:
                if progress is not None:
                    with lock:
                        written[0] += len(batch)
                        progress(written[0], len(requests))
                return len(batch)
            time.sleep(min(2.0, 0.05 * 2**attempt))
        raise RuntimeError(f"{len(pending[table])} items stayed unprocessed after 10 attempts")

    with ThreadPoolExecutor(workers) as pool:
        return sum(pool.map(send, batches))
