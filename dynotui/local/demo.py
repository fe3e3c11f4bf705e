"""The demo table: an orders table built so that every paging rule shows up.

- ``customer`` / ``order_no``: ``order_no`` is a string of unpadded digits, so "10"
  sorts before "9" (rule 6). ``acme`` holds 6,000 orders for deep paging.
- ``archive`` holds 200 orders carrying 20-100 KB attachments: its pages are cut
  by the 1 MB limit and cost far more capacity than the others (rules 2, 3).
- ``status`` is skewed: RETURNED is ~2.5% of orders, so filtering on it throws
  away most of what is read and yields empty pages that still carry a key (1, 3, 4).
- LSI ``by_total`` orders a customer's orders by a numeric ``total`` (ALL).
- GSI ``by_status`` (status, placed_on) ties hundreds of orders on one key value;
  they have no defined relative order (6, 8) (INCLUDE).
- GSI ``flagged`` is sparse: only ~3% of orders carry ``flag`` (KEYS_ONLY).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeSerializer

from dynotui.core.connection import is_loopback_url

TABLE = "dynotui-demo-orders"
BIG_CUSTOMER = "acme"
BIG_ORDERS = 6_000
ARCHIVE_CUSTOMER = "archive"
ARCHIVE_ORDERS = 200
SMALL_CUSTOMERS = 240
STATUSES = (
    ("DELIVERED", 72),
    ("SHIPPED", 14),
    ("PLACED", 7),
    ("CANCELLED", 4.5),
    ("RETURNED", 2.5),
)
RARE_STATUS = "RETURNED"
FLAGS = ("fraud-review", "address-check", "vip-escalation")
FLAG_RATE = 0.03
SKUS = ("kettle", "mug", "teapot", "grinder", "scale", "filter", "beans", "tin", "whisk", "cup")
FIRST_DAY = date(2026, 9, 1)
DAYS = 60


class NotLocalError(ValueError):
    """Seeding was asked of an endpoint that is not on this machine."""


TABLE_DEFINITION: dict[str, Any] = {
    "TableName": TABLE,
    "BillingMode": "PAY_PER_REQUEST",
    "AttributeDefinitions": [
        {"AttributeName": "customer", "AttributeType": "S"},
        {"AttributeName": "order_no", "AttributeType": "S"},
        {"AttributeName": "total", "AttributeType": "N"},
        {"AttributeName": "status", "AttributeType": "S"},
        {"AttributeName": "placed_on", "AttributeType": "S"},
        {"AttributeName": "flag", "AttributeType": "S"},
    ],
    "KeySchema": [
        {"AttributeName": "customer", "KeyType": "HASH"},
        {"AttributeName": "order_no", "KeyType": "RANGE"},
    ],
    "LocalSecondaryIndexes": [
        {
            "IndexName": "by_total",
            "KeySchema": [
                {"AttributeName": "customer", "KeyType": "HASH"},
                {"AttributeName": "total", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "ALL"},
        }
    ],
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "by_status",
            "KeySchema": [
                {"AttributeName": "status", "KeyType": "HASH"},
                {"AttributeName": "placed_on", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["total", "flag"]},
        },
        {
            "IndexName": "flagged",
            "KeySchema": [
                {"AttributeName": "flag", "KeyType": "HASH"},
                {"AttributeName": "total", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        },
    ],
}


@dataclass(frozen=True)
class SeedReport:
    table: str
    items: int
    seconds: float
    created: bool


def _order(rng: random.Random, customer: str, number: int, big_attachment: bool) -> dict:
    placed = datetime.combine(FIRST_DAY, datetime.min.time(), tzinfo=timezone.utc) + timedelta(
        seconds=rng.randrange(DAYS * 86_400)
    )
    statuses, weights = zip(*STATUSES, strict=True)
    lines = [
        {
            "sku": rng.choice(SKUS),
            "qty": rng.randint(1, 4),
            "price": Decimal(rng.randint(300, 9_000)) / 100,
        }
        for _ in range(rng.randint(1, 5))
    ]
    item: dict[str, Any] = {
        "customer": customer,
        "order_no": str(number),
        "status": rng.choices(statuses, weights)[0],
        "placed_on": placed.date().isoformat(),
        "placed_at": placed.isoformat(timespec="seconds"),
        "total": sum(line["price"] * line["qty"] for line in lines),
        "lines": lines,
    }
    if rng.random() < FLAG_RATE:
        item["flag"] = rng.choice(FLAGS)
    if big_attachment:
        item["attachment"] = rng.randbytes(rng.randint(20_000, 100_000))
    elif rng.random() < 0.1:
        item["note"] = "".join(rng.choices("abcdefghij ", k=rng.randint(1_000, 8_000)))
    return item


def demo_items(seed: int = 7) -> Iterator[dict]:
    """Every demo order as plain Python values, the same for the same seed."""
    rng = random.Random(seed)
    for number in range(1, BIG_ORDERS + 1):
        yield _order(rng, BIG_CUSTOMER, number, big_attachment=False)
    for number in range(1, ARCHIVE_ORDERS + 1):
        yield _order(rng, ARCHIVE_CUSTOMER, number, big_attachment=True)
    for index in range(1, SMALL_CUSTOMERS + 1):
        for number in range(1, rng.randint(5, 40) + 1):
            yield _order(rng, f"c{index:03d}", number, big_attachment=False)


def require_local(client: Any) -> None:
    endpoint = client.meta.endpoint_url
    if not is_loopback_url(endpoint):
        raise NotLocalError(
            f"refusing to create or seed the demo table on {endpoint}: the demo writes only to "
            "a DynamoDB Local on this machine (localhost / 127.0.0.1)."
        )


def write_items(client: Any, table: str, items: list[dict], workers: int = 4) -> int:
    """BatchWriteItem in batches of 25, retrying unprocessed items with backoff."""
    require_local(client)
    serializer = TypeSerializer()
    requests = [
        {"PutRequest": {"Item": {k: serializer.serialize(v) for k, v in item.items()}}}
        for item in items
    ]
    batches = [requests[i : i + 25] for i in range(0, len(requests), 25)]

    def send(batch: list[dict]) -> int:
        pending = {table: batch}
        for attempt in range(10):
            response = client.batch_write_item(RequestItems=pending)
            pending = response.get("UnprocessedItems") or {}
            if not pending:
                return len(batch)
            time.sleep(min(2.0, 0.05 * 2**attempt))
        raise RuntimeError(f"{len(pending[table])} items stayed unprocessed after 10 attempts")

    with ThreadPoolExecutor(workers) as pool:
        return sum(pool.map(send, batches))


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


def seed_demo(client: Any, seed: int = 7) -> SeedReport:
    """Create and fill the demo table on a local endpoint (left as is if it exists)."""
    began = time.perf_counter()
    created = create_table(client, TABLE_DEFINITION)
    count = write_items(client, TABLE, list(demo_items(seed))) if created else 0
    return SeedReport(TABLE, count, time.perf_counter() - began, created)
