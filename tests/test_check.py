"""``dynotui check`` on DynamoDB Local's demo table: patterns within and over budget, the
JUnit file naming exactly the failures, receipts compared, values tried.

Ground truth is a plain boto3 loop over the same query (its pages' consumed capacity,
Count and ScannedCount), never dynotui's own figures.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from helpers import responses, run_in_process

from dynotui.local import demo

ENV = {
    **os.environ,
    "AWS_ACCESS_KEY_ID": "x",
    "AWS_SECRET_ACCESS_KEY": "y",
    "AWS_REGION": "us-east-1",
    "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789",
}
T = demo.TABLE
SMALL = "c007"
QUERY = f'table_name = "{T}"\nkey_condition_expression = "customer = :c"\n'

RARE_VALUES = f'{{ ":c" = {{ S = "{demo.BIG_CUSTOMER}" }}, ":r" = {{ S = "{demo.RARE_STATUS}" }} }}'

WITHIN = f"""
[[pattern]]
name = "a small customer's orders"
{QUERY}expression_attribute_values = {{ ":c" = {{ S = "{SMALL}" }} }}
pages = 2
[pattern.budget]
read_units_per_page = 10
read_units_per_item = 1
waste = 0

[[pattern]]
name = "a sample of the table"
table_name = "{T}"
scan = true
page_size = 5
[pattern.budget]
scan = true
read_units_per_page = 10
"""

OVER = f"""
[[pattern]]
name = "returned orders"
{QUERY}filter_expression = "#s = :r"
expression_attribute_names = {{ "#s" = "status" }}
expression_attribute_values = {RARE_VALUES}
[pattern.budget]
waste = 0.5

[[pattern]]
name = "the whole table"
table_name = "{T}"
scan = true
page_size = 5

[[pattern]]
name = "archived orders"
{QUERY}expression_attribute_values = {{ ":c" = {{ S = "{demo.ARCHIVE_CUSTOMER}" }} }}
page_size = 10
[pattern.budget]
read_units_per_page = 5

[[pattern]]
name = "orders by status, in PartiQL"
statement = 'SELECT * FROM "{T}" WHERE status = ?'
parameters = '[{{"S": "{demo.RARE_STATUS}"}}]'
page_size = 5
"""


def check(ddb: Any, path: Path, *flags: str) -> Any:
    return run_in_process(["check", str(path), "--endpoint-url", ddb.endpoint_url, *flags], env=ENV)


def write(tmp_path: Path, text: str, name: str = "dynotui.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def failures(junit: Path) -> dict[str, list[str]]:
    """Each testcase's failure types, by testcase name."""
    root = ET.parse(junit).getroot()
    return {
        case.get("name", ""): [f.get("type", "") for f in case.findall("failure")]
        for case in root.iter("testcase")
    }


def boto3_pages(client: Any, pages: int, **params: Any) -> list[dict]:
    calls = client.query if "KeyConditionExpression" in params else client.scan
    return responses(calls, pages=pages, ReturnConsumedCapacity="TOTAL", **params)


def test_over_budget_exits_1_and_junit_names_exactly_the_failures(
    ddb: Any, client: Any, demo_table: str, tmp_path: Path
) -> None:
    path = write(tmp_path, WITHIN + OVER)
    junit, receipt = tmp_path / "junit.xml", tmp_path / "receipt.json"
    result = check(ddb, path, "--junit", str(junit), "--receipt", str(receipt))
    assert result.returncode == 1, result.stderr
    assert failures(junit) == {
        "a small customer's orders": [],
        "a sample of the table": [],
        "returned orders": ["waste"],
        "the whole table": ["scan"],
        "archived orders": ["read_units_per_page"],
        "orders by status, in PartiQL": ["scan"],  # no = on the partition key: a Scan
    }
    root = ET.parse(junit).getroot()
    assert root.get("tests") == "6" and root.get("failures") == "4"
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["within"] * 2 + ["over"] * 4

    # The figures against a plain boto3 loop of the same queries.
    figures = json.loads(receipt.read_text())["patterns"]
    small = boto3_pages(
        client,
        2,
        TableName=demo_table,
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues={":c": {"S": SMALL}},
        Limit=25,
    )
    units = [r["ConsumedCapacity"]["CapacityUnits"] for r in small]
    items = sum(r["Count"] for r in small)
    mine = figures["a small customer's orders"]
    assert mine["read_units_per_page"] == max(units)
    assert mine["read_units"] == sum(units)
    assert mine["items"] == items and mine["waste"] == 0
    assert mine["read_units_per_item"] == pytest.approx(sum(units) / items)

    (returned,) = boto3_pages(
        client,
        1,
        TableName=demo_table,
        KeyConditionExpression="customer = :c",
        FilterExpression="#s = :r",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={
            ":c": {"S": demo.BIG_CUSTOMER},
            ":r": {"S": demo.RARE_STATUS},
        },
        Limit=25,
    )
    waste = 1 - returned["Count"] / returned["ScannedCount"]
    assert waste > 0.5
    assert figures["returned orders"]["waste"] == pytest.approx(waste)

    (archived,) = boto3_pages(
        client,
        1,
        TableName=demo_table,
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues={":c": {"S": demo.ARCHIVE_CUSTOMER}},
        Limit=10,
    )
    assert archived["ConsumedCapacity"]["CapacityUnits"] > 5
    assert figures["archived orders"]["read_units_per_page"] == pytest.approx(
        archived["ConsumedCapacity"]["CapacityUnits"]
    )
    over_line = next(line for line in lines if "archived orders" in line)
    assert f"{archived['ConsumedCapacity']['CapacityUnits']:g} over 5" in over_line


