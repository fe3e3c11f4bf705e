"""An export read once: its data kept as a DuckDB database in the user's cache folder,
which later queries, counts and partition lists read instead of the data files.

An export never changes once written, so its first read keeps every line in a table of
its own (``items``: the line, and the data file it came from) in
``CACHE/exports/<digest>.duckdb``. The digest names the export's identity: its ARN, its
time and the SHA-256 of both manifests (which list each data file's item count and MD5).

A copy is used only when all of this holds, and rebuilt otherwise, never read short:
it is a regular file of the user's alone (mode 0600, in a folder of theirs); DuckDB opens
it; its record names the same digest and format; it holds exactly the items the
manifests list; and, for an export on disk, each data file still has the size and
modification time it had when read (a file removed is refused by the export itself, a
file changed makes the copy stale). A copy is built under a private temporary folder
and renamed into place once complete and checked, so a read interrupted or refused
leaves nothing behind that a later run would take.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import stat
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dynotui.core.errors import InputError
from dynotui.core.private_folder import check_folder
from dynotui.table_export.manifest import Export

_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
FORMAT = 1  # the copy's layout: a copy of another format is rebuilt
ENVIRONMENT = "DYNOTUI_EXPORT_CACHE"  # a folder for the copies instead of the default
SUFFIX = ".duckdb"
ATTACHED = "dynotui_copy"
BUILDING = "dynotui_building"
Progress = Callable[[str], None]


def cache_folder() -> Path:
    """Where copies are kept: ``$DYNOTUI_EXPORT_CACHE``, else the user cache folder's
    ``exports`` (``~/.cache/dynotui/exports`` on Linux)."""
    chosen = os.environ.get(ENVIRONMENT)
    if chosen:
        return Path(chosen).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("dynotui")) / "exports"


def _checked_folder(folder: Path, *, create: bool) -> Path:
    if create:
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot make the export cache {folder}: {exc.strerror}") from None
    check_folder(folder, "the export cache", f"or set {ENVIRONMENT} to a folder of yours")
    return folder


def identity(export: Export, manifests: dict[str, str]) -> str:
    """The copy's name: the export's ARN and time, and the SHA-256 of its manifests' text."""
    digest = hashlib.sha256()
    for part in (str(FORMAT), export.export_arn, export.export_time.isoformat()):
        digest.update(part.encode() + b"\0")
    for name in sorted(manifests):
        digest.update(os.path.basename(name).encode() + b"\0")
        digest.update(hashlib.sha256(manifests[name].encode()).digest())
    return digest.hexdigest()[:40]


def file_stats(export: Export) -> list[list[Any]]:
    """Each data file on disk as (name, size, modification time in ns); none on S3."""
    if export.location.s3:
        return []
    found = []
    for file in export.files:
        info = os.stat(file.url)
        found.append([os.path.basename(file.url), info.st_size, info.st_mtime_ns])
    return found


def quoted(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


@dataclass(frozen=True)
class CopyRecord:
    """What a copy says of itself (its ``record`` table), and where it is."""

    path: Path
    digest: str
    export_arn: str
    table: str
    export_time: str
    location: str
    items: int
    data_bytes: int
    files: list[list[Any]]
    built_at: str
    size: int  # the copy's and its orders' keys' (order_keys.py)
    build: str  # this build's own id: what an order's keys are tied to

    def as_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "bytes": self.size,
            "export_arn": self.export_arn,
            "table": self.table,
            "export_time": self.export_time,
            "location": self.location,
            "items": self.items,
            "built_at": self.built_at,
        }


def _record(engine: Any, schema: str, path: Path) -> CopyRecord | None:
    try:
        row = engine.execute(f"SELECT record FROM {schema}.record").fetchone()
        data = json.loads(row[0]) if row else None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        return CopyRecord(
            path=path,
            digest=str(data["digest"]),
            export_arn=str(data["export_arn"]),
            table=str(data["table"]),
            export_time=str(data["export_time"]),
            location=str(data["location"]),
            items=int(data["items"]),
            data_bytes=int(data["data_bytes"]),
            files=list(data["files"]),
            built_at=str(data["built_at"]),
            size=sum(p.stat().st_size for p in [path, *path.parent.glob(f"{path.stem}-*{SUFFIX}")]),
            build=str(data["build"]),
        )
    except Exception:  # a copy that cannot say what it is, is no copy
        return None


def private_file(path: Path) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    mine = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return stat.S_ISREG(info.st_mode) and mine and not info.st_mode & 0o077


@contextlib.contextmanager
def writer_lock(folder: Path, digest: str, *, wait: bool = True) -> Iterator[bool]:
    """The lock on building ``digest`` (True: held; False: another holds it and ``wait``
    is off). Two first reads of one export at once (two terminals) build it once."""
    descriptor = os.open(folder / f".{digest}.lock", os.O_RDWR | os.O_CREAT | _NO_FOLLOW, 0o600)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(descriptor, fcntl.LOCK_UN)
    finally:
        os.close(descriptor)


