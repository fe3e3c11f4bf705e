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

Beside it, the shop (``shop.py``): a single-table design, four entities in one table and
an overloaded GSI, for ``dynotui entities`` and the grid's entity column.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from dynotui.local import shop
from dynotui.local.tables import Index, create_table, table_definition, write_items

TABLE = "dynotui-demo-orders"
# Change when demo_items, TABLE_DEFINITION or the shop's table change: it names the
# cached, seeded database. 2: the shop (a single-table design) seeded beside the orders.
DATA_VERSION = "2"
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


TABLE_DEFINITION: dict[str, Any] = table_definition(
    TABLE,
    ("customer", "S"),
    ("order_no", "S"),
    local_indexes=(Index("by_total", ("customer", "S"), ("total", "N")),),
    global_indexes=(
        Index("by_status", ("status", "S"), ("placed_on", "S"), "INCLUDE", ("total", "flag")),
        Index("flagged", ("flag", "S"), ("total", "N"), "KEYS_ONLY"),
    ),
)


@dataclass(frozen=True)
class SeedReport:
    table: str
    items: int
    seconds: float
    created: bool


def _order(rng: random.Random, customer: str, number: int, big_attachment: bool) -> dict[str, Any]:
    placed = datetime.combine(FIRST_DAY, datetime.min.time(), tzinfo=timezone.utc) + timedelta(
        seconds=rng.randrange(DAYS * 86_400)
    )
    statuses = [status for status, _ in STATUSES]
    weights = [weight for _, weight in STATUSES]
    lines: list[dict[str, Any]] = [
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


def demo_items(seed: int = 7) -> Iterator[dict[str, Any]]:
    """Every demo order as plain Python values, the same for the same seed."""
    rng = random.Random(seed)
    for number in range(1, BIG_ORDERS + 1):
        yield _order(rng, BIG_CUSTOMER, number, big_attachment=False)
    for number in range(1, ARCHIVE_ORDERS + 1):
        yield _order(rng, ARCHIVE_CUSTOMER, number, big_attachment=True)
    for index in range(1, SMALL_CUSTOMERS + 1):
        for number in range(1, rng.randint(5, 40) + 1):
            yield _order(rng, f"c{index:03d}", number, big_attachment=False)


def seed_demo(
    client: Any, seed: int = 7, progress: Callable[[int, int], None] | None = None
) -> SeedReport:
    """Create and fill the demo tables on a local endpoint (each left as is if it exists):
    the orders, then the shop. ``progress`` counts the items of both."""
    began = time.perf_counter()
    created = create_table(client, TABLE_DEFINITION)
    orders = list(demo_items(seed)) if created else []
    shop_created = create_table(client, shop.TABLE_DEFINITION)
    goods = list(shop.shop_items()) if shop_created else []
    total = len(orders) + len(goods)

    def counted(offset: int) -> Callable[[int, int], None] | None:
        if progress is None:
            return None
        return lambda done, _: progress(offset + done, total)

    count = write_items(client, TABLE, orders, progress=counted(0)) if orders else 0
    if goods:
        count += write_items(client, shop.TABLE, goods, progress=counted(len(orders)))
    return SeedReport(TABLE, count, time.perf_counter() - began, created or shop_created)
