"""``dynotui plan --patterns FILE`` on DynamoDB Local: every pattern planned as ``plan``
plans it, and the pattern whose path today (a Scan with a filter on a GSI's partition key)
is dearer than one available named with what moving saves, against a plain boto3 drain of
both paths; the file and flags refused before any read with one line; the run's read
units capped as a whole.
"""

from __future__ import annotations

import json
import os
import random
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from helpers import query_pages, run_in_process
from hypothesis import given
from hypothesis import strategies as st

from dynotui.dynamodb.plan.moving import saved_per_call
from dynotui.dynamodb.what_if.figures import Figure
from dynotui.local.tables import Index, create_table, table_definition, write_items

ENV = {
    **os.environ,
    "AWS_ACCESS_KEY_ID": "x",
    "AWS_SECRET_ACCESS_KEY": "y",
    "AWS_REGION": "us-east-1",
}
TABLE = "plan-patterns"
TOLERANCE = 0.15  # the Scan is estimated from DescribeTable's counts and sizes
DAYS_PER_MONTH = 365 / 12
PATTERNS = f"""
[[pattern]]
name = "buys, by a Scan"
table_name = "{TABLE}"
scan = true
filter_expression = "kind = :k"
expression_attribute_values = {{ ":k" = {{ S = "buy" }} }}
page_size = 25
pages = 2
calls_per_day = 1000

[[pattern]]
name = "a user's events"
table_name = "{TABLE}"
key_condition_expression = "p = :p"
expression_attribute_values = {{ ":p" = {{ S = "u07" }} }}
calls_per_day = 5000

[[pattern]]
name = "in PartiQL"
statement = 'SELECT * FROM "{TABLE}" WHERE p = ?'
parameters = '[{{"S": "u01"}}]'
"""


@pytest.fixture(scope="module")
def events(client: Any) -> str:
    """Events by user; a GSI on their kind sorted by the table's own sort key (as an
    overloaded GSI often is: every item has that key, so the index holds every item
    with a kind)."""
    create_table(
        client,
        table_definition(
            TABLE,
            ("p", "S"),
            ("s", "S"),
            global_indexes=(Index("by_kind", ("kind", "S"), ("s", "S")),),
        ),
    )
    rng = random.Random(45)
    kinds = ("view", "view", "view", "click", "buy")
    items = [
        {
            "p": f"u{i % 40:02d}",
            "s": f"{i:05d}",
            "kind": rng.choice(kinds),
            "pad": "x" * rng.randint(100, 700),
        }
        for i in range(2000)
    ]
    write_items(client, TABLE, items)
    return TABLE


def plan(ddb: Any, *flags: str) -> Any:
    return run_in_process(["plan", "--endpoint-url", ddb.endpoint_url, *flags], env=ENV)


def planned(ddb: Any, file: Path, *flags: str) -> dict[str, Any]:
    result = plan(ddb, "--patterns", str(file), "--json", *flags)
    assert result.returncode == 0, result.stderr
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def boto3_drain(client: Any, **params: Any) -> tuple[int, float]:
    """Pages and read units of a plain boto3 loop to the end."""
    pages = query_pages(client, ReturnConsumedCapacity="TOTAL", **params)
    return len(pages), sum(p["ConsumedCapacity"]["CapacityUnits"] for p in pages)


def comparable(found: dict[str, Any]) -> dict[str, Any]:
    paths = [
        {k: p.get(k) for k in ("name", "kind", "usable", "pages", "matches", "read_units")}
        for p in found["paths"]
    ]
    return {"cheapest": found["cheapest"], "paths": paths, "query": found["query"]}


