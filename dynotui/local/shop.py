"""The demo's second table: a shop in single-table design, for ``dynotui entities``.

Four entities in one table, told apart by their key prefixes, as most production
single-table designs are:

- a customer: ``CUSTOMER#c001`` / ``CUSTOMER#c001`` (name, email, tier, since);
- their addresses: ``CUSTOMER#c001`` / ``ADDRESS#home`` (street, city, postcode);
- their orders: ``CUSTOMER#c001`` / ``ORDER#2026-09-14#o00042`` (status, total, lines);
- an order's lines, in the order's own partition: ``ORDER#o00042`` / ``LINE#01`` (sku,
  qty, price).

The GSI ``gsi1`` is overloaded: orders by status and date (``STATUS#SHIPPED``), lines by
product (``SKU#kettle``), addresses by city (``CITY#Lyon``), customers by tier
(``TIER#gold``): one index, four access patterns.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from dynotui.local.tables import Index, table_definition

TABLE = "dynotui-demo-shop"
INDEX = "gsi1"
CUSTOMERS = 150
CITIES = ("Lyon", "Oslo", "Porto", "Graz", "Turku", "Ghent")
TIERS = (("basic", 70), ("silver", 22), ("gold", 8))
STATUSES = (("DELIVERED", 70), ("SHIPPED", 15), ("PLACED", 10), ("CANCELLED", 5))
SKUS = {
    "kettle": Decimal("39.90"),
    "mug": Decimal("8.50"),
    "teapot": Decimal("24.00"),
    "grinder": Decimal("59.00"),
    "beans": Decimal("12.75"),
    "filter": Decimal("4.20"),
}
FIRST_DAY = date(2026, 9, 1)
DAYS = 60

TABLE_DEFINITION: dict[str, Any] = table_definition(
    TABLE,
    ("pk", "S"),
    ("sk", "S"),
    global_indexes=(Index(INDEX, ("gsi1pk", "S"), ("gsi1sk", "S")),),
)


def _pick(rng: random.Random, weighted: tuple[tuple[str, int], ...]) -> str:
    return rng.choices([k for k, _ in weighted], [w for _, w in weighted])[0]


def _customer(rng: random.Random, number: int) -> Iterator[dict[str, Any]]:
    cid = f"c{number:03d}"
    tier = _pick(rng, TIERS)
    since = (FIRST_DAY - timedelta(days=rng.randint(30, 2000))).isoformat()
    pk = f"CUSTOMER#{cid}"
    yield {
        "pk": pk,
        "sk": pk,
        "name": f"Customer {number}",
        "email": f"{cid}@example.com",
        "tier": tier,
        "since": since,
        "gsi1pk": f"TIER#{tier}",
        "gsi1sk": f"CUSTOMER#{since}#{cid}",
    }
    for kind in ("home", "work")[: rng.randint(1, 2)]:
        city = rng.choice(CITIES)
        yield {
            "pk": pk,
            "sk": f"ADDRESS#{kind}",
            "street": f"{rng.randint(1, 240)} {rng.choice(('Elm', 'Quay', 'Mill'))} Street",
            "city": city,
            "postcode": f"{rng.randint(1000, 99999)}",
            "gsi1pk": f"CITY#{city}",
            "gsi1sk": f"ADDRESS#{cid}#{kind}",
        }


def _order(rng: random.Random, cid: str, number: int) -> Iterator[dict[str, Any]]:
    oid = f"o{number:05d}"
    day = (FIRST_DAY + timedelta(days=rng.randrange(DAYS))).isoformat()
    status = _pick(rng, STATUSES)
    lines: list[dict[str, Any]] = []
    total = Decimal(0)
    for line_no in range(1, rng.randint(1, 4) + 1):
        sku = rng.choice(list(SKUS))
        qty = rng.randint(1, 3)
        total += SKUS[sku] * qty
        lines.append(
            {
                "pk": f"ORDER#{oid}",
                "sk": f"LINE#{line_no:02d}",
                "sku": sku,
                "qty": qty,
                "price": SKUS[sku],
                "gsi1pk": f"SKU#{sku}",
                "gsi1sk": f"LINE#{day}#{oid}#{line_no:02d}",
            }
        )
    yield {
        "pk": f"CUSTOMER#{cid}",
        "sk": f"ORDER#{day}#{oid}",
        "status": status,
        "placed_on": day,
        "total": total,
        "line_count": len(lines),
        "gsi1pk": f"STATUS#{status}",
        "gsi1sk": f"ORDER#{day}#{oid}",
    }
    yield from lines


def shop_items(seed: int = 11) -> Iterator[dict[str, Any]]:
    """Every item of the shop, the same for the same seed."""
    rng = random.Random(seed)
    order_no = 0
    for number in range(1, CUSTOMERS + 1):
        yield from _customer(rng, number)
        for _ in range(rng.choice((0, 1, 1, 2, 3, 5, 8))):
            order_no += 1
            yield from _order(rng, f"c{number:03d}", order_no)
