"""An export that is not what its manifest says, or a key schema that disagrees with its
data (issue 40, items 16, 17 and 22): each is exit 2 and one line naming what is wrong,
never "unexpected" (RecursionError, TypeError, KeyError), never fewer items with exit 0."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from export_layout import write_export
from helpers import page_lines, run_in_process

from dynotui.dynamodb.dynamo_json import MAX_NESTING

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}
ITEMS = [{"pk": {"S": f"p{n % 3}"}, "sk": {"N": str(n)}, "v": {"S": "x"}} for n in range(30)]


def pages(folder: Path, *args: str) -> Any:
    return run_in_process(
        ["pages", "--from-export", str(folder), "--scan", "--page-size", "4", *args], env=ENV
    )


def one_line(result: Any, words: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
    assert "unexpected" not in result.stderr and "Traceback" not in result.stderr


def nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"S": "deep"}
    for _ in range(levels):
        value = {"L": [value]}
    return value


def rewrite_data_file(folder: Path, index: int, lines: list[str]) -> Path:
    """Data file ``index`` with ``lines`` (JSON text), its manifest line kept in step."""
    path = sorted((folder / "data").iterdir())[index]
    path.write_bytes(gzip.compress("".join(line + "\n" for line in lines).encode(), mtime=0))
    manifest = folder / "manifest-files.json"
    entries = [json.loads(line) for line in manifest.read_text().splitlines()]
    for entry in entries:
        if entry["dataFileS3Key"].endswith(path.name):
            entry["md5Checksum"] = base64.b64encode(
                hashlib.md5(path.read_bytes()).digest()
            ).decode()
    manifest.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def test_the_right_key_schema_reads_every_item(tmp_path: Path) -> None:
    """The ground truth of the refusals below: the same export, the right keys."""
    folder = write_export(tmp_path, ITEMS, table="t")
    result = pages(folder, "--key-schema", "pk:S,sk:N")
    assert result.returncode == 0, result.stderr
    read = [item for page in page_lines(result.stdout) for item in page["items"]]
    assert sorted(int(item["sk"]["N"]) for item in read) == list(range(30))


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ("wrong:S", "30 items lack 'wrong', a key of the table"),
        ("pk:S,wrong:N", "30 items lack 'wrong', a key of the table"),
        ("pk:S,sk:S", "30 items hold 'sk' as another type than S, a key of the table"),
        ("pk:N,sk:N", "30 items hold 'pk' as another type than N, a key of the table"),
        ("pk:S,sk:B", "30 items hold 'sk' as another type than B"),
        ("pk:S", "items share one key of the table, which DynamoDB keeps unique"),
    ],
)
def test_a_key_schema_that_disagrees_with_the_data(tmp_path: Path, schema: str, words: str) -> None:
    """Issue 40, item 17: these were KeyError or TypeError on page 2, or (pk:S alone)
    fewer items with exit 0: the seek skipped the items sharing a boundary's key."""
    folder = write_export(tmp_path, ITEMS, table="t")
    result = pages(folder, "--key-schema", schema)
    one_line(result, words)
    assert "e.g. {" in result.stderr and "--key-schema" in result.stderr


def test_an_item_that_lacks_the_key_is_named_with_its_file(tmp_path: Path) -> None:
    items = [dict(item) for item in ITEMS]
    del items[7]["sk"]
    folder = write_export(tmp_path, items, table="t")
    result = pages(folder, "--key-schema", "pk:S,sk:N")
    one_line(result, "an item lacks 'sk', a key of the table")
    assert '{"Item": {"pk": {"S": "p1"}, "v": {"S": "x"}}} in data/' in result.stderr
    whole = write_export(tmp_path / "whole", ITEMS, table="t")
    index = pages(whole, "--key-schema", "pk:S,sk:N", "--key-schema", "by_v=v:N")
    one_line(index, "hold 'v' as another type than N, a key of index 'by_v'")


def test_a_manifest_of_two_thousand_brackets(tmp_path: Path) -> None:
    """Issue 40, item 16: json.loads raised RecursionError, 'unexpected', exit 1."""
    folder = write_export(tmp_path, ITEMS, table="t")
    (folder / "manifest-files.json").write_text("[" * 2000 + "\n")
    one_line(pages(folder, "--key-schema", "pk:S,sk:N"), "manifest-files.json is nested more")
    (folder / "manifest-summary.json").write_text("[" * 2000)
    one_line(pages(folder, "--key-schema", "pk:S,sk:N"), "manifest-summary.json is nested more")


