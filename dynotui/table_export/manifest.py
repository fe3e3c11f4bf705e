"""A table export as DynamoDB writes it to S3, found on disk or on S3, and checked.

    PREFIX/AWSDynamoDB/EXPORT_ID/manifest-summary.json   the export: table, time, format
    PREFIX/AWSDynamoDB/EXPORT_ID/manifest-files.json     one JSON line per data file
    PREFIX/AWSDynamoDB/EXPORT_ID/data/NAME.json.gz       {"Item": {...}} lines, DynamoDB JSON

Data files are found beside the manifests (``data/NAME``), whatever bucket the manifest
names, so a copied export reads the same. What is read is checked, not trusted: the
format (an Amazon Ion or incremental export is refused in words), each file's name, the
item counts the two manifests give; the data's own count is checked against them when
read.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from dynotui.core import json_input
from dynotui.core.bounded_file import Unreadable, read_bounded
from dynotui.core.errors import InputError

SUMMARY = "manifest-summary.json"
FILES = "manifest-files.json"
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
MAX_MANIFEST_DEPTH = 8
_DATA_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\.json\.gz")
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
_KEY_PART = re.compile(r"[A-Za-z0-9!_.*'()=+,@ -]+")
_GLOB = set("*?[]{}")  # DuckDB reads these in a file name as a pattern


@dataclass(frozen=True)
class Location:
    """Where an export's folder is: a local folder, or ``s3://bucket/prefix/...``."""

    root: str  # no trailing slash
    s3: bool

    def join(self, *parts: str) -> str:
        return "/".join([self.root, *parts]) if self.s3 else os.path.join(self.root, *parts)


def parse_location(text: str) -> Location:
    """``--from-export``'s folder, refused by name unless it is one dynotui reads as is."""
    if not text or not text.strip():
        raise InputError("--from-export is empty: give an export's folder or s3:// URL")
    text = text.strip()
    if text.startswith("s3://"):
        rest = text[len("s3://") :].rstrip("/")
        if rest.endswith("/" + SUMMARY):
            rest = rest[: -len(SUMMARY) - 1]
        bucket, _, prefix = rest.partition("/")
        if not _BUCKET.fullmatch(bucket) or ".." in bucket:
            raise InputError(f"--from-export {text!r}: {bucket!r} is not an S3 bucket name")
        parts = prefix.split("/") if prefix else []
        if any(not _KEY_PART.fullmatch(part) for part in parts):
            raise InputError(
                f"--from-export {text!r}: each part of the prefix may hold letters, digits "
                "and ! _ . * ' ( ) = + , @ - or a space"
            )
        if any(ch in _GLOB for ch in prefix):
            raise InputError(f"--from-export {text!r}: * ? [ ] {{ }} would be read as a pattern")
        return Location(f"s3://{rest}", s3=True)
    if "://" in text:
        raise InputError(f"--from-export {text!r}: a folder on this machine, or s3://")
    path = Path(text).expanduser()
    if path.name == SUMMARY:
        path = path.parent
    if not (path / SUMMARY).is_file():
        raise InputError(f"--from-export {text!r}: no {SUMMARY} there (an export's folder)")
    root = str(path.resolve())
    if any(ch in _GLOB for ch in root):
        raise InputError(
            f"--from-export {text!r}: its path holds * ? [ ] {{ or }}, which DuckDB reads as "
            "a pattern; move or link the export to a plain path"
        )
    return Location(root, s3=False)


@dataclass(frozen=True)
class DataFile:
    url: str  # where it is read from: beside the manifests
    key: str  # as manifest-files.json names it
    item_count: int
    md5: bytes  # the gzip file's MD5, as md5Checksum gives it (DynamoDB writes one always)


@dataclass(frozen=True)
class Export:
    location: Location
    export_arn: str
    export_id: str
    table_arn: str
    table_name: str
    region: str | None
    export_time: datetime
    item_count: int
    billed_bytes: int | None
    files: tuple[DataFile, ...]

    @property
    def urls(self) -> list[str]:
        return [f.url for f in self.files]

    def as_json(self) -> dict[str, Any]:
        return {
            "export_arn": self.export_arn,
            "table": self.table_name,
            "export_time": self.export_time.isoformat(),
            "item_count": self.item_count,
            "files": len(self.files),
            "location": self.location.root,
        }


Reader = Callable[[str], str]


def _field(summary: dict[str, Any], name: str, kind: type, where: str) -> Any:
    value = summary.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise InputError(f"{where}: {name} is missing or not a {kind.__name__}")
    return value


def _time(text: str, where: str) -> datetime:
    try:
        found = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"{where}: exportTime {text!r} is not a time") from None
    if found.tzinfo is None:
        raise InputError(f"{where}: exportTime {text!r} has no time zone")
    return found


def _json(text: str, where: str) -> Any:
    # A manifest nests an object or two: 2,000 "[" is no manifest (and no RecursionError).
    return json_input.loads(text, where, max_depth=MAX_MANIFEST_DEPTH)


