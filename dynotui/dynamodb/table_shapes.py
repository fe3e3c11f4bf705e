"""The key shape of tables opened before, so page 1's Query goes out beside DescribeTable.

A Query needs the table's key names (and, for an index, the index's), which DescribeTable
gives: asked one after the other, the start pays two round trips before page 1. The
shape remembered from the last open of the same table on the same connection lets the
Query be sent at once, beside DescribeTable; the page it reads is kept only if the
table's description, when it answers, gives the very same request and cursor keys
(``opening.py`` checks), else it is read again. So a remembered shape can make the
start faster, never change which items page 1 holds.

What is kept: the table's name, its orders' key names and types and projections: no
items, no counts, and the connection only as a digest (its profile, region and endpoint
are never written out). It lives in dynotui's state folder, is written only where that
folder is the user's own, and is ignored (then rewritten) if it is not what this module
writes. With history off (``--no-history``, or in the settings) the command keeps none:
``cli/tui_cmd.py`` gives the opening no TableShapes then.
"""

from __future__ import annotations

import contextlib
import json
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dynotui.core.bounded_file import Unreadable, read_bounded
from dynotui.core.errors import InputError
from dynotui.core.private_folder import folder_problem
from dynotui.dynamodb.schema import KeyAttribute, OrderKind, SortOrder, TableSchema

FILE_NAME = "table-shapes.json"
VERSION = 1
MAX_TABLES = 200  # the most recently opened are kept
MAX_BYTES = 1 << 20  # a larger file is not read
KEY_TYPES = ("S", "N", "B")
PROJECTIONS = ("ALL", "KEYS_ONLY", "INCLUDE")


def state_folder() -> Path:
    """dynotui's state folder (``$XDG_STATE_HOME/dynotui`` on Linux)."""
    import platformdirs

    return Path(platformdirs.user_state_dir("dynotui"))


def connection_digest(profile: str | None, region: str, endpoint: str, table: str) -> str:
    """The connection and table as a digest: the file names no profile, host or port."""
    import hashlib  # in the opening's child, which alone asks: not on the app's way to Textual

    text = json.dumps([profile, region, endpoint, table], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def shape_of(schema: TableSchema) -> dict[str, Any]:
    """What a request and a cursor depend on in ``schema``: nothing that changes as items
    are written (counts, sizes, statuses)."""
    return {
        "name": schema.name,
        "orders": [
            [
                order.name,
                order.kind,
                order.partition_key.name,
                order.partition_key.type,
                order.sort_key.name if order.sort_key else None,
                order.sort_key.type if order.sort_key else None,
                order.projection,
                list(order.projected),
            ]
            for order in schema.orders
        ],
        "attributes": list(schema.attributes),
        "counts_live": schema.counts_live,
    }


class NotAShape(ValueError):
    """The file's entry is not one this module wrote."""


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > 1024:
        raise NotAShape("a name")
    return value


def _one_of(value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise NotAShape("a kind")
    return str(value)


def _kind(value: Any) -> OrderKind:
    if value == "table":
        return "table"
    if value == "lsi":
        return "lsi"
    if value == "gsi":
        return "gsi"
    raise NotAShape("a kind")


def _order(raw: Any) -> SortOrder:
    if not isinstance(raw, list) or len(raw) != 8:
        raise NotAShape("an order")
    name, kind, pk, pk_type, sk, sk_type, projection, projected = raw
    if (sk is None) != (sk_type is None) or not isinstance(projected, list):
        raise NotAShape("an order")
    return SortOrder(
        name=_text(name),
        kind=_kind(kind),
        partition_key=KeyAttribute(_text(pk), _one_of(pk_type, KEY_TYPES)),
        sort_key=None if sk is None else KeyAttribute(_text(sk), _one_of(sk_type, KEY_TYPES)),
        projection=_one_of(projection, PROJECTIONS),
        projected=tuple(_text(p) for p in projected),
        status="ACTIVE",  # not kept: nothing the request depends on
        item_count=None,
    )


def schema_from_shape(raw: Any) -> TableSchema:
    """The schema a shape describes, with no counts; NotAShape if it is not one."""
    if not isinstance(raw, dict) or set(raw) != {"name", "orders", "attributes", "counts_live"}:
        raise NotAShape("a shape")
    orders = raw["orders"]
    attributes = raw["attributes"]
    if not isinstance(orders, list) or not orders or not isinstance(attributes, list):
        raise NotAShape("a shape")
    parsed = tuple(_order(order) for order in orders)
    if parsed[0].kind != "table" or any(order.kind == "table" for order in parsed[1:]):
        raise NotAShape("a shape")
    if not isinstance(raw["counts_live"], bool):
        raise NotAShape("a shape")
    return TableSchema(
        name=_text(raw["name"]),
        status="ACTIVE",
        item_count=None,
        size_bytes=None,
        orders=parsed,
        attributes=tuple(_text(a) for a in attributes),
        counts_live=raw["counts_live"],
    )


@dataclass(frozen=True)
class TableShapes:
    """The remembered shapes, in ``folder`` (default: the state folder). Every failure to
    read or write is quiet: a shape only ever saves a round trip."""

    folder: Path | None = None

    @property
    def path(self) -> Path:
        return (self.folder or state_folder()) / FILE_NAME

    def recall(self, digest: str) -> TableSchema | None:
        """The shape remembered under ``digest``, or None (none, or not readable)."""
        for key, shape in self._entries():
            if key == digest:
                try:
                    return schema_from_shape(shape)
                except NotAShape:
                    return None
        return None

    def remember(self, digest: str, schema: TableSchema) -> None:
        """Keep ``schema``'s shape under ``digest``, the most recent last; the oldest go
        beyond MAX_TABLES. Nothing is written if the shape is kept already."""
        shape = shape_of(schema)
        entries = self._entries()
        if entries[-1:] == [[digest, shape]]:
            return
        kept = [entry for entry in entries if entry[0] != digest][-(MAX_TABLES - 1) :]
        kept.append([digest, shape])
        with contextlib.suppress(OSError, InputError):  # a full disk, say: keep nothing
            self._write({"version": VERSION, "tables": kept})

    def _entries(self) -> list[list[Any]]:
        path = self.path
        # Not through a link, and without waiting on a FIFO put there: a file, or nothing.
        try:
            if folder_problem(path.parent) is not None:
                return []
            data = read_bounded(path, MAX_BYTES, follow_links=False, private=True)
        except (OSError, Unreadable):
            return []
        try:
            document = json.loads(data)
        except (ValueError, RecursionError):
            return []
        if not isinstance(document, dict) or document.get("version") != VERSION:
            return []
        tables = document.get("tables")
        if not isinstance(tables, list):
            return []
        return [
            entry
            for entry in tables
            if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
        ]

    def _write(self, document: dict[str, Any]) -> None:
        # Loaded here, after page 1: not on the opening child's way to its first calls.
        from dynotui.core.config_write import write_atomically

        folder = self.path.parent
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if folder_problem(folder) is not None:
            return  # others could change it: keep nothing there
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISREG(self.path.lstat().st_mode):
                self.path.unlink()  # a link or a FIFO: replaced, not taken as the mode to keep
        write_atomically(self.path, json.dumps(document, separators=(",", ":")))
