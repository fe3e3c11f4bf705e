"""Queries opened, remembered between runs: where each was left, and what it cost.

One JSON file in the user's data folder (``$XDG_DATA_HOME/dynotui/history.json`` on
Linux), owner-only (0600), replaced whole on every write (a temporary file, fsync,
rename, fsync of the folder) under a lock, so two dynotui at once neither corrupt it
nor lose each other's entries. It is capped in entries and in bytes; the oldest go
first. It holds connections without secrets (the store refuses a password or an AWS
key), each query as its database wrote it, and the boundary key of the last page
viewed: never any item value beyond that key.

A file that is not dynotui's history (damaged, another program's, a newer format) is
refused with its path and what to do, and never overwritten: history stops until the
user moves it aside. ``enabled=False`` (``--no-history``, or ``history = false`` in
config.toml) writes nothing at all, not even the folder.

What a query holds is each database's business (``dynamodb/history_entry.py``,
``postgres/history_entry.py``); this store treats it as JSON.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import platformdirs

from dynotui.core import config
from dynotui.core.bounded_file import Unreadable, read_bounded
from dynotui.core.errors import InputError
from dynotui.core.private_folder import NotPrivateError, check_folder, open_no_follow

if TYPE_CHECKING:
    from dynotui.core.page import Totals

FILE_NAME = "history.json"
FORMAT = "dynotui-history"
VERSION = 1
DEFAULT_MAX_ENTRIES = 200
DEFAULT_MAX_BYTES = 512 * 1024
MAX_ENTRY_BYTES = 32 * 1024  # one query with its values and boundary
MAX_FILE_BYTES = 64 * 1024 * 1024  # a file larger than any cap allows is not read
# Names that hold credentials: a connection carrying one is refused, never written.
SECRET_WORDS = ("password", "passwd", "secret", "session_token", "access_key", "credential")
ENTRY_FIELDS = {
    "id",
    "database",
    "connection",
    "query",
    "label",
    "opened_at",
    "viewed_at",
    "page",
    "boundary",
    "cost",
}


class HistoryError(InputError):
    """The history file cannot be used (or an entry cannot be kept); one sentence why."""


def history_dir() -> Path:
    """dynotui's data folder (``$XDG_DATA_HOME/dynotui`` on Linux)."""
    return Path(platformdirs.user_data_dir("dynotui"))


def history_path() -> Path:
    return history_dir() / FILE_NAME


@dataclass(frozen=True)
class HistoryQuery:
    """What is recorded when a query opens; built by each database's history module."""

    database: str  # "dynamodb", "dynamodb-partiql", "postgres"
    connection: Mapping[str, Any]  # where it was read: no secrets
    query: Mapping[str, Any]  # the database's own description, as JSON
    label: str  # one line for the history list


@dataclass(frozen=True)
class HistoryEntry:
    id: str
    database: str
    connection: Mapping[str, Any]
    query: Mapping[str, Any]
    label: str
    opened_at: float
    viewed_at: float
    page: int = 0  # the last page viewed (0: none shown yet)
    boundary: Any = None  # that page's start key, as the source's JSON (None: the start)
    cost: Mapping[str, Any] = field(default_factory=dict)  # ``cost_record`` of the session

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "database": self.database,
            "connection": dict(self.connection),
            "query": dict(self.query),
            "label": self.label,
            "opened_at": self.opened_at,
            "viewed_at": self.viewed_at,
            "page": self.page,
            "boundary": self.boundary,
            "cost": dict(self.cost),
        }

    @property
    def identity(self) -> str:
        """Two entries of the same query on the same connection are one entry."""
        return _canonical([self.database, self.connection, self.query])

    def cost_words(self) -> str:
        return cost_words(self.cost)


