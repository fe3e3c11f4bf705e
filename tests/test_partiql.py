"""PartiQL paging against DynamoDB Local, checked against a plain ExecuteStatement loop."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from helpers import items_of, page_lines, run_in_process, walk

from dynotui.core.cancel import NEVER
from dynotui.core.cursor import CursorError, CursorSigner
from dynotui.core.errors import InputError
from dynotui.dynamodb.codegen import CodeTarget
from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.dynamodb.partiql import PartiQLSource, Statement, partiql_pager, statement_from
from dynotui.dynamodb.partiql_codegen import generate_partiql
from dynotui.dynamodb.schema import describe_table
from dynotui.local import demo

ENV = {
    **os.environ,
    "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789",
    "AWS_ACCESS_KEY_ID": "dynotui",
    "AWS_SECRET_ACCESS_KEY": "dynotui",
}
BY_CUSTOMER = f'SELECT * FROM "{demo.TABLE}" WHERE customer = ?'
JS_DIR = Path(__file__).parent / "js"


def ground_truth(client: Any, statement: str, parameters: list, limit: int) -> list[list[dict]]:
    pages, token = [], None
    while True:
        params: dict[str, Any] = {"Statement": statement, "Parameters": parameters, "Limit": limit}
        if token:
            params["NextToken"] = token
        response = client.execute_statement(**params)
        pages.append(response["Items"])
        token = response.get("NextToken")
        if token is None:
            return pages


def test_pages_equal_the_plain_loop_forward_back_and_by_token(client, demo_table) -> None:
    parameters = [{"S": "c007"}]
    truth = ground_truth(client, BY_CUSTOMER, parameters, 4)
    assert len(truth) >= 3
    schema = describe_table(client, demo_table)
    pager = partiql_pager(client, Statement(BY_CUSTOMER, tuple(parameters), 4), schema)
    pages = walk(pager)
    assert [list(p.items) for p in pages] == truth
    assert pages[-1].next_start_key is None and pages[0].next_start_key is not None
    assert all(p.cost.read is None for p in pages), "ExecuteStatement reports no ScannedCount"
    assert pager.prev().items == pages[-2].items
    assert pager.goto(2).items == pages[1].items
    assert pager.refresh().items == pages[1].items and not pager.current.cached
    resumed = partiql_pager(
        client,
        Statement(BY_CUSTOMER, tuple(parameters), 4),
        schema,
        start_key=pages[0].next_start_key,
    )
    assert resumed.next().items == pages[1].items


def test_a_filtered_statement_pages_past_empty_pages(client, demo_table) -> None:
    # The big customer's first 1,000 orders (of 6,000), where 100 in a row lack the rare
    # status: the whole partition took DynamoDB Local 15 s, these orders 2.4 s.
    statement = f'SELECT * FROM "{demo.TABLE}" WHERE customer = ? AND order_no < ? AND status = ?'
    parameters = [{"S": demo.BIG_CUSTOMER}, {"S": "19"}, {"S": demo.RARE_STATUS}]
    truth = [item for page in ground_truth(client, statement, parameters, 100) for item in page]
    pager = partiql_pager(client, Statement(statement, tuple(parameters), 100))
    pages = walk(pager)
    assert truth and items_of(pages) == truth
    assert any(not p.items and p.next_start_key for p in pages)


def test_only_select_is_run_and_nothing_is_called_otherwise() -> None:
    class NoCalls:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"no call may be made, but {name} was used")

    for text in (
        'DELETE FROM "t" WHERE pk = ?',
        'UPDATE "t" SET a = 1',
        "INSERT INTO t VALUE {}",
        '  -- a comment\n  DELETE FROM "t"',
        'SELECT * FROM "t"; DELETE FROM "t"',
        "",
    ):
        with pytest.raises(InputError):
            PartiQLSource(NoCalls(), Statement(text, ({"S": "x"},) if "?" in text else ()))
    with pytest.raises(InputError, match="1 \\? placeholder"):
        statement_from('SELECT * FROM "t" WHERE pk = ?', None, 10)
    with pytest.raises(InputError, match="not valid JSON"):
        statement_from('SELECT * FROM "t" WHERE pk = ?', "[nope", 10)
    with pytest.raises(InputError, match="NULL takes only true"):
        statement_from('SELECT * FROM "t" WHERE pk = ?', '[{"NULL": false}]', 10)


def test_tokens_are_bound_to_the_statement_and_its_parameters() -> None:
    signer = CursorSigner(b"k" * 32)
    a = Statement(BY_CUSTOMER, ({"S": "c007"},), 4)
    spaced = Statement(BY_CUSTOMER.replace(" WHERE", "\n  WHERE"), ({"S": "c007"},), 4)
    assert a.scope() == spaced.scope(), "spacing is not meaning"
    token = signer.sign("NEXT-TOKEN", a.scope())
    assert signer.verify(token, spaced.scope()) == "NEXT-TOKEN"
    for other in (
        Statement(BY_CUSTOMER, ({"S": "c008"},), 4),
        Statement(BY_CUSTOMER.replace("*", "order_no"), ({"S": "c007"},), 4),
        Statement(BY_CUSTOMER, ({"S": "c007"},), 4, consistent_read=True),
    ):
        with pytest.raises(CursorError) as info:
            signer.verify(token, other.scope())
        assert info.value.reason == "scope"


class Canned:
    """One ExecuteStatement response, as the service sends it (with capacity)."""

    def __init__(self, response: dict) -> None:
        self.response = response
        self.meta = type("Meta", (), {"events": type("E", (), {"register": lambda *a: None})()})()

    def execute_statement(self, **params: Any) -> dict:
        return self.response


def test_capacity_reported_or_not_is_never_zero() -> None:
    statement = Statement('SELECT * FROM "t"', (), 2)
    items = [{"pk": {"S": "a"}}, {"pk": {"S": "b"}}]
    service = Canned(
        {
            "Items": items,
            "NextToken": "n",
            "ConsumedCapacity": {"TableName": "t", "CapacityUnits": 3.0},
        }
    )
    page = PartiQLSource(service, statement).read_page(None, 1, selectivity=None, cancel=NEVER)
    assert page.cost.capacity.total == 3.0 and page.cost.capacity.table == 3.0
    local = Canned({"Items": items, "NextToken": "n"})
    page = PartiQLSource(local, statement).read_page(None, 1, selectivity=None, cancel=NEVER)
    assert page.cost.capacity is None
    assert page.cost.fields() == [("Capacity", "not reported"), ("", "by this endpoint")]


def run_pages(ddb: Any, *args: str) -> subprocess.CompletedProcess:
    return run_in_process(["pages", "--endpoint-url", ddb.endpoint_url, *args], env=ENV)


def test_pages_statement_and_its_tokens(ddb, client) -> None:
    parameters = '[{"S": "c007"}]'
    truth = ground_truth(client, BY_CUSTOMER, [{"S": "c007"}], 3)
    result = run_pages(
        ddb, "--statement", BY_CUSTOMER, "--parameters", parameters, "--page-size", "3"
    )
    assert result.returncode == 0, result.stderr
    pages = page_lines(result.stdout)
    assert [p["items"] for p in pages] == [[to_wire(i) for i in t] for t in truth]
    assert all(p["consumed_capacity"] is None and p["scanned_count"] is None for p in pages)
    resumed = run_pages(
        ddb,
        "--statement",
        BY_CUSTOMER,
        "--parameters",
        parameters,
        "--page-size",
        "3",
        "--starting-token",
        pages[0]["next_token"],
    )
    assert json.loads(resumed.stdout.splitlines()[0])["items"] == pages[1]["items"]
    other = run_pages(
        ddb,
        "--statement",
        BY_CUSTOMER,
        "--parameters",
        '[{"S": "c008"}]',
        "--page-size",
        "3",
        "--starting-token",
        pages[0]["next_token"],
    )
    assert other.returncode == 2 and "another query" in other.stderr
    refused = run_pages(ddb, "--statement", f'DELETE FROM "{demo.TABLE}"')
    assert refused.returncode == 2 and "only SELECT" in refused.stderr


@pytest.fixture(scope="module")
def page_two(client: Any, demo_table: str) -> tuple[Statement, Any]:
    statement = Statement(
        f'SELECT order_no, total, status FROM "{demo.TABLE}"."by_total" WHERE customer = ? '
        "AND total > ?",
        ({"S": "c007"}, {"N": "100.5"}),
        3,
    )
    pager = partiql_pager(client, statement)
    pager.next()
    page = pager.next()
    assert page.items
    return statement, page


def test_generated_boto3_and_cli_print_the_page(ddb, page_two) -> None:
    statement, page = page_two
    target = CodeTarget(region="us-east-1", endpoint_url=ddb.endpoint_url)
    expected = [to_wire(i) for i in page.items]
    code = generate_partiql("boto3", statement, page.start_key, 2, target)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=ENV
    )
    assert result.returncode == 0, result.stderr
    assert [json.loads(line) for line in result.stdout.splitlines()] == expected
    command = generate_partiql("aws-cli", statement, page.start_key, 2, target)
    aws = shutil.which("aws") or str(Path(sys.executable).parent / "aws")
    result = subprocess.run(
        ["bash", "-c", command.replace("aws dynamodb", f"{aws} dynamodb", 1)],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["Items"] == expected


def test_generated_javascript_prints_the_page(ddb, page_two) -> None:
    if not (JS_DIR / "node_modules" / "@aws-sdk" / "lib-dynamodb").is_dir():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=JS_DIR,
            check=True,
            capture_output=True,
            timeout=600,
        )
    statement, page = page_two
    target = CodeTarget(region="us-east-1", endpoint_url=ddb.endpoint_url)
    path = JS_DIR / f"gen-{uuid.uuid4().hex}.mjs"
    path.write_text(generate_partiql("javascript", statement, page.start_key, 2, target))
    try:
        result = subprocess.run(
            ["node", str(path)], capture_output=True, text=True, timeout=120, env=ENV
        )
    finally:
        path.unlink()
    assert result.returncode == 0, result.stderr
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        to_wire(i) for i in page.items
    ]


@pytest.mark.parametrize("language", ["boto3", "aws-cli", "javascript"])
def test_partiql_code_runs_with_no_credentials_and_an_empty_home(
    ddb, page_two, tmp_path, monkeypatch, language, request
) -> None:
    """No AWS account at all: the app used placeholder credentials on the local endpoint,
    and the PartiQL code it hands out runs the same way, with an empty HOME."""
    from dynotui.dynamodb.codegen import code_target
    from dynotui.dynamodb.connection import ConnectionOptions, make_client

    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(HOME=str(home), AWS_EC2_METADATA_DISABLED="true")
    for name in [k for k in os.environ if k.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    target = code_target(make_client(ConnectionOptions(endpoint_url=ddb.endpoint_url)))
    assert target.credentials is not None
    statement, page = page_two
    code = generate_partiql(language, statement, page.start_key, 2, target)
    assert "DynamoDB Local accepts any credentials" in code
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
    assert got == [to_wire(i) for i in page.items]
