"""A DynamoDB table export written by the tests themselves, in the documented layout:

    PREFIX/AWSDynamoDB/ID/manifest-summary.json
    PREFIX/AWSDynamoDB/ID/manifest-files.json      one JSON line per data file
    PREFIX/AWSDynamoDB/ID/data/NAME.json.gz        {"Item": {...}} lines in DynamoDB JSON

The items come from a plain boto3 Scan; nothing here uses dynotui.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ACCOUNT = "123456789012"


def wire(value: dict[str, Any]) -> dict[str, Any]:
    """A boto3 client's attribute value as DynamoDB JSON (binary as base64)."""
    ((kind, inner),) = value.items()
    if kind == "B":
        return {"B": base64.b64encode(bytes(inner)).decode()}
    if kind == "BS":
        return {"BS": [base64.b64encode(bytes(b)).decode() for b in inner]}
    if kind == "M":
        return {"M": {k: wire(v) for k, v in inner.items()}}
    if kind == "L":
        return {"L": [wire(v) for v in inner]}
    return {kind: inner}


def scan_all(client: Any, table: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    params: dict[str, Any] = {"TableName": table}
    while True:
        response = client.scan(**params)
        items += response["Items"]
        if "LastEvaluatedKey" not in response:
            return items
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def export_files(
    items: list[dict[str, Any]],
    *,
    table: str,
    export_id: str = "01700000000000-abcd1234",
    prefix: str = "exports",
    files: int = 3,
    output_format: str = "DYNAMODB_JSON",
    export_time: str = "2026-11-04T07:28:34.028Z",
    empty_file: bool = True,
) -> Iterator[tuple[str, bytes]]:
    """(key, content) of every object of an export of ``items``, keys from the bucket's
    root: spread over ``files`` data files, plus an empty one (an empty partition)."""
    base = f"{prefix}/AWSDynamoDB/{export_id}"
    parts: list[list[dict[str, Any]]] = [[] for _ in range(files)]
    for index, item in enumerate(items):
        parts[index % files].append(item)
    if empty_file:
        parts.append([])
    manifest_lines = []
    for number, part in enumerate(parts):
        text = "".join(
            json.dumps({"Item": {k: wire(v) for k, v in item.items()}}) + "\n" for item in part
        )
        data = gzip.compress(text.encode(), mtime=0)
        key = f"{base}/data/{number:04d}abcdEXAMPLE{number}.json.gz"
        digest = hashlib.md5(data).digest()
        manifest_lines.append(
            json.dumps(
                {
                    "itemCount": len(part),
                    "md5Checksum": base64.b64encode(digest).decode(),
                    "etag": digest.hex(),
                    "dataFileS3Key": key,
                }
            )
        )
        yield key, data
    yield f"{base}/manifest-files.json", ("\n".join(manifest_lines) + "\n").encode()
    arn = f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/{table}"
    summary = {
        "version": "2020-06-30",
        "exportArn": f"{arn}/export/{export_id}",
        "startTime": export_time,
        "endTime": export_time,
        "tableArn": arn,
        "tableId": "12345a12-abcd-123a-ab12-1234abc12345",
        "exportTime": export_time,
        "s3Bucket": "the-bucket",
        "s3Prefix": prefix,
        "s3SseAlgorithm": "AES256",
        "s3SseKmsKeyId": None,
        "manifestFilesS3Key": f"{base}/manifest-files.json",
        "billedSizeBytes": 0,
        "itemCount": len(items),
        "outputFormat": output_format,
    }
    yield f"{base}/manifest-summary.json", json.dumps(summary, indent=2).encode()
    yield f"{base}/_started", b""


def write_export(root: Path, items: list[dict[str, Any]], **options: Any) -> Path:
    """The export on disk under ``root``; returns its folder (…/AWSDynamoDB/ID)."""
    folder = None
    for key, content in export_files(items, **options):
        path = root / key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        folder = path.parent
    assert folder is not None
    return folder


def upload_export(s3: Any, bucket: str, items: list[dict[str, Any]], **options: Any) -> str:
    """The export on S3 (moto's server); returns its s3:// folder."""
    folder = ""
    for key, content in export_files(items, **options):
        s3.upload_fileobj(io.BytesIO(content), bucket, key)
        folder = key.rpartition("/")[0]
    return f"s3://{bucket}/{folder}"


class MotoS3:
    """moto's S3 server on 127.0.0.1, stopped whatever happens (a context manager)."""

    def __init__(self) -> None:
        from moto.server import ThreadedMotoServer

        from dynotui.local.runner import free_port

        self.port = free_port()
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.lock = threading.Lock()

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        return {
            "AWS_ENDPOINT_URL_S3": self.endpoint_url,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_REGION": "us-east-1",
        }

    def client(self) -> Any:
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint_url,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    def __enter__(self) -> MotoS3:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