def reopened_note(last_viewed: int, boundary: str, what_changed: str) -> str:
    """What a reopened stack says of itself: its first page, numbered as when it was left,
    re-read from the stored ``boundary`` of the page last viewed, while ``what_changed``
    may have since."""
    if last_viewed <= 1:
        return "Reopened from history at page 1."
    return (
        f"Reopened from history at page {last_viewed}: re-read from its stored {boundary} "
        f"({what_changed} since; pages before it are not on this stack)."
    )


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def entry_from_json(data: Any) -> HistoryEntry:
    """An entry from the file, checked field by field (ValueError if anything is off)."""
    if not isinstance(data, dict) or set(data) != ENTRY_FIELDS:
        raise ValueError("an entry with unexpected fields")
    text_fields = ("id", "database", "label")
    if not all(isinstance(data[name], str) and data[name] for name in text_fields):
        raise ValueError("an entry without its id, database or label")
    if not all(isinstance(data[name], dict) for name in ("connection", "query", "cost")):
        raise ValueError("an entry whose connection, query or cost is not an object")
    if not (_number(data["opened_at"]) and _number(data["viewed_at"])):
        raise ValueError("an entry without its times")
    page = data["page"]
    if not isinstance(page, int) or isinstance(page, bool) or page < 0:
        raise ValueError("an entry whose page is not a page number")
    return HistoryEntry(
        id=data["id"],
        database=data["database"],
        connection=data["connection"],
        query=data["query"],
        label=data["label"],
        opened_at=float(data["opened_at"]),
        viewed_at=float(data["viewed_at"]),
        page=page,
        boundary=data["boundary"],
        cost=data["cost"],
    )


def _secret_in(value: Any, where: str) -> str | None:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            named = any(word in str(key).lower().replace("-", "_") for word in SECRET_WORDS)
            if named and inner not in (None, "", False):
                return f"{where}.{key}"
            found = _secret_in(inner, f"{where}.{key}")
            if found:
                return found
    elif isinstance(value, list | tuple):
        for i, inner in enumerate(value):
            found = _secret_in(inner, f"{where}[{i}]")
            if found:
                return found
    elif isinstance(value, str) and "://" in value:
        with contextlib.suppress(ValueError):
            if urlsplit(value).password is not None:
                return f"{where} (a URL with a password)"
    return None


def check_no_secrets(connection: Mapping[str, Any]) -> None:
    """Refuse a connection that carries a credential: the history file must never hold one."""
    found = _secret_in(connection, "connection")
    if found:
        raise HistoryError(f"not kept in history: {found} holds a credential")


def cost_record(totals: Totals[Any]) -> dict[str, Any]:
    """What a session has cost so far, for its history entry (any database's cost)."""
    cost, abandoned = totals.cost, totals.abandoned
    return {
        "pages_read": totals.pages_read,
        "headline": None if cost is None else cost.headline,
        "unit": None if cost is None else cost.unit,
        "read": None if cost is None else cost.read,
        "matched": 0 if cost is None else cost.matched,
        "requests": 0 if cost is None else cost.requests,
        "abandoned": None if abandoned is None else abandoned.headline,
    }


def cost_words(cost: Mapping[str, Any]) -> str:
    """``12.5 RCU over 4 page reads`` (``not reported`` where the database said nothing)."""
    pages = cost.get("pages_read") or 0
    headline, unit = cost.get("headline"), cost.get("unit") or ""
    spent = "cost not reported" if headline is None else f"{_amount(headline)} {unit}".strip()
    words = f"{spent} over {pages:,} page read{'s' if pages != 1 else ''}"
    if cost.get("abandoned"):
        words += f" (+{_amount(cost['abandoned'])} {unit} on abandoned reads)".replace("  ", " ")
    return words


def _amount(value: float) -> str:
    return f"{value:,.10g}"  # every digit the database reported: 128.5, not 128


