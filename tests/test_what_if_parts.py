"""The estimate's parts, each against DynamoDB Local's own reading: item sizes (write units
at the 1 KB boundary), filters (which items DynamoDB keeps), the rewrite's refusals, the
update-table command as the AWS CLI runs it, and now.* against ``dynotui pages``."""

from __future__ import annotations

import base64
import itertools
import json
import os
import subprocess
from typing import Any

import pytest
from helpers import run_in_process

from dynotui.core.errors import InputError
from dynotui.dynamodb.condition import parse_condition
from dynotui.dynamodb.dynamo_json import from_wire, to_wire
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.spec import from_expressions
from dynotui.dynamodb.what_if.evaluate import holds
from dynotui.dynamodb.what_if.item_size import item_size, number_size
from dynotui.dynamodb.what_if.rewrite import ImaginedIndex, rewrite
from dynotui.local import demo
from dynotui.local.tables import create_table, table_definition

ODD_VALUES: list[dict[str, Any]] = [
    {"S": "é"},
    {"S": "x" * 37},
    {"N": "0"},
    {"N": "-1"},
    {"N": "1.5"},
    {"N": "100.1"},
    {"N": "12345.678"},
    {"N": "1E+5"},
    {"N": "-0.0001"},
    {"N": "9" * 38},
    {"B": b"\x00\xff" * 9},
    {"BOOL": True},
    {"NULL": True},
    {"SS": ["a", "bb", "ccc"]},
    {"NS": ["1", "-2.5", "300"]},
    {"BS": [b"x", b"yy"]},
    {"L": []},
    {"M": {}},
    {"L": [{"S": "x"}, {"N": "12"}, {"M": {"k": {"BOOL": False}}}]},
    {"M": {"a": {"L": [{"NULL": True}]}, "bé": {"S": "z"}}},
]


@pytest.fixture(scope="module")
def boundary_table(client: Any) -> str:
    name = "what-if-sizes"
    create_table(client, table_definition(name, ("k", "S")))
    return name


def test_item_size_is_dynamodb_locals_at_the_write_unit_boundary(
    client: Any, boundary_table: str
) -> None:
    """Padded to exactly 1,024 bytes by our count the put costs one unit; one byte more,
    two. Both are what DynamoDB Local charges only if the count is exact."""
    keys = (f"k{n:04d}" for n in itertools.count())
    for value in ODD_VALUES:
        for extra, units in ((0, 1.0), (1, 2.0)):
            item = {"k": {"S": next(keys)}, "vé": value}
            pad = 1024 - item_size(item) - len("p") + extra
            assert pad > 0
            item["p"] = {"S": "a" * pad}
            assert item_size(item) == 1024 + extra
            consumed = client.put_item(
                TableName=boundary_table, Item=item, ReturnConsumedCapacity="TOTAL"
            )["ConsumedCapacity"]["CapacityUnits"]
            assert consumed == units, (value, extra)


def test_number_size_follows_the_pairs_of_digits() -> None:
    assert [number_size(n) for n in ("7", "15", "1.5", "0.05", "-15", "1000")] == [
        2,
        2,
        3,
        2,
        3,
        2,
    ]


FILTERS = [
    ("v = :s", {":s": {"S": "é"}}),
    ("v <> :s", {":s": {"S": "é"}}),
    ("v < :n", {":n": {"N": "50"}}),
    ("v >= :n", {":n": {"N": "1.5"}}),
    ("NOT v > :n", {":n": {"N": "0"}}),
    ("v BETWEEN :a AND :b", {":a": {"N": "-5"}, ":b": {"N": "200"}}),
    ("v BETWEEN :a AND :b", {":a": {"S": "a"}, ":b": {"S": "z"}}),
    ("v IN (:a, :b, :c)", {":a": {"N": "0"}, ":b": {"BOOL": True}, ":c": {"S": "é"}}),
    ("attribute_exists(v)", {}),
    ("attribute_not_exists(v)", {}),
    ("attribute_type(v, :t)", {":t": {"S": "N"}}),
    ("attribute_type(v, :t)", {":t": {"S": "SS"}}),
    ("begins_with(v, :p)", {":p": {"S": "x"}}),
    ("begins_with(v, :p)", {":p": {"B": base64.b64encode(b"\x00").decode()}}),
    ("contains(v, :e)", {":e": {"S": "bb"}}),
    ("contains(v, :e)", {":e": {"N": "-2.5"}}),
    ("contains(v, :e)", {":e": {"S": "x"}}),
    ("size(v) > :n", {":n": {"N": "2"}}),
    ("size(v) = :n", {":n": {"N": "1"}}),
    ("v[0] = :s", {":s": {"S": "x"}}),
    ("v.a[0] = :z", {":z": {"NULL": True}}),
    ("v = :l", {":l": {"L": [{"S": "x"}, {"N": "12.0"}, {"M": {"k": {"BOOL": False}}}]}}),
    ("v = :ns", {":ns": {"NS": ["300", "1", "-2.5"]}}),
    ("(v < :n OR v > :m) AND attribute_exists(v)", {":n": {"N": "0"}, ":m": {"N": "100"}}),
]


