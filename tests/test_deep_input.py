"""Deeply nested JSON input is bad input (exit 2, one line), never a RecursionError."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from typing import Any

import pytest

from dynotui.core.errors import InputError
from dynotui.core.json_input import MAX_DEPTH, depth, loads
from dynotui.dynamodb.dynamo_json import MAX_NESTING
from dynotui.dynamodb.partiql import parse_parameters
from dynotui.dynamodb.query_form import FieldError, parse_values

CLI = [sys.executable, "-m", "dynotui"]
ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}


def nested(levels: int, kind: str = "L") -> dict:
    value: dict = {"S": "x"}
    for _ in range(levels):
        value = {"L": [value]} if kind == "L" else {"M": {"k": value}}
    return value


def nested_text(levels: int) -> str:
    """``nested(levels)`` as JSON text, written out: too deep for json.dumps."""
    return '{"L": [' * levels + '{"S": "x"}' + "]}" * levels


def one_line(result: subprocess.CompletedProcess, words: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
    assert "Recursion" not in result.stderr and "Traceback" not in result.stderr


def test_depth_is_measured_without_recursion() -> None:
    assert depth(1) == 0 and depth([]) == 1 and depth({"a": [1, {"b": []}]}) == 4
    very = "[" * 200_000 + "]" * 200_000
    with pytest.raises(InputError, match="nested more than"):
        loads(very, "--x")
    deep = json.dumps(nested(MAX_DEPTH))
    with pytest.raises(InputError, match=f"--x is nested more than {MAX_DEPTH} levels"):
        loads(deep, "--x")
    with pytest.raises(InputError, match="not valid JSON"):
        loads("[nope", "--x")


def test_dynamodb_nesting_limit_is_the_servers(client: Any) -> None:
    """32 lists inside a parameter are accepted by DynamoDB Local, a 33rd is not: the same
    limit is applied before any call."""

    def server_refuses(levels: int) -> bool:
        try:
            client.execute_statement(
                Statement='SELECT * FROM "dynotui-demo-orders" WHERE customer = ?',
                Parameters=[nested(levels)],
            )
        except client.exceptions.ClientError as exc:
            return "Nesting Levels" in exc.response["Error"]["Message"]
        return False

    assert not server_refuses(MAX_NESTING) and server_refuses(MAX_NESTING + 1)
    assert parse_parameters(json.dumps([nested(MAX_NESTING)]))
    for kind in ("L", "M"):
        with pytest.raises(InputError, match=f"more than {MAX_NESTING} lists or maps"):
            parse_parameters(json.dumps([nested(MAX_NESTING + 1, kind)]))


def test_the_query_forms_values_say_which_field() -> None:
    with pytest.raises(FieldError) as info:
        parse_values("[" * 100_000)
    assert info.value.field == "values" and "nested more than" in str(info.value)
    with pytest.raises(FieldError, match="more than 32 lists or maps"):
        parse_values(json.dumps({":v": nested(33, "M")}))


@pytest.mark.parametrize("levels", [200, 5000])
def test_pages_refuses_deep_parameters_values_and_names(ddb, levels) -> None:
    base = [*CLI, "pages", "--endpoint-url", ddb.endpoint_url]
    statement = ["--statement", 'SELECT * FROM "dynotui-demo-orders" WHERE customer = ?']
    deep = nested_text(levels)
    result = subprocess.run(
        [*base, *statement, "--parameters", f"[{deep}]"],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    one_line(result, "nest")
    query = ["--table-name", "dynotui-demo-orders", "--key-condition-expression", "customer = :c"]
    values = subprocess.run(
        [*base, *query, "--expression-attribute-values", f'{{":c": {deep}}}'],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    one_line(values, "nest")
    acme = ["--expression-attribute-values", '{":c": {"S": "acme"}}']
    names = subprocess.run(
        [*base, *query, *acme, "--expression-attribute-names", "[" * levels * 20],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    one_line(names, "--expression-attribute-names is")


def test_a_deep_cursor_payload_is_malformed(ddb) -> None:
    payload = '{"v": 2, "k": ' + "[" * 3000 + "]" * 3000 + ', "t": 1, "s": "aaaaaaaaaaaaaaaa"}'
    text = base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
    token = f"{text}.{'A' * 43}"
    decode = subprocess.run(
        [*CLI, "cursor", "decode", token], capture_output=True, text=True, timeout=60, env=ENV
    )
    one_line(decode, "malformed")
    scan = ["--table-name", "dynotui-demo-orders", "--scan"]
    resume = subprocess.run(
        [*CLI, "pages", "--endpoint-url", ddb.endpoint_url, *scan, "--starting-token", token],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    one_line(resume, "malformed")
