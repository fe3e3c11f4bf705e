"""``dynotui pages --max-read-units``: stops between pages once the pages read have cost
the cap (a page is never cut), and the last page's token goes on from there."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from helpers import page_lines, responses, run_in_process

from dynotui.local import demo

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}
QUERY = [
    "--key-condition-expression",
    "customer = :c",
    "--expression-attribute-values",
    json.dumps({":c": {"S": demo.BIG_CUSTOMER}}),
    "--page-size",
    "20",
]


def pages(ddb: Any, *args: str) -> Any:
    command = ["pages", "--endpoint-url", ddb.endpoint_url, "--table-name", demo.TABLE]
    return run_in_process([*command, *QUERY, *args], env=ENV)


def test_stops_at_the_page_that_reaches_the_cap_and_goes_on(
    ddb: Any, client: Any, demo_table: str
) -> None:
    truth = responses(
        client.query,
        pages=8,
        TableName=demo_table,
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues={":c": {"S": demo.BIG_CUSTOMER}},
        Limit=20,
        ReturnConsumedCapacity="TOTAL",
    )
    units = [r["ConsumedCapacity"]["CapacityUnits"] for r in truth]
    cap = sum(units[:3]) - 0.25  # reached during page 3
    result = pages(ddb, "--max-read-units", repr(cap))
    assert result.returncode == 0, result.stderr
    first = page_lines(result.stdout)
    assert [p["page"] for p in first] == [1, 2, 3]
    assert [p["consumed_capacity"]["total"] for p in first] == units[:3]
    assert first[-1]["next_token"]  # raw mode: has_next unknown, a key to go on from
    token = first[-1]["next_token"]
    more = page_lines(pages(ddb, "--starting-token", token, "--max-pages", "2").stdout)
    shown = [i for p in first + more for i in p["items"]]
    assert shown == [item for r in truth[:5] for item in r["Items"]]


@pytest.mark.parametrize("cap", ["0", "-1", "nan", "inf"])
def test_a_cap_is_a_finite_number_above_0(ddb: Any, demo_table: str, cap: str) -> None:
    result = pages(ddb, "--max-read-units", cap)
    assert result.returncode == 2 and "--max-read-units" in result.stderr
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    "flags", [["--segments", "2", "--scan"], ["--format", "csv"], ["--format", "json"]]
)
def test_a_cap_is_refused_where_it_cannot_stop_between_lines(
    ddb: Any, demo_table: str, flags: list[str]
) -> None:
    args = [] if flags[0] == "--segments" else QUERY  # segments split a Scan
    command = ["pages", "--endpoint-url", ddb.endpoint_url, "--table-name", demo.TABLE]
    result = run_in_process([*command, *args, *flags, "--max-read-units", "5"], env=ENV)
    assert result.returncode == 2 and "--max-read-units" in result.stderr, result.stderr


def test_count_stops_before_the_call_after_the_cap(ddb: Any, client: Any, demo_table: str) -> None:
    args = ["count", "--endpoint-url", ddb.endpoint_url, "--table-name", demo.TABLE, *QUERY[:4]]
    whole = json.loads(run_in_process(args, env=ENV).stdout)
    assert whole["complete"] is True and whole["calls"] > 2
    first = client.query(
        TableName=demo_table,
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues={":c": {"S": demo.BIG_CUSTOMER}},
        Select="COUNT",
        ReturnConsumedCapacity="TOTAL",
    )["ConsumedCapacity"]["CapacityUnits"]
    capped = json.loads(
        run_in_process([*args, "--max-read-units", repr(first + 0.5)], env=ENV).stdout
    )
    assert capped["complete"] is False and capped["calls"] == 2  # the second reached it
    assert capped["count"] < whole["count"]
    for bad in ("0", "nan", "-2"):
        result = run_in_process([*args, "--max-read-units", bad], env=ENV)
        assert result.returncode == 2 and "--max-read-units" in result.stderr