@pytest.fixture(scope="module")
def odd_table(client: Any) -> str:
    name = "what-if-odd"
    create_table(client, table_definition(name, ("pk", "S"), ("sk", "N")))
    for n, value in enumerate([*ODD_VALUES, None]):
        item: dict[str, Any] = {"pk": {"S": "p"}, "sk": {"N": str(n)}}
        if value is not None:
            item["v"] = value
        client.put_item(TableName=name, Item=item)
    return name


@pytest.mark.parametrize(("text", "wire"), FILTERS)
def test_filters_keep_what_dynamodb_keeps(
    client: Any, odd_table: str, text: str, wire: dict[str, Any]
) -> None:
    values = {":pk": {"S": "p"}, **from_wire(wire)}
    response = client.query(
        TableName=odd_table,
        KeyConditionExpression="pk = :pk",
        FilterExpression=text,
        ExpressionAttributeValues=values,
    )
    kept = {item["sk"]["N"] for item in response["Items"]}
    everything = client.query(
        TableName=odd_table,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": "p"}},
    )["Items"]
    tree = parse_condition(text, {}, {k: to_wire({"v": v})["v"] for k, v in values.items()})
    assert {item["sk"]["N"] for item in everything if holds(tree, item)} == kept


def test_no_equality_on_the_partition_key_is_refused_in_words(client: Any, demo_table: str) -> None:
    schema = describe_table(client, demo_table)
    spec = from_expressions(
        demo_table,
        key_condition="customer = :c",
        filter="status <> :r",
        values={":c": {"S": "acme"}, ":r": {"S": "RETURNED"}},
    )
    with pytest.raises(InputError, match="no condition of this query tests 'status' with '='"):
        rewrite(spec, ImaginedIndex("status"), schema)
    with pytest.raises(InputError, match="already has an index 'by_status'"):
        ImaginedIndex("status", name="by_status").check(schema)
    with pytest.raises(InputError, match="'customer' is defined as S"):
        ImaginedIndex("customer", partition_type="N").check(schema)
    with pytest.raises(InputError, match="INCLUDE needs --include"):
        ImaginedIndex("status", projection="INCLUDE").check(schema)


def what_if_cli(ddb: Any, *args: str) -> subprocess.CompletedProcess:
    return run_in_process(["what-if", "--endpoint-url", ddb.endpoint_url, *args])


RARE = [
    "--table-name",
    demo.TABLE,
    "--key-condition-expression",
    "customer = :c",
    "--filter-expression",
    "status = :r",
    "--expression-attribute-values",
    json.dumps({":c": {"S": "c007"}, ":r": {"S": "DELIVERED"}}),
]


def test_now_is_what_pages_reads(ddb: Any, demo_table: str) -> None:
    for mode, size in (("raw", "4"), ("fill", "3")):
        paging = ["--mode", mode, "--page-size", size]
        pages = run_in_process(
            ["pages", "--endpoint-url", ddb.endpoint_url, "--no-tokens", *RARE, *paging]
        )
        assert pages.returncode == 0, pages.stderr
        lines = [json.loads(line) for line in pages.stdout.splitlines()]
        summary = lines[-1]["summary"]
        shown = sum(line["shown"] for line in lines[:-1])
        result = what_if_cli(ddb, *RARE, *paging, "--partition-key", "status", "--json")
        assert result.returncode == 0, result.stderr
        now = json.loads(result.stdout)["now"]
        assert now["pages"] == summary["pages"]
        assert now["read_units"] == summary["totals"]["cost"]
        assert now["scanned_count"] == summary["totals"]["scanned_count"]
        assert now["matches"] == shown
        assert now["read_units_per_page"]["p99"] == summary["measures"]["capacity_per_page"]["p99"]


def test_a_key_with_its_type_is_the_key_and_its_type(ddb: Any, demo_table: str) -> None:
    # 'total:N' was taken as an attribute's name: no item holds it, and the imagined index
    # came out empty (0 matches, 0 read units) beside a note few would read.
    spelled = ["--partition-key", "status", "--sort-key", "total", "--sort-key-type", "N"]
    results = [
        what_if_cli(ddb, *RARE, *keys, "--json")
        for keys in (spelled, ["--partition-key", "status:S", "--sort-key", "total:N"])
    ]
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    first, second = (json.loads(r.stdout)["what_if"] for r in results)
    assert first["matches"] > 0
    assert second == first
    # With the type flag given, the whole is the name: an attribute no item holds.
    named = what_if_cli(
        ddb,
        *RARE,
        "--partition-key",
        "status",
        "--sort-key",
        "total:N",
        "--sort-key-type",
        "N",
        "--json",
    )
    assert named.returncode == 0, named.stderr
    assert json.loads(named.stdout)["what_if"]["matches"] == 0


