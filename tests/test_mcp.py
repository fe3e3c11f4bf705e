"""``dynotui mcp`` through the mcp package's own client over stdio, against DynamoDB Local:
the tools listed, a query paged (items equal a boto3 Query's) and followed to its end by
starting_token (every item once), writes refused through every tool with the table
unchanged, and every failure a one-line tool error that leaves the server serving.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers import drain, responses

from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.local import demo
from dynotui.local.tables import create_table, table_definition, write_items

pytest.importorskip("mcp")

from mcp import Client
from mcp.client.stdio import StdioServerParameters

ENV = {
    **os.environ,
    "AWS_ACCESS_KEY_ID": "x",
    "AWS_SECRET_ACCESS_KEY": "y",
    "AWS_REGION": "us-east-1",
    "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789",
}
TOOLS = {"tables", "describe_table", "pages", "count", "what_if", "check"}
GUARDED = "mcp-guarded"


@asynccontextmanager
async def serving(ddb: Any, *flags: str, root: Path | None = None) -> AsyncIterator[Any]:
    args = ["-m", "dynotui", "mcp", "--endpoint-url", ddb.endpoint_url, *flags]
    if root is not None:
        args += ["--root", str(root)]
    params = StdioServerParameters(command=sys.executable, args=args, env=ENV)
    async with Client(params) as client:
        yield client


def error_line(result: Any) -> str:
    assert result.is_error, result.structured_content
    (block,) = result.content
    assert "\n" not in block.text and block.text
    assert "unexpected" not in block.text, block.text
    return str(block.text)


@pytest.fixture(scope="module")
def guarded(client: Any) -> str:
    create_table(client, table_definition(GUARDED, ("pk", "S"), ("sk", "S")))
    write_items(client, GUARDED, [{"pk": "p", "sk": f"{i:02d}", "v": i} for i in range(5)])
    return GUARDED


def whole(client: Any, table: str) -> list[dict]:
    return sorted(drain(client, TableName=table, ConsistentRead=True), key=json.dumps)


async def test_lists_the_tools_with_their_cap(ddb: Any, demo_table: str) -> None:
    async with serving(ddb, "--max-read-units", "42") as client:
        listed = (await client.list_tools()).tools
    assert {t.name for t in listed} == TOOLS
    by_name = {t.name: t for t in listed}
    for tool in listed:
        assert tool.input_schema["type"] == "object"
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
    for name in ("pages", "count", "what_if", "check"):
        assert "cap: 42" in (by_name[name].description or "")
        assert by_name[name].input_schema["properties"]["max_read_units"]["maximum"] == 42
    pages = by_name["pages"].input_schema["properties"]
    assert pages["page_size"]["type"] == "integer" and pages["scan"]["type"] == "boolean"
    assert pages["mode"]["enum"] == ["raw", "fill"]
    assert "postgres" not in pages and "from_export" not in pages and "format" not in pages


async def test_pages_equal_a_boto3_query_and_tokens_reach_the_end(
    ddb: Any, client: Any, demo_table: str
) -> None:
    values = {":c": {"S": "c007"}}
    query = {
        "table_name": demo_table,
        "key_condition_expression": "customer = :c",
        "expression_attribute_values": values,
        "page_size": 3,
        "max_pages": 2,
    }
    truth = responses(
        client.query,
        TableName=demo_table,
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues=values,
        Limit=3,
    )
    every = [to_wire(item) for r in truth for item in r["Items"]]
    assert len(every) > 6  # more than one call's pages
    shown: list[dict] = []
    calls = 0
    async with serving(ddb) as mcp:
        found = (await mcp.call_tool("pages", query)).structured_content
        first = [item for page in found["pages"] for item in page["items"]]
        assert first == every[:6]  # the first call: two pages of a plain Query's
        assert found["summary"]["totals"]["count"] == 6
        assert found["summary"]["measures"]["capacity_per_page"]["max"] > 0  # costs measured
        while True:
            calls += 1
            shown += [item for page in found["pages"] for item in page["items"]]
            if found["stopped_by"] == "end":
                break
            assert found["next_token"]
            found = (
                await mcp.call_tool("pages", {**query, "starting_token": found["next_token"]})
            ).structured_content
    assert shown == every  # every item once, in order
    assert calls == -(-len(truth) // 2)


async def test_a_call_stops_at_its_read_units(ddb: Any, demo_table: str) -> None:
    query = {
        "table_name": demo_table,
        "key_condition_expression": "customer = :c",
        "expression_attribute_values": json.dumps({":c": {"S": demo.BIG_CUSTOMER}}),
        "max_pages": 50,
    }
    async with serving(ddb, "--max-read-units", "10") as mcp:
        found = (await mcp.call_tool("pages", query)).structured_content
        assert found["stopped_by"] == "max_read_units" and found["next_token"]
        spent = found["summary"]["totals"]["cost"]
        last = found["pages"][-1]["consumed_capacity"]["total"]
        assert spent >= 10 and spent - last < 10  # stopped at the page that reached it
        smaller = (await mcp.call_tool("pages", {**query, "max_read_units": 3})).structured_content
        assert smaller["summary"]["totals"]["cost"] < spent
        too_many = await mcp.call_tool("pages", {**query, "max_read_units": 11})
        assert "at most 10" in error_line(too_many)
        counted = (
            await mcp.call_tool("count", {"table_name": demo_table, "scan": True})
        ).structured_content
        assert counted["complete"] is False and counted["calls"] == 1


WRITES = [
    "DELETE FROM \"mcp-guarded\" WHERE pk = 'p' AND sk = '00'",
    "delete from \"mcp-guarded\" where pk = 'p' and sk = '01'",
    "/* a comment */ DELETE FROM \"mcp-guarded\" WHERE pk = 'p' AND sk = '02'",
    "-- a comment\nDELETE FROM \"mcp-guarded\" WHERE pk = 'p' AND sk = '02'",
    "UPDATE \"mcp-guarded\" SET v = 99 WHERE pk = 'p' AND sk = '03'",
    "INSERT INTO \"mcp-guarded\" VALUE {'pk': 'p', 'sk': '99', 'v': 1}",
    "SELECT * FROM \"mcp-guarded\"; DELETE FROM \"mcp-guarded\" WHERE pk = 'p' AND sk = '00'",
    "EXISTS(SELECT * FROM \"mcp-guarded\" WHERE pk = 'p')",
]


async def test_writes_are_refused_through_every_tool_and_the_table_is_unchanged(
    ddb: Any, client: Any, guarded: str, tmp_path: Path
) -> None:
    before = whole(client, guarded)
    patterns = tmp_path / "dynotui.toml"
    async with serving(ddb, root=tmp_path) as mcp:
        for statement in WRITES:
            error_line(await mcp.call_tool("pages", {"statement": statement}))
            for tool in ("count", "what_if", "describe_table", "tables"):
                line = error_line(await mcp.call_tool(tool, {"statement": statement}))
                assert "takes no argument 'statement'" in line
            patterns.write_text(f"[[pattern]]\nname = 'w'\nstatement = {json.dumps(statement)}\n")
            line = error_line(await mcp.call_tool("check", {"file": "dynotui.toml"}))
            assert 'pattern "w", key statement' in line
        for flag in ("postgres", "from_export", "code", "format", "segments", "junit"):
            error_line(await mcp.call_tool("pages", {"table_name": guarded, flag: "x"}))
        assert (await mcp.call_tool("tables", {})).structured_content["tables"]
    assert whole(client, guarded) == before


async def test_failures_are_one_line_tool_errors_and_the_server_goes_on(
    ddb: Any, demo_table: str, tmp_path: Path
) -> None:
    deep = "[" + '{"L": [' * 5000 + '{"S": "x"}' + "]}" * 5000 + "]"  # as text: no encoder
    calls = [
        ("nope", {}),
        ("pages", {"table_name": 5}),
        ("pages", {"table_name": demo_table, "page_size": "25"}),
        ("pages", {"table_name": demo_table, "page_size": 0, "scan": True}),
        ("pages", {"table_name": demo_table, "scan": True, "max_pages": 1000}),
        ("pages", {"table_name": demo_table, "scan": True, "starting_token": "forged"}),
        ("pages", {"table_name": "no-such-table", "scan": True}),
        ("pages", {"table_name": demo_table, "scan": True, "mode": "keyset"}),
        ("pages", {"statement": "SELECT * FROM x WHERE a = ?", "parameters": deep}),
        ("pages", {"table_name": demo_table, "scan": True, "max_read_units": float("nan")}),
        ("describe_table", {}),
        ("what_if", {"table_name": demo_table, "scan": True}),
        ("check", {"file": "../outside.toml"}),
        ("check", {"file": "/etc/passwd"}),
        ("check", {"file": "missing.toml"}),
    ]
    async with serving(ddb, root=tmp_path) as mcp:
        for name, arguments in calls:
            try:
                result = await mcp.call_tool(name, arguments)
            except Exception as exc:  # the client refusing to send NaN, say
                assert name == "pages" and "max_read_units" in arguments, exc
                continue
            error_line(result)
        assert (await mcp.call_tool("tables", {})).structured_content["tables"]


async def test_describe_table_and_check(
    ddb: Any, client: Any, demo_table: str, tmp_path: Path
) -> None:
    (tmp_path / "dynotui.toml").write_text(
        f'[[pattern]]\nname = "small"\ntable_name = "{demo_table}"\n'
        'key_condition_expression = "customer = :c"\n'
        'expression_attribute_values = { ":c" = { S = "c007" } }\n'
        "[pattern.budget]\nread_units_per_page = 10\n"
        f'[[pattern]]\nname = "all"\ntable_name = "{demo_table}"\nscan = true\n'
    )
    async with serving(ddb, root=tmp_path) as mcp:
        described = (
            await mcp.call_tool("describe_table", {"table_name": demo_table})
        ).structured_content
        checked = (await mcp.call_tool("check", {"file": "dynotui.toml"})).structured_content
    table = client.describe_table(TableName=demo_table)["Table"]
    base = described["orders"][0]
    assert [k["AttributeName"] for k in table["KeySchema"]] == [
        base["partition_key"]["name"],
        base["sort_key"]["name"],
    ]
    names = {o["name"] for o in described["orders"][1:]}
    assert names == {
        i["IndexName"]
        for group in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes")
        for i in table.get(group, [])
    }
    assert checked["within"] is False
    assert [(p["name"], p["verdict"]) for p in checked["patterns"]] == [
        ("small", "within"),
        ("all", "over"),
    ]


def test_without_the_mcp_package_it_says_what_to_add(monkeypatch: pytest.MonkeyPatch) -> None:
    from helpers import run_in_process

    monkeypatch.setitem(sys.modules, "mcp.server.stdio", None)  # as if not installed
    result = run_in_process(["mcp"], env=ENV)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert "dynotui mcp (the mcp package) is an extra this install of dynotui lacks" in line
    from dynotui.core.extras import install_hint

    assert line.endswith(f"add it with: {install_hint('mcp')}")  # for this install
    assert "mcp" in install_hint("mcp")
