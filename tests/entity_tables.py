"""Single-table designs nobody made for dynotui, as their libraries and habits write them.

Each builder returns the table's definition and its items (plain Python values, as
``write_items`` takes them), from a seeded random generator. The tests count the truth
with their own plain rules (``truth_*``) over a boto3 Scan, never with dynotui's.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter, defaultdict
from decimal import Decimal
from typing import Any

from dynotui.local.tables import Index, table_definition

HOSTILE_NAME = "note\x1b[31m"  # an attribute name with an escape, on some profiles
GSI = "gsi1"


def prefixes_table(name: str, customers: int = 40, products: int = 15, seed: int = 1) -> Any:
    """Key prefixes: PROFILE, ORDER#, ADDRESS# under CUSTOMER#, and PRODUCT# under its
    own partition prefix; an overloaded GSI (orders by status, addresses by city,
    products by category; profiles are not in it)."""
    rng = random.Random(seed)
    items: list[dict[str, Any]] = []
    for c in range(customers):
        pk = f"CUSTOMER#{c:05d}"
        profile: dict[str, Any] = {
            "pk": pk,
            "sk": "PROFILE",
            "name": f"Customer {c}",
            "email": f"c{c}@example.com",
        }
        if c % 7 == 0:
            profile[HOSTILE_NAME] = "\x1b]2;PWNED\x07" + "z" * rng.choice((10, 50_000))
        items.append(profile)
        for o in range(rng.randint(0, 8)):
            day = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
            status = rng.choice(("new", "shipped", "returned"))
            items.append(
                {
                    "pk": pk,
                    "sk": f"ORDER#{day}#{o}",
                    "total": Decimal(rng.randint(100, 99_999)) / 100,
                    "status": status,
                    "gsi1pk": f"STATUS#{status}",
                    "gsi1sk": f"ORDER#{day}#{c}#{o}",
                }
            )
        for a in range(rng.randint(1, 2)):
            city = rng.choice(("Lyon", "Oslo", "Porto"))
            items.append(
                {
                    "pk": pk,
                    "sk": f"ADDRESS#{a}",
                    "city": city,
                    "street": f"{rng.randint(1, 200)} Main St",
                    "gsi1pk": f"CITY#{city}",
                    "gsi1sk": f"ADDRESS#{c}#{a}",
                }
            )
    for p in range(products):
        category = rng.choice(("tools", "toys"))
        items.append(
            {
                "pk": f"PRODUCT#{p:04d}",
                "sk": f"PRODUCT#{p:04d}",
                "title": f"Product {p}",
                "price": Decimal(rng.randint(1, 9999)),
                "gsi1pk": f"CATEGORY#{category}",
                "gsi1sk": f"PRODUCT#{p:04d}",
            }
        )
    definition = table_definition(
        name,
        ("pk", "S"),
        ("sk", "S"),
        global_indexes=(Index(GSI, ("gsi1pk", "S"), ("gsi1sk", "S")),),
    )
    return definition, items


def truth_prefixes(items: list[dict[str, Any]], pk: str = "pk", sk: str = "sk") -> Counter[str]:
    """Entity counts by the test's own rule: the sort key's head before '#'."""
    return Counter(str(item[sk]).split("#")[0] for item in items if pk in item and sk in item)


def _opaque(*parts: Any) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:24]


def electrodb_table(name: str, customers: int = 30, seed: int = 2) -> Any:
    """ElectroDB-style: ``__edb_e__`` and ``__edb_v__`` on every item, keys opaque."""
    rng = random.Random(seed)
    items: list[dict[str, Any]] = []
    for c in range(customers):
        pk = _opaque("customer", c)
        items.append(
            {
                "pk": pk,
                "sk": _opaque("profile", c),
                "__edb_e__": "customer",
                "__edb_v__": "1",
                "fullName": f"Name {c}",
                "loyalty": rng.randint(0, 5),
            }
        )
        for o in range(rng.randint(0, 5)):
            items.append(
                {
                    "pk": pk,
                    "sk": _opaque("order", c, o),
                    "__edb_e__": "order",
                    "__edb_v__": "1",
                    "amount": rng.randint(1, 500),
                    "placedAt": f"2026-01-{rng.randint(1, 28):02d}T10:00:00Z",
                }
            )
        if c % 3 == 0:
            items.append(
                {
                    "pk": pk,
                    "sk": _opaque("ticket", c),
                    "__edb_e__": "supportTicket",
                    "__edb_v__": "2",
                    "subject": "help [bold]me[/]",
                }
            )
    return table_definition(name, ("pk", "S"), ("sk", "S")), items


def toolbox_table(name: str, users: int = 25, seed: int = 3) -> Any:
    """dynamodb-toolbox: ``_et``, ``_ct``, ``_md`` on every item; keys share one prefix
    scheme that would group them otherwise (``USER#`` / ``#...``)."""
    rng = random.Random(seed)
    items: list[dict[str, Any]] = []
    for u in range(users):
        pk = f"USER#{u}"
        stamp = "2026-02-01T00:00:00.000Z"
        items.append(
            {"pk": pk, "sk": "#META", "_et": "User", "_ct": stamp, "_md": stamp, "handle": f"u{u}"}
        )
        for p in range(rng.randint(0, 4)):
            items.append(
                {
                    "pk": pk,
                    "sk": f"#META#{p}",
                    "_et": "Post",
                    "_ct": stamp,
                    "_md": stamp,
                    "body": "x" * rng.randint(1, 3000),
                }
            )
            if rng.random() < 0.5:
                items.append(
                    {
                        "pk": pk,
                        "sk": f"#META#{p}#c",
                        "_et": "Comment",
                        "_ct": stamp,
                        "_md": stamp,
                        "text": "nice",
                        "likes": rng.randint(0, 9),
                    }
                )
    return table_definition(name, ("pk", "S"), ("sk", "S")), items


def plain_table(name: str, count: int = 120, seed: int = 4) -> Any:
    """No design: a numeric partition key and a binary sort key, attributes that vary."""
    rng = random.Random(seed)
    items = []
    for i in range(count):
        item: dict[str, Any] = {"id": i, "part": bytes([i % 7, rng.randint(0, 255)])}
        if rng.random() < 0.5:
            item["colour"] = rng.choice(("red", "blue"))
        if rng.random() < 0.3:
            item["size"] = rng.randint(1, 10)
        items.append(item)
    return table_definition(name, ("id", "N"), ("part", "B")), items


def mixed_table(name: str, tenants: int = 20, seed: int = 5) -> Any:
    """Both schemes: OneTable items carry ``_type``; older items only key prefixes."""
    rng = random.Random(seed)
    items: list[dict[str, Any]] = []
    for t in range(tenants):
        pk = f"TENANT#{t}"
        items.append({"pk": pk, "sk": f"ACCOUNT#{t}", "_type": "Account", "plan": "pro"})
        for i in range(rng.randint(1, 6)):
            items.append({"pk": pk, "sk": f"INVOICE#{i}", "_type": "Invoice", "due": i})
        for e in range(rng.randint(0, 4)):
            items.append({"pk": pk, "sk": f"EVENT#{e}", "kind": "login", "at": e})
        if t % 4 == 0:
            items.append({"pk": pk, "sk": f"LEGACY#{t}", "blob": b"\x00\xff" * 10})
    return table_definition(name, ("pk", "S"), ("sk", "S")), items


def truth_mixed(items: list[dict[str, Any]]) -> Counter[str]:
    return Counter(
        str(item["_type"]) if "_type" in item else str(item["sk"]).split("#")[0] for item in items
    )


def attributes_by(items: list[dict[str, Any]], entity_of: Any) -> dict[str, set[str]]:
    """Each entity's attribute names, as the test sees them."""
    found: dict[str, set[str]] = defaultdict(set)
    for item in items:
        found[entity_of(item)].update(item)
    return dict(found)
