"""``dynotui pages --format csv|json`` against DynamoDB Local (and PostgreSQL): the file
read back with Python's own ``csv`` and ``json`` equals the items a plain boto3 Query
returns, hostile values, 38-digit numbers, sets, binary, NULL and missing attributes
included; a failed read leaves no CSV row behind."""

from __future__ import annotations

import base64
import csv
import io
import json
import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from conftest import HOSTILE
from faultproxy import FaultProxy
from helpers import drain, responses, run_in_process

from dynotui.core.export import CsvItems, JsonArrayItems
from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.local.tables import create_table, table_definition

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}
TABLE = "export-mixed"
BIG = "12345678901234567890123456789012345678"  # 38 digits, DynamoDB's most
TINY = "-0." + "0" * 50 + "12345678901234567890123456789012345678"  # 38 digits, small
ODD = {
    "nul": "nul\x00byte",
    "quotes": 'say "hi", then, go',
    "breaks": "cr\ronly crlf\r\nlf\nend",
    "empty": "",
    "spaces": "  padded  ",
    "formula": '=HYPERLINK("x")',
}


def _items() -> list[dict[str, Any]]:
    p = {"S": "p"}
    return [
        {
            "pk": p,
            "sk": {"N": "1"},
            "s": {"S": "plain"},
            "n": {"N": BIG},
            "neg": {"N": TINY},
            "b": {"B": bytes(range(256))},
            "flag": {"BOOL": True},
            "off": {"BOOL": False},
            "nothing": {"NULL": True},
        },
        {"pk": p, "sk": {"N": "2"}, **{k: {"S": v} for k, v in {**HOSTILE, **ODD}.items()}},
        {
            "pk": p,
            "sk": {"N": "3"},
            "ss": {"SS": ["b", "a", "[red]x[/]", "\x1b[2J"]},
            "ns": {"NS": ["10", "9", "-0.5", BIG]},
            "bs": {"BS": [b"\xff\x00", b"\x00"]},
            "m": {
                "M": {
                    "z\x1b": {"L": [{"N": "1.5"}, {"M": {"x": {"NULL": True}}}, {"B": b"\x01"}]},
                    "big": {"N": BIG},
                    "set": {"SS": ["y", "x"]},
                    "t": {"BOOL": True},
                }
            },
            "l": {"L": [{"S": 'q"uote'}, {"N": "-7"}, {"L": []}, {"M": {}}]},
            "n": {"N": "10000"},
        },
        {"pk": p, "sk": {"N": "4"}, "long": {"S": "z" * 100_000}, "name\x1b[31m": {"S": "x"}},
        {"pk": p, "sk": {"N": "5"}},  # every other attribute missing
    ] + [{"pk": p, "sk": {"N": str(n)}, "s": {"S": f"row {n}"}} for n in range(6, 40)]


@pytest.fixture(scope="module")
def table(client: Any) -> str:
    create_table(client, table_definition(TABLE, ("pk", "S"), ("sk", "N")))
    for item in _items():
        client.put_item(TableName=TABLE, Item=item)
    return TABLE


@pytest.fixture(scope="module")
def truth(client: Any, table: str) -> list[dict[str, Any]]:
    return drain(
        client,
        TableName=table,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "p"}},
    )


QUERY = [
    "--table-name",
    TABLE,
    "--key-condition-expression",
    "pk = :p",
    "--expression-attribute-values",
    '{":p": {"S": "p"}}',
]


def pages(endpoint: str, *args: str, stdout: Any = subprocess.PIPE) -> subprocess.CompletedProcess:
    """Bytes, not text: universal newlines would turn a CR inside a value into LF. In this
    process, unless stdout is a terminal of the test's own."""
    if stdout is subprocess.PIPE:
        return run_in_process(["pages", "--endpoint-url", endpoint, *args], env=ENV, text=False)
    return subprocess.run(
        [sys.executable, "-m", "dynotui", "pages", "--endpoint-url", endpoint, *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=300,
        env=ENV,
    )


@pytest.fixture
def big_fields() -> Iterator[None]:
    """Python's csv reads fields of at most 131,072 characters unless told otherwise."""
    before = csv.field_size_limit(10_000_000)
    try:
        yield
    finally:
        csv.field_size_limit(before)


def read_csv(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))


