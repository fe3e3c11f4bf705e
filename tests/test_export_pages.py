"""``dynotui pages --from-export``: the same items in the same order as a boto3 Query on
DynamoDB Local, both directions, on the table and on GSIs (number, string and binary sort
keys chosen for their order), from an export the test writes itself, on disk and on
moto's S3 server; signed tokens resume; every page says it came from an export."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from export_layout import MotoS3, scan_all, upload_export, wire, write_export
from helpers import drain, page_lines, run_in_process

from dynotui.local.tables import Index, create_table, table_definition, write_items

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}
TABLE = "export-keys"
EDGES = [
    "1E-130",
    "-1E-130",
    "9.9999999999999999999999999999999999999E+125",
    "-9.9999999999999999999999999999999999999E+125",
    "12345678901234567890123456789012345678",
    "12345678901234567890123456789012345679",
    "0",
    "0.5",
    "-0.5",
    "10",
    "9",
]
LETTERS = ["a", "b", "Z", "é", "\uffff", "\U0001f600", "0", "~", "\x7f", "z"]
KEYS = [
    "--key-schema",
    "pk:S,sk:N",
    "--key-schema",
    "by_word=grp:S,word:S",
    "--key-schema",
    "by_blob=grp:S,blob:B",
]


def key_items() -> list[dict[str, Any]]:
    rng = random.Random(2029)
    numbers = list(EDGES)
    while len(numbers) < 160:
        text = str(Decimal(rng.randint(-(10**9), 10**9)) / 10 ** rng.randint(0, 12))
        if all(Decimal(text) != Decimal(n) for n in numbers):
            numbers.append(text)
    words: set[str] = set()
    blobs: set[bytes] = {b"\x00", b"\x7f", b"\x80", b"\xff", b"\x80\x00"}
    items = []
    for n, number in enumerate(numbers):
        item: dict[str, Any] = {"pk": "a" if n % 2 else "b", "sk": Decimal(number), "n": n}
        item["grp"] = "g"
        if n % 5:
            word = ""
            while not word or word in words:
                word = "".join(rng.choice(LETTERS) for _ in range(rng.randint(1, 4)))
            words.add(word)
            item["word"] = word
        if n % 3:
            blob = b""
            while not blob or blob in blobs:
                blob = bytes(rng.randrange(256) for _ in range(rng.randint(1, 3)))
            blobs.add(blob)
            item["blob"] = blob
        item["note"] = f"item {n}"
        items.append(item)
    return items


@pytest.fixture(scope="module")
def keyed(client: Any) -> str:
    create_table(
        client,
        table_definition(
            TABLE,
            ("pk", "S"),
            ("sk", "N"),
            global_indexes=(
                Index("by_word", ("grp", "S"), ("word", "S")),
                Index("by_blob", ("grp", "S"), ("blob", "B"), "KEYS_ONLY"),
            ),
        ),
    )
    write_items(client, TABLE, key_items())
    return TABLE


@pytest.fixture(scope="module")
def exported(client: Any, keyed: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_export(tmp_path_factory.mktemp("keys"), scan_all(client, keyed), table=keyed)


def pages(*args: str, env: dict | None = None) -> list[dict]:
    result = run_in_process(["pages", *args], env={**ENV, **(env or {})})
    assert result.returncode == 0, result.stderr
    return page_lines(result.stdout)


def items(lines: list[dict]) -> list[dict]:
    return [item for line in lines for item in line["items"]]


def query(client: Any, **params: Any) -> list[dict]:
    return [
        {k: wire(v) for k, v in item.items()} for item in drain(client, TableName=TABLE, **params)
    ]


CASES = [
    # (index, key condition, values, dynotui's extra flags)
    (None, "pk = :p", {":p": {"S": "a"}}, []),
    (None, "pk = :p", {":p": {"S": "b"}}, []),
    (
        None,
        "pk = :p AND sk BETWEEN :lo AND :hi",
        {":p": {"S": "a"}, ":lo": {"N": "-1"}, ":hi": {"N": "1E+20"}},
        [],
    ),
    ("by_word", "grp = :g", {":g": {"S": "g"}}, []),
    ("by_word", "grp = :g AND word > :w", {":g": {"S": "g"}, ":w": {"S": "b"}}, []),
    ("by_blob", "grp = :g", {":g": {"S": "g"}}, []),
]


@pytest.mark.parametrize("forward", [True, False])
@pytest.mark.parametrize(("index", "condition", "values", "extra"), CASES)
def test_pages_follow_a_query_order(client, exported, index, condition, values, extra, forward):
    params: dict[str, Any] = {
        "KeyConditionExpression": condition,
        "ExpressionAttributeValues": values,
        "ScanIndexForward": forward,
    }
    flags = [
        "--key-condition-expression",
        condition,
        "--expression-attribute-values",
        json.dumps(values),
        *extra,
    ]
    if index:
        params["IndexName"] = index
        flags += ["--index-name", index]
    if not forward:
        flags.append("--no-scan-index-forward")
    truth = query(client, **params)
    assert len(truth) > 20
    lines = pages("--from-export", str(exported), *KEYS, "--page-size", "7", *flags)
    found = items(lines)
    if index == "by_blob":  # KEYS_ONLY; --key-schema does not say so, so all come back
        found = [{k: v for k, v in item.items() if k in truth[0]} for item in found]
    assert found == truth, "the same items, in the same order"
    assert all(line["source"] == "export" and line["read_units"] == 0 for line in lines)
    assert all(line["export_time"].startswith("2026-11-04T07:28:34") for line in lines)
    assert [line["shown"] for line in lines[:-1]] == [7] * (len(lines) - 1)
    assert lines[-1]["has_next"] is False and all(li["has_next"] for li in lines[:-1])
    assert lines[0]["bytes_read"] > 0 and all(li["bytes_read"] == 0 for li in lines[1:])


def test_a_filter_and_a_token_resume(client, exported) -> None:
    values = {":p": {"S": "a"}, ":z": {"N": "60"}}
    truth = query(
        client,
        KeyConditionExpression="pk = :p",
        FilterExpression="n > :z",
        ExpressionAttributeValues=values,
    )
    flags = [
        "--from-export",
        str(exported),
        *KEYS,
        "--key-condition-expression",
        "pk = :p",
        "--filter-expression",
        "n > :z",
        "--expression-attribute-values",
        json.dumps(values),
        "--page-size",
        "5",
    ]
    first = pages(*flags, "--max-pages", "2")
    rest = pages(*flags, "--starting-token", first[-1]["next_token"])
    assert items(first) + items(rest) == truth
    assert rest[0]["page"] == 1 and rest[0]["start_key"] == first[-1]["next_start_key"]


def test_describe_table_gives_the_key_schema_and_projection(client, ddb, exported) -> None:
    """No --key-schema: DescribeTable of the export's table on the live endpoint; a
    KEYS_ONLY index's pages hold its keys alone, as the index's Query does."""
    values = {":g": {"S": "g"}}
    truth = query(
        client,
        IndexName="by_blob",
        KeyConditionExpression="grp = :g",
        ExpressionAttributeValues=values,
    )
    assert set(truth[0]) == {"grp", "blob", "pk", "sk"}
    lines = pages(
        "--from-export",
        str(exported),
        "--endpoint-url",
        ddb.endpoint_url,
        "--index-name",
        "by_blob",
        "--key-condition-expression",
        "grp = :g",
        "--expression-attribute-values",
        json.dumps(values),
        "--page-size",
        "50",
    )
    assert items(lines) == truth


def test_pages_from_s3(client, keyed) -> None:
    values = {":p": {"S": "b"}}
    truth = query(
        client,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues=values,
        ScanIndexForward=False,
    )
    with MotoS3() as s3:
        storage = s3.client()
        storage.create_bucket(Bucket="keys-bucket")
        url = upload_export(storage, "keys-bucket", scan_all(client, keyed), table=keyed)
        lines = pages(
            "--from-export",
            url,
            *KEYS,
            "--key-condition-expression",
            "pk = :p",
            "--expression-attribute-values",
            json.dumps(values),
            "--no-scan-index-forward",
            "--page-size",
            "30",
            env=s3.env(),
        )
    assert items(lines) == truth


def test_pages_refuse_what_an_export_does_not_do(exported) -> None:
    for args, words in [
        (["--mode", "fill"], "drop --mode"),
        (["--segments", "2"], "drop --segments"),
        (["--exclusive-start-key", "{}"], "drop --exclusive-start-key"),
        (["--projection-expression", "a.b"], "nested paths"),
        (
            [
                "--key-condition-expression",
                "pk = :p",
                "--filter-expression",
                "sk > :p",
                "--expression-attribute-values",
                '{":p": {"S": "a"}}',
            ],
            "may not test the order's key attributes (sk)",
        ),
    ]:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "dynotui",
                "pages",
                "--from-export",
                str(exported),
                *KEYS,
                *([] if "--key-condition-expression" in args else ["--scan"]),
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=ENV,
        )
        assert result.returncode == 2 and words in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1


def test_a_report_of_an_export_has_its_pages_and_partitions(exported, tmp_path) -> None:
    values = {":p": {"S": "a"}}
    base = tmp_path / "from-export"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "dynotui",
            "report",
            "--from-export",
            str(exported),
            *KEYS,
            "--key-condition-expression",
            "pk = :p",
            "--expression-attribute-values",
            json.dumps(values),
            "--page-size",
            "20",
            "--partitions",
            "3",
            "--output",
            str(base),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=ENV,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    side = out["sides"][0]
    assert side["totals"]["count"] == 80 and side["totals"]["cost"] == 0.0
    markdown = Path(out["markdown"]).read_text()
    html = Path(out["html"]).read_text()
    assert "not live data" in markdown and "2026-11-04T07:28:34" in markdown
    assert "The largest partitions (the base table, by bytes)" in markdown
    # Both partitions of the table, each with its 80 items, whatever the key condition.
    assert markdown.count("| 80 | 50.0% |") == 2
    assert "The largest partitions" in html and "not live data" in html
    assert "export-table-to-point-in-time" in markdown and "CREATE EXTERNAL TABLE" in markdown
    assert "count_if(" in markdown


def test_an_export_source_under_the_core_pager(client, exported) -> None:
    """What the app will drive: the generic Pager over an export, forward, back (from the
    stack), and a fresh re-read of an earlier page, in the boto3 Query's order."""
    from dynotui.core.pager import Pager
    from dynotui.dynamodb.spec import from_expressions
    from dynotui.table_export.keys import parse_key_schema
    from dynotui.table_export.reading import OpenExport
    from dynotui.table_export.source import ExportSource

    values = {":p": {"S": "a"}}
    truth = query(client, KeyConditionExpression="pk = :p", ExpressionAttributeValues=values)
    spec = from_expressions(TABLE, key_condition="pk = :p", values=values, page_size=9)
    schema = parse_key_schema(["pk:S,sk:N"], TABLE)
    with OpenExport(str(exported)) as opened:
        source = ExportSource(opened, spec, schema)
        assert source.scope() != spec.scope(), "an export's cursors open no live read"
        pager = Pager(source)
        first, second = pager.next(), pager.next()
        assert pager.prev().cached and pager.number == 1
        again = pager.go(2, fresh=True)
        rest = []
        while pager.can_advance:
            rest.append(pager.next())

    def shown(pages: list) -> list[dict]:
        return [{k: wire(v) for k, v in item.items()} for p in pages for item in p.items]

    assert shown([first, second]) == truth[:18] and shown([again]) == shown([second])
    assert shown([first, second, *rest]) == truth
    assert first.cost.bytes_read > 0 and again.cost.bytes_read == 0


