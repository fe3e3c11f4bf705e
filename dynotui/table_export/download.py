"""An export's data files on S3 fetched once, to make its copy in the cache from: with
boto3 (the credentials, region and endpoint the export is read with), each file streamed
to a private folder, the bytes so far reported as they come."""

from __future__ import annotations

import base64
import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dynotui.core.errors import InputError, ServiceError
from dynotui.table_export.engine import s3_endpoint
from dynotui.table_export.manifest import Export

# (bytes fetched, bytes in all, files fetched, files in all)
Fetched = Callable[[int, int, int, int], None]


def _bucket_key(url: str) -> tuple[str, str]:
    bucket, _, key = url[len("s3://") :].partition("/")
    return bucket, key


def s3_client(profile: str | None, region: str | None) -> Any:
    import boto3

    session = boto3.session.Session(profile_name=profile, region_name=region)
    return session.client(
        "s3", endpoint_url=s3_endpoint(), region_name=region or session.region_name or "us-east-1"
    )


def download(
    export: Export, folder: Path, client: Any, fetched: Fetched | None = None
) -> list[str]:
    """Each data file of ``export`` (on S3) into ``folder`` under its own name; the local
    paths, in the manifest's order."""
    from botocore.exceptions import BotoCoreError, ClientError

    sizes = []
    try:
        for file in export.files:
            bucket, key = _bucket_key(file.url)
            sizes.append(int(client.head_object(Bucket=bucket, Key=key)["ContentLength"]))
    except ClientError as exc:
        raise _failure(exc, file.url) from None
    except BotoCoreError as exc:
        raise ServiceError(f"cannot reach {file.url}: {exc}") from None
    total = sum(sizes)
    state = [0, 0]  # bytes fetched, files fetched
    lock = threading.Lock()

    def moved(count: int) -> None:
        with lock:
            state[0] += count
            now, files = state
        if fetched is not None:
            fetched(now, total, files, len(export.files))

    paths = []
    for file in export.files:
        bucket, key = _bucket_key(file.url)
        path = folder / os.path.basename(key)
        try:
            client.download_file(bucket, key, str(path), Callback=moved)
        except ClientError as exc:
            raise _failure(exc, file.url) from None
        except BotoCoreError as exc:
            raise ServiceError(f"cannot fetch {file.url}: {exc}") from None
        _check_md5(path, file.md5, file.url)
        state[1] += 1
        moved(0)
        paths.append(str(path))
    return paths


def _check_md5(path: Path, expected: bytes, url: str) -> None:
    """The file fetched against the manifest's md5Checksum, as a file on disk is."""
    digest = hashlib.md5()
    with open(path, "rb") as fetched:
        while chunk := fetched.read(1 << 20):
            digest.update(chunk)
    if digest.digest() != expected:
        raise InputError(
            f"the data file {url} is not the one the manifest lists: its MD5 is "
            f"{base64.b64encode(digest.digest()).decode()}, md5Checksum says "
            f"{base64.b64encode(expected).decode()} (altered, or cut short in a copy)"
        )


def _failure(exc: Any, url: str) -> Exception:
    code = str(exc.response.get("Error", {}).get("Code", ""))
    if code in ("404", "NoSuchKey", "NotFound"):
        return InputError(f"{url} is not there: an incomplete export")
    if code in ("401", "403", "AccessDenied"):
        return ServiceError(f"access to {url} was denied ({code})")
    return ServiceError(f"cannot fetch {url}: {exc}")
