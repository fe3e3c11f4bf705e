"""``dynotui what-if --patterns``: one imagined index summed over a patterns file.

Each pattern's share is held to ``dynotui what-if --json`` run alone on the same query
(whose estimate the what-if tests hold to a real index built on a copy); the sum, the
writes and the net per month to those figures at the file's ``calls_per_day``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers import run_in_process

from dynotui.local import demo

ENV = {
    **os.environ,
    "AWS_ACCESS_KEY_ID": "x",
    "AWS_SECRET_ACCESS_KEY": "y",
    "AWS_REGION": "us-east-1",
    "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789",
}
DAYS = 365 / 12
NAMES = {"#s": "status"}
RARE = {":c": {"S": demo.BIG_CUSTOMER}, ":r": {"S": demo.RARE_STATUS}}
SMALL = {":c": {"S": "c007"}}
INDEX = ["--partition-key", "customer", "--sort-key", "status"]

FILE = f"""
[[pattern]]
name = "returned orders"
table_name = "{demo.TABLE}"
key_condition_expression = "customer = :c"
filter_expression = "#s = :r"
expression_attribute_names = '{json.dumps(NAMES)}'
expression_attribute_values = '{json.dumps(RARE)}'
calls_per_day = 10000
pages = 2

[[pattern]]
name = "a customer's orders"
table_name = "{demo.TABLE}"
key_condition_expression = "customer = :c"
expression_attribute_values = '{json.dumps(SMALL)}'
calls_per_day = 50000

[[pattern]]
name = "by status"
table_name = "{demo.TABLE}"
index_name = "by_status"
key_condition_expression = "#s = :r"
expression_attribute_names = '{json.dumps(NAMES)}'
expression_attribute_values = '{json.dumps({":r": RARE[":r"]})}'
calls_per_day = 5