def check_format(summary: dict[str, Any], where: str) -> None:
    output = summary.get("outputFormat", "DYNAMODB_JSON")
    if output == "ION":
        raise InputError(
            f"{where}: this is an Amazon Ion export; dynotui reads exports in DynamoDB JSON "
            "(export again with --export-format DYNAMODB_JSON)"
        )
    if output != "DYNAMODB_JSON":
        raise InputError(f"{where}: outputFormat {output!r} is not DYNAMODB_JSON")
    kind = summary.get("exportType", "FULL_EXPORT")
    if kind != "FULL_EXPORT":
        raise InputError(
            f"{where}: an {kind} holds changes (NewImage, OldImage), not the table's items; "
            "dynotui reads full exports"
        )


def _data_file(location: Location, entry: Any, export_id: str, where: str) -> DataFile:
    if not isinstance(entry, dict):
        raise InputError(f"{where}: each line is a JSON object")
    key = entry.get("dataFileS3Key")
    count = entry.get("itemCount")
    if not isinstance(key, str) or not isinstance(count, int) or isinstance(count, bool):
        raise InputError(f"{where}: a line lacks dataFileS3Key or itemCount")
    if count < 0:
        raise InputError(f"{where}: itemCount {count} is negative")
    md5 = _md5(entry.get("md5Checksum"), key, where)
    parts = key.split("/")
    name = parts[-1]
    if not _DATA_NAME.fullmatch(name) or len(parts) < 2 or parts[-2] != "data":
        raise InputError(
            f"{where}: {key!r} is not a data file of a DynamoDB JSON export (data/NAME.json.gz)"
        )
    if len(parts) >= 3 and parts[-3] != export_id:
        raise InputError(f"{where}: {key!r} belongs to another export than {export_id}")
    return DataFile(location.join("data", name), key, count, md5)


def _md5(text: Any, key: str, where: str) -> bytes:
    """md5Checksum: base64 of 16 bytes, as DynamoDB writes it for each data file."""
    try:
        digest = base64.b64decode(text, validate=True) if isinstance(text, str) else b""
    except ValueError:
        digest = b""
    if len(digest) != hashlib.md5().digest_size:
        raise InputError(f"{where}: {key!r} has no md5Checksum (base64 of an MD5) to check it by")
    return digest


def read_export(location: Location, read: Reader) -> Export:
    """The export's manifests, read with ``read(url)`` and checked."""
    where = SUMMARY
    summary = _json(read(location.join(SUMMARY)), where)
    if not isinstance(summary, dict):
        raise InputError(f"{where} is not a JSON object")
    check_format(summary, where)
    export_arn = _field(summary, "exportArn", str, where)
    table_arn = _field(summary, "tableArn", str, where)
    export_id = export_arn.rpartition("/export/")[2]
    table_name = table_arn.rpartition(":table/")[2]
    if not export_id or not table_name or "/" in table_name:
        raise InputError(f"{where}: exportArn or tableArn is not a DynamoDB ARN")
    arn_parts = table_arn.split(":")
    region = arn_parts[3] if len(arn_parts) > 5 and arn_parts[3] else None
    export_time = _time(_field(summary, "exportTime", str, where), where)
    item_count = summary.get("itemCount")
    if item_count is not None and (not isinstance(item_count, int) or isinstance(item_count, bool)):
        raise InputError(f"{where}: itemCount {item_count!r} is not a whole number")
    lines = read(location.join(FILES)).splitlines()
    files = tuple(
        _data_file(location, _json(line, FILES), export_id, FILES) for line in lines if line.strip()
    )
    listed = sum(f.item_count for f in files)
    if item_count is not None and item_count != listed:
        raise InputError(
            f"the manifests disagree: {SUMMARY} says {item_count:,} items, {FILES} lists "
            f"{listed:,}; the export is incomplete or mixed with another"
        )
    if len({f.url for f in files}) != len(files):
        raise InputError(f"{FILES} names a data file twice")
    billed = summary.get("billedSizeBytes")
    return Export(
        location=location,
        export_arn=export_arn,
        export_id=export_id,
        table_arn=table_arn,
        table_name=table_name,
        region=region,
        export_time=export_time,
        item_count=listed,
        billed_bytes=billed if isinstance(billed, int) and not isinstance(billed, bool) else None,
        files=files,
    )


def read_local(path: str, root: str) -> str:
    """A manifest on disk: a regular file of at most MAX_MANIFEST_BYTES inside the export's
    folder ``root`` (resolved), read as every file is (core/bounded_file.py)."""
    inside(path, root)
    try:
        data = read_bounded(path, MAX_MANIFEST_BYTES)
    except Unreadable as exc:
        if exc.kind == "missing":
            raise InputError(f"the export has no {Path(path).name} at {path}") from None
        raise InputError(f"{path} {exc.problem}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path} is not UTF-8 text") from None


def inside(path: str, root: str) -> None:
    """Refuse ``path`` if it leads out of the export's folder ``root`` (resolved): a link
    there to a file elsewhere is not the export's, whoever put it there."""
    try:
        target = Path(path).resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # a link loop (RuntimeError before Python 3.13)
        raise InputError(f"{path} cannot be followed: {exc}") from None
    if not target.is_relative_to(root):
        raise InputError(
            f"{path} leads out of the export's folder (to {target}): a link to elsewhere is "
            "not read; copy the file into the export instead"
        )