class Num(str):
    """A JSON number read back as its own digits."""


def parse(text: str) -> Any:
    return json.loads(text, parse_float=Num, parse_int=Num)


def b64(data: bytes) -> str:
    return base64.b64encode(bytes(data)).decode()


def assert_plain(parsed: Any, av: dict[str, Any]) -> None:
    """``parsed`` (from plain JSON, numbers as Num) is the attribute value ``av``, with
    types: numbers as numbers with DynamoDB's digits, binary as base64, sets as sorted
    lists, NULL as null, maps in their order."""
    ((kind, inner),) = av.items()
    if kind == "S":
        assert type(parsed) is str and parsed == inner
    elif kind == "N":
        assert type(parsed) is Num and parsed == inner
    elif kind == "B":
        assert type(parsed) is str and parsed == b64(inner)
    elif kind == "BOOL":
        assert parsed is inner
    elif kind == "NULL":
        assert parsed is None
    elif kind == "SS":
        assert parsed == sorted(inner)
    elif kind == "NS":
        assert all(type(n) is Num for n in parsed)
        assert parsed == sorted(inner, key=Decimal)
    elif kind == "BS":
        assert parsed == sorted(b64(b) for b in inner)
    elif kind == "M":
        assert isinstance(parsed, dict) and list(parsed) == list(inner)
        for name, value in inner.items():
            assert_plain(parsed[name], value)
    elif kind == "L":
        assert isinstance(parsed, list) and len(parsed) == len(inner)
        for got, value in zip(parsed, inner, strict=True):
            assert_plain(got, value)
    else:
        raise AssertionError(kind)


def assert_cell(cell: str, av: dict[str, Any]) -> None:
    """A CSV cell as the README says: strings as they are, numbers with DynamoDB's digits,
    binary as base64, anything else as its plain JSON, compact."""
    ((kind, inner),) = av.items()
    if kind in ("S", "N"):
        assert cell == inner
    elif kind == "B":
        assert cell == b64(inner)
    else:
        assert_plain(parse(cell), av)
        assert ", " not in cell.replace('", "', "") and '": ' not in cell  # compact


def expected_header(items: list[dict[str, Any]], keys: list[str]) -> list[str]:
    header = list(keys)
    for item in items:
        header += [name for name in item if name not in header]
    return header


def test_csv_read_back_equals_the_items(ddb: Any, truth: list[dict], big_fields: None) -> None:
    result = pages(ddb.endpoint_url, *QUERY, "--format", "csv", "--page-size", "7")
    assert result.returncode == 0, result.stderr
    rows = read_csv(result.stdout)
    header, body = rows[0], rows[1:]
    assert header == expected_header(truth, ["pk", "sk"])  # keys, then as first seen
    assert "name\x1b[31m" in header  # a hostile name is the exact name: the file is data
    assert len(body) == len(truth) == 39
    for row, item in zip(body, truth, strict=True):
        assert len(row) == len(header)
        for name, cell in zip(header, row, strict=True):
            if name in item:
                assert_cell(cell, item[name])
            else:
                assert cell == ""  # a missing attribute is an empty cell
    by_sk = {row[1]: dict(zip(header, row, strict=True)) for row in body}
    assert by_sk["1"]["n"] == BIG and by_sk["1"]["neg"] == truth[0]["neg"]["N"]
    assert by_sk["1"]["flag"] == "true" and by_sk["1"]["nothing"] == "null"
    assert by_sk["3"]["ns"] == f"[-0.5,9,10,{BIG}]"
    for name, value in {**HOSTILE, **ODD}.items():
        assert by_sk["2"][name] == value  # ESC, NUL, CR and bidi kept exactly
    assert by_sk["4"]["long"] == "z" * 100_000
    # RFC 4180: CRLF between records; a value's own line break stays inside quotes.
    first_line = ",".join(header).encode()
    assert result.stdout.startswith(first_line + b"\r\n") and result.stdout.endswith(b"\r\n")
    assert b'"cr\ronly crlf\r\nlf\nend"' in result.stdout
    assert b'"say ""hi"", then, go"' in result.stdout
    # The summary goes to stderr, so stdout is the file alone.
    summary = json.loads(result.stderr.decode().splitlines()[-1])["summary"]
    assert summary["totals"]["count"] == len(truth)


