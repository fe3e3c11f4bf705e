"""An export read once: the first read keeps a copy in the cache folder, later reads use it
and answer exactly as the data files do (counts, pages both ways, partitions); a copy that
no longer matches its export is rebuilt or refused, never read short; ``dynotui exports``
lists and clears the copies.

The truth is the export's own files read with ``--no-cache`` and a plain boto3 Query on
DynamoDB Local, whose table the export is written from."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import stat
from pathlib import Path
from typing import Any

import duckdb
import pytest
from export_layout import MotoS3, scan_all, upload_export, wire, write_export
from helpers import drain, page_lines, run_in_process
from hypothesis import given, settings
from hypothesis import strategies as st

from dynotui.local.tables import Index, create_table, table_definition, write_items

TABLE = "export-copies"
KEYS = ["--key-schema", "pk:S,sk:N", "--key-schema", "by_status=status:S,amount:N"]
STATUSES = ("PLACED", "SHIPPED", "RETURNED")


def table_items() -> list[dict[str, Any]]:
    return [
        {
            "pk": f"p{n % 4}",
            "sk": n * 7 % 97 - 40,
            "status": STATUSES[n % 3],
            "amount": (n * 37) % 101,
            "note": f"item {n}\x1b[2J",
        }
        for n in range(90)
    ]


@pytest.fixture(scope="module")
def table(client: Any) -> str:
    create_table(
        client,
        table_definition(
            TABLE,
            ("pk", "S"),
            ("sk", "N"),
            global_indexes=(Index("by_status", ("status", "S"), ("amount", "N")),),
        ),
    )
    write_items(client, TABLE, table_items())
    return TABLE


@pytest.fixture
def folder(client: Any, table: str, tmp_path: Path) -> Path:
    return write_export(tmp_path / "export", scan_all(client, table), table=table)


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "copies"


def run(cache: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    return run_in_process(
        list(args),
        env={
            **os.environ,
            "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789",
            "DYNOTUI_EXPORT_CACHE": str(cache),
            **(env or {}),
        },
    )


QUERIES = [
    # (what, flags): pages of the table and of a GSI, both directions, a Scan with a filter
    ("table", ["--key-condition-expression", "pk = :p"], {":p": {"S": "p1"}}),
    (
        "index",
        ["--index-name", "by_status", "--key-condition-expression", "status = :s"],
        {":s": {"S": "RETURNED"}},
    ),
    ("scan", ["--filter-expression", "amount > :a"], {":a": {"N": "50"}}),
]


def pages(cache: Path, folder: Path, flags: list[str], values: dict, *extra: str) -> Any:
    return run(
        cache,
        "pages",
        "--from-export",
        str(folder),
        *KEYS,
        *flags,
        "--expression-attribute-values",
        json.dumps(values),
        "--page-size",
        "7",
        *extra,
    )


def answers(result: Any) -> list[tuple]:
    """What a page says of the data (not its timings or its token's issue time)."""
    assert result.returncode == 0, result.stderr
    return [
        (p["page"], p["items"], p["count"], p["scanned_count"], p["has_next"], p["start_key"])
        for p in page_lines(result.stdout)
    ]


def count(cache: Path, folder: Path | str, *extra: str, env: dict | None = None) -> dict:
    result = run(
        cache,
        "count",
        "--from-export",
        str(folder),
        *KEYS,
        "--filter-expression",
        "#s = :s",
        "--expression-attribute-names",
        json.dumps({"#s": "status"}),
        "--expression-attribute-values",
        json.dumps({":s": {"S": "SHIPPED"}}),
        "--partitions",
        "3",
        *extra,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    for key in ("seconds", "taken_at"):
        found.pop(key)
    return found


def copies(cache: Path) -> list[Path]:
    """The copies kept (an order's keys, beside its copy, are named COPY-ORDER)."""
    return sorted(p for p in cache.glob("*.duckdb") if "-" not in p.stem)


def orders(cache: Path) -> list[Path]:
    return sorted(p for p in cache.glob("*-*.duckdb"))


def spoil_data_file(folder: Path) -> None:
    """Overwrite a data file with bytes that are no gzip, keeping its size and time: a
    read of the files fails on it; a read of the copy does not look at it."""
    data = sorted((folder / "data").glob("*.json.gz"))[0]
    info = data.stat()
    data.write_bytes(b"\x00" * info.st_size)
    os.utime(data, ns=(info.st_atime_ns, info.st_mtime_ns))


@pytest.mark.parametrize("forward", [True, False])
@pytest.mark.parametrize(("what", "flags", "values"), QUERIES)
def test_a_copy_answers_as_the_files_do(client, folder, cache, what, flags, values, forward):
    direction = [] if forward else ["--no-scan-index-forward"]
    files = pages(cache, folder, flags, values, "--no-cache", *direction)
    assert answers(files) and not cache.exists(), "--no-cache keeps no copy"
    first = pages(cache, folder, flags, values, *direction)
    assert answers(first) == answers(files)
    assert "kept a copy of the export in" in first.stderr and str(cache) in first.stderr
    (copy,) = copies(cache)
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    spoil_data_file(folder)  # from here on, only the copy can answer
    again = pages(cache, folder, flags, values, *direction)
    assert again.stderr == "" and answers(again) == answers(files)
    assert pages(cache, folder, flags, values, "--no-cache", *direction).returncode == 2
    if what == "table":  # and the truth of the table the export was written from
        truth = drain(
            client,
            TableName=TABLE,
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "p1"}},
            ScanIndexForward=forward,
        )
        shown = [item for page in answers(again) for item in page[1]]
        assert shown == [{k: wire(v) for k, v in item.items()} for item in truth]