def test_an_item_nested_past_dynamodbs_limit(tmp_path: Path) -> None:
    """Issue 40, item 16: DynamoDB keeps 32 nested lists or maps and refuses a 33rd; an
    export item nested 1,000 levels was a RecursionError."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)  # json.dumps, to write the hostile line at all
    try:
        deep = json.dumps({"Item": {"pk": {"S": "p0"}, "sk": {"N": "99"}, "d": nested(1000)}})
        at_limit = json.dumps(
            {"Item": {"pk": {"S": "p0"}, "sk": {"N": "98"}, "d": nested(MAX_NESTING)}}
        )
        over = json.dumps(
            {"Item": {"pk": {"S": "p0"}, "sk": {"N": "97"}, "d": nested(MAX_NESTING + 1)}}
        )
    finally:
        sys.setrecursionlimit(limit)
    for line, ok in ((at_limit, True), (over, False), (deep, False)):
        folder = write_export(tmp_path / str(len(line)), [], table="t", files=1)
        rewrite_data_file(folder, 0, [line])
        summary = folder / "manifest-summary.json"
        summary.write_text(summary.read_text().replace('"itemCount": 0', '"itemCount": 1'))
        files = folder / "manifest-files.json"
        files.write_text(files.read_text().replace('"itemCount": 0', '"itemCount": 1', 1))
        result = pages(folder, "--key-schema", "pk:S,sk:N")
        if ok:
            assert result.returncode == 0, result.stderr
            assert len(page_lines(result.stdout)[0]["items"]) == 1
        else:
            one_line(result, f"nests more than {MAX_NESTING} lists or maps, which DynamoDB refuses")


def test_a_data_file_linked_from_outside_the_export(tmp_path: Path) -> None:
    """Issue 40, item 22: it was read, whatever it held."""
    folder = write_export(tmp_path / "export", ITEMS, table="t")
    data = sorted((folder / "data").iterdir())[1]
    outside = tmp_path / "elsewhere.json.gz"
    data.rename(outside)
    data.symlink_to(outside)
    one_line(pages(folder, "--key-schema", "pk:S,sk:N"), "leads out of the export's folder")
    data.unlink()
    inner = folder / "data" / "copy.bin"  # a link inside the export's own folder is its own
    outside.rename(inner)
    data.symlink_to(inner)
    assert pages(folder, "--key-schema", "pk:S,sk:N").returncode == 0


def test_a_flipped_bit_is_caught_by_the_manifests_md5(tmp_path: Path) -> None:
    """Issue 40, item 22: md5Checksum was never checked; a flipped bit inside a string
    read as another value, exit 0."""
    folder = write_export(tmp_path, ITEMS, table="t")
    data = sorted((folder / "data").iterdir())[0]
    raw = gzip.decompress(data.read_bytes()).replace(b'"x"', b'"y"', 1)
    data.write_bytes(gzip.compress(raw, mtime=0))  # the same length, valid JSON
    one_line(pages(folder, "--key-schema", "pk:S,sk:N"), "is not the one the manifest lists")
    files = folder / "manifest-files.json"
    files.write_text(files.read_text().replace('"md5Checksum"', '"md5Other"', 1))
    one_line(pages(folder, "--key-schema", "pk:S,sk:N"), "has no md5Checksum")


def test_a_string_item_count_is_refused(tmp_path: Path) -> None:
    """Issue 40, item 22: "itemCount": "30" was ignored, and no count was checked."""
    folder = write_export(tmp_path, ITEMS, table="t")
    summary = folder / "manifest-summary.json"
    summary.write_text(summary.read_text().replace('"itemCount": 30', '"itemCount": "30"'))
    one_line(pages(folder, "--key-schema", "pk:S,sk:N"), "itemCount '30' is not a whole number")


def test_a_flipped_bit_on_s3_is_caught_too(tmp_path: Path) -> None:
    from export_layout import MotoS3, export_files

    with MotoS3() as s3:
        storage = s3.client()
        storage.create_bucket(Bucket="exports-bucket")
        folder = ""
        for key, content in export_files(ITEMS, table="t", prefix="nightly"):
            if key.endswith("0000abcdEXAMPLE0.json.gz"):  # altered after its MD5 was taken
                raw = gzip.decompress(content).replace(b'"x"', b'"y"', 1)
                content = gzip.compress(raw, mtime=0)
            storage.put_object(Bucket="exports-bucket", Key=key, Body=content)
            folder = key.rpartition("/")[0]
        url = f"s3://exports-bucket/{folder}"
        result = run_in_process(
            ["pages", "--from-export", url, "--scan", "--key-schema", "pk:S,sk:N"],
            env={**ENV, **s3.env()},
        )
    one_line(result, "is not the one the manifest lists")
    assert "0000abcdEXAMPLE0.json.gz" in result.stderr


@pytest.mark.parametrize("mib", [9, 20, 64])
def test_a_line_longer_than_any_item_is_refused_cheaply(tmp_path: Path, mib: int) -> None:
    """Issue 40, item 19: a DynamoDB item is at most 400 KB; a line of 9 or 20 MiB was read
    and paged with exit 0 (a 20 MiB one at 340 MB of memory), 64 MiB refused only by
    DuckDB's own buffer. Now each stops at its line, in one line naming its file."""
    items = [dict(item) for item in ITEMS]
    items[4]["big"] = {"S": "a" * (mib * 2**20)}  # about 70 KB of gzip for 64 MiB
    folder = write_export(tmp_path, items, table="t")
    result = pages(folder, "--key-schema", "pk:S,sk:N")
    one_line(result, "is longer than 8 MiB: no DynamoDB item is (at most 400 KB)")
    assert "data/0001abcdEXAMPLE1.json.gz" in result.stderr
    count = run_in_process(["count", "--from-export", str(folder)], env=ENV)
    one_line(count, "is longer than 8 MiB")


def test_duckdb_memory_is_capped(tmp_path: Path) -> None:
    from dynotui.table_export.engine import Engine

    with Engine() as engine:
        ((limit,),) = engine.execute("SELECT current_setting('memory_limit')").fetchall()
    assert limit == "1.8 GiB", limit  # 2 GB, as DuckDB says it


def test_a_huge_manifest_on_s3_is_refused_by_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its size is asked first: the object is not read into memory to be measured."""
    from export_layout import MotoS3, upload_export

    from dynotui.core.errors import InputError
    from dynotui.table_export import reading

    with MotoS3() as s3:
        storage = s3.client()
        storage.create_bucket(Bucket="exports-bucket")
        url = upload_export(storage, "exports-bucket", ITEMS, table="t", prefix="nightly")
        for name, value in s3.env().items():
            monkeypatch.setenv(name, value)
        with reading.OpenExport(url) as opened:  # as it is: read
            assert opened.export.item_count == 30
        monkeypatch.setattr(reading, "MAX_MANIFEST_BYTES", 100)
        with pytest.raises(InputError, match=r"manifest-summary\.json is larger than a manifest"):
            reading.OpenExport(url)