def test_json_is_one_array_of_the_items(ddb: Any, truth: list[dict]) -> None:
    wire = pages(ddb.endpoint_url, *QUERY, "--format", "json", "--page-size", "10")
    assert wire.returncode == 0, wire.stderr
    assert json.loads(wire.stdout) == [to_wire(item) for item in truth]
    assert b"\x1b" not in wire.stdout and b"\xe2\x80\xae" not in wire.stdout  # escaped
    plain = pages(ddb.endpoint_url, *QUERY, "--format", "json", "--plain")
    assert plain.returncode == 0, plain.stderr
    items = parse(plain.stdout.decode())
    assert len(items) == len(truth)
    for got, item in zip(items, truth, strict=True):
        assert list(got) == list(item)
        for name, value in item.items():
            assert_plain(got[name], value)


def test_an_empty_result_is_a_header_or_an_empty_array(ddb: Any, table: str) -> None:
    args = ["--table-name", TABLE, "--key-condition-expression", "pk = :p"]
    args += ["--expression-attribute-values", '{":p": {"S": "nobody"}}']
    as_csv = pages(ddb.endpoint_url, *args, "--format", "csv")
    assert as_csv.returncode == 0 and as_csv.stdout == b"pk,sk\r\n"
    as_json = pages(ddb.endpoint_url, *args, "--format", "json")
    assert as_json.returncode == 0 and json.loads(as_json.stdout) == []


def test_max_pages_holds_those_pages_items(ddb: Any, truth: list[dict]) -> None:
    result = pages(ddb.endpoint_url, *QUERY, "--format", "csv", "--page-size", "3")
    limited = pages(
        ddb.endpoint_url, *QUERY, "--format", "csv", "--page-size", "3", "--max-pages", "2"
    )
    assert limited.returncode == 0, limited.stderr
    rows = read_csv(limited.stdout)
    assert [r[1] for r in rows[1:]] == [i["sk"]["N"] for i in truth[:6]]
    assert len(read_csv(result.stdout)) == len(truth) + 1


class FailsAfter(FaultProxy):
    """Forwards ``ok`` Query calls, then answers every one with HTTP 500."""

    def __init__(self, upstream: str, ok: int) -> None:
        super().__init__(upstream, fault_rate=0.0)
        self.ok = ok

    def _choose(self, operation: str, reader: object = None) -> str | None:
        with self.lock:
            return "500" if operation == "Query" and self.forwarded["Query"] >= self.ok else None


def test_a_read_that_fails_midway_writes_no_row(ddb: Any, table: str) -> None:
    def fail_on_page_3(output: str) -> subprocess.CompletedProcess:
        with FailsAfter(ddb.endpoint_url, ok=2) as proxy:
            args = [*QUERY, "--page-size", "5", "--max-attempts", "1", "--format", output]
            result = pages(proxy.endpoint_url, *args)
        assert proxy.forwarded["Query"] == 2 and proxy.faults["500"] == 1
        return result

    as_csv = fail_on_page_3("csv")
    assert as_csv.returncode == 1 and as_csv.stdout == b""  # never fewer rows and exit 0
    assert as_csv.stderr.decode().count("\n") == 1
    as_json = fail_on_page_3("json")
    assert as_json.returncode == 1
    assert as_json.stdout.startswith(b"[\n") and not as_json.stdout.rstrip().endswith(b"]")
    with pytest.raises(json.JSONDecodeError):
        json.loads(as_json.stdout)  # a cut array is not mistaken for the whole


