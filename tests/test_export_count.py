"""``dynotui count --from-export`` against DynamoDB Local's own Scan of the same filter, on
an export the test writes itself (on disk, and on moto's S3 server on loopback): the same
count, with DynamoDB's semantics of types (a number never equals a string, a missing
attribute fails a comparison), no read units, and the bytes read."""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from export_layout import scan_all, write_export
from helpers import run_in_process
from hypothesis import given, settings
from hypothesis import strategies as st

from dynotui.dynamodb.spec import from_expressions
from dynotui.local.tables import Index, create_table, table_definition, write_items
from dynotui.table_export.count import count_export
from dynotui.table_export.reading import OpenExport

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}
TABLE = "export-mixed"
# Strings chosen for byte order: é (C3 A9) after z, U+FFFF before an emoji (F0 ...).
WORDS = ["a", "ab", "z", "é", "\uffff", "\U0001f600", "5", "10", "", "x\x1b[31m"]
NUMBERS = [
    "5",
    "10",
    "-3",
    "0",
    "0.001",
    "1E-130",
    "-9.9999999999999999999999999999999999999E+125",
    "12345678901234567890123456789012345678",
    "3",
    "2.5",
]


def mixed_items() -> list[dict[str, Any]]:
    rng = random.Random(29)
    items = []
    for n in range(400):
        item: dict[str, Any] = {"pk": f"p{n % 23}", "sk": Decimal(n)}
        kind = n % 5
        if kind == 0:
            item["v"] = Decimal(rng.choice(NUMBERS))
        elif kind == 1:
            item["v"] = rng.choice(WORDS) or "nonempty"
        elif kind == 2:
            item["v"] = bytes([rng.randrange(256) for _ in range(rng.randint(1, 4))])
        elif kind == 3:
            item["v"] = rng.choice([True, False, None])
        if n % 3 == 0:
            item["w"] = item.get("v") if n % 2 else Decimal(5)
        item["tags"] = set(rng.sample(["red", "green", "blue", "é"], rng.randint(1, 3)))
        item["nums"] = {Decimal(rng.choice(["3", "4", "10"])), Decimal(n)}
        item["l"] = [rng.choice(["x", "y"]), Decimal(rng.choice(["1", "2"])), n % 2 == 0]
        item["m"] = {"inside": rng.choice(["in", "out"]), "n": Decimal(n % 7)}
        if n % 4 == 0:
            item["g"] = rng.choice(["ga", "gb"])
            item["gs"] = Decimal(rng.randint(1, 50))
        if n % 6 == 0:
            item["bin"] = bytes([0x7F, 0x80, n % 256])
        items.append(item)
    return items


@pytest.fixture(scope="module")
def mixed(client: Any) -> str:
    create_table(
        client,
        table_definition(
            TABLE,
            ("pk", "S"),
            ("sk", "N"),
            global_indexes=(Index("by_g", ("g", "S"), ("gs", "N")),),
        ),
    )
    write_items(client, TABLE, mixed_items())
    return TABLE


