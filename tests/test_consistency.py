"""GSIs are read eventually consistent: a strongly consistent read of one is refused
before any read, with the reason, by every command and the query form (as DynamoDB
Local itself refuses it), while an LSI's is sent; every place that names a GSI order
says "eventually consistent"."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import pytest
from botocore.exceptions import ClientError
from faultproxy import FaultProxy
from helpers import drain, run_in_process
from textual.widgets import OptionList, Static
from uihelpers import make_app, text_of

from dynotui.core.errors import FieldError, InputError
from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.dynamodb.partiql import statement_from
from dynotui.dynamodb.query_form import QueryForm, build_spec
from dynotui.dynamodb.schema import describe_table
from dynotui.local import demo
from dynotui.ui.screens.picker import PickerScreen
from dynotui.ui.testing import settle

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}
GSI_QUERY = [
    "--table-name",
    demo.TABLE,
    "--index-name",
    "by_status",
    "--key-condition-expression",
    "status = :s",
    "--expression-attribute-values",
    json.dumps({":s": {"S": demo.RARE_STATUS}}),
    "--consistent-read",
]
GSI_STATEMENT = [
    "--statement",
    f'SELECT * FROM "{demo.TABLE}"."by_status" WHERE status = ?',
    "--parameters",
    json.dumps([{"S": demo.RARE_STATUS}]),
    "--consistent-read",
]
REASON = "'by_status' is a GSI, and GSIs serve only eventually consistent reads"


def run(*args: str) -> subprocess.CompletedProcess:
    return run_in_process(args, env=ENV)


def test_dynamodb_itself_refuses_it(client: Any, demo_table: str) -> None:
    """The rule dynotui applies first is the server's own."""
    with pytest.raises(ClientError, match=r"(?i)consistent read"):
        client.query(
            TableName=demo_table,
            IndexName="by_status",
            KeyConditionExpression="#s = :s",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":s": {"S": demo.RARE_STATUS}},
            ConsistentRead=True,
        )


@pytest.mark.parametrize(
    "command",
    [
        ["pages", *GSI_QUERY],
        ["pages", *GSI_QUERY, "--format", "csv"],
        ["count", *GSI_QUERY],
        ["pages", *GSI_STATEMENT],
        ["report", *GSI_STATEMENT],
    ],
    ids=["pages", "pages-csv", "count", "partiql", "report-partiql"],
)
def test_a_consistent_read_of_a_gsi_is_refused_before_any_read(
    ddb: Any, demo_table: str, command: list[str], tmp_path: Any
) -> None:
    if command[0] == "report":
        command = [*command, "--output", str(tmp_path / "report")]
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        result = run(*command, "--endpoint-url", proxy.endpoint_url)
    assert result.returncode == 2, result.stderr
    assert REASON in result.stderr and "turn consistent read off" in result.stderr
    assert result.stderr.count("\n") == 1 and result.stdout == ""
    # DescribeTable tells a GSI from an LSI; nothing is read.
    assert set(proxy.forwarded) <= {"DescribeTable"}, proxy.forwarded
    assert not list(tmp_path.iterdir())  # no report written


def test_an_lsi_is_read_strongly_consistent(client: Any, ddb: Any, demo_table: str) -> None:
    truth = drain(
        client,
        TableName=demo_table,
        IndexName="by_total",
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues={":c": {"S": "c007"}},
        ConsistentRead=True,
    )
    result = run(
        "pages",
        "--endpoint-url",
        ddb.endpoint_url,
        "--table-name",
        demo_table,
        "--index-name",
        "by_total",
        "--key-condition-expression",
        "customer = :c",
        "--expression-attribute-values",
        '{":c": {"S": "c007"}}',
        "--consistent-read",
        "--format",
        "json",
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [to_wire(item) for item in truth] and truth
    # A strongly consistent read is billed as such: whole units, not halves.
    summary = json.loads(result.stderr.splitlines()[-1])["summary"]
    assert summary["totals"]["cost"] == float(int(summary["totals"]["cost"]))


def test_the_forms_check_refuses_it_by_field(client: Any, demo_table: str) -> None:
    schema = describe_table(client, demo_table)
    form = QueryForm(order="by_status", partition_value=demo.RARE_STATUS, consistent_read=True)
    with pytest.raises(FieldError) as refused:
        build_spec(schema, form)
    assert refused.value.field == "consistent_read" and REASON in str(refused.value)
    assert build_spec(schema, form.with_(order="by_total", partition_value="c007"))
    statement = statement_from(GSI_STATEMENT[1], GSI_STATEMENT[3], 10, consistent_read=True)
    with pytest.raises(InputError, match=REASON):
        statement.check_consistency(schema)


def test_gsi_orders_are_named_eventually_consistent(ddb: Any, demo_table: str) -> None:
    result = run("tables", "--endpoint-url", ddb.endpoint_url, "--table-name", demo_table)
    assert result.returncode == 0, result.stderr
    lines = {line.split(":")[0].strip(): line for line in result.stdout.splitlines()[1:]}
    for gsi in ("by_status", "flagged"):
        assert "GSI (eventually consistent)" in lines[gsi]
    for other in ("table", "by_total"):
        assert "eventually" not in lines[other]


async def test_the_order_picker_and_query_line_say_it(client: Any, demo_table: str) -> None:
    app = make_app(client, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="10"))
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
        options = app.screen.query_one(OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        named = {label.split(":")[0]: label for label in labels}
        assert "GSI (eventually consistent)" in named["by_status"]
        assert "GSI (eventually consistent)" in named["flagged"]
        assert "eventually" not in named["by_total"]
    gsi = make_app(client, QueryForm(order="by_status", partition_value=demo.RARE_STATUS))
    async with gsi.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        line = text_of(gsi.main_view.query_one("#query-line", Static))
        assert "by_status (gsi)" in line and "eventually consistent" in line


async def test_a_partiql_select_of_a_gsi_says_it_on_the_query_line(
    client: Any, demo_table: str
) -> None:
    from dynotui.ui.dynamodb.partiql import PartiQLQuery

    for order, said in (("by_status", True), ("table", False)):
        value = demo.RARE_STATUS if order == "by_status" else demo.BIG_CUSTOMER
        app = make_app(client, QueryForm(order=order, partition_value=value, page_size="10"))
        async with app.run_test(size=(200, 40)) as pilot:
            await settle(pilot)
            await pilot.press("colon")
            await settle(pilot)
            await pilot.press("ctrl+s")  # the form's own SELECT of this order
            await settle(pilot)
            query = app.main_view.state.query
            assert isinstance(query, PartiQLQuery) and query.order.name == order
            line = text_of(app.main_view.query_one("#query-line", Static))
            assert line.startswith("PartiQL")
            assert ("eventually consistent (a GSI)" in line) is said, line