def test_csv_to_a_terminal_is_refused_before_any_call(ddb: Any, table: str) -> None:
    master, slave = pty.openpty()
    try:
        with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
            result = pages(proxy.endpoint_url, *QUERY, "--format", "csv", stdout=slave)
    finally:
        os.close(slave)
        os.close(master)
    assert result.returncode == 2
    said = result.stderr.decode()
    assert said.count("\n") == 1 and "send it to a file or a pipe" in said
    assert proxy.arrived == 0


def test_plain_with_csv_is_refused(ddb: Any) -> None:
    result = pages(ddb.endpoint_url, *QUERY, "--format", "csv", "--plain")
    assert result.returncode == 2 and b"--plain is for jsonl and json" in result.stderr
    assert result.stdout == b""


def test_partiql_csv_leads_with_the_tables_keys(
    ddb: Any, client: Any, table: str, big_fields: None
) -> None:
    statement = f'SELECT * FROM "{TABLE}" WHERE pk = ?'
    truth = [
        item
        for response in responses(
            client.execute_statement,
            more="NextToken",
            start="NextToken",
            Statement=statement,
            Parameters=[{"S": "p"}],
        )
        for item in response["Items"]
    ]
    result = pages(
        ddb.endpoint_url,
        "--statement",
        statement,
        "--parameters",
        '[{"S": "p"}]',
        "--format",
        "csv",
        "--page-size",
        "10",
    )
    assert result.returncode == 0, result.stderr
    rows = read_csv(result.stdout)
    assert rows[0] == expected_header(truth, ["pk", "sk"])
    assert len(rows) - 1 == len(truth)
    for row, item in zip(rows[1:], truth, strict=True):
        for name, cell in zip(rows[0], row, strict=True):
            if name in item:
                assert_cell(cell, item[name])
            else:
                assert cell == ""


def test_postgres_csv_holds_the_servers_text(pg_uri: str, pg_admin: Any) -> None:
    command = [sys.executable, "-m", "dynotui", "pages", "--postgres", pg_uri, "--table", "ticks"]
    command += ["--order", "ticks_at_id", "--format", "csv", "--page-size", "50"]
    result = subprocess.run(
        command,
        capture_output=True,
        env=ENV,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    rows = read_csv(result.stdout)
    assert rows[0][:2] == ["at", "id"] and sorted(rows[0][2:]) == ["amount", "label"]
    got = [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]
    expected = pg_admin.execute(
        "SELECT id::text, amount::text, coalesce(label, '') FROM ticks ORDER BY ticks.at, ticks.id"
    ).fetchall()
    assert [(r["id"], r["amount"], r["label"]) for r in got] == [tuple(r) for r in expected]


def test_csv_rows_wait_on_disk_until_finish() -> None:
    """Nothing is written before the last item; the header then names every column."""
    out = io.StringIO()
    writer = CsvItems(out, ["k"], str)
    writer.add({"k": n, f"a{n % 50}": "v"} for n in range(1000))
    assert out.getvalue() == "" and writer.count == 1000
    writer.add([{"late": "x"}])
    writer.finish()
    rows = read_csv(out.getvalue().encode())
    assert rows[0] == ["k"] + [f"a{n}" for n in range(50)] + ["late"]
    assert len(rows) == 1002 and all(len(r) == 52 for r in rows)
    assert rows[-1] == [""] * 51 + ["x"]


def test_json_array_writer_streams() -> None:
    out = io.StringIO()
    writer = JsonArrayItems(out, json.dumps)
    writer.add([{"a": 1}])
    assert out.getvalue() == '[\n{"a": 1}'
    writer.add([{"b": 2}])
    writer.finish()
    assert json.loads(out.getvalue()) == [{"a": 1}, {"b": 2}]