def test_the_pattern_on_a_dearer_path_is_named_with_its_saving(
    ddb: Any, client: Any, events: str, tmp_path: Path
) -> None:
    file = tmp_path / "dynotui.toml"
    file.write_text(PATTERNS)
    found = planned(ddb, file)
    rows = {r["name"]: r for r in found["patterns"]}
    assert found["moves"] == ["buys, by a Scan"]

    scan, users, statement = rows.values()
    assert scan["today"] == "scan" and scan["cheapest"] == ["by_kind"] and scan["moves"]
    assert users["today"] == "table" and users["cheapest"] == ["table"] and not users["moves"]
    assert users["read_units_saved_per_call"] == 0
    assert statement["planned"] is False and "PartiQL" in statement["why"]

    # The truth: both paths drained by plain boto3 loops at the pattern's page size.
    values = {":k": {"S": "buy"}}
    scan_pages, scan_units = boto3_drain(
        client,
        TableName=events,
        FilterExpression="kind = :k",
        ExpressionAttributeValues=values,
        Limit=25,
    )
    _, query_units = boto3_drain(
        client,
        TableName=events,
        IndexName="by_kind",
        KeyConditionExpression="kind = :k",
        ExpressionAttributeValues=values,
        Limit=25,
    )
    per_call = min(1.0, 2 / scan_pages) * (scan_units - query_units)
    assert per_call > 0
    assert scan["read_units_saved_per_call"] == pytest.approx(per_call, rel=TOLERANCE)
    month = per_call * 1000 * DAYS_PER_MONTH
    assert scan["read_units_saved_per_month"] == pytest.approx(month, rel=TOLERANCE)
    on_demand = found["prices"]["rates"]["on-demand"]["usd_per_unit"]
    assert scan["usd_saved_per_month"]["on-demand"] == pytest.approx(
        float(Decimal(repr(on_demand)) * Decimal(repr(scan["read_units_saved_per_month"]))),
        rel=1e-5,
    )
    # Each pattern is planned by plan's own code: its table is plan --json's.
    (case,) = scan["cases"]
    alone = plan(
        ddb,
        f"--table-name={events}",
        "--scan",
        "--filter-expression=kind = :k",
        f"--expression-attribute-values={json.dumps(values)}",
        "--page-size=25",
        "--json",
    )
    assert alone.returncode == 0, alone.stderr
    assert comparable(case["plan"]) == comparable(json.loads(alone.stdout))

    text = plan(ddb, "--patterns", str(file))
    assert text.returncode == 0, text.stderr
    summary = text.stdout.split("1 of 3 patterns would read less on another path")[1]
    assert "buys, by a Scan: today scan, cheapest by_kind" in summary
    assert "a user's events" not in summary.split("not planned")[0]
    heads = [line for line in text.stdout.splitlines() if line.startswith("path ")]
    assert len(heads) == 2  # a table for each pattern planned


def test_the_run_s_read_units_are_capped_as_a_whole(ddb: Any, events: str, tmp_path: Path) -> None:
    file = tmp_path / "dynotui.toml"
    file.write_text(PATTERNS)
    whole = planned(ddb, file)
    capped = planned(ddb, file, "--max-read-units=1")
    assert capped["stopped_by"] == "max-read-units"
    assert 1 <= capped["cost"]["read_units"] < whole["cost"]["read_units"]
    first, second, _ = capped["patterns"]
    assert first["planned"] and first["cases"][0]["plan"]["stopped_by"] == "max-read-units"
    assert second["planned"] is False and "--max-read-units" in second["why"]


def test_each_value_tried_is_planned_and_the_saving_is_their_mean(
    ddb: Any, events: str, tmp_path: Path
) -> None:
    file = tmp_path / "dynotui.toml"
    file.write_text(
        PATTERNS.replace(
            "calls_per_day = 1000",
            "calls_per_day = 1000\n"
            'try_values = [{ ":k" = { S = "buy" } }, { ":k" = { S = "click" } }]',
        )
    )
    found = planned(ddb, file)
    scan = found["patterns"][0]
    labels = [case["values"] for case in scan["cases"]]
    assert labels == ['{":k":{"S":"buy"}}', '{":k":{"S":"click"}}']
    assert [case["plan"]["query"] for case in scan["cases"]] == [
        f'Scan on {events} (table); filter kind = "buy"',
        f'Scan on {events} (table); filter kind = "click"',
    ]
    each = [case["read_units_saved_per_call"] for case in scan["cases"]]
    assert all(saved > 0 for saved in each)
    assert scan["read_units_saved_per_call"] == pytest.approx(sum(each) / 2, rel=1e-5)


