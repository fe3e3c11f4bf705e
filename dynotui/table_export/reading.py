"""An export opened for reading: its manifests checked, its data files as one DuckDB
relation of lines (``doc``), and how many bytes reading them costs.

The lines are read from the export's copy in the cache when there is one (made by the
first read that needs them: ``cache.py``), else from the data files themselves
(``cache=False``, ``--no-cache``)."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dynotui.core.bounded_file import Unreadable, open_checked
from dynotui.core.errors import InputError, ServiceError
from dynotui.table_export.cache import ExportCopy, open_copy
from dynotui.table_export.download import Fetched
from dynotui.table_export.engine import Engine, resolve_s3_access
from dynotui.table_export.manifest import (
    MAX_MANIFEST_BYTES,
    Export,
    Location,
    inside,
    parse_location,
    read_export,
    read_local,
)
from dynotui.table_export.predicate import REFUSAL

# A DynamoDB item is at most 400 KB (names and values as UTF-8); as a line of DynamoDB
# JSON it may be several times that (each byte of a string escaped as \u0001 is six, an
# empty string in a list nine), never 8 MiB. DuckDB's maximum_object_size bounds the
# buffer a line is read into (lines of up to about twice it pass): each line's length is
# checked too, and a longer one stops the statement at once, with its file named.
MAX_LINE_BYTES = 8 * 2**20
TOO_LONG = "a line of the data file"
_READ = (
    "read_ndjson_objects($files, compression = 'gzip', "
    f"maximum_object_size = {MAX_LINE_BYTES}, filename = true)"
)
_CHECKED = (
    f"CASE WHEN strlen(CAST(json AS VARCHAR)) > {MAX_LINE_BYTES} THEN "
    f"error('{TOO_LONG} ' || filename || ' is longer than {MAX_LINE_BYTES // 2**20} MiB: no "
    "DynamoDB item is (at most 400 KB); not an export of a DynamoDB table') ELSE json END"
)
# Every line of every data file, as JSON. The file list is a bound parameter.
LINES = f"(SELECT {_CHECKED} AS doc FROM {_READ})"
# The same, with the data file each line is in (to name it when a line is refused).
LINES_WITH_FILE = f"(SELECT {_CHECKED} AS doc, filename FROM {_READ})"
ITEM = "json_type(doc, '/Item') = 'OBJECT'"
# A data file of an export is gzip of at most a few GB (DynamoDB splits larger ones).
MAX_DATA_FILE_BYTES = 64 * 2**30


def duckdb_error(exc: BaseException, what: str) -> Exception:
    """DuckDB's failure as one of dynotui's: the export's fault (exit 2: not there, not
    DynamoDB JSON) or the service's (exit 1: access, the network)."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    refused = text.find(REFUSAL)
    if refused >= 0:  # a refusal the predicate raises for the row that needs it
        return InputError(text[refused:])
    too_long = text.find(TOO_LONG)
    if too_long >= 0:  # the line-length check of LINES
        return InputError(text[too_long:])
    too_big = re.search(r'"maximum_object_size" of \d+ bytes exceeded .* file "([^"]*)"', text)
    if too_big:
        return InputError(
            f"{TOO_LONG} {too_big.group(1)} is longer than {MAX_LINE_BYTES // 2**20} MiB: no "
            "DynamoDB item is (at most 400 KB); not an export of a DynamoDB table"
        )
    if type(exc).__name__ == "HTTPException":
        status = re.search(r": ([1-5][0-9][0-9]) \(", text)
        code = status.group(1) if status else None
        if code == "404":
            return InputError(f"{what} is not there ({text})")
        if code in ("401", "403"):
            return ServiceError(f"access to {what} was denied ({text})")
        return ServiceError(f"cannot read {what}: {text}")
    if type(exc).__name__ == "IOException":
        return InputError(f"cannot read {what}: {text}")
    return InputError(f"{what} cannot be read as DynamoDB JSON lines: {text}")