def test_counts_and_partitions_from_the_copy(folder, cache) -> None:
    files = count(cache, folder, "--no-cache")
    assert count(cache, folder) == files  # builds the copy
    spoil_data_file(folder)
    assert count(cache, folder) == files
    assert files["count"] == 30 and files["partitions"]["items"] == 30


def test_a_changed_manifest_makes_a_new_copy(client, table, folder, cache) -> None:
    before = count(cache, folder)
    fewer = [item for item in scan_all(client, table) if item["pk"]["S"] != "p2"]
    for path in folder.rglob("*"):
        if path.is_file():
            path.unlink()
    write_export(folder.parent.parent.parent, fewer, table=table)
    after = count(cache, folder)
    assert after == count(cache, folder, "--no-cache")
    assert after["count"] < before["count"] and after["scanned_count"] == len(fewer)
    assert len(copies(cache)) == 2  # the old copy is another export's (its manifests)


def test_a_removed_data_file_is_refused_not_read_short(folder, cache) -> None:
    count(cache, folder)
    sorted((folder / "data").glob("*.json.gz"))[0].unlink()
    result = run(cache, "count", "--from-export", str(folder))
    assert result.returncode == 2 and result.stdout == ""
    assert "not there" in result.stderr and result.stderr.count("\n") == 1


def test_a_changed_data_file_is_read_again_and_refused(folder, cache) -> None:
    count(cache, folder)
    data = sorted((folder / "data").glob("*.json.gz"))[0]
    lines = gzip.decompress(data.read_bytes()).splitlines(keepends=True)
    data.write_bytes(gzip.compress(b"".join(lines[1:])))  # an item fewer, manifest unchanged
    for _ in range(2):
        result = run(cache, "count", "--from-export", str(folder))
        assert result.returncode == 2 and result.stdout == ""
        # The data no longer what the manifests list: its count, or its MD5 where checked.
        assert "altered" in result.stderr and result.stderr.count("\n") == 1
    assert not list(cache.glob(".*.building")), "a refused copy leaves nothing behind"


def spoil_rows(copy: Path) -> None:
    connection = duckdb.connect(str(copy))
    connection.execute("DELETE FROM items WHERE rowid % 2 = 0")
    connection.close()


def cut_short(copy: Path) -> None:
    copy.write_bytes(copy.read_bytes()[:5000])


def open_to_all(copy: Path) -> None:
    copy.chmod(0o644)


def linked(copy: Path) -> None:
    elsewhere = copy.with_name("elsewhere")
    copy.rename(elsewhere)
    copy.symlink_to(elsewhere)


@pytest.mark.parametrize("spoil", [spoil_rows, cut_short, open_to_all, linked])
def test_a_spoiled_copy_is_made_again(folder, cache, spoil) -> None:
    truth = count(cache, folder, "--no-cache")
    count(cache, folder)
    (copy,) = copies(cache)
    spoil(copy)
    result = run(cache, "count", "--from-export", str(folder), *KEYS, "--partitions", "3")
    assert result.returncode == 0, result.stderr
    assert "kept a copy of the export" in result.stderr
    assert json.loads(result.stdout)["scanned_count"] == truth["scanned_count"]
    assert copy.is_file() and not copy.is_symlink()
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert count(cache, folder) == truth


