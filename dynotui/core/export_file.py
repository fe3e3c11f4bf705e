"""A view's items exported to a file from the app: this page, the stack's pages, or the
whole query, as CSV or JSON lines, written whole or not at all.

The file is written beside its final path under a hidden temporary name and linked into
place only once every item is in (``os.link``: atomic, and it never replaces a file, so a
file that appeared at the path while the export ran is kept and the export refused), so
a cancelled or failed export leaves nothing at the path, and a file found there is whole. The
writers are ``pages --format``'s own (``core/export.py``). Pages are read by a pager of
their own (a fresh stack from the chosen start, billed to the session's ledger as any
page is) and never through the view's stack, which stays as it was. Read-only: nothing
here writes to the database.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from dynotui.core.cancel import NEVER, CancelToken
from dynotui.core.config import in_the_way
from dynotui.core.errors import InputError, ReadCancelled
from dynotui.core.export import CsvItems, ItemShape, ItemWriter, JsonLinesItems
from dynotui.core.ledger import SessionLedger
from dynotui.core.page import C, I, K, Page, PageSummary
from dynotui.core.pager import Pager
from dynotui.core.source import Source

Format = Literal["csv", "jsonl"]
Scope = Literal["page", "stack", "query"]
SUFFIXES: Mapping[Format, str] = {"csv": ".csv", "jsonl": ".jsonl"}


def export_stem(table: str, when: datetime) -> str:
    """``dynotui-export-<table>-<YYYYmmdd-HHMMSS>``: letters, digits, dots, dashes."""
    name = re.sub(r"[^A-Za-z0-9.-]+", "-", table).strip("-")[:60] or "query"
    return f"dynotui-export-{name}-{when.strftime('%Y%m%d-%H%M%S')}"


def default_export_path(folder: Path, table: str, fmt: Format, when: datetime) -> Path:
    return folder / (export_stem(table, when) + SUFFIXES[fmt])


def checked_path(text: str, fmt: Format) -> Path:
    """The path typed in the dialog, refused in one line before anything is read: it must
    name a file (not a folder) in a folder that exists, and end as its format does."""
    text = text.strip()
    if not text:
        raise InputError("path: name the file to write")
    path = Path(text).expanduser()
    if text.endswith(os.sep) or path.is_dir():
        raise InputError(f"path: {path} is a folder; name a file in it")
    if path.suffix.lower() != SUFFIXES[fmt]:
        raise InputError(f"path: a {fmt.upper()} file ends in {SUFFIXES[fmt]}")
    blocker = in_the_way(path)
    if blocker is not None:
        raise InputError(f"path: {blocker} is a file, not a folder; name a file in a folder")
    return path


def make_folder(folder: Path) -> None:
    """The default exports folder, made private when it is made (exports hold data)."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot make the folder {folder}: {exc.strerror}") from None


@dataclass(frozen=True)
class ExportForecast:
    """What an export will read, from the pages this view has read so far."""

    pages: int | None  # None: unknown until the query has been read (or counted)
    per_page_units: float | None  # None: no page read yet reported capacity
    per_page_calls: float
    unit: str
    basis: str  # in words: which pages the averages come from

    @property
    def units(self) -> float | None:
        if self.pages is None or self.per_page_units is None:
            return None
        return self.pages * self.per_page_units

    @property
    def calls(self) -> int | None:
        return None if self.pages is None else round(self.pages * self.per_page_calls)


def forecast(series: Sequence[PageSummary[Any, Any]], pages: int | None) -> ExportForecast:
    """``pages`` to read (None: unknown), costed at the average of the fresh pages read."""
    fresh = [s for s in series if not s.cached]
    units = [s.cost.headline for s in fresh if s.cost.headline is not None]
    per_units = sum(units) / len(units) if units else None
    per_calls = sum(s.cost.requests for s in fresh) / len(fresh) if fresh else 1.0
    unit = fresh[0].cost.unit if fresh else ""
    n = len(fresh)
    basis = (
        f"averages of the {n} page{'s' if n != 1 else ''} read on this stack"
        if fresh
        else "no page of this stack has been read fresh: one call a page assumed"
    )
    return ExportForecast(pages, per_units, per_calls, unit, basis)


