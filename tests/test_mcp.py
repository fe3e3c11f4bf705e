"""``dynotui mcp`` through the mcp package's own client over stdio, against DynamoDB Local:
the tools listed, a query paged (items equal a boto3 Query's) and followed to its end by
starting_token (every item once), a plan equal to ``dynotui plan --json``'s within the
cap, entities counted as a boto3 Scan counts them, writes refused through every tool with
the table unchanged, and every failure a one-line tool error that leaves the server serving.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from entity_tables import prefixes_table, truth_prefixes
from helpers import drain, responses, run_in_process

from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.local import demo
from dynotui.local.tables import Index, create_table, table_definition, write_items

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
TOOLS = {"tables", "describe_table", "pages", "count", "what_if", "check", "plan", "entities"}
CAPPED = ("pages", "count", "what_if", "check", "plan", "entities")
GUARDED = "mcp-guarded"
PLANNED = "mcp-plan"
SINGLE = "mcp-entities"


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
    for name in CAPPED:
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
            for tool in ("count", "what_if", "describe_table", "tables", "plan", "entities"):
                line = error_line(await mcp.call_tool(tool, {"statement": statement}))
                assert "takes no argument 'statement'" in line
            patterns.write_text(f"[[pattern]]\nname = 'w'\nstatement = {json.dumps(statement)}\n")
            for tool, file in (("check", "file"), ("plan", "patterns")):
                line = error_line(await mcp.call_tool(tool, {file: "dynotui.toml"}))
                assert 'pattern "w", key statement' in line
        for flag in ("postgres", "from_export", "code", "format", "segments", "junit"):
            error_line(await mcp.call_tool("pages", {"table_name": guarded, flag: "x"}))
        for tool in ("plan", "entities"):  # no export, no file, no code through these
            for flag in ("from_export", "key_schema", "code", "partitions", "postgres"):
                line = error_line(await mcp.call_tool(tool, {"table_name": guarded, flag: "x"}))
                assert f"takes no argument {flag!r}" in line
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
        ("plan", {"patterns": "../outside.toml"}),
        ("plan", {"patterns": "/etc/passwd"}),
        ("plan", {"patterns": "dynotui.toml", "table_name": demo_table}),
        ("plan", {"scan": True}),
        ("entities", {"table_name": demo_table, "segments": 0}),
        ("entities", {"table_name": demo_table, "segments": "4"}),
        ("entities", {"table_name": demo_table, "entity_attribute": ""}),
    ]
    # What the command says with its flags, a call says with its arguments: an agent gives
    # arguments (each call here, and the words its error is to hold).
    worded = [
        ("entities", {"table_name": demo_table, "segments": 0}, "segments: 0 is not 1 to 64"),
        ("count", {"table_name": demo_table, "scan": True, "max_calls": 0}, "max_calls must"),
        (
            "entities",
            {"table_name": demo_table, "entity_attribute": "x", "no_entity_attribute": True},
            "entity_attribute and no_entity_attribute",
        ),
        (
            "what_if",
            {"table_name": demo_table, "scan": True, "partition_key": "a", "include": "x"},
            "include goes with projection INCLUDE",
        ),
        ("pages", {"statement": "SELECT * FROM t", "table_name": demo_table}, "drop table_name"),
    ]
    async with serving(ddb, root=tmp_path) as mcp:
        for name, arguments in calls:
            try:
                result = await mcp.call_tool(name, arguments)
            except Exception as exc:  # the client refusing to send NaN, say
                assert name == "pages" and "max_read_units" in arguments, exc
                continue
            error_line(result)
        for name, arguments, words in worded:
            line = error_line(await mcp.call_tool(name, arguments))
            assert words in line, line
            flags = ["--" + a.replace("_", "-") for a in ("max_read_units", *arguments)]
            assert not [flag for flag in flags if flag in line], line
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


@pytest.fixture(scope="module")
def planned(client: Any) -> str:
    """A partition of 600 small items and one of 60, each item with a GSI key g; and a
    partition of larger items so the table is big enough that a plan's own budget (half
    its cheapest Scan) is above the small caps these tests give."""
    create_table(
        client,
        table_definition(
            PLANNED, ("p", "S"), ("s", "S"), global_indexes=(Index("by_g", ("g", "S"), None),)
        ),
    )
    items: list[dict[str, Any]] = []
    for part, count in (("big", 600), ("small", 60)):
        items += [{"p": part, "s": f"{i:04d}", "g": "abcdef"[i % 6]} for i in range(count)]
    items += [{"p": "filler", "s": f"{i:04d}", "pad": "x" * 2000} for i in range(200)]
    write_items(client, PLANNED, items)
    return PLANNED


def plan_json(ddb: Any, *flags: str) -> dict[str, Any]:
    result = run_in_process(["plan", "--endpoint-url", ddb.endpoint_url, "--json", *flags], env=ENV)
    assert result.returncode == 0, result.stderr
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def comparable(plan: dict[str, Any]) -> dict[str, Any]:
    """A plan's figures without its timings (each run's own latency)."""
    paths = [
        {k: p.get(k) for k in ("name", "kind", "usable", "why", "pages", "matches", "read_units")}
        for p in plan["paths"]
    ]
    cost = {k: plan["cost"][k] for k in ("read_units", "calls")}
    return {"cheapest": plan["cheapest"], "paths": paths, "cost": cost, "query": plan["query"]}


async def test_the_plan_tool_answers_as_plan_does_within_the_cap(
    ddb: Any, client: Any, planned: str
) -> None:
    query = {
        "table_name": planned,
        "key_condition_expression": "p = :p",
        "filter_expression": "g = :g",
        "expression_attribute_values": {":p": {"S": "small"}, ":g": {"S": "b"}},
    }
    big = {**query, "expression_attribute_values": {":p": {"S": "big"}, ":g": {"S": "b"}}}
    async with serving(ddb, "--max-read-units", "20") as mcp:
        found = (await mcp.call_tool("plan", query)).structured_content
        capped = (await mcp.call_tool("plan", {**big, "max_read_units": 2})).structured_content
        fractional = await mcp.call_tool("plan", {**query, "max_read_units": 0.1 + 0.2})
    assert found["max_read_units"] == 20
    flags = [
        f"--table-name={planned}",
        "--key-condition-expression=p = :p",
        "--filter-expression=g = :g",
    ]
    values = json.dumps(query["expression_attribute_values"])
    cli = plan_json(ddb, *flags, f"--expression-attribute-values={values}", "--max-read-units=20")
    assert comparable(found) == comparable(cli)
    truth = drain(
        client,
        TableName=planned,
        KeyConditionExpression="p = :p",
        FilterExpression="g = :g",
        ExpressionAttributeValues=query["expression_attribute_values"],
    )
    assert len(truth) == 10
    assert found["cheapest"] == "table"
    usable = [p for p in found["paths"] if p["usable"] and p["kind"] in ("query", "scan")]
    assert {p["name"] for p in usable} >= {"table", "scan"}
    assert all(p["matches"] == len(truth) for p in usable if p["kind"] == "query")
    assert found["cost"]["read_units"] <= 20
    # The cap holds the plan: no call starts once it is reached, so it is passed by one
    # call at most, and no call of the plan (1,000 entries at most) costs more than a
    # boto3 Query of 1,000 entries of the big partition.
    (one_call,) = responses(
        client.query,
        TableName=planned,
        KeyConditionExpression="p = :p",
        ExpressionAttributeValues={":p": {"S": "big"}},
        Limit=1000,
        ReturnConsumedCapacity="TOTAL",
        pages=1,
    )
    most = one_call["ConsumedCapacity"]["CapacityUnits"]
    spent = capped["cost"]["read_units"]
    assert capped["stopped_by"] == "max-read-units" and capped["max_read_units"] == 2
    assert 2 <= spent < 2 + most
    uncapped = plan_json(
        ddb,
        f"--table-name={planned}",
        "--key-condition-expression=p = :p",
        "--filter-expression=g = :g",
        '--expression-attribute-values={":p": {"S": "big"}, ":g": {"S": "b"}}',
    )
    assert uncapped["cost"]["read_units"] > spent  # the cap is what stopped it
    assert fractional.structured_content["max_read_units"] == 0.3  # six decimals, rounded down


async def test_the_plan_tool_plans_a_patterns_file_inside_its_folder(
    ddb: Any, planned: str, tmp_path: Path
) -> None:
    (tmp_path / "dynotui.toml").write_text(
        f'[[pattern]]\nname = "g by a Scan"\ntable_name = "{planned}"\nscan = true\n'
        'filter_expression = "g = :g"\nexpression_attribute_values = { ":g" = { S = "c" } }\n'
        "calls_per_day = 100\n"
    )
    async with serving(ddb, "--max-read-units", "50", root=tmp_path) as mcp:
        found = (await mcp.call_tool("plan", {"patterns": "dynotui.toml"})).structured_content
    cli = plan_json(ddb, f"--patterns={tmp_path / 'dynotui.toml'}", "--max-read-units=50")
    assert found["moves"] == cli["moves"] == ["g by a Scan"]
    (row,) = found["patterns"]
    (same,) = cli["patterns"]
    assert row["cheapest"] == ["by_g"] and row["today"] == "scan"
    assert row["read_units_saved_per_month"] == same["read_units_saved_per_month"]
    assert found["cost"]["read_units"] == cli["cost"]["read_units"] <= 50


@pytest.fixture(scope="module")
def single(client: Any) -> list[dict[str, Any]]:
    definition, items = prefixes_table(SINGLE, customers=12, products=5)
    create_table(client, definition)
    write_items(client, SINGLE, items)
    scanned: list[dict[str, Any]] = drain(client, TableName=SINGLE, ConsistentRead=True)
    return scanned


async def test_the_entities_tool_counts_as_a_boto3_scan_does(
    ddb: Any, single: list[dict[str, Any]]
) -> None:
    truth = truth_prefixes([{k: next(iter(v.values())) for k, v in i.items()} for i in single])
    async with serving(ddb, "--max-read-units", "1000") as mcp:
        found = (await mcp.call_tool("entities", {"table_name": SINGLE})).structured_content
        sampled = (
            await mcp.call_tool("entities", {"table_name": SINGLE, "max_read_units": 3.9})
        ).structured_content
        too_few = await mcp.call_tool("entities", {"table_name": SINGLE, "max_read_units": 0.5})
    assert found["sample"]["complete"] is True and found["sample"]["items"] == len(single)
    assert Counter({e["name"]: e["items"] for e in found["entities"]}) == truth
    assert all(e["exact"] for e in found["entities"])
    # Whole read units only: 3.9 is taken as 3, and the read stops near it.
    assert sampled["max_read_units"] == 3
    assert sampled["sample"]["complete"] is False
    assert sampled["sample"]["read_units"] < found["sample"]["read_units"]
    assert "at least 1" in error_line(too_few)


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
