"""Words that count say one or many as the count does ("1 item", never "1 items"); the
query form's filter values are in one format, the plain JSON its hint shows, also when a
partition key condition is carried to another order (DynamoDB JSON only for binary)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from botocore.exceptions import ClientError
from textual.widgets import Label
from uihelpers import make_app, messages

from dynotui.cli.count_cmd import progress_line
from dynotui.dynamodb.count import CountProgress, CountResult, Forecast
from dynotui.dynamodb.errors import translate
from dynotui.dynamodb.query_form import CARRIED, QueryForm, build_spec, for_order, parse_values
from dynotui.dynamodb.schema import parse_schema
from dynotui.local import demo
from dynotui.local.tables import Index, table_definition
from dynotui.ui.dynamodb.query_screen import QueryScreen
from dynotui.ui.testing import settle

BIG = "12345678901234567890123456789012345678"


def test_one_is_said_as_one() -> None:
    result = CountResult(
        "scope",
        1,
        1,
        None,
        1,
        1,
        0.1,
        True,
        Forecast(None, None, "none"),
        datetime.now(timezone.utc),
    )
    assert result.summary().startswith("1 match, counted ")
    assert progress_line(CountProgress(1, 1, 1, 0.5, 0.1), None).startswith(
        "1 match, 1 item read, 1 call, "
    )
    assert progress_line(CountProgress(2, 0, 3, 0.5, 0.1), None).startswith(
        "0 matches, 3 items read, 2 calls, "
    )
    throttled = ClientError(
        {
            "Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow"},
            "ResponseMetadata": {"RetryAttempts": 1},
        },
        "Query",
    )
    assert "and 1 retry did not get through" in str(translate(throttled))


async def test_a_one_item_page_is_copied_as_one_item(client, demo_table) -> None:
    app = make_app(client, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="1"))
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        said = " ".join(messages(app))
        assert "(1 item, JSON lines)" in said and "1 items" not in said


def test_a_json_string_of_digits_stays_a_string() -> None:
    assert parse_values('{":s": "123", ":n": 123, ":d": 1.50}') == {
        ":s": {"S": "123"},
        ":n": {"N": "123"},
        ":d": {"N": "1.50"},
    }


NUMBERED = parse_schema(
    {
        **table_definition(
            "numbered",
            ("n", "N"),
            ("sk", "S"),
            global_indexes=(Index("by_s", ("s", "S"), ("sk", "S")),),
        ),
        "TableStatus": "ACTIVE",
    }
)
BINARY = parse_schema(
    {
        **table_definition(
            "binary", ("b", "B"), ("sk", "S"), global_indexes=(Index("by_s", ("s", "S")),)
        ),
        "TableStatus": "ACTIVE",
    }
)
DEMO = parse_schema({**demo.TABLE_DEFINITION, "TableStatus": "ACTIVE"})


def _carried(schema: Any, value: str, order: str) -> tuple[Any, Any]:
    form, _ = for_order(QueryForm(partition_value=value), schema, order)
    # The new order's own partition value, so that the form makes a query.
    return form.with_(partition_value="x"), json.loads(form.values)[CARRIED]


def test_a_carried_partition_value_is_plain_json_as_the_hint_shows() -> None:
    form, carried = _carried(DEMO, "123", "by_status")
    assert carried == "123", "a string key as a JSON string, not DynamoDB JSON"
    assert build_spec(DEMO, form).values[CARRIED] == {"S": "123"}, "and read back as a string"
    form, _ = _carried(NUMBERED, BIG, "by_s")
    assert form.values == '{"' + CARRIED + '": ' + BIG + "}", "a number with every digit"
    assert build_spec(NUMBERED, form).values[CARRIED] == {"N": BIG}
    form, carried = _carried(BINARY, "AAEC", "by_s")
    assert carried == {"B": "AAEC"}, "binary, which plain JSON cannot say, as DynamoDB JSON"
    assert build_spec(BINARY, form).values[CARRIED] == {"B": b"\x00\x01\x02"}


async def test_the_form_shows_one_format_after_another_order(client, demo_table) -> None:
    app = make_app(client, QueryForm(partition_value=demo.BIG_CUSTOMER))
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        app.screen.query_one("Input").value = "by_status"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
        values = app.screen.read_form().values
        assert json.loads(values) == {CARRIED: demo.BIG_CUSTOMER}, values
        hints = [str(label.render()) for label in app.screen.query(Label)]
        # The hint's example is plain JSON, as the carried value is, of the table's own
        # attribute (customer, a string, which by_status's key does not hold).
        assert any('Filter values are JSON: {":v": "text"}' in hint for hint in hints), hints


def test_help_and_the_keys_page_agree_the_strip_has_two_lines() -> None:
    """The strip is two lines (the page; the session and the query), as the keys page of
    the documentation says (its table of keys was the README's)."""
    from pathlib import Path

    from dynotui.ui.actions import GENERIC

    toggle = next(action for action in GENERIC if action.keys == "b")
    assert "two-line" in toggle.help and "one-line" not in toggle.help
    keys = (Path(__file__).parent.parent / "docs" / "screens.md").read_text()
    row = next(line for line in keys.splitlines() if line.startswith("| `b` |"))
    assert "two-line cost strip" in row
