"""The demo's seeded database, built once and kept in the user cache.

Seeding 13,462 items (the orders and the shop) takes 20-30 s; copying the database file
DynamoDB Local wrote takes milliseconds. The file is keyed by the demo data's version and
DynamoDB Local's, built on tmpfs where there is one (disk-backed seeding is twice as
slow), and only ever copied: every run starts from the same pristine data.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import platformdirs

from dynotui.local import demo
from dynotui.local.runner import DB_FILE_NAME, DynamoDBLocal


def cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("dynotui")) / "demo-db"


def cached_db(home: Path, root: Path | None = None) -> Path:
    """Where the seeded database for this demo version and DynamoDB Local build lives."""
    return (root or cache_dir()) / f"demo-v{demo.DATA_VERSION}-{home.name}" / DB_FILE_NAME


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    # Two first runs at once (or two test workers) build it once, not twice.
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _scratch() -> str | None:
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def scratch_folder() -> Path:
    """A private folder for a database being seeded (on tmpfs where there is one)."""
    return Path(tempfile.mkdtemp(prefix="dynotui-seed-", dir=_scratch()))


def remove_scratch(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def keep(scratch: Path, target: Path) -> Path:
    """The database DynamoDB Local seeded in ``scratch``, stored at ``target`` while that
    server still runs: SQLite's online backup reads a consistent copy (the demo writes
    nothing after seeding), written beside the target and renamed into place."""
    import sqlite3

    with _locked(target):
        staged = target.with_name(f".{target.name}.{os.getpid()}")
        staged.unlink(missing_ok=True)  # left by an earlier run of this pid: not a start
        try:
            source = sqlite3.connect(f"file:{scratch / DB_FILE_NAME}?mode=ro", uri=True)
            try:
                copy = sqlite3.connect(staged)
                try:
                    source.backup(copy)
                finally:
                    copy.close()
            finally:
                source.close()
            with open(staged, "rb") as written:
                os.fsync(written.fileno())
            os.replace(staged, target)
        except BaseException:
            staged.unlink(missing_ok=True)
            raise
    return target


def build(
    home: Path,
    target: Path,
    *,
    started: Callable[[DynamoDBLocal], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Seed a fresh database and store it at ``target`` (atomically)."""
    with tempfile.TemporaryDirectory(prefix="dynotui-seed-", dir=_scratch()) as scratch:
        with DynamoDBLocal(home=home, db_dir=Path(scratch)) as server:
            if started:
                started(server)
            demo.seed_demo(server.client(), progress=progress)
        # The JVM has stopped, so the database file is complete.
        staged = target.with_name(f".{target.name}.{os.getpid()}")
        shutil.copyfile(Path(scratch) / DB_FILE_NAME, staged)
        os.replace(staged, target)
    return target


def ensure(
    home: Path,
    *,
    reseed: bool = False,
    root: Path | None = None,
    started: Callable[[DynamoDBLocal], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Path, bool]:
    """The seeded database file, and whether it was built just now."""
    target = cached_db(home, root)
    with _locked(target):
        if target.is_file() and not reseed:
            return target, False
        return build(home, target, started=started, progress=progress), True