def test_a_build_left_unfinished_is_not_read(folder, cache) -> None:
    count(cache, folder)
    (copy,) = copies(cache)
    left = cache / f".{copy.stem}.12345.building"
    left.mkdir()
    (left / copy.name).write_bytes(copy.read_bytes()[:5000])
    copy.unlink()
    truth = count(cache, folder, "--no-cache")
    assert count(cache, folder) == truth
    assert not left.exists(), "swept by the next build"


def test_exports_list_and_clear(folder, cache) -> None:
    empty = run(cache, "exports", "list")
    assert empty.returncode == 0 and empty.stdout.startswith("0 copies, 0.0 MB")
    count(cache, folder)
    (copy,) = copies(cache)
    listed = run(cache, "exports", "list", "--json")
    (record,) = [json.loads(line) for line in listed.stdout.splitlines()]
    assert record["path"] == str(copy) and record["bytes"] == copy.stat().st_size
    assert record["items"] == 90 and record["table"] == TABLE
    assert record["location"] == str(folder.resolve())
    text = run(cache, "exports").stdout
    assert TABLE in text and "90 items" in text and "1 copy" in text
    pages(cache, folder, QUERIES[0][1], QUERIES[0][2])  # and an order's keys beside it
    assert len(orders(cache)) == 1
    kept = run(cache, "exports", "clear", "--older-than", "1")
    assert kept.returncode == 0 and copy.exists() and "removed 0 copies" in kept.stdout
    cleared = run(cache, "exports", "clear")
    assert cleared.returncode == 0 and "removed 1 copy" in cleared.stdout
    assert not copy.exists() and orders(cache) == [] and list(cache.iterdir()) == []
    for bad in ["x", "-1", "1.5", "\u00b2", "\uff11", "9" * 5000, "", "36501", "1e3"]:
        result = run(cache, "exports", "clear", "--older-than", bad)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, (bad, result.stderr)
        assert len(result.stderr) < 200


def test_an_export_on_s3_is_downloaded_once(client, table, cache, tmp_path) -> None:
    from dynotui.table_export.reading import OpenExport

    items = scan_all(client, table)
    with MotoS3() as s3:
        storage = s3.client()
        storage.create_bucket(Bucket="copies-bucket")
        url = upload_export(storage, "copies-bucket", items, table=table)
        truth = count(cache, url, "--no-cache", env=s3.env())
        said: list[str] = []
        fetched: list[tuple[int, int, int, int]] = []
        environment = dict(os.environ)
        os.environ.update(s3.env())
        try:
            with OpenExport(
                url, cache_folder=cache, said=said.append, fetched=lambda *a: fetched.append(a)
            ) as opened:
                opened.lines()
        finally:
            os.environ.clear()
            os.environ.update(environment)
        sizes = sum(
            o["Size"]
            for o in storage.list_objects_v2(Bucket="copies-bucket")["Contents"]
            if "/data/" in o["Key"]
        )
        assert fetched[-1] == (sizes, sizes, 4, 4) and "kept a copy" in said[0]
        assert all(a[0] <= b[0] for a, b in itertools.pairwise(fetched))
        assert count(cache, url, env=s3.env()) == truth
        for listed in storage.list_objects_v2(Bucket="copies-bucket")["Contents"]:
            if "/data/" in listed["Key"]:  # the copy answers without the data files
                storage.delete_object(Bucket="copies-bucket", Key=listed["Key"])
        assert count(cache, url, env=s3.env()) == truth
        assert run(cache, "count", "--from-export", url, "--no-cache", env=s3.env()).returncode == 2
    assert not list(cache.glob(".*.building")) and not list(cache.rglob("*.json.gz"))


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=-(10**38) + 1, max_value=10**38 - 1), st.integers(0, 3))
def test_a_number_key_is_one_whatever_the_spelling(number: int, zeros: int) -> None:
    """dyn_nkey takes a plain integer by a path of its own: its key equals the general
    path's for the same number written otherwise, and orders as the number does."""
    from decimal import Decimal

    from dynotui.table_export.engine import Engine

    sign = "-" if number < 0 else ""
    digits = str(abs(number))
    spellings = [
        str(number),
        f"{sign}{'0' * zeros}{digits}",
        f"{number}.{'0' * zeros}",
        f"{sign}{digits}E0",
        f"{sign}{digits}{'0' * zeros}E-{zeros}",
        f"+{digits}" if not sign else str(number),
        f"{sign}0.{digits}E{len(digits)}",
    ]
    neighbours = [str(number - 1), str(number + 1)]
    with Engine(threads=1) as engine:
        keys = [
            row[0]
            for row in engine.execute(
                "SELECT dyn_nkey(t) FROM unnest($t) WITH ORDINALITY AS u(t, i) ORDER BY i",
                {"t": spellings + neighbours},
            ).fetchall()
        ]
    assert len(set(keys[: len(spellings)])) == 1, list(zip(spellings, keys, strict=True))
    below, above = keys[len(spellings) :]
    if abs(number - 1) < 10**38:
        assert (below < keys[0]) == (Decimal(number - 1) < Decimal(number))
    if abs(number + 1) < 10**38:
        assert above > keys[0]