def _check_int(name: str, value: Any, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InputError(
            f"[history] {name} in the settings file {config.config_path()} must be a whole "
            f"number from {low:,} to {high:,}, got {value!r}"
        )
    return value


@dataclass(frozen=True)
class HistorySettings:
    enabled: bool = True
    max_entries: int = DEFAULT_MAX_ENTRIES
    max_bytes: int = DEFAULT_MAX_BYTES


def history_settings(settings: Mapping[str, Any] | None = None) -> HistorySettings:
    """``history = false``, or a ``[history]`` table (``enabled``, ``max_entries``,
    ``max_bytes``) in config.toml; anything else there is refused by name."""
    settings = config.load() if settings is None else settings
    value = settings.get("history", {})
    where = f"in the settings file {config.config_path()}"
    if isinstance(value, bool):
        return HistorySettings(enabled=value)
    if not isinstance(value, Mapping):
        raise InputError(f"history {where} must be true, false or a [history] table")
    unknown = sorted(set(value) - {"enabled", "max_entries", "max_bytes"})
    if unknown:
        raise InputError(
            f"[history] {where} has no setting {', '.join(unknown)} "
            "(it takes enabled, max_entries, max_bytes)"
        )
    enabled = value.get("enabled", True)
    if not isinstance(enabled, bool):
        raise InputError(f"[history] enabled {where} must be true or false, got {enabled!r}")
    return HistorySettings(
        enabled=enabled,
        max_entries=_check_int(
            "max_entries", value.get("max_entries", DEFAULT_MAX_ENTRIES), 1, 10_000
        ),
        max_bytes=_check_int(
            "max_bytes", value.get("max_bytes", DEFAULT_MAX_BYTES), 4096, MAX_FILE_BYTES
        ),
    )


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One writer at a time across processes (a no-op where flock does not exist)."""
    fd = open_no_follow(path, "the history lock file")
    try:
        if sys.platform != "win32":
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


class HistoryStore:
    """The history file: record an open, update where it was left, list, reopen."""

    def __init__(
        self,
        path: Path | None = None,
        *,
        enabled: bool = True,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path or history_path()
        self.enabled = enabled
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.clock = clock

    @classmethod
    def from_settings(
        cls,
        *,
        enabled: bool = True,
        settings: Mapping[str, Any] | None = None,
        path: Path | None = None,
    ) -> HistoryStore:
        """The store the user asked for: off when ``enabled`` is False (``--no-history``)
        or config.toml turns it off; caps from config.toml."""
        chosen = history_settings(settings)
        return cls(
            path,
            enabled=enabled and chosen.enabled,
            max_entries=chosen.max_entries,
            max_bytes=chosen.max_bytes,
        )

    # -- reading -----------------------------------------------------------------------

    def _refuse(self, why: str) -> HistoryError:
        return HistoryError(
            f"the history file {self.path} {why}: move it aside or delete it (dynotui keeps "
            "no history until then; --no-history runs without it)"
        )

    def _check_folder(self) -> None:
        """Others who can write the folder could plant entries or links: refused."""
        try:
            check_folder(
                self.path.parent,
                "dynotui's data folder",
                "point XDG_DATA_HOME elsewhere (--no-history runs without history)",
            )
        except NotPrivateError as exc:
            raise HistoryError(str(exc)) from None

    def _read(self) -> list[HistoryEntry]:
        self._check_folder()
        try:
            # Not through a link, the user's own and no one else's, never a FIFO.
            raw = read_bounded(self.path, MAX_FILE_BYTES, follow_links=False, private=True)
        except Unreadable as exc:
            if exc.kind == "missing":
                return []
            if exc.kind == "others":
                raise HistoryError(
                    f"the history file {self.path} {exc.problem}: run 'chmod 600 {self.path}'"
                ) from None
            if exc.kind in ("not_folder", "permission"):
                raise self._refuse("cannot be reached") from None
            raise self._refuse(exc.problem) from None
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise self._refuse("is not dynotui's history (not JSON)") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise self._refuse("is not dynotui's history")
        if data.get("version") != VERSION or set(data) != {"format", "version", "entries"}:
            raise self._refuse(f"is history format {data.get('version')!r}, not {VERSION}")
        if not isinstance(data["entries"], list):
            raise self._refuse("is damaged (its entries are not a list)")
        try:
            return [entry_from_json(e) for e in data["entries"]]
        except ValueError as exc:
            raise self._refuse(f"is damaged ({exc})") from None

    def entries(self) -> list[HistoryEntry]:
        """Every entry, the most recently viewed first."""
        return sorted(self._read(), key=lambda e: e.viewed_at, reverse=True)

    def last(self) -> HistoryEntry | None:
        """The query viewed last (for ``dynotui --resume``), or None."""
        entries = self.entries()
        return entries[0] if entries else None

    def get(self, entry_id: str) -> HistoryEntry | None:
        return next((e for e in self._read() if e.id == entry_id), None)

    # -- writing -----------------------------------------------------------------------

    def _write(self, entries: list[HistoryEntry]) -> None:
        entries = sorted(entries, key=lambda e: e.viewed_at, reverse=True)[: self.max_entries]
        while True:
            text = json.dumps(
                {"format": FORMAT, "version": VERSION, "entries": [e.as_json() for e in entries]},
                ensure_ascii=False,
                separators=(",", ":"),
            ).encode("utf-8")
            if len(text) <= self.max_bytes or not entries:
                break
            entries = entries[:-1]  # the oldest goes first
        folder = self.path.parent
        temporary = folder / f".{FILE_NAME}.{os.getpid()}.{secrets.token_hex(6)}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise
        with contextlib.suppress(OSError):  # the rename itself survives a crash too
            folder_fd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(folder_fd)
            finally:
                os.close(folder_fd)

    def _change(self, change: Callable[[list[HistoryEntry]], list[HistoryEntry] | None]) -> None:
        """Read, change and replace the file under the lock (``change`` returning None:
        nothing to write)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._check_folder()
            with _locked(self.path.with_name(f".{FILE_NAME}.lock")):
                changed = change(self._read())
                if changed is not None:
                    self._write(changed)
        except HistoryError:
            raise
        except NotPrivateError as exc:
            raise HistoryError(str(exc)) from None
        except OSError as exc:
            raise HistoryError(
                f"the history file {self.path} cannot be written ({exc.strerror or exc})"
            ) from None

    def record_open(self, query: HistoryQuery) -> str | None:
        """Remember a query just opened (the same query on the same connection replaces
        its older entry); its entry id, or None when history is off."""
        if not self.enabled:
            return None
        check_no_secrets(query.connection)
        now = self.clock()
        entry = HistoryEntry(
            id=secrets.token_hex(8),
            database=query.database,
            connection=dict(query.connection),
            query=dict(query.query),
            label=query.label,
            opened_at=now,
            viewed_at=now,
        )
        size = len(_canonical(entry.as_json()).encode())
        if size > MAX_ENTRY_BYTES:
            raise HistoryError(
                f"this query is not kept in history: it takes {size:,} bytes, at most "
                f"{MAX_ENTRY_BYTES:,} are kept per query"
            )
        self._change(lambda old: [e for e in old if e.identity != entry.identity] + [entry])
        return entry.id

    def viewed(
        self, entry_id: str | None, *, page: int, boundary: Any, cost: Mapping[str, Any]
    ) -> bool:
        """Where the user is now: the page shown, the start key that re-reads it (as the
        source's JSON), and what the session cost. False if the entry is gone (capped
        out, or history is off)."""
        if not self.enabled or entry_id is None:
            return False
        if not isinstance(page, int) or page < 1:
            raise ValueError(f"a page number is 1 or more, got {page!r}")
        size = len(_canonical([boundary, dict(cost)]).encode())
        if size > MAX_ENTRY_BYTES:
            raise HistoryError(f"this page's start key is too large to keep ({size:,} bytes)")
        found = False

        def change(old: list[HistoryEntry]) -> list[HistoryEntry] | None:
            nonlocal found
            updated = []
            for entry in old:
                if entry.id == entry_id:
                    found = True
                    entry = replace(
                        entry, page=page, boundary=boundary, cost=dict(cost), viewed_at=self.clock()
                    )
                updated.append(entry)
            return updated if found else None

        self._change(change)
        return found
