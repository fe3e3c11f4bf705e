"""Foreign cursors from their real producers, opened on DynamoDB Local.

The AWS CLI (``aws`` from the test extra) and botocore's paginator make the NextTokens;
base64url start keys are made by hand from a plain boto3 LastEvaluatedKey. Page 1 from
each is checked against the truth: a plain boto3 Query from that ExclusiveStartKey, or,
where the producer stopped part way into a page, the items a plain boto3 loop returns
after the ones the producer had already shown.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from botocore.paginate import TokenDecoder
from helpers import drain, page_lines, run_in_process

from dynotui.cli.main import main
from dynotui.core.exact_json import dumps as exact_dumps
from dynotui.core.foreign import read_foreign
from dynotui.core.pager import Pager
from dynotui.dynamodb.dynamo_json import plain_item, to_wire
from dynotui.dynamodb.foreign import DynamoForeign, foreign_reader
from dynotui.dynamodb.foreign_skip import resolve_start
from dynotui.dynamodb.partiql import PartiQLSource, statement_from
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import from_expressions
from dynotui.local import demo
from dynotui.local.tables import create_table, write_items

AWS = shutil.which("aws", path=str(Path(sys.executable).parent)) or shutil.which("aws")
needs_aws = pytest.mark.skipif(
    AWS is None, reason="the AWS CLI (part of the test extra) is not installed here"
)
ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("AWS_")},
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_DEFAULT_REGION": "us-east-1",
    "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789",
}
ACME_VALUES = json.dumps({":c": {"S": demo.BIG_CUSTOMER}})
# The same query as dynotui's flags and as the AWS CLI's (which wants names as placeholders).
ACME = ["--key-condition-expression", "customer = :c", "--expression-attribute-values", ACME_VALUES]
ACME_AWS = ["--table-name", demo.TABLE, *ACME]
PLACED_VALUES = json.dumps({":s": {"S": "PLACED"}})
PLACED_FLAGS = ["--index-name", "by_status", "--key-condition-expression", "status = :s"]
PLACED_FLAGS += ["--expression-attribute-values", PLACED_VALUES]
PLACED_AWS = ["--table-name", demo.TABLE, "--index-name", "by_status"]
PLACED_AWS += ["--key-condition-expression", "#s = :s", "--expression-attribute-values"]
PLACED_AWS += [PLACED_VALUES, "--expression-attribute-names", '{"#s": "status"}']
PLACED = {
    "IndexName": "by_status",
    "KeyConditionExpression": "#s = :s",
    "ExpressionAttributeNames": {"#s": "status"},
    "ExpressionAttributeValues": {":s": {"S": "PLACED"}},
}


def aws_query(ddb: Any, *args: str) -> dict:
    assert AWS is not None
    result = subprocess.run(
        [AWS, "dynamodb", "query", "--endpoint-url", ddb.endpoint_url, "--output", "json", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def dynotui_pages(ddb: Any, *args: str, table: str = demo.TABLE) -> subprocess.CompletedProcess:
    command = ["pages", "--endpoint-url", ddb.endpoint_url, "--table-name", table]
    return run_in_process([*command, *args], env=ENV)


def lines(result: subprocess.CompletedProcess) -> list[dict]:
    assert result.returncode == 0, result.stderr
    return page_lines(result.stdout)


def one_line_error(result: subprocess.CompletedProcess, needle: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert needle in result.stderr, result.stderr
    assert result.stdout == ""


def acme_query() -> dict:
    return {
        "TableName": demo.TABLE,
        "KeyConditionExpression": "customer = :c",
        "ExpressionAttributeValues": {":c": {"S": demo.BIG_CUSTOMER}},
    }


def wire_items(client: Any, **params: Any) -> list[dict]:
    return [to_wire(item) for item in drain(client, **params)]


def one_query(client: Any, **params: Any) -> list[dict]:
    return [to_wire(item) for item in client.query(**params)["Items"]]


@needs_aws
def test_aws_cli_next_token_from_the_middle_of_a_page(ddb, client, demo_table) -> None:
    """``--max-items 7`` without ``--page-size`` stops 7 items into the first response:
    the token holds no key, only how far the CLI got."""
    shown = aws_query(ddb, *ACME_AWS, "--max-items", "7")
    token = shown["NextToken"]
    assert len(shown["Items"]) == 7
    paging = ["--foreign-token", token, "--page-size", "5", "--max-pages", "2"]
    out = lines(dynotui_pages(ddb, *ACME, *paging))
    truth = wire_items(client, **acme_query())
    assert truth[:7] == shown["Items"]
    assert [page["items"] for page in out] == [truth[7:12], truth[12:17]]
    mark = out[0]["foreign_start"]
    assert mark["format"] == "AWS CLI NextToken" and mark["passed_over"] == 7
    assert mark["signed"] is False and "anyone could have edited it" in mark["note"]
    assert "foreign_start" not in out[1]
    # The AWS CLI itself resumes to the same items.
    again = aws_query(ddb, *ACME_AWS, "--starting-token", token, "--max-items", "5")
    assert again["Items"] == out[0]["items"]


@needs_aws
def test_aws_cli_next_token_at_a_page_boundary_on_a_gsi(ddb, client, demo_table) -> None:
    token = aws_query(ddb, *PLACED_AWS, "--max-items", "4", "--page-size", "4")["NextToken"]
    start_key = json.loads(base64.b64decode(token))["ExclusiveStartKey"]
    assert set(start_key) == {"status", "placed_on", "customer", "order_no"}
    paging = ["--foreign-token", token, "--page-size", "6", "--max-pages", "1"]
    out = lines(dynotui_pages(ddb, *PLACED_FLAGS, *paging))
    truth = one_query(client, TableName=demo.TABLE, ExclusiveStartKey=start_key, Limit=6, **PLACED)
    assert out[0]["items"] == truth and len(truth) == 6
    assert out[0]["foreign_start"]["passed_over"] == 0
    assert out[0]["start_key"] == start_key


@needs_aws
def test_aws_cli_next_token_inside_a_later_filtered_page_on_a_gsi(ddb, client, demo_table):
    """``--page-size 5 --max-items 7`` with a filter: the token holds the second call's
    start key and how many of its matches the CLI had shown."""
    values = json.dumps({":s": {"S": demo.RARE_STATUS}, ":t": {"N": "150"}})
    query = ["--index-name", "by_status", "--expression-attribute-values", values]
    aws = ["--table-name", demo.TABLE, *query, "--key-condition-expression", "#s = :s"]
    aws += ["--filter-expression", "#t > :t", "--expression-attribute-names"]
    aws += [json.dumps({"#s": "status", "#t": "total"})]
    shown = aws_query(ddb, *aws, "--max-items", "7", "--page-size", "5")
    token = json.loads(base64.b64decode(shown["NextToken"]))
    assert token["ExclusiveStartKey"] is not None and token["boto_truncate_amount"] > 0
    ours = [
        *query,
        "--key-condition-expression",
        "status = :s",
        "--filter-expression",
        "total > :t",
    ]
    paging = ["--foreign-token", shown["NextToken"], "--mode", "fill", "--page-size", "5"]
    out = lines(dynotui_pages(ddb, *ours, *paging, "--max-pages", "1"))
    truth = wire_items(
        client,
        TableName=demo.TABLE,
        IndexName="by_status",
        KeyConditionExpression="#s = :s",
        FilterExpression="#t > :t",
        ExpressionAttributeNames={"#s": "status", "#t": "total"},
        ExpressionAttributeValues=json.loads(values),
    )
    assert truth[:7] == shown["Items"]
    assert out[0]["items"] == truth[7:12]


def test_botocore_paginator_tokens_on_an_lsi(client, demo_table) -> None:
    """build_full_result's NextToken (stopped inside a page) and a PageIterator's
    resume_token (stopped at a page boundary), opened through the Python API."""
    schema = describe_table(client, demo.TABLE)
    params = {**acme_query(), "IndexName": "by_total"}
    spec = from_expressions(
        demo.TABLE,
        index="by_total",
        key_condition="customer = :c",
        values={":c": {"S": demo.BIG_CUSTOMER}},
        page_size=5,
        mode="fill",
    )
    source = QuerySource(client, spec, schema)
    reader = foreign_reader(source)
    assert isinstance(reader, DynamoForeign)
    truth = wire_items(client, **params)
    paginator = client.get_paginator("query")
    full = paginator.paginate(**params, PaginationConfig={"MaxItems": 9, "PageSize": 4})
    inside = full.build_full_result()["NextToken"]
    assert TokenDecoder().decode(inside)["boto_truncate_amount"] == 1
    resolved = resolve_start(source, reader.fit(reader.unwrap(read_foreign(inside))))
    assert resolved.passed_over == 1 and resolved.cost is not None and resolved.cost.requests >= 1
    assert "Page 1 starts 1 item(s) past the cursor's key" in resolved.note
    assert "RCU" in resolved.note and "anyone could have edited it" in resolved.note
    page = Pager(source, start_key=resolved.start_key).next()
    assert [to_wire(i) for i in page.items] == truth[9:14]

    pages = paginator.paginate(**params, PaginationConfig={"MaxItems": 8, "PageSize": 4})
    for _ in pages:
        pass
    boundary = pages.resume_token
    start_key = TokenDecoder().decode(boundary)["ExclusiveStartKey"]
    resolved = resolve_start(source, reader.fit(reader.unwrap(read_foreign(boundary))))
    assert resolved.start_key == start_key and resolved.cost is None
    raw = QuerySource(client, spec.with_(mode="raw"), schema)
    page = Pager(raw, start_key=resolved.start_key).next()
    expected = one_query(client, **params, ExclusiveStartKey=start_key, Limit=5)
    assert [to_wire(i) for i in page.items] == expected == truth[8:13]


def test_botocore_tokens_with_binary_keys(ddb, client, table_name) -> None:
    name = table_name()
    create_table(
        client,
        {
            "TableName": name,
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "B"},
            ],
            "BillingMode": "PAY_PER_REQUEST",
        },
    )
    write_items(client, name, [{"pk": "p", "sk": bytes([i, 255 - i, 0])} for i in range(12)])
    params = {
        "TableName": name,
        "KeyConditionExpression": "pk = :p",
        "ExpressionAttributeValues": {":p": {"S": "p"}},
    }
    pages = client.get_paginator("query").paginate(
        **params, PaginationConfig={"MaxItems": 4, "PageSize": 4}
    )
    for _ in pages:
        pass
    token = pages.resume_token
    assert "boto_encoded_keys" in json.loads(base64.b64decode(token))
    start_key = TokenDecoder().decode(token)["ExclusiveStartKey"]
    assert isinstance(start_key["sk"]["B"], bytes)
    query = ["--key-condition-expression", "pk = :p", "--expression-attribute-values"]
    query += ['{":p": {"S": "p"}}', "--foreign-token", token]
    out = lines(dynotui_pages(ddb, *query, "--page-size", "3", "--max-pages", "1", table=name))
    assert out[0]["items"] == one_query(client, **params, ExclusiveStartKey=start_key, Limit=3)
    assert out[0]["start_key"] == to_wire(start_key)


def b64url(text: str, padded: bool = False) -> str:
    encoded = base64.urlsafe_b64encode(text.encode()).decode()
    return encoded if padded else encoded.rstrip("=")


@pytest.mark.parametrize("index", [None, "by_status"])
def test_base64url_start_keys_by_hand(ddb, client, demo_table, index: str | None) -> None:
    """What ElectroDB and hand-made APIs return: the LastEvaluatedKey as base64url JSON,
    in DynamoDB JSON or plain, padded or not; and what ``x`` copies, pasted back."""
    params = {**PLACED, "TableName": demo.TABLE} if index else acme_query()
    last_key = client.query(**params, Limit=5)["LastEvaluatedKey"]
    flags = PLACED_FLAGS if index else ACME
    truth = one_query(client, **params, ExclusiveStartKey=last_key, Limit=4)
    dynamodb_json = json.dumps(to_wire(last_key))
    plain_json = exact_dumps(plain_item(last_key))
    for flag, text in [
        ("--foreign-token", b64url(dynamodb_json)),
        ("--foreign-token", b64url(plain_json, padded=True)),
        ("--foreign-token", b64url(plain_json)),
        ("--exclusive-start-key", dynamodb_json),
        ("--exclusive-start-key", plain_json),
    ]:
        out = lines(dynotui_pages(ddb, *flags, flag, text, "--page-size", "4", "--max-pages", "1"))
        assert out[0]["items"] == truth, (flag, text)
        assert out[0]["foreign_start"]["start_key"] == to_wire(last_key)


def test_a_key_that_does_not_fit_is_refused_naming_the_attribute(ddb, demo_table) -> None:
    index_only = b64url(json.dumps({"status": {"S": "PLACED"}, "placed_on": {"S": "2026-09-02"}}))
    one_line_error(
        dynotui_pages(ddb, *PLACED_FLAGS, "--foreign-token", index_only),
        "missing customer (S), order_no (S)",
    )
    mistyped = json.dumps({"customer": "acme", "total": "12.5", "order_no": "7"})
    one_line_error(
        dynotui_pages(ddb, "--index-name", "by_total", *ACME, "--exclusive-start-key", mistyped),
        "total is a JSON string, the table defines it as a number (N)",
    )
    extra = json.dumps({"customer": "acme", "order_no": "7", "placed_on": "2026-09-01"})
    one_line_error(dynotui_pages(ddb, *ACME, "--exclusive-start-key", extra), "extra placed_on")


@needs_aws
def test_starting_token_stays_for_signed_tokens_and_says_where_foreign_ones_go(
    ddb, demo_table
) -> None:
    token = aws_query(ddb, *ACME_AWS, "--max-items", "3", "--page-size", "3")["NextToken"]
    refused = dynotui_pages(ddb, *ACME, "--starting-token", token)
    one_line_error(refused, "this is a foreign cursor (AWS CLI NextToken, base64 of JSON)")
    assert (
        "--foreign-token TEXT" in refused.stderr and "--exclusive-start-key JSON" in refused.stderr
    )
    wrong_flag = dynotui_pages(ddb, *ACME, "--exclusive-start-key", token)
    one_line_error(wrong_flag, "pass it as --foreign-token")


# The corpus of test_cursor.test_garbage_is_malformed, and foreign text at its limits.
CORPUS = ["", " ", ".", "abc", "a.b.c", "!!!.???", "e30.AAAA", "x" * 9000]
CORPUS += ["eyJ2IjoxfQ." + "A" * 43, "[" * 100_000, "[" * 5000, "e30", "W10"]
CORPUS += [base64.b64encode(b"[" * 6000).decode(), '{"a": NaN}', '{"c": "a", "c": "x"}']
CORPUS += ["\x1b]52;c;aGVsbG8=\x07", '{"ExclusiveStartKey": null, "boto_truncate_amount": -1}']
CORPUS += [json.dumps({"ExclusiveStartKey": None, "boto_truncate_amount": 10**9})]
# Past Python's 4,300-digit int limit, and half a surrogate pair: each was "unexpected".
CORPUS += ['{"ExclusiveStartKey": null, "boto_truncate_amount": ' + "9" * 5000 + "}"]
CORPUS += ['{"customer": "acme", "order_no": "\\ud800"}', "e30\udc80"]


def test_the_fuzz_corpus_exits_2_with_one_line_each(ddb, demo_table, capsys, monkeypatch) -> None:
    monkeypatch.setenv("DYNOTUI_CURSOR_SECRET", "test-secret-0123456789")
    query = ["pages", "--endpoint-url", ddb.endpoint_url, *ACME_AWS, "--max-pages", "1"]
    statement = f'SELECT * FROM "{demo.TABLE}" WHERE customer = ?'
    partiql = ["pages", "--endpoint-url", ddb.endpoint_url, "--statement", statement]
    partiql += ["--parameters", '[{"S": "acme"}]']
    for text in CORPUS:
        for argv in (
            ["cursor", "decode", text],
            [*query, "--starting-token", text],
            [*query, "--foreign-token", text],
            [*partiql, "--foreign-token", text],
        ):
            code = main(argv)
            captured = capsys.readouterr()
            assert code == 2, (argv[:2], text[:40], captured.err)
            assert captured.err.count("\n") == 1 and captured.err.startswith("dynotui: ")
            assert "Traceback" not in captured.err and "\x1b" not in captured.err
            assert captured.out == ""
    statement_source = PartiQLSource(None, statement_from(statement, '[{"S": "a"}]', 5))
    assert foreign_reader(statement_source) is None
    code = main([*partiql, "--foreign-token", b64url(json.dumps({"customer": {"S": "acme"}}))])
    assert code == 2 and "resumes only from dynotui's signed tokens" in capsys.readouterr().err


def test_cursor_verify_says_a_foreign_cursor_has_no_signature(capsys, monkeypatch) -> None:
    monkeypatch.setenv("DYNOTUI_CURSOR_SECRET", "test-secret-0123456789")
    token = base64.b64encode(json.dumps({"ExclusiveStartKey": {"pk": {"S": "a"}}}).encode())
    assert main(["cursor", "verify", token.decode(), "--table-name", "t", "--scan"]) == 2
    err = capsys.readouterr().err
    assert "foreign cursor (AWS CLI NextToken, base64 of JSON), which has no signature" in err
    assert main(["cursor", "decode", token.decode()]) == 0
    decoded = json.loads(capsys.readouterr().out)
    assert decoded["format"] == "AWS CLI NextToken" and decoded["signed"] is False
    assert decoded["start_key"] == {"pk": {"S": "a"}}