def spoil_keys(path: Path) -> None:
    connection = duckdb.connect(str(path))
    connection.execute("DELETE FROM keys WHERE r % 3 = 0")
    connection.close()


def shuffle_keys(path: Path) -> None:
    """The same rows, each pointing at another item: only the copy's build id tells."""
    connection = duckdb.connect(str(path))
    connection.execute("UPDATE keys SET r = (r + 1) % (SELECT count(*) FROM keys)")
    connection.close()


@pytest.mark.parametrize("spoil", [spoil_keys, cut_short, open_to_all, linked, "copy made again"])
def test_an_orders_keys_are_kept_and_checked(folder, cache, spoil) -> None:
    """The first Query of an order keeps its items' keys beside the copy (one row per
    item of the order); a spoiled file of keys, or keys of a copy made since, are
    computed again, and the pages stay those of the data files."""
    flags, values = QUERIES[1][1], QUERIES[1][2]  # the GSI: its items only
    truth = answers(pages(cache, folder, flags, values, "--no-cache"))
    assert answers(pages(cache, folder, flags, values)) == truth
    (keys,) = orders(cache)
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600
    held = duckdb.connect(str(keys), read_only=True)
    assert held.execute("SELECT count(*) FROM keys").fetchone() == (90,)
    held.close()
    if spoil == "copy made again":
        old = keys.read_bytes()
        cut_short(copies(cache)[0])
        count(cache, folder)  # makes the copy again, and drops the keys of the old one
        assert orders(cache) == []
        keys.write_bytes(old)  # put back: rows of the old copy, whatever the new one holds
        keys.chmod(0o600)
        shuffle_keys(keys)
        assert answers(pages(cache, folder, flags, values)) == truth
    else:
        assert callable(spoil)
        spoil(keys)
        assert answers(pages(cache, folder, flags, values)) == truth
    (keys,) = orders(cache)
    assert keys.is_file() and not keys.is_symlink()
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600
    assert answers(pages(cache, folder, flags, values, "--no-scan-index-forward")) == list(
        answers(pages(cache, folder, flags, values, "--no-cache", "--no-scan-index-forward"))
    )


def test_a_cache_folder_others_can_write_or_that_is_a_file_is_refused(folder, tmp_path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    plain = tmp_path / "plain-file"
    plain.write_text("not a folder")
    for cache, words in ((shared, "can be written by others"), (plain, "export cache")):
        result = run(cache, "count", "--from-export", str(folder))
        assert result.returncode == 2 and result.stdout == "", result.stderr
        assert words in result.stderr and result.stderr.count("\n") == 1, result.stderr
        assert not list(shared.iterdir())
    assert run(shared, "count", "--from-export", str(folder), "--no-cache").returncode == 0


def test_a_refusal_after_the_copy_is_made_is_one_line(tmp_path, cache) -> None:
    """The copy's place and size are said when the read ends well: a filter refused as
    the data is read (lists compared whole) leaves its one line alone, copy made or not."""
    items = [{"pk": {"S": "a"}, "sk": {"N": str(n)}, "l": {"L": [{"S": "x"}]}} for n in range(5)]
    folder = write_export(tmp_path / "lists", items, table="lists")
    for _ in range(2):  # the copy made, then read
        result = run(cache, "count", "--from-export", str(folder), "--filter-expression", "l = l")
        assert result.returncode == 2 and "comparing two lists whole" in result.stderr
        assert result.stderr.count("\n") == 1, result.stderr
    assert len(copies(cache)) == 1
    ok = run(cache, "count", "--from-export", str(folder))
    assert ok.returncode == 0 and ok.stderr == "" and json.loads(ok.stdout)["count"] == 5