class OpenExport:
    """An export's manifests read and checked; DuckDB ready to read its data."""

    def __init__(
        self,
        text: str,
        *,
        profile: str | None = None,
        region: str | None = None,
        engine: Engine | None = None,
        cache: bool = True,
        cache_folder: Path | None = None,
        said: Callable[[str], None] | None = None,
        fetched: Fetched | None = None,
    ) -> None:
        self.location: Location = parse_location(text)
        self.cache = cache
        self.cache_folder = cache_folder
        # Told where a new copy is kept and its size, once the reading has ended well
        # (say_now: at once): a refusal after the copy is made stays one line.
        self.said = said
        self._unsaid: str | None = None
        self.fetched = fetched  # told how much of an export on S3 is downloaded
        self.profile, self.region = profile, region
        self.copy: ExportCopy | None = None
        self._manifests: dict[str, str] = {}
        self.engine = engine or Engine()
        # One DuckDB connection: sources that share it (two orders compared) and a count
        # take turns, whatever thread reads.
        self.lock = threading.RLock()
        self._checked = False  # the data files' MD5s, checked before their first read
        try:
            if self.location.s3:
                self.engine.use_s3(resolve_s3_access(profile, region))
            self.export: Export = read_export(self.location, self._read)
            if not self.location.s3:
                self._check_local_files()
        except BaseException:
            if engine is None:  # refused: the engine made for it goes (its folder too)
                self.engine.close()
            raise

    def _check_local_files(self) -> None:
        missing = [f.url for f in self.export.files if not os.path.lexists(f.url)]
        if missing:
            raise InputError(
                f"the export lists {len(missing)} data file(s) that are not there, e.g. "
                f"{missing[0]}: an incomplete copy"
            )
        for file in self.export.files:
            inside(file.url, self.location.root)

    def _read(self, url: str) -> str:
        text = self._read_manifest(url)
        self._manifests[url] = text  # the copy's identity holds the manifests' digest
        return text

    def _read_manifest(self, url: str) -> str:
        if not self.location.s3:
            return read_local(url, self.location.root)
        try:
            # Its size first (no content is fetched for it): a huge object is refused
            # before a byte of it is read into memory.
            sized = self.engine.execute("SELECT size FROM read_blob($url)", {"url": url})
            size = (sized.fetchone() or (None,))[0]
            if size is not None and size > MAX_MANIFEST_BYTES:
                raise InputError(f"{url} is larger than a manifest can be")
            row = self.engine.execute(
                "SELECT content FROM read_text($url)", {"url": url}
            ).fetchone()
        except InputError:
            raise
        except Exception as exc:
            raise duckdb_error(exc, url) from None
        if row is None:  # pragma: no cover - read_text gives one row per file
            raise InputError(f"the export has no {url}")
        return str(row[0])

    def parameters(self, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        if self.copy is not None:
            return dict(extra or {})
        return {**(extra or {}), "files": self.export.urls}

    def lines(self) -> str:
        """SQL of every line of the export (``doc``, and ``filename``: the data file it
        is in): its copy in the cache, made now if there is none, or the data files."""
        if not self.cache:
            return LINES_WITH_FILE
        with self.lock:
            if self.copy is None:
                self.copy = self._open_copy()
                if self.copy.built:
                    self._unsaid = self.copy.said()
        return self.copy.lines

    @property
    def item(self) -> str:
        """SQL testing that a line of ``lines()`` is an item: a copy holds only items."""
        return "true" if self.copy is not None else ITEM

    def _open_copy(self) -> ExportCopy:
        try:
            return open_copy(
                self.engine,
                self.export,
                self._manifests,
                LINES_WITH_FILE,
                self.export.urls,
                fetch=self._download if self.location.s3 else None,
                # Downloaded files are checked as they are fetched (download.py).
                before_build=None if self.location.s3 else self.check_files,
                folder=self.cache_folder,
            )
        except InputError:
            raise
        except Exception as exc:
            raise duckdb_error(exc, "the export's data") from None

    def _download(self, folder: Path) -> list[str]:
        from dynotui.table_export.download import download, s3_client

        client = s3_client(self.profile, self.region)
        return download(self.export, folder, client, self.fetched)

    def data_bytes(self) -> int:
        """What reading every data file reads: their sizes as stored (gzip)."""
        if self.copy is not None:
            return self.copy.record.data_bytes
        if not self.export.files:
            return 0
        if not self.location.s3:
            return sum(os.path.getsize(url) for url in self.export.urls)
        try:
            with self.lock:
                row = self.engine.execute(
                    "SELECT sum(size) FROM read_blob($files)", {"files": self.export.urls}
                ).fetchone()
        except Exception as exc:
            raise duckdb_error(exc, "the export's data files") from None
        return int(row[0] or 0) if row else 0

    def query(self, sql: str, parameters: dict[str, Any]) -> list[Any]:
        """``sql`` over the export's lines (``LINES``), once each data file's MD5 is the
        manifest's."""
        with self.lock:
            if self.copy is None:  # a copy was made of files whose MD5s were checked
                self.check_files()
            try:
                return list(self.engine.execute(sql, self.parameters(parameters)).fetchall())
            except Exception as exc:
                raise duckdb_error(exc, "the export's data") from None

    def check_files(self) -> None:
        """Each data file's MD5 against md5Checksum in the manifest (a flipped bit shows
        here, not only when it breaks the JSON), once, before the data is first read."""
        if self._checked:
            return
        for file in self.export.files:
            digest = self._md5(file.url)
            if digest != file.md5:
                raise InputError(
                    f"the data file {file.url} is not the one the manifest lists: its MD5 is "
                    f"{base64.b64encode(digest).decode()}, md5Checksum says "
                    f"{base64.b64encode(file.md5).decode()} (altered, or cut short in a copy)"
                )
        self._checked = True

    def _md5(self, url: str) -> bytes:
        if self.location.s3:  # one file at a time: its bytes are fetched once more
            try:
                row = self.engine.execute(
                    "SELECT md5(content) FROM read_blob($url)", {"url": url}
                ).fetchone()
            except Exception as exc:
                raise duckdb_error(exc, url) from None
            return bytes.fromhex(str(row[0])) if row else b""
        digest = hashlib.md5()
        try:
            with open_checked(url, MAX_DATA_FILE_BYTES) as data:
                while chunk := data.read(1 << 20):
                    digest.update(chunk)
        except Unreadable as exc:
            raise InputError(f"the data file {url} {exc.problem}") from None
        return digest.digest()

    def check_lines(self, lines: int, items: int) -> None:
        """Every row or a refusal: the data must hold what the manifests list."""
        listed = self.export.item_count
        if lines != listed or items != lines:
            raise InputError(
                f"the export's data files hold {lines:,} lines ({items:,} of them items), "
                f"its manifests list {listed:,} items: an incomplete or altered export"
            )

    def say_now(self) -> None:
        """Say where a copy made by this reading is kept (once)."""
        text, self._unsaid = self._unsaid, None
        if text is not None and self.said is not None:
            self.said(text)

    def close(self) -> None:
        self.engine.close()

    def __enter__(self) -> OpenExport:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        try:
            if kind is None:
                self.say_now()
        finally:
            self.close()