def test_within_budget_exits_0(ddb: Any, demo_table: str, tmp_path: Path) -> None:
    path = write(tmp_path, WITHIN)
    result = check(ddb, path, "--junit", str(tmp_path / "j.xml"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert failures(tmp_path / "j.xml") == {
        "a small customer's orders": [],
        "a sample of the table": [],
    }
    assert all(line.startswith("within  ") for line in result.stdout.splitlines())
    assert "a Scan (allowed)" in result.stdout


def test_json_is_one_object_with_each_verdict(ddb: Any, demo_table: str, tmp_path: Path) -> None:
    path = write(tmp_path, WITHIN + OVER)
    result = check(ddb, path, "--json")
    assert result.returncode == 1
    (line,) = result.stdout.splitlines()
    found = json.loads(line)
    assert found["within"] is False and found["over"] == 4
    verdicts = {
        p["name"]: (p["verdict"], [o["figure"] for o in p["over"]]) for p in found["patterns"]
    }
    assert verdicts["returned orders"] == ("over", ["waste"])
    assert verdicts["a sample of the table"] == ("within", [])


GROWS = f"""
[[pattern]]
name = "grows"
{QUERY}expression_attribute_values = {{ ":c" = {{ S = "{demo.BIG_CUSTOMER}" }} }}
page_size = {{size}}

[[pattern]]
name = "steady"
{QUERY}expression_attribute_values = {{ ":c" = {{ S = "{SMALL}" }} }}
"""


def test_a_receipt_against_a_cheaper_one_fails_the_grown_pattern(
    ddb: Any, demo_table: str, tmp_path: Path
) -> None:
    cheap = write(tmp_path, GROWS.replace("{size}", "10"), "cheap.toml")
    earlier = tmp_path / "earlier.json"
    assert check(ddb, cheap, "--receipt", str(earlier)).returncode == 0
    dear = write(tmp_path, GROWS.replace("{size}", "100"), "dear.toml")
    junit = tmp_path / "junit.xml"
    result = check(ddb, dear, "--against", str(earlier), "--junit", str(junit))
    assert result.returncode == 1, result.stderr
    assert failures(junit) == {"grows": ["grown"], "steady": []}
    before = json.loads(earlier.read_text())["patterns"]["grows"]["read_units_per_page"]
    assert f"grew {before:g} to " in result.stdout
    # The same reads again are within; so is the dearer one with room enough.
    assert check(ddb, cheap, "--against", str(earlier)).returncode == 0
    assert check(ddb, dear, "--against", str(earlier), "--tolerance", "100000%").returncode == 0


def test_the_budget_holds_for_each_value_tried(ddb: Any, demo_table: str, tmp_path: Path) -> None:
    text = f"""
[[pattern]]
name = "orders by customer"
{QUERY}expression_attribute_values = {{ ":c" = {{ S = "{SMALL}" }} }}
page_size = 10
try_values = [
    {{ ":c" = {{ S = "{SMALL}" }} }},
    {{ ":c" = {{ S = "{demo.ARCHIVE_CUSTOMER}" }} }},
    {{ ":c" = {{ S = "nobody\\u001b[2J" }} }},
]
[pattern.budget]
read_units_per_page = 5
"""
    path = write(tmp_path, text)
    junit = tmp_path / "junit.xml"
    result = check(ddb, path, "--junit", str(junit), "--json")
    assert result.returncode == 1, result.stderr
    found = json.loads(result.stdout)["patterns"][0]
    assert [r["values"] for r in found["reads"]] == [
        json.dumps({":c": {"S": v}}, separators=(",", ":"), ensure_ascii=False)
        for v in (SMALL, demo.ARCHIVE_CUSTOMER, "nobody\x1b[2J")
    ]
    assert [o["values"] for o in found["over"]] == [found["reads"][1]["values"]]
    (failure,) = ET.parse(junit).getroot().iter("failure")
    assert demo.ARCHIVE_CUSTOMER in failure.get("message", "")
    assert "\x1b" not in junit.read_text()


def test_hostile_names_stay_text_in_junit(ddb: Any, demo_table: str, tmp_path: Path) -> None:
    name = "<testcase name=\"x\"/>&amp; ]]> 'quoted' \u00e9\U0001f600"
    text = f"""
[[pattern]]
name = {json.dumps(name, ensure_ascii=False)}
table_name = "{T}"
scan = true
page_size = 1
"""
    path = write(tmp_path, text)
    junit = tmp_path / "junit.xml"
    assert check(ddb, path, "--junit", str(junit)).returncode == 1
    assert failures(junit) == {name: ["scan"]}


def test_a_run_s_read_units_cap_fails_what_it_leaves_unread(
    ddb: Any, demo_table: str, tmp_path: Path
) -> None:
    path = write(tmp_path, WITHIN)
    junit = tmp_path / "junit.xml"
    result = check(ddb, path, "--max-read-units", "0.5", "--junit", str(junit))
    assert result.returncode == 1, result.stderr
    # The first pattern's one page (its customer's orders fit one) spends the cap, a page
    # never being cut: the next pattern is not read, so it is not within.
    assert failures(junit) == {"a small customer's orders": [], "a sample of the table": ["cut"]}
    assert "not read: the run's read units cap was spent" in result.stdout