def _digest_of(name: str) -> str:
    return name.lstrip(".").split(".", 1)[0]


def _left_behind(folder: Path, digest: str) -> None:
    """Remove what builds that ended without finishing left: ``digest``'s (whose lock
    this process holds) and others' whose lock is free."""
    for entry in folder.glob(".*.building"):
        if _digest_of(entry.name) == digest:
            shutil.rmtree(entry, ignore_errors=True)
            continue
        with writer_lock(folder, _digest_of(entry.name), wait=False) as held:
            if held:
                shutil.rmtree(entry, ignore_errors=True)


class ExportCopy:
    """The export's copy, attached read-only to the export's DuckDB connection as
    ``dynotui_copy``: ``items(doc JSON, file VARCHAR)``, every line an item."""

    def __init__(self, path: Path, record: CopyRecord, built: bool) -> None:
        self.path = path
        self.record = record
        self.built = built  # made by this read (False: an earlier read's copy)
        self.orders: set[str] = set()  # the orders whose keys are attached (order_keys.py)

    @property
    def lines(self) -> str:
        return f"(SELECT doc, file AS filename FROM {ATTACHED}.items)"

    def said(self) -> str:
        """The copy's place and size, for the person who asked."""
        made = "kept a copy of the export" if self.built else "read the export's copy"
        return (
            f"{made} in {self.path} ({self.record.size / 1e6:,.1f} MB; "
            "dynotui exports list / clear, --no-cache to read the files)"
        )


def open_copy(
    engine: Any,
    export: Export,
    manifests: dict[str, str],
    read_lines: str,
    files: list[str],
    *,
    fetch: Callable[[Path], list[str]] | None = None,
    before_build: Callable[[], None] | None = None,
    folder: Path | None = None,
) -> ExportCopy:
    """The export's copy attached to ``engine``: the one kept, if it still holds, else
    a new one read from ``read_lines`` (SQL over ``$files`` giving ``doc`` and
    ``filename``), checked against the manifests before it is kept. ``fetch(folder)``,
    when given, first brings the data files into a private folder and gives their
    paths (an export on S3 is downloaded once); ``before_build()`` runs before a copy
    is made (checks of the data files)."""
    folder = _checked_folder(folder or cache_folder(), create=True)
    digest = identity(export, manifests)
    path = folder / f"{digest}{SUFFIX}"
    stats = file_stats(export)
    found = _attach(engine, path, digest, export, stats)
    if found is not None:
        return ExportCopy(path, found, built=False)
    with writer_lock(folder, digest):
        found = _attach(engine, path, digest, export, stats)  # built meanwhile by another
        if found is not None:
            return ExportCopy(path, found, built=False)
        _left_behind(folder, digest)
        if before_build is not None:
            before_build()
        _build(engine, folder, path, digest, export, read_lines, files, stats, fetch)
        found = _attach(engine, path, digest, export, stats)
    if found is None:  # pragma: no cover - what was just checked and renamed is there
        raise InputError(f"the export's copy {path} could not be read back")
    return ExportCopy(path, found, built=True)


def _attach(
    engine: Any, path: Path, digest: str, export: Export, stats: list[list[Any]]
) -> CopyRecord | None:
    """The copy at ``path`` attached read-only when it is whole and this export's; None
    (and nothing attached) otherwise."""
    if not private_file(path):
        return None
    try:
        engine.execute(f"ATTACH {quoted(path)} AS {ATTACHED} (READ_ONLY)")
    except Exception:
        return None  # not a DuckDB database (cut short, overwritten): built again
    record = _record(engine, ATTACHED, path)
    held = None
    if record is not None:
        with contextlib.suppress(Exception):
            held = engine.execute(f"SELECT count(*) FROM {ATTACHED}.items").fetchone()
    whole = (
        record is not None
        and held is not None
        and record.digest == digest
        and record.items == export.item_count
        and int(held[0]) == export.item_count
        and record.files == stats
    )
    if not whole:
        engine.execute(f"DETACH {ATTACHED}")
        return None
    return record


@contextlib.contextmanager
def new_database(engine: Any, path: Path, alias: str) -> Iterator[Path]:
    """A new DuckDB database attached as ``alias``, made in a private temporary folder
    beside ``path`` (which the block may use: it is given); when the block ends without
    error, written out, made 0600 and renamed to ``path``; otherwise removed."""
    scratch = Path(tempfile.mkdtemp(prefix=f".{path.stem}.", suffix=".building", dir=path.parent))
    building = scratch / path.name
    attached = False
    try:
        engine.execute(f"ATTACH {quoted(building)} AS {alias}")
        attached = True
        yield scratch
        engine.execute(f"CHECKPOINT {alias}")
        engine.execute(f"DETACH {alias}")
        attached = False
        os.chmod(building, 0o600)
        with open(building, "rb") as written:
            os.fsync(written.fileno())
        os.replace(building, path)
    finally:
        if attached:
            with contextlib.suppress(Exception):
                engine.execute(f"DETACH {alias}")
        shutil.rmtree(scratch, ignore_errors=True)