[[pattern]]
name = "in PartiQL"
statement = 'SELECT * FROM "{demo.TABLE}" WHERE customer = ?'
parameters = '[{{"S": "c007"}}]'
calls_per_day = 1
"""


def what_if(ddb: Any, *args: str) -> Any:
    return run_in_process(["what-if", "--endpoint-url", ddb.endpoint_url, *args], env=ENV)


def alone(ddb: Any, filter_: str | None, names: dict | None, values: dict) -> dict:
    args = ["--table-name", demo.TABLE, "--key-condition-expression", "customer = :c"]
    if filter_:
        args += ["--filter-expression", filter_]
    if names:
        args += ["--expression-attribute-names", json.dumps(names)]
    result = what_if(
        ddb, *args, "--expression-attribute-values", json.dumps(values), *INDEX, "--json"
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def saved_per_page(estimate: dict) -> float:
    now, then = estimate["now"], estimate["what_if"]
    assert isinstance(now["read_units"], (int, float)), "a whole read: points, not ranges"
    return now["read_units_per_page"]["mean"] * (1 - then["read_units"] / now["read_units"])


def test_the_net_sums_each_pattern_s_own_estimate(
    ddb: Any, demo_table: str, tmp_path: Path
) -> None:
    path = tmp_path / "dynotui.toml"
    path.write_text(FILE)
    result = what_if(ddb, "--patterns", str(path), *INDEX, "--writes-per-day", "20000", "--json")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    rare = alone(ddb, "#s = :r", NAMES, RARE)
    small = alone(ddb, None, None, SMALL)
    rows = {r["name"]: r for r in found["patterns"]}
    assert rows["in PartiQL"]["counted"] is False
    assert rows["by status"]["counted"] is False  # no = on customer: a Query cannot use it
    assert rows["by status"]["why"].startswith("the index cannot serve it")
    expected = {
        "returned orders": 2 * saved_per_page(rare) * 10000 * DAYS,
        "a customer's orders": saved_per_page(small) * 50000 * DAYS,
    }
    assert expected["returned orders"] > 0  # the index serves the filter's matches
    for name, units in expected.items():
        assert rows[name]["read_units_saved_per_month"] == pytest.approx(units, rel=1e-5)
    total = sum(expected.values())
    assert found["read_units_saved_per_month"] == pytest.approx(total, rel=1e-5)
    per_put = rare["what_if"]["write_units_per_put"]
    assert found["write_units_per_put"] == pytest.approx(per_put)
    assert found["write_units_per_month"] == pytest.approx(per_put * 20000 * DAYS, rel=1e-5)
    on_demand = found["per_month"]["on-demand"]
    read_price = rare["prices"]["reads"]["rates"]["on-demand"]["usd_per_unit"]
    write_price = rare["prices"]["writes"]["rates"]["on-demand"]["usd_per_unit"]
    storage = rare["what_if"]["usd_per_month_storage"]["low"]
    net = total * read_price - per_put * 20000 * DAYS * write_price - storage
    assert on_demand["net_usd"]["best"] == pytest.approx(net, rel=1e-4, abs=1e-6)

    text = what_if(ddb, "--patterns", str(path), *INDEX, "--writes-per-day", "20000")
    assert text.returncode == 0
    assert "in PartiQL: not counted" in text.stdout and "Net per month, on-demand" in text.stdout


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--writes-per-day", "1e3"], "ASCII digits"),
        (["--writes-per-day", "\u0661"], "ASCII digits"),
        ([], "--writes-per-day is required"),
        (["--writes-per-day", "5", "--scan"], "drop --scan"),
        (["--writes-per-day", "5", "--table-name", "other"], "no pattern of the file"),
    ],
)
def test_bad_flags_are_one_line(
    ddb: Any, demo_table: str, tmp_path: Path, flags: list[str], words: str
) -> None:
    path = tmp_path / "dynotui.toml"
    path.write_text(FILE)
    result = what_if(ddb, "--patterns", str(path), *INDEX, *flags)
    assert result.returncode == 2 and words in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_a_value_tried_with_no_items_saves_nothing_and_is_no_error(
    ddb: Any, demo_table: str, tmp_path: Path, client: Any
) -> None:
    # A customer with no orders: the Query reads nothing (DynamoDB Local bills it 0 read
    # units), so the index saves nothing there; it once ended the run with exit 2,
    # "the endpoint reported no read units to compare", blaming the key condition.
    nobody = {":c": {"S": "nobody-at-all"}}
    truth = client.query(
        TableName=demo.TABLE,
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues=nobody,
    )
    assert truth["Count"] == 0 and "LastEvaluatedKey" not in truth
    path = tmp_path / "dynotui.toml"
    path.write_text(
        f"""
[[pattern]]
name = "a customer's orders"
table_name = "{demo.TABLE}"
key_condition_expression = "customer = :c"
expression_attribute_values = '{json.dumps(SMALL)}'
calls_per_day = 50000
try_values = ['{json.dumps(SMALL)}', '{json.dumps(nobody)}']
"""
    )
    result = what_if(ddb, "--patterns", str(path), *INDEX, "--writes-per-day", "100", "--json")
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)["patterns"]
    small = alone(ddb, None, None, SMALL)
    # The budget's mean over the values tried: the small customer's saving and nothing.
    expected = (saved_per_page(small) + 0.0) / 2
    assert row["read_units_saved_per_call"] == pytest.approx(expected, rel=1e-5, abs=1e-6)


def test_an_index_that_serves_no_pattern_says_why(
    ddb: Any, demo_table: str, tmp_path: Path
) -> None:
    path = tmp_path / "dynotui.toml"
    path.write_text(FILE)
    # No pattern tests placed_on with '=': a Query on that index answers none of them.
    result = what_if(
        ddb, "--patterns", str(path), "--partition-key", "placed_on", "--writes-per-day", "5"
    )
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert "the imagined index serves no pattern" in line, line
    assert "placed_on" in line and 'pattern "returned orders"' in line, line