@dataclass(frozen=True)
class ExportProgress:
    pages: int
    items: int
    units: float | None  # what the pages read so far cost, in ``unit``
    calls: int
    unit: str = ""


@dataclass(frozen=True)
class ExportResult:
    """``path`` is None when nothing was written (cancelled): no file, partial or not."""

    path: Path | None
    pages: int
    items: int
    units: float | None
    calls: int
    unit: str = ""


def writer_for(fmt: Format, out: Any, shape: ItemShape) -> ItemWriter:
    if fmt == "csv":
        return CsvItems(out, shape.key_names, shape.cell)
    return JsonLinesItems(out, shape.json)


def write_export(
    path: Path,
    fmt: Format,
    shape: ItemShape,
    pages: Iterable[Page[Any, Any, Any]],
    *,
    cancel: CancelToken = NEVER,
    progress: Callable[[ExportProgress], None] = lambda step: None,
) -> ExportResult:
    """Every page's items to ``path``, whole or not at all: cancelled (between pages, or
    by the read in flight), it returns with ``path`` None and no file there."""
    folder = path.parent
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except FileNotFoundError:
        raise InputError(f"cannot write {path}: the folder {folder} does not exist") from None
    except NotADirectoryError:
        raise InputError(f"cannot write {path}: {in_the_way(path) or folder} is a file") from None
    except PermissionError:
        raise InputError(f"cannot write {path}: no permission in {folder}") from None
    done, items, calls, unit = 0, 0, 0, ""
    units: float | None = None
    try:
        # newline="": the CSV writer ends rows in CRLF itself (RFC 4180).
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            writer = writer_for(fmt, out, shape)
            try:
                for page in pages:
                    if cancel.cancelled:
                        raise ReadCancelled()
                    writer.add(page.items)
                    done, items = done + 1, writer.count
                    if not page.cached:
                        calls, unit = calls + page.cost.requests, page.cost.unit
                        if page.cost.headline is not None:
                            units = (units or 0.0) + page.cost.headline
                    progress(ExportProgress(done, items, units, calls, unit))
                writer.finish()
            finally:
                writer.close()
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o600)
        _link_into_place(temporary, path)
    except ReadCancelled:
        Path(temporary).unlink(missing_ok=True)
        return ExportResult(None, done, items, units, calls, unit)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return ExportResult(path, done, items, units, calls, unit)


def _link_into_place(temporary: str, path: Path) -> None:
    """The whole file at ``path``, never over another: a hard link fails on any name that
    exists (a file, a link, one made after the dialog checked), where a rename replaces."""
    try:
        os.link(temporary, path, follow_symlinks=False)
    except FileExistsError:
        raise InputError(
            f"{path} appeared while the export ran: it is kept as it was, and nothing was "
            "written; name another file"
        ) from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV):
            raise InputError(f"cannot write {path}: {exc.strerror}") from None
        _copy_into_place(temporary, path)  # a file system without hard links
    os.unlink(temporary)


def _copy_into_place(temporary: str, path: Path) -> None:
    try:
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        raise InputError(
            f"{path} appeared while the export ran: it is kept as it was, and nothing was "
            "written; name another file"
        ) from None
    try:
        with open(temporary, "rb") as source, os.fdopen(target, "wb") as out:
            shutil.copyfileobj(source, out)
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        path.unlink(missing_ok=True)  # ours: made by O_EXCL above
        raise


def fresh_pages(
    source: Source[K, I, C],
    start_key: K | None,
    first_number: int,
    last: int | None,
    *,
    ledger: SessionLedger | None,
    cancel: CancelToken = NEVER,
) -> Iterator[Page[C, K, I]]:
    """Pages ``first_number`` to ``last`` (None: to the end) read fresh from ``start_key``
    by a stack of their own (one page cached: memory stays flat over a whole table)."""
    pager = Pager(
        source, start_key=start_key, first_number=first_number, cache_pages=1, ledger=ledger
    )
    while pager.can_advance and (last is None or pager.number < last):
        move = pager.plan("next")
        try:
            page = pager.read(move, cancel)
        except ReadCancelled as stopped:
            pager.abandon(stopped.cost)  # billed all the same
            raise
        yield pager.accept(page)
