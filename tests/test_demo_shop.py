"""The demo's second table, the shop in single-table design: seeded with the orders in the
cached database, four entities by key prefixes, and an overloaded GSI with four of its
own; counts held to the test's own over a boto3 Scan."""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

from export_layout import scan_all
from helpers import run_in_process

from dynotui.local import demo, shop


def head(value: dict[str, Any]) -> str:
    return str(value["S"]).split("#")[0]


def entities(ddb: Any, *args: str) -> dict[str, Any]:
    result = run_in_process(
        [
            "entities",
            "--endpoint-url",
            ddb.endpoint_url,
            "--table-name",
            shop.TABLE,
            "--json",
            "--max-read-units",
            "100000",
            *args,
        ],
        env=dict(os.environ),
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_shop_is_seeded_beside_the_orders(client: Any, demo_table: str) -> None:
    tables = client.list_tables()["TableNames"]
    assert {demo.TABLE, shop.TABLE} <= set(tables)
    items = scan_all(client, shop.TABLE)
    assert len(items) == sum(1 for _ in shop.shop_items())


def test_the_shop_has_four_entities_and_the_index_four_more(ddb: Any, client: Any) -> None:
    items = scan_all(client, shop.TABLE)
    found = entities(ddb)
    truth = Counter(head(item["sk"]) for item in items)
    assert {e["name"]: e["items"] for e in found["entities"]} == dict(truth)
    assert set(truth) == {"CUSTOMER", "ADDRESS", "ORDER", "LINE"}
    line = next(e for e in found["entities"] if e["name"] == "LINE")
    assert line["match"]["partition_prefix"] == "ORDER#"  # in the order's own partition
    index = entities(ddb, "--index-name", shop.INDEX)
    in_index = Counter(head(item["gsi1sk"]) for item in items if "gsi1pk" in item)
    assert {e["name"]: e["items"] for e in index["entities"]} == dict(in_index)
    prefixes = {e["match"]["partition_prefix"] for e in index["entities"]}
    assert prefixes == {"TIER#", "CITY#", "STATUS#", "SKU#"}
