"""``dynotui pages`` end to end against DynamoDB Local."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from typing import Any

import pytest
from helpers import drain, page_lines, run_in_process

from dynotui.core import cursor
from dynotui.core.cursor import CursorSigner
from dynotui.core.exact_json import dumps as exact_dumps
from dynotui.dynamodb.dynamo_json import plain_item, to_wire
from dynotui.dynamodb.spec import from_expressions
from dynotui.local import demo

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}
RARE_ARGS = [
    "--key-condition-expression",
    "customer = :c",
    "--filter-expression",
    "status = :r",
    "--expression-attribute-values",
    json.dumps({":c": {"S": demo.BIG_CUSTOMER}, ":r": {"S": demo.RARE_STATUS}}),
]


def pages(ddb: Any, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    command = ["pages", "--endpoint-url", ddb.endpoint_url, "--table-name", demo.TABLE]
    return run_in_process([*command, *args], env=env or ENV)


def lines(result: subprocess.CompletedProcess) -> list[dict]:
    assert result.returncode == 0, result.stderr
    return page_lines(result.stdout)


@pytest.fixture(scope="module")
def truth(client: Any, demo_table: str) -> list[dict]:
    return [
        to_wire(item)
        for item in drain(
            client,
            TableName=demo_table,
            KeyConditionExpression="customer = :c",
            FilterExpression="#s = :r",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={
                ":c": {"S": demo.BIG_CUSTOMER},
                ":r": {"S": demo.RARE_STATUS},
            },
        )
    ]


@pytest.mark.parametrize("mode", ["raw", "fill"])
def test_walks_every_page_to_the_end(ddb, demo_table, truth, mode) -> None:
    out = lines(pages(ddb, *RARE_ARGS, "--mode", mode, "--page-size", "40"))
    assert [p["page"] for p in out] == list(range(1, len(out) + 1))
    assert [item for p in out for item in p["items"]] == truth
    required = {
        "page",
        "mode",
        "start_key",
        "items",
        "count",
        "scanned_count",
        "consumed_capacity",
        "calls",
        "last_evaluated_key",
        "next_start_key",
        "has_next",
        "ended_by",
        "latency_ms",
        "next_token",
    }
    for page in out:
        assert required <= set(page)
        assert set(page["consumed_capacity"]) == {"total", "table", "indexes"}
        assert page["mode"] == mode
    assert out[-1]["has_next"] is False and out[-1]["next_token"] is None
    assert out[-1]["ended_by"] == "end"
    if mode == "raw":
        assert any(p["items"] == [] and p["has_next"] is None for p in out)
    else:
        assert all(len(p["items"]) == 40 and p["has_next"] is True for p in out[:-1])
    for before, after in itertools.pairwise(out):
        assert after["start_key"] == before["next_start_key"]


def test_token_resumes_at_the_next_page(ddb, demo_table) -> None:
    full = lines(pages(ddb, *RARE_ARGS, "--mode", "fill", "--page-size", "10", "--max-pages", "4"))
    token = full[1]["next_token"]
    resumed = lines(
        pages(
            ddb,
            *RARE_ARGS,
            "--mode",
            "fill",
            "--page-size",
            "10",
            "--max-pages",
            "2",
            "--starting-token",
            token,
        )
    )
    assert resumed[0]["page"] == 1
    assert resumed[0]["items"] == full[2]["items"]
    assert resumed[1]["items"] == full[3]["items"]


def test_token_from_another_query_or_secret_is_refused(ddb, demo_table) -> None:
    token = lines(pages(ddb, *RARE_ARGS, "--max-pages", "1"))[0]["next_token"]
    other = pages(ddb, *RARE_ARGS, "--no-scan-index-forward", "--starting-token", token)
    assert other.returncode == 2 and "another query" in other.stderr
    assert "it differs in its direction;" in other.stderr, "the part that differs, by name"
    stranger = pages(
        ddb,
        *RARE_ARGS,
        "--starting-token",
        token,
        env={**ENV, "DYNOTUI_CURSOR_SECRET": "another-secret-abcdefgh"},
    )
    assert stranger.returncode == 2 and "signature does not verify" in stranger.stderr
    # The same boundary signed ten seconds ago (the signer's clock, not a sleep).
    key = cursor.decode(token).key
    scope = from_expressions(
        demo.TABLE,
        key_condition="customer = :c",
        filter="status = :r",
        values={":c": {"S": demo.BIG_CUSTOMER}, ":r": {"S": demo.RARE_STATUS}},
    ).scope()
    secret = ENV["DYNOTUI_CURSOR_SECRET"].encode()
    old = CursorSigner(secret, clock=lambda: time.time() - 10).sign(key, scope)
    fresh = pages(ddb, *RARE_ARGS, "--max-pages", "1", "--starting-token", old)
    assert fresh.returncode == 0, "the re-signed token is the real thing: only its age differs"
    expired = pages(ddb, *RARE_ARGS, "--starting-token", old, "--cursor-max-age", "1")
    assert expired.returncode == 2 and "expired" in expired.stderr
    assert "s ago, valid for 1 s" in expired.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--table-name", "no-such-table", "--scan"], "does not exist"),
        (
            [
                "--key-condition-expression",
                "customer = :c",
                "--filter-expression",
                "contains(status)",
                "--expression-attribute-values",
                '{":c": {"S": "acme"}}',
            ],
            "the filter is not a valid expression: contains() takes 2 arguments",
        ),
        (
            [
                "--key-condition-expression",
                "customer <> :c",
                "--expression-attribute-values",
                '{":c": {"S": "acme"}}',
            ],
            "DynamoDB rejected",
        ),
        (
            [
                "--index-name",
                "by_status",
                "--consistent-read",
                "--key-condition-expression",
                "status = :s",
                "--expression-attribute-values",
                '{":s": {"S": "PLACED"}}',
            ],
            "eventually consistent",
        ),
        (["--scan", "--starting-token", "garbage"], "malformed"),
        (["--scan", "--page-size", "0"], "page size must be 1 to 1000"),
        (["--scan", "--expression-attribute-values", "{nope"], "not valid JSON"),
        (["--scan", "--expression-attribute-values", '{":v": {"N": "x"}}'], "not a valid N"),
        (["--scan", "--no-such-flag"], "unrecognized arguments"),
    ],
)
def test_bad_input_exits_2_with_one_line(ddb, demo_table, args, message) -> None:
    result = pages(ddb, *args)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_connection_failure_exits_1_with_one_line() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "dynotui",
            "pages",
            "--endpoint-url",
            "http://127.0.0.1:9",
            "--table-name",
            "t",
            "--scan",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    assert result.returncode == 1
    assert "cannot reach DynamoDB" in result.stderr and result.stderr.count("\n") == 1


def test_plain_items_and_gsi_capacity(ddb, demo_table) -> None:
    out = lines(
        pages(
            ddb,
            "--index-name",
            "by_status",
            "--key-condition-expression",
            "status = :s",
            "--expression-attribute-values",
            '{":s": {"S": "PLACED"}}',
            "--max-pages",
            "1",
            "--page-size",
            "5",
            "--plain",
        )
    )
    page = out[0]
    assert all(isinstance(item["total"], int | float) for item in page["items"])
    assert page["consumed_capacity"]["indexes"]["by_status"] > 0
    assert set(page["next_start_key"]) == {"status", "placed_on", "customer", "order_no"}
    assert exact_dumps(plain_item({"n": {"N": "1.50"}})) == '{"n": 1.50}'


def cursor_cli(*args: str) -> subprocess.CompletedProcess:
    return run_in_process(["cursor", *args], env=ENV)


def test_cursor_decode_and_verify(ddb, demo_table) -> None:
    page = lines(pages(ddb, *RARE_ARGS, "--max-pages", "1"))[0]
    token = page["next_token"]
    decoded = json.loads(cursor_cli("decode", token).stdout)
    assert decoded["start_key"] == page["next_start_key"] and decoded["verified"] is False
    query = ["--table-name", demo.TABLE, *RARE_ARGS]
    ok = cursor_cli("verify", token, *query)
    assert ok.returncode == 0 and json.loads(ok.stdout)["start_key"] == page["next_start_key"]
    other = cursor_cli("verify", token, *query, "--no-scan-index-forward")
    assert other.returncode == 2 and "another query" in other.stderr
    body, mac = token.split(".")
    flipped = f"{body}.{'B' if mac[0] == 'A' else 'A'}{mac[1:]}"
    bad = cursor_cli("verify", flipped, *query)
    assert bad.returncode == 2 and "signature does not verify" in bad.stderr
    garbage = cursor_cli("decode", "not-a-token")
    assert garbage.returncode == 2 and "not a cursor dynotui can read" in garbage.stderr
    assert "AWS CLI NextToken" in garbage.stderr, "the refusal names the formats it tried"
