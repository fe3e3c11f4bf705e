"""A table written as an export in DynamoDB's documented layout, from a parallel Scan: one
data file per segment (as an export writes one per partition), then the manifests.

For the demo: the export features tried with no AWS account. Like any Scan it has no
snapshot, so it is exact only for a table nobody writes to while it runs (the demo's).
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import hashlib
import json
import os
import secrets
import tempfile
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import InputError
from dynotui.core.page import Page
from dynotui.core.segments import Segment, SegmentedRead
from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.table_export.manifest import FILES, SUMMARY


@dataclass(frozen=True)
class Written:
    folder: Path
    items: int
    files: int
    export_arn: str


def _time(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def write_export(
    read: SegmentedRead, table_arn: str, root: Path, *, now: datetime | None = None
) -> Written:
    """Every segment of ``read`` drained into ``root/AWSDynamoDB/ID/data/``, then the
    manifests; refused if that folder exists. Nothing is left half-written: a failed read
    leaves no manifest-summary.json, so the folder reads as no export."""
    began = now or datetime.now(timezone.utc)
    export_id = f"{int(began.timestamp() * 1000):014d}-{secrets.token_hex(4)}"
    folder = root / "AWSDynamoDB" / export_id
    data = folder / "data"
    try:
        data.mkdir(parents=True, exist_ok=False)
    except OSError as exc:
        raise InputError(f"cannot write the export under {root}: {exc}") from None
    names = {segment.index: f"{secrets.token_hex(13)}.json.gz" for segment in read.segments}
    counts = dict.fromkeys(names, 0)
    lock = threading.Lock()
    with contextlib.ExitStack() as files:
        writers = {
            index: files.enter_context(gzip.open(data / name, "wt", encoding="utf-8"))
            for index, name in names.items()
        }

        def on_page(segment: Segment, page: Page[Any]) -> None:
            out = writers[segment.index]  # this segment's thread alone writes here
            for item in page.items:
                out.write(json.dumps({"Item": to_wire(item)}, separators=(",", ":")) + "\n")
            with lock:
                counts[segment.index] += len(page.items)

        failures = read.drain(on_page, cancel=CancelToken())
    if failures:
        raise failures[0]
    lines = []
    for index, name in sorted(names.items()):
        content = (data / name).read_bytes()
        digest = hashlib.md5(content).digest()
        lines.append(
            json.dumps(
                {
                    "itemCount": counts[index],
                    "md5Checksum": base64.b64encode(digest).decode(),
                    "etag": digest.hex(),
                    "dataFileS3Key": f"AWSDynamoDB/{export_id}/data/{name}",
                }
            )
        )
    _write(folder / FILES, "\n".join(lines) + "\n")
    ended = datetime.now(timezone.utc)
    export_arn = f"{table_arn}/export/{export_id}"
    summary = {
        "version": "2020-06-30",
        "exportArn": export_arn,
        "startTime": _time(began),
        "endTime": _time(ended),
        "tableArn": table_arn,
        "exportTime": _time(began),
        "s3Bucket": None,
        "s3Prefix": str(root),
        "manifestFilesS3Key": f"AWSDynamoDB/{export_id}/{FILES}",
        "billedSizeBytes": 0,
        "itemCount": sum(counts.values()),
        "outputFormat": "DYNAMODB_JSON",
        "exportType": "FULL_EXPORT",
    }
    _write(folder / SUMMARY, json.dumps(summary, indent=2) + "\n")
    return Written(folder, sum(counts.values()), len(names), export_arn)


def _write(path: Path, text: str) -> None:
    """Written whole or not at all (a reader sees the old state or the new)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