@pytest.fixture(scope="module")
def export_dir(client: Any, mixed: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_export(tmp_path_factory.mktemp("exp"), scan_all(client, mixed), table=mixed)


def scan_count(client: Any, **params: Any) -> int:
    total, params = 0, {"TableName": TABLE, "Select": "COUNT", **params}
    while True:
        response = client.scan(**params)
        total += response["Count"]
        if "LastEvaluatedKey" not in response:
            return total
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


V = {
    ":n": {"N": "5"},
    ":s": {"S": "5"},
    ":ten": {"N": "10"},
    ":sz": {"S": "z"},
    ":lo": {"N": "-1"},
    ":hi": {"N": "6"},
    ":slo": {"S": "a"},
    ":shi": {"S": "é"},
    ":tN": {"S": "N"},
    ":tB": {"S": "B"},
    ":tNULL": {"S": "NULL"},
    ":tSS": {"S": "SS"},
    ":pre": {"S": "a"},
    ":bpre": {"B": bytes([0x7F])},
    ":b": {"B": bytes([0x80])},
    ":red": {"S": "red"},
    ":e": {"S": "é"},
    ":three": {"N": "3.0"},
    ":one": {"N": "1"},
    ":x": {"S": "x"},
    ":true": {"BOOL": True},
    ":two": {"N": "2"},
    ":in": {"S": "in"},
    ":tiny": {"N": "1E-129"},
    ":big": {"N": "1E+125"},
    ":sub": {"S": "b"},
    ":set": {"SS": ["red", "green"]},
    ":nset": {"NS": ["3", "10"]},
    ":zero": {"N": "0"},
}

FILTERS = [
    "v = :n",
    "v = :s",
    "v < :ten",
    "v >= :sz",
    "v <> :n",
    "v <> :s",
    "NOT v = :n",
    "NOT (v < :ten)",
    "attribute_exists(v)",
    "attribute_not_exists(v)",
    "attribute_type(v, :tN)",
    "attribute_type(v, :tB)",
    "attribute_type(v, :tNULL)",
    "attribute_type(tags, :tSS)",
    "v BETWEEN :lo AND :hi",
    "v BETWEEN :slo AND :shi",
    "v IN (:n, :s, :ten)",
    "begins_with(v, :pre)",
    "begins_with(v, :bpre)",
    "contains(v, :sub)",
    "contains(v, :b)",
    "contains(bin, :b)",
    "contains(tags, :red)",
    "contains(tags, :e)",
    "contains(nums, :three)",
    "contains(l, :x)",
    "contains(l, :one)",
    "contains(l, :true)",
    "size(v) > :one",
    "size(tags) = :two",
    "size(m) >= :two",
    "size(l) = :three",
    "m.inside = :in",
    "m.n < :two",
    "l[1] = :two",
    "l[2] = :true",
    "v = :true",
    "v < :b",
    "bin < :b",
    "v > :tiny",
    "v < :big",
    "v = w",
    "v <> w",
    "v < w",
    "tags = :set",
    "nums = :nset",
    "v = :n OR attribute_not_exists(v)",
    "(v > :zero AND v < :ten) OR begins_with(v, :pre)",
]


def names_values(expression: str) -> dict[str, Any]:
    used = {k: V[k] for k in re.findall(r":\w+", expression)}
    return {"ExpressionAttributeValues": used} if used else {}


@pytest.mark.parametrize("expression", FILTERS)
def test_counts_as_dynamodb_does(client, export_dir, expression) -> None:
    params = names_values(expression)
    truth = scan_count(client, FilterExpression=expression, **params)
    spec = from_expressions(
        TABLE, scan=True, filter=expression, values=params.get("ExpressionAttributeValues", {})
    )
    with OpenExport(str(export_dir)) as opened:
        found = count_export(opened, spec, None)
    assert found.count == truth, expression
    assert found.scanned == 400 and found.bytes_read > 0


def dynotui(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_in_process(args, env={**ENV, **(env or {})})


def data_sizes(folder: Path) -> int:
    return sum(p.stat().st_size for p in (folder / "data").iterdir())


def expected_partitions(client: Any, key: str, keep: Any = lambda item: True) -> list[tuple]:
    """(key value, items, bytes of the items' lines as the test wrote them), largest first."""
    from export_layout import wire

    sizes: dict[str, list[int]] = {}
    for item in scan_all(client, TABLE):
        if key in item and keep(item):
            line = json.dumps({"Item": {k: wire(v) for k, v in item.items()}}) + "\n"
            found = sizes.setdefault(json.dumps(item[key], sort_keys=True), [0, 0])
            found[0] += 1
            found[1] += len(line.encode()) - 1  # the line without its newline
    return sorted(
        ((json.loads(k), n, b) for k, (n, b) in sizes.items()),
        key=lambda row: (-row[2], -row[1], json.dumps(row[0], separators=(",", ":"))),
    )


def test_count_command_on_disk(client, export_dir) -> None:
    values = {":n": {"N": "5"}, ":s": {"S": "5"}}
    truth = scan_count(
        client, FilterExpression="v = :n OR v = :s", ExpressionAttributeValues=values
    )
    result = dynotui(
        "count",
        "--from-export",
        str(export_dir),
        "--filter-expression",
        "v = :n OR v = :s",
        "--expression-attribute-values",
        json.dumps(values),
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["count"] == truth and out["scanned_count"] == 400 and out["read_units"] == 0
    assert out["bytes_read"] == data_sizes(export_dir) and out["files"] == 4
    assert out["source"] == "export" and out["export_time"].startswith("2026-11-04T07:28:34")
    assert out["complete"] is True


def test_partition_sizes_of_the_table_and_an_index(client, export_dir) -> None:
    result = dynotui(
        "count",
        "--from-export",
        str(export_dir),
        "--key-schema",
        "pk:S,sk:N",
        "--key-schema",
        "by_g=g:S,gs:N",
        "--partitions",
        "5",
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)["partitions"]
    truth = expected_partitions(client, "pk")
    assert found["partitions"] == len(truth) and found["items"] == 400
    assert [(p["key"], p["items"], p["json_bytes"]) for p in found["top"]] == truth[:5]
    assert found["json_bytes"] == sum(row[2] for row in truth)
    sparse = dynotui(
        "count",
        "--from-export",
        str(export_dir),
        "--key-schema",
        "pk:S,sk:N",
        "--key-schema",
        "by_g=g:S,gs:N",
        "--index-name",
        "by_g",
        "--partitions",
        "10",
        "--filter-expression",
        "gs > :n",
        "--expression-attribute-values",
        json.dumps({":n": {"N": "10"}}),
    )
    assert sparse.returncode == 0, sparse.stderr
    out = json.loads(sparse.stdout)
    index_truth = expected_partitions(client, "g", lambda item: int(item["gs"]["N"]) > 10)
    assert [(p["key"], p["items"]) for p in out["partitions"]["top"]] == [
        (k, n) for k, n, _ in index_truth
    ]
    assert out["count"] == sum(n for _, n, _ in index_truth) == out["partitions"]["items"]


def test_count_on_s3_served_by_moto(client, mixed, tmp_path) -> None:
    from export_layout import MotoS3, upload_export

    values = {":lo": {"N": "-1"}, ":hi": {"N": "6"}}
    truth = scan_count(
        client, FilterExpression="v BETWEEN :lo AND :hi", ExpressionAttributeValues=values
    )
    with MotoS3() as s3:
        storage = s3.client()
        storage.create_bucket(Bucket="exports-bucket")
        url = upload_export(
            storage, "exports-bucket", scan_all(client, mixed), table=mixed, prefix="nightly/x"
        )
        listed = storage.list_objects_v2(Bucket="exports-bucket", Prefix="nightly/x")["Contents"]
        stored = sum(o["Size"] for o in listed if "/data/" in o["Key"])
        result = dynotui(
            "count",
            "--from-export",
            url,
            "--filter-expression",
            "v BETWEEN :lo AND :hi",
            "--expression-attribute-values",
            json.dumps(values),
            env=s3.env(),
        )
        missing = dynotui("count", "--from-export", url + "-nope", env=s3.env())
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["count"] == truth and out["bytes_read"] == stored and out["read_units"] == 0
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert "manifest-summary.json" in missing.stderr


def test_an_export_with_no_key_schema_to_be_had_says_so_in_one_line(export_dir, tmp_path) -> None:
    # No --key-schema and no credentials for DescribeTable: one line that names the flag.
    # It said "table 'mixed''s key schema" and "(...AWS_* variables.);".
    env = {k: v for k, v in ENV.items() if not k.startswith("AWS_")}
    env.update(HOME=str(tmp_path), AWS_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true")
    result = run_in_process(["entities", "--from-export", str(export_dir)], env=env)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert "this needs the key schema of table '" in line, line
    assert "''s" not in line and ".)" not in line and "pass --key-schema pk:S,sk:N" in line


def test_what_an_export_cannot_answer_is_refused_by_name(export_dir, tmp_path) -> None:
    cases = [
        (
            [
                "--filter-expression",
                "v = :m",
                "--expression-attribute-values",
                '{":m": {"M": {"a": {"S": "b"}}}}',
            ],
            "a map or list compared whole",
        ),
        (
            [
                "--filter-expression",
                "v < :t",
                "--expression-attribute-values",
                '{":t": {"BOOL": true}}',
            ],
            "compares strings, numbers or binary",
        ),
        (
            [
                "--filter-expression",
                "v BETWEEN :b AND :a",
                "--expression-attribute-values",
                '{":a": {"N": "1"}, ":b": {"N": "2"}}',
            ],
            "lower bound first",
        ),
        (
            [
                "--filter-expression",
                "attribute_type(v, :t)",
                "--expression-attribute-values",
                '{":t": {"S": "STRING"}}',
            ],
            "not a DynamoDB type",
        ),
        (["--segments", "2"], "drop --segments"),
        (["--consistent-read"], "drop --consistent-read"),
        (["--index-name", "by_g"], "key schema"),
    ]
    for args, words in cases:
        result = dynotui(
            "count",
            "--from-export",
            str(export_dir),
            *args,
            "--endpoint-url",
            "http://127.0.0.1:9",
            "--max-attempts",
            "1",
        )
        assert result.returncode == 2, (args, result.stderr)
        assert words in result.stderr and result.stderr.count("\n") == 1, result.stderr
    lists = dynotui("count", "--from-export", str(export_dir), "--filter-expression", "l = l")
    assert lists.returncode == 2 and "comparing two lists whole" in lists.stderr


def test_broken_exports_are_refused_in_words(client, mixed, tmp_path) -> None:
    items = scan_all(client, mixed)
    ion = write_export(tmp_path / "ion", items, table=mixed, output_format="ION")
    short = write_export(tmp_path / "short", items, table=mixed)
    manifest = short / "manifest-files.json"
    manifest.write_text("\n".join(manifest.read_text().splitlines()[1:]) + "\n")
    gone = write_export(tmp_path / "gone", items, table=mixed)
    next((gone / "data").iterdir()).unlink()
    cases = [
        (ion, "Amazon Ion export"),
        (short, "the manifests disagree"),
        (gone, "not there"),
        (tmp_path, "no manifest-summary.json"),
    ]
    for folder, words in cases:
        result = dynotui("count", "--from-export", str(folder))
        assert result.returncode == 2 and words in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1


def test_hostile_names_and_values_are_bound_not_spliced(client, tmp_path) -> None:
    odd = "a/b~c\"d'e.f[0]"
    items = [
        {"pk": {"S": "p"}, "sk": {"N": str(n)}, odd: {"S": "x' OR 1=1 --" if n % 2 else "y"}}
        for n in range(10)
    ]
    folder = write_export(tmp_path, items, table="odd-table")
    for value, expected in (("x' OR 1=1 --", 5), ("' OR 1=1 --", 0), ("y", 5)):
        result = dynotui(
            "count",
            "--from-export",
            str(folder),
            "--filter-expression",
            "#n = :v",
            "--expression-attribute-names",
            json.dumps({"#n": odd}),
            "--expression-attribute-values",
            json.dumps({":v": {"S": value}}),
        )
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["count"] == expected


def test_nothing_is_fetched_with_the_network_cut_off(export_dir) -> None:
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare -n is not permitted here")
    offline = subprocess.run(
        [
            "unshare",
            "-n",
            sys.executable,
            "-m",
            "dynotui",
            "count",
            "--from-export",
            str(export_dir),
            "--filter-expression",
            "attribute_exists(v)",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    assert offline.returncode == 0, offline.stderr
    assert json.loads(offline.stdout)["count"] > 0
    probe = (
        "from dynotui.table_export.engine import Engine, S3Access\n"
        "e = Engine()\n"
        "e.use_s3(S3Access('us-east-1', 'k', 's', None, '127.0.0.1:1', False))\n"
        'print(e.execute("SELECT loaded, install_path FROM duckdb_extensions() '
        "WHERE extension_name = 'httpfs'\").fetchone())\n"
    )
    loaded = subprocess.run(
        ["unshare", "-n", sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    assert loaded.returncode == 0, loaded.stderr
    assert "True" in loaded.stdout and "duckdb_ext" in loaded.stdout


_ENGINE: list[Any] = []


def engine() -> Any:
    """One DuckDB for every example (closed with the process)."""
    from dynotui.table_export.engine import Engine

    if not _ENGINE:
        _ENGINE.append(Engine(threads=1))
    return _ENGINE[0]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(
            lambda d: d == 0 or Decimal("1E-130") <= abs(d) <= Decimal("9.99E+125")
        ),
        min_size=2,
        max_size=12,
    )
)
def test_number_keys_order_as_numbers(values: list[Decimal]) -> None:
    """dyn_nkey against Python's Decimal: the same order, equal keys for equal numbers,
    whatever the spelling (exponent, trailing zeros)."""
    texts = [format(v.normalize(), "f" if abs(v.adjusted()) < 20 else "E") for v in values]
    texts = [t for t in texts if len(t.lstrip("-").replace(".", "").lstrip("0")) <= 40]
    rows = engine().execute(
        "SELECT dyn_nkey(t) FROM unnest($texts) WITH ORDINALITY AS u(t, i) ORDER BY i",
        {"texts": texts},
    )
    keys = [row[0] for row in rows.fetchall()]
    for (a, ka), (b, kb) in itertools.combinations(zip(texts, keys, strict=True), 2):
        assert (Decimal(a) < Decimal(b)) == (ka < kb), (a, b)
        assert (Decimal(a) == Decimal(b)) == (ka == kb), (a, b)


ATHENA_FILTERS = [
    ("v = :s", True),
    ("gs > :n", True),
    ("g = :ga AND gs BETWEEN :one AND :ten", True),
    ("attribute_exists(g)", True),
    ("attribute_not_exists(v)", True),
    ("contains(tags, :red)", True),
    ("begins_with(v, :pre)", True),
    ("NOT v = :s", True),
    ("v = :true", True),
    ("v < :ten", False),  # v holds 1E-130 and 38 digits: DECIMAL(38, 0) cannot hold them
]


def duckdb_view(create_table: str, table: str, files: list[str]) -> str:
    """The Athena table as a DuckDB view over the same data files: the one adaptation
    the SELECT needs (DuckDB has no JSON SerDe)."""
    tags = {
        "s": "VARCHAR",
        "n": "VARCHAR",
        "b": "VARCHAR",
        "bool": "BOOLEAN",
        "null": "BOOLEAN",
        "ss": "VARCHAR[]",
        "ns": "VARCHAR[]",
        "bs": "VARCHAR[]",
        "m": "VARCHAR",
        "l": "VARCHAR",
    }
    fields = []
    for name in re.findall(r"`(\w+)`:struct<", create_table):
        members = ", ".join(
            f"'{tag}': CAST(json_extract(json, '/Item/{name}/{tag.upper()}') AS {kind})"
            if kind != "VARCHAR"
            else f"'{tag}': json_extract_string(json, '/Item/{name}/{tag.upper()}')"
            for tag, kind in tags.items()
        )
        fields.append(f"'{name}': {{{members}}}")
    listed = ", ".join(f"'{f}'" for f in files)
    return (
        f"CREATE VIEW {table} AS SELECT {{{', '.join(fields)}}} AS item "
        f"FROM read_ndjson_objects([{listed}])"
    )


@pytest.mark.parametrize(("expression", "exact"), ATHENA_FILTERS)
def test_athena_select_counts_the_same_when_run_by_duckdb(client, export_dir, expression, exact):
    import duckdb

    values = {
        ":s": {"S": "5"},
        ":n": {"N": "10"},
        ":ga": {"S": "ga"},
        ":one": {"N": "1"},
        ":ten": {"N": "10"},
        ":red": {"S": "red"},
        ":pre": {"S": "a"},
        ":true": {"BOOL": True},
    }
    used = {k: values[k] for k in re.findall(r":\w+", expression)}
    truth = (
        scan_count(client, FilterExpression=expression, ExpressionAttributeValues=used)
        if used
        else scan_count(client, FilterExpression=expression)
    )
    result = dynotui(
        "count",
        "--from-export",
        str(export_dir),
        "--filter-expression",
        expression,
        *(["--expression-attribute-values", json.dumps(used)] if used else []),
        "--code",
        "athena",
    )
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "aws dynamodb export-table-to-point-in-time" in text
    assert "arn:aws:dynamodb:us-east-1:123456789012:table/export-mixed" in text
    create = text.split("CREATE EXTERNAL TABLE")[1].split(";")[0]
    select = "SELECT" + text.split("SELECT", 1)[1].split(";")[0]
    table = re.search(r"IF NOT EXISTS (\w+)", create).group(1)
    files = sorted(str(p) for p in (export_dir / "data").iterdir())
    with duckdb.connect() as db:
        db.execute(duckdb_view(create, table, files))
        row = db.execute(select.replace("regexp_like(", "regexp_matches(")).fetchone()
    items, matches, *guard = row
    assert items == 400
    if exact:
        assert matches == truth and guard in ([], [0])
    else:
        assert guard and guard[0] > 0, "the SELECT says its count is not exact"


def test_athena_code_refuses_what_it_cannot_write(export_dir) -> None:
    for expression, values, words in [
        ("m.inside = :s", {":s": {"S": "in"}}, "nested path"),
        ("size(v) > :n", {":n": {"N": "1"}}, "nested path or size()"),
        ("bin < :b", {":b": {"B": "gA=="}}, "a B value"),
        ("v = :s", {":s": {"S": "x\u001b[31m"}}, "control or format characters"),
    ]:
        result = dynotui(
            "count",
            "--from-export",
            str(export_dir),
            "--filter-expression",
            expression,
            "--expression-attribute-values",
            json.dumps(values),
            "--code",
            "athena",
        )
        assert result.returncode == 2 and words in result.stderr, result.stderr