def _build(
    engine: Any,
    folder: Path,
    path: Path,
    digest: str,
    export: Export,
    read_lines: str,
    files: list[str],
    stats: list[list[Any]],
    fetch: Callable[[Path], list[str]] | None,
) -> None:
    """Every line of the data files into a new database, checked, renamed into place."""
    with new_database(engine, path, BUILDING) as scratch:
        if fetch is not None and files:
            fetched = scratch / "data"
            fetched.mkdir(mode=0o700)
            files = fetch(fetched)
        if files:
            engine.execute(
                f"CREATE TABLE {BUILDING}.items AS SELECT doc, "
                f"regexp_extract(filename, '[^/]*$') AS file FROM {read_lines}",
                {"files": files},
            )
        else:
            engine.execute(f"CREATE TABLE {BUILDING}.items (doc JSON, file VARCHAR)")
        counted = engine.execute(
            f"SELECT count(*), count(*) FILTER (WHERE json_type(doc, '/Item') = 'OBJECT') "
            f"FROM {BUILDING}.items"
        ).fetchone()
        lines, items = (int(counted[0]), int(counted[1])) if counted else (0, 0)
        if lines != export.item_count or items != lines:
            raise InputError(
                f"the export's data files hold {lines:,} lines ({items:,} of them items), "
                f"its manifests list {export.item_count:,} items: an incomplete or altered "
                "export"
            )
        record = {
            "format": FORMAT,
            "digest": digest,
            "export_arn": export.export_arn,
            "table": export.table_name,
            "export_time": export.export_time.isoformat(),
            "location": export.location.root,
            "items": lines,
            "data_bytes": sum(os.path.getsize(name) for name in files),
            "files": stats,
            "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "build": uuid.uuid4().hex,
        }
        engine.execute(
            f"CREATE TABLE {BUILDING}.record AS SELECT $record AS record",
            {"record": json.dumps(record)},
        )
    for stale in folder.glob(f"{digest}-*{SUFFIX}"):  # the keys of the copy replaced
        stale.unlink(missing_ok=True)


# -- listing and clearing -----------------------------------------------------------------


def list_copies(folder: Path | None = None) -> list[CopyRecord]:
    """Every copy kept, newest first; a file that is no copy is left out."""
    import duckdb

    folder = folder or cache_folder()
    if not folder.is_dir():
        return []
    _checked_folder(folder, create=False)
    found = []
    connection = duckdb.connect()
    try:
        for path in sorted(folder.glob(f"*{SUFFIX}")):
            if "-" in path.stem or not private_file(path):  # an order's keys: in its copy
                continue
            try:
                connection.execute(f"ATTACH {quoted(path)} AS listed (READ_ONLY)")
            except Exception:
                continue
            try:
                record = _record(connection, "listed", path)
            finally:
                connection.execute("DETACH listed")
            if record is not None:
                found.append(record)
    finally:
        connection.close()
    return sorted(found, key=lambda r: r.built_at, reverse=True)


def clear_copies(folder: Path | None = None, older_than: float | None = None) -> tuple[int, int]:
    """Remove the copies (all, or those built more than ``older_than`` seconds ago), their
    orders' keys and what interrupted builds left: (copies removed, bytes freed)."""
    folder = folder or cache_folder()
    if not folder.is_dir():
        return 0, 0
    _checked_folder(folder, create=False)
    removed = freed = 0
    now = time.time()
    for entry in sorted(folder.iterdir()):
        name = entry.name
        if not (name.endswith(SUFFIX) or name.endswith(".building")):
            continue
        try:
            info = entry.lstat()
        except OSError:
            continue
        if older_than is not None and now - info.st_mtime < older_than:
            continue
        with writer_lock(folder, _digest_of(name), wait=False) as held:
            if not held:
                continue  # being built right now: its reader keeps it
            if stat.S_ISDIR(info.st_mode):
                size = sum(p.stat().st_size for p in entry.rglob("*") if p.is_file())
                shutil.rmtree(entry, ignore_errors=True)
            else:
                size = info.st_size
                entry.unlink(missing_ok=True)
            (folder / f".{_digest_of(name)}.lock").unlink(missing_ok=True)
        removed += 0 if "-" in _digest_of(name) else 1  # an order's keys go with their copy
        freed += size
    return removed, freed