def test_bad_input_is_one_line_and_exit_2(ddb: Any, demo_table: str) -> None:
    cases = [
        ([*RARE, "--partition-key", "status", "--max-read-units", "0"], "--max-read-units"),
        ([*RARE], "--partition-key is required"),
        ([*RARE, "--partition-key", "total"], "no condition of this query tests 'total'"),
        ([*RARE, "--partition-key", "status", "--include", "a"], "--include goes with"),
        ([*RARE, "--partition-key", "status", "--sort-key", "status"], "must differ"),
        # A key and its type (total:N): the same key twice once its type is read off.
        ([*RARE, "--partition-key", "status:S", "--sort-key", "status"], "must differ"),
        # Not a type: the whole is the name, which no condition tests.
        ([*RARE, "--partition-key", "status:X"], "tests 'status:X'"),
        ([*RARE, "--partition-key", ":S"], "tests ':S'"),
        # The type read off disagrees with the table's definition of the key.
        ([*RARE, "--partition-key", "customer:N"], "defined as S"),
    ]
    for args, words in cases:
        result = what_if_cli(ddb, *args)
        assert result.returncode == 2, result.stderr
        assert words in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_the_update_table_command_runs_in_the_aws_cli(
    ddb: Any, client: Any, demo_table: str
) -> None:
    """The AWS CLI's own parsing of what --code cli prints, against a copy table."""
    result = what_if_cli(
        ddb, *RARE, "--partition-key", "status", "--sort-key", "customer", "--code", "cli"
    )
    assert result.returncode == 0, result.stderr
    command = result.stdout
    assert "aws dynamodb update-table" in command
    copy = "what-if-cli-copy"
    create_table(client, table_definition(copy, ("customer", "S"), ("order_no", "S")))
    command = command.replace(f"--table-name {demo.TABLE}", f"--table-name {copy}")
    ran = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        timeout=120,
        env={
            **os.environ,
            "AWS_ACCESS_KEY_ID": "dynotui",
            "AWS_SECRET_ACCESS_KEY": "dynotui",
            "AWS_DEFAULT_REGION": "us-east-1",
        },
    )
    assert ran.returncode == 0, ran.stderr
    (index,) = client.describe_table(TableName=copy)["Table"]["GlobalSecondaryIndexes"]
    assert index["IndexName"] == "status-customer-index"
    assert index["KeySchema"] == [
        {"AttributeName": "status", "KeyType": "HASH"},
        {"AttributeName": "customer", "KeyType": "RANGE"},
    ]
    assert index["Projection"] == {"ProjectionType": "ALL"}


def test_report_includes_a_saved_what_if_and_refuses_a_bad_one(
    ddb: Any, demo_table: str, tmp_path: Any
) -> None:
    hostile = [
        "--table-name",
        demo.TABLE,
        "--key-condition-expression",
        "customer = :c",
        "--filter-expression",
        "status = :r",
        "--expression-attribute-values",
        json.dumps({":c": {"S": "c007"}, ":r": {"S": "<script>x</script>\x1b[2J"}}),
    ]
    found = what_if_cli(ddb, *hostile, "--partition-key", "status", "--json")
    assert found.returncode == 0, found.stderr
    saved = tmp_path / "estimate.json"
    saved.write_text(found.stdout)
    estimate = json.loads(found.stdout)

    def report(*args: str) -> subprocess.CompletedProcess:
        return run_in_process(
            [
                "report", "--endpoint-url", ddb.endpoint_url,
                *args, "--output", str(tmp_path / "r"), "--no-tokens",
            ]
        )  # fmt: skip

    made = report(*hostile, "--what-if", str(saved))
    assert made.returncode == 0, made.stderr
    html = (tmp_path / "r.html").read_text()
    markdown = (tmp_path / "r.md").read_text()
    start = markdown.index("## What if: GSI status-index")
    section = markdown[start : markdown.index("\n## ", start + 1)]  # code fences hold data
    for text in (html, section):
        assert "aws dynamodb update-table" in text
        assert "<script>x" not in text and "\x1b" not in text
    assert "What if: GSI status-index" in html
    assert "&lt;script&gt;x" in html
    pages = estimate["what_if"]["pages"]
    assert f"| pages | {estimate['now']['pages']:,} | {pages:,} \\* |" in markdown
    other = [*hostile]
    other[1] = "another-table"  # refused before any call: it need not exist
    for args, words in (
        ([*other, "--what-if", str(saved)], "estimates table 'dynotui-demo-orders'"),
        ([*hostile, "--what-if", str(tmp_path / "missing.json")], "--what-if"),
    ):
        refused = report(*args)
        assert refused.returncode == 2, refused.stderr
        assert words in refused.stderr
    saved.write_text(json.dumps({**estimate, "now": {**estimate["now"], "pages": "many"}}))
    refused = report(*hostile, "--what-if", str(saved))
    assert refused.returncode == 2
    assert "now.pages is not a figure" in refused.stderr