@pytest.mark.parametrize(
    ("text", "flags", "words"),
    [
        (
            PATTERNS,
            ["--table-name=x"],
            "--patterns takes each query from the file: drop --table-name",
        ),
        (PATTERNS, ["--page-size=5", "--scan"], "drop --scan, --page-size"),
        (PATTERNS, ["--from-export=."], "drop --from-export"),
        (
            PATTERNS.replace("calls_per_day = 1000", "calls_per_day = 'many'"),
            [],
            'pattern "buys, by a Scan", key calls_per_day: a number',
        ),
        (
            PATTERNS.replace('":k" = { S = "buy" }', '":x" = { S = "buy" }'),
            [],
            'pattern "buys, by a Scan", key filter_expression',
        ),
        (
            PATTERNS.replace(
                'key_condition_expression = "p = :p"',
                'index_name = "nope"\nkey_condition_expression = "p = :p"',
            ),
            [],
            "pattern \"a user's events\", key index_name: table 'plan-patterns' has no index",
        ),
        (
            PATTERNS.replace("SELECT * FROM", "DELETE FROM"),
            [],
            'pattern "in PartiQL", key statement: only SELECT statements are run',
        ),
        ("[[pattern]]\nname = 'a'\ntable_name = 't'\nbudgte = 1\n", [], 'pattern "a", key budgte'),
        ("[[pattern]\n", [], "not valid TOML"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_before_any_read(
    ddb: Any, events: str, tmp_path: Path, text: str, flags: list[str], words: str
) -> None:
    file = tmp_path / "dynotui.toml"
    file.write_text(text)
    result = plan(ddb, "--patterns", str(file), *flags)
    assert result.returncode == 2, result.stdout
    (line,) = result.stderr.splitlines()
    assert words in line, line
    assert result.stdout == ""


def test_a_patterns_file_that_is_no_regular_file_is_refused(ddb: Any, tmp_path: Path) -> None:
    for path in ("/dev/zero", str(tmp_path), str(tmp_path / "missing.toml")):
        result = plan(ddb, "--patterns", path)
        assert result.returncode == 2
        (line,) = result.stderr.splitlines()
        assert path in line


bounds = st.tuples(
    st.floats(min_value=0, max_value=1e6), st.floats(min_value=0, max_value=1e6)
).map(sorted)


@given(
    pages=st.integers(min_value=1, max_value=1000),
    today_pages=bounds,
    today_units=bounds,
    best_units=bounds,
    picks=st.tuples(*(st.floats(min_value=0, max_value=1) for _ in range(3))),
)
def test_a_saving_s_range_holds_every_saving_its_figures_allow(
    pages: int,
    today_pages: list[float],
    today_units: list[float],
    best_units: list[float],
    picks: tuple[float, float, float],
) -> None:
    """Any drain within the figures' ranges saves, a call, between the range's bounds."""

    def path(pages_range: list[float], units: list[float]) -> Any:
        figures = SimpleNamespace(pages=Figure(*pages_range), read_units=Figure(*units))
        return SimpleNamespace(figures=figures)

    today_pages = [max(1.0, p) for p in today_pages]
    found = saved_per_call(pages, path(today_pages, today_units), path([1, 1], best_units))
    assert found is not None and found.high is not None

    def within(low: float, high: float, pick: float) -> float:
        return low + (high - low) * pick

    drain_pages = within(*today_pages, picks[0])
    one = min(1.0, pages / drain_pages) * (
        within(*today_units, picks[1]) - within(*best_units, picks[2])
    )
    slack = 1e-9 * max(1.0, abs(found.low), abs(found.high))
    assert found.low - slack <= one <= found.high + slack