def test_an_exports_item_count_is_its_own_not_the_live_tables(client, ddb, tmp_path) -> None:
    """The order picker's counts on an export: DescribeTable gives the live table's keys,
    but the count is the export's (its manifest), exact, though the table grew since."""
    from dynotui.cli.main import build_parser
    from dynotui.cli.table_export_options import export_schema, open_export

    table = "export-counted"
    create_table(
        client,
        table_definition(
            table, ("pk", "S"), ("sk", "N"), global_indexes=(Index("by_n", ("g", "S"), ("n", "N")),)
        ),
    )
    write_items(client, table, [{"pk": "p", "sk": n, "g": "g", "n": n} for n in range(37)])
    exported_items = scan_all(client, table)
    folder = write_export(tmp_path, exported_items, table=table)
    write_items(client, table, [{"pk": "q", "sk": n} for n in range(5)])  # after the export
    live = len(scan_all(client, table))
    argv = ["--from-export", str(folder), "--endpoint-url", ddb.endpoint_url]
    args = build_parser(argv).parse_args(argv)
    with open_export(args) as opened:
        schema = export_schema(args, opened, required=True)
    assert schema is not None
    assert (len(exported_items), live) == (37, 42)
    assert schema.item_count == schema.base.item_count == len(exported_items)
    assert schema.item_count_text(schema.base.item_count) == "37", "exact: no ~"
    assert "as of the export" in schema.item_count_note()
    assert [o.name for o in schema.orders] == ["table", "by_n"], "DescribeTable's orders"
    assert schema.order("by_n").item_count is None, "an index's count needs a count"
