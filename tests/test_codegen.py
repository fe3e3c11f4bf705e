"""Generated code, run for real against DynamoDB Local: it must print the page dynotui shows."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from dynotui.core.page import EndedBy
from dynotui.dynamodb.codegen import CodeTarget, generate
from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import query_pager
from dynotui.dynamodb.spec import QuerySpec, from_expressions, from_key
from dynotui.local import demo
from dynotui.local.tables import Index, create_table, table_definition, write_items

JS_DIR = Path(__file__).parent / "js"
ENV = {**os.environ, "AWS_ACCESS_KEY_ID": "dynotui", "AWS_SECRET_ACCESS_KEY": "dynotui"}


@pytest.fixture(scope="module")
def binary_table(client: Any) -> str:
    name = "codegen-binary-numeric"
    create_table(
        client,
        table_definition(
            name,
            ("pk", "S"),
            ("b", "B"),
            global_indexes=(Index("by_n", ("pk", "S"), ("n", "N")),),
        ),
    )
    write_items(
        client,
        name,
        [
            {
                "pk": "p",
                "b": bytes([i % 7, 255 - i, i]),
                "n": Decimal(f"{i * 37 % 101}.000000000000000001"),
                "name": f"item {i}",
                "tags": {"a", f"t{i % 3}"},
            }
            for i in range(60)
        ],
    )
    return name


def cases(demo_table: str, binary_table: str) -> list[tuple[str, QuerySpec, int]]:
    rare = {":r": {"S": demo.RARE_STATUS}}
    return [
        (
            "filter-reserved-word-raw",
            from_expressions(
                demo_table,
                key_condition="customer = :c",
                filter="status = :r",
                values={":c": {"S": demo.BIG_CUSTOMER}, **rare},
                page_size=40,
            ),
            3,
        ),
        (
            "gsi-ties-fill",
            from_expressions(
                demo_table,
                index="by_status",
                key_condition="status = :s",
                values={":s": {"S": "CANCELLED"}},
                page_size=9,
                mode="fill",
            ),
            2,
        ),
        (
            "descending-projection-raw",
            from_expressions(
                demo_table,
                key_condition="customer = :c",
                projection="total, status",
                values={":c": {"S": "c007"}},
                forward=False,
                page_size=4,
            ),
            2,
        ),
        (
            "binary-between-fill",
            from_expressions(
                binary_table,
                key_condition="pk = :p AND b BETWEEN :lo AND :hi",
                filter="size(name) > :len",
                values={
                    ":p": {"S": "p"},
                    ":lo": {"B": b"\x01"},
                    ":hi": {"B": b"\x05\xff"},
                    ":len": {"N": "5"},
                },
                page_size=4,
                mode="fill",
            ),
            2,
        ),
        (
            "numeric-gsi-desc-raw",
            from_expressions(
                binary_table,
                index="by_n",
                key_condition="pk = :p AND n > :min",
                values={":p": {"S": "p"}, ":min": {"N": "10.5"}},
                forward=False,
                page_size=7,
            ),
            3,
        ),
        # Fill pages whose loop runs out of rounds: the page holds what the rounds found
        # (the code once printed page-size matches where the app showed one).
        (
            "capped-fill",
            from_expressions(
                demo_table,
                key_condition="customer = :c",
                filter="#s = :s",
                names={"#s": "status"},
                values={":c": {"S": demo.BIG_CUSTOMER}, ":s": {"S": "SHIPPED"}},
                page_size=25,
                mode="fill",
                max_rounds=1,
            ),
            1,
        ),
        (
            "capped-fill-later",
            from_expressions(
                demo_table,
                key_condition="customer = :c",
                filter="#s = :s",
                names={"#s": "status"},
                values={":c": {"S": demo.BIG_CUSTOMER}, ":s": {"S": "CANCELLED"}},
                page_size=25,
                mode="fill",
                max_rounds=1,
            ),
            5,  # its one call sized by pages 1-4's share of matches
        ),
        (
            "capped-fill-whole-page",
            from_expressions(
                demo_table,
                key_condition="customer = :c",
                filter="#s = :s",
                names={"#s": "status"},
                values={":c": {"S": demo.BIG_CUSTOMER}, ":s": {"S": "CANCELLED"}},
                page_size=25,
                mode="fill",
                max_rounds=2,
            ),
            6,  # 25 matches, not the 26th that would prove a next page
        ),
        (
            "gsi-capped-fill",
            from_expressions(
                demo_table,
                index="by_status",
                key_condition="#s = :s",
                filter="attribute_exists(flag)",
                names={"#s": "status"},
                values={":s": {"S": "SHIPPED"}},
                page_size=3,
                mode="fill",
                max_rounds=2,
            ),
            2,
        ),
        (
            "scan-capped-fill",
            from_expressions(
                demo_table,
                scan=True,
                filter="#s = :r",
                names={"#s": "status"},
                values=rare,
                page_size=10,
                mode="fill",
                max_rounds=2,
            ),
            5,
        ),
        (
            "scan-filter-fill",
            from_expressions(
                demo_table,
                scan=True,
                filter="status = :r AND attribute_exists(flag)",
                values=rare,
                page_size=3,
                mode="fill",
                max_rounds=50,
            ),
            2,
        ),
    ]


@pytest.fixture(scope="module")
def pages(client, demo_table, binary_table) -> dict[str, tuple[QuerySpec, Any, Any]]:
    """For each case: the spec, its schema, and the page dynotui shows."""
    result = {}
    for name, spec, number in cases(demo_table, binary_table):
        schema = describe_table(client, spec.table)
        pager = query_pager(client, spec, schema)
        for _ in range(number):
            page = pager.next()
        assert page.items, f"{name}: page {number} is empty; pick a case that shows items"
        result[name] = (spec, schema, page)
    return result


CASE_NAMES = [
    "filter-reserved-word-raw",
    "gsi-ties-fill",
    "descending-projection-raw",
    "binary-between-fill",
    "numeric-gsi-desc-raw",
    "capped-fill",
    "capped-fill-later",
    "capped-fill-whole-page",
    "gsi-capped-fill",
    "scan-capped-fill",
    "scan-filter-fill",
]
CAPPED = [
    "capped-fill",
    "capped-fill-later",
    "capped-fill-whole-page",
    "gsi-capped-fill",
    "scan-capped-fill",
]


def test_the_capped_cases_ran_out_of_rounds(pages) -> None:
    """Else the cases would not test the cap: each page shows fewer than a page."""
    for name in CAPPED:
        spec, _schema, page = pages[name]
        assert page.ended_by is EndedBy.ROUNDS, (name, page.ended_by)
        assert 0 < page.shown <= spec.page_size and page.cost.requests == spec.max_rounds


def _code(pages, ddb, case: str, language: str) -> tuple[str, list[dict]]:
    spec, schema, page = pages[case]
    target = CodeTarget(region="us-east-1", endpoint_url=ddb.endpoint_url)
    # Fill mode sizes Limit by the selectivity seen so far: the code starts where it did.
    code = generate(language, spec, schema, page.start_key, page.number, target, page)
    return code, [to_wire(item) for item in page.items]


def _sets_sorted(value: Any) -> Any:
    # DynamoDB sets have no order; compare them as sorted lists.
    if isinstance(value, dict):
        return {
            k: sorted(v) if k in ("SS", "NS", "BS") else _sets_sorted(v) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_sets_sorted(v) for v in value]
    return value


@pytest.mark.parametrize("case", CASE_NAMES)
def test_boto3_code_prints_the_page(pages, ddb, case) -> None:
    code, expected = _code(pages, ddb, case, "boto3")
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=ENV
    )
    assert result.returncode == 0, result.stderr
    got = [json.loads(line) for line in result.stdout.splitlines()]
    assert _sets_sorted(got) == _sets_sorted(expected)


@pytest.mark.parametrize("case", CASE_NAMES)
def test_aws_cli_command_returns_the_page(pages, ddb, case) -> None:
    aws = shutil.which("aws") or str(Path(sys.executable).parent / "aws")
    command, expected = _code(pages, ddb, case, "aws-cli")
    assert "--endpoint-url" in command and "--return-consumed-capacity INDEXES" in command
    if '{"B":' in command:
        # The test extra can only install AWS CLI v1, which sends a B value's base64 text
        # as the bytes; the command is written for v2, which decodes it.
        assert "For AWS CLI v2" in command
        pytest.skip("binary values in CLI JSON need AWS CLI v2, which PyPI does not carry")
    result = subprocess.run(
        ["bash", "-c", command.replace("aws dynamodb", f"{aws} dynamodb", 1)],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)["Items"]
    assert _sets_sorted(got) == _sets_sorted(expected)


@pytest.mark.parametrize("case", CASE_NAMES)
def test_javascript_prints_the_page(pages, ddb, case, node_modules) -> None:
    code, expected = _code(pages, ddb, case, "javascript")
    path = JS_DIR / f"gen-{uuid.uuid4().hex}.mjs"
    path.write_text(code)
    try:
        result = subprocess.run(
            ["node", str(path)], capture_output=True, text=True, timeout=120, env=ENV
        )
    finally:
        path.unlink()
    assert result.returncode == 0, result.stderr
    got = [json.loads(line) for line in result.stdout.splitlines()]
    assert _sets_sorted(got) == _sets_sorted(expected)


def test_first_page_code_has_no_start_key(client, demo_table) -> None:
    schema = describe_table(client, demo_table)
    spec = from_key(schema, partition_value="acme", page_size=5)
    assert "START_KEY = None" in generate("boto3", spec, schema, None, 1)
    assert "--exclusive-start-key" not in generate("aws-cli", spec, schema, None, 1)
    assert "const START_KEY = undefined;" in generate("javascript", spec, schema, None, 1)


@pytest.mark.parametrize("case", ["scan-filter-fill", "capped-fill-whole-page", "gsi-capped-fill"])
def test_fill_code_makes_the_calls_the_reader_made(pages, ddb, case) -> None:
    """The same Limits, call by call: a rare filter's loop does not crawl at Limit = page
    size, and a capped loop stops at its cap."""
    spec, _schema, page = pages[case]
    code, expected = _code(pages, ddb, case, "boto3")
    assert f"FIRST_LIMIT = {page.cost.calls[0].limit}" in code
    call = "client.scan" if spec.scan else "client.query"
    traced = code.replace(
        f"    return {call}(**request)",
        f"    CALLS.append(limit)\n    return {call}(**request)",
    ).replace("client = boto3.client(", "CALLS = []\nclient = boto3.client(")
    traced += "\nprint(json.dumps(CALLS), file=sys.stderr)\n"
    result = subprocess.run(
        [sys.executable, "-c", traced], capture_output=True, text=True, timeout=120, env=ENV
    )
    assert result.returncode == 0, result.stderr
    limits = json.loads(result.stderr.strip().splitlines()[-1])
    assert limits == [c.limit for c in page.cost.calls]
    got = [json.loads(line) for line in result.stdout.splitlines()]
    assert _sets_sorted(got) == _sets_sorted(expected)
    next_key = json.loads(result.stderr.splitlines()[0].split(": ", 1)[1])
    assert next_key == to_wire(page.next_start_key)


def _no_credentials_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        HOME=str(home),
        AWS_CONFIG_FILE=str(home / "none-config"),
        AWS_SHARED_CREDENTIALS_FILE=str(home / "none-credentials"),
        AWS_EC2_METADATA_DISABLED="true",
    )
    return env


@pytest.mark.parametrize("language", ["boto3", "aws-cli", "javascript"])
def test_code_runs_where_the_app_ran_without_credentials(
    pages, ddb, tmp_path, monkeypatch, language, request
) -> None:
    """No AWS account at all: the app used placeholder credentials on the local endpoint,
    so the code it hands out must carry them too (and say why)."""
    from dynotui.dynamodb.codegen import code_target
    from dynotui.dynamodb.connection import ConnectionOptions, make_client

    env = _no_credentials_env(tmp_path)
    for name in [k for k in os.environ if k.startswith("AWS_")]:
        monkeypatch.delenv(name)
    for name in ("HOME", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.setenv(name, env[name])
    target = code_target(make_client(ConnectionOptions(endpoint_url=ddb.endpoint_url)))
    assert target.credentials is not None
    spec, schema, page = pages["filter-reserved-word-raw"]
    code = generate(language, spec, schema, page.start_key, page.number, target)
    assert "DynamoDB Local accepts any credentials" in code
    expected = [to_wire(item) for item in page.items]
    if language == "boto3":
        command = [sys.executable, "-c", code]
    elif language == "aws-cli":
        aws = shutil.which("aws") or str(Path(sys.executable).parent / "aws")
        command = ["bash", "-c", code.replace("aws dynamodb", f"{aws} dynamodb", 1)]
    else:
        request.getfixturevalue("node_modules")
        path = JS_DIR / f"gen-{uuid.uuid4().hex}.mjs"
        path.write_text(code)
        request.addfinalizer(path.unlink)
        command = ["node", str(path)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    if language == "aws-cli":
        got = json.loads(result.stdout)["Items"]
    else:
        got = [json.loads(line) for line in result.stdout.splitlines()]
    assert _sets_sorted(got) == _sets_sorted(expected)


def test_own_credentials_are_never_replaced(ddb, monkeypatch) -> None:
    from dynotui.dynamodb.codegen import code_target
    from dynotui.dynamodb.connection import ConnectionOptions, make_client

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "mine")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "mine-too")
    target = code_target(make_client(ConnectionOptions(endpoint_url=ddb.endpoint_url)))
    assert target.credentials is None
    assert "aws_access_key_id" not in target.boto3_arguments()
