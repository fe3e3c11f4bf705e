"""An order's keys kept beside an export's copy, computed once per order.

Paging an export in an order needs every item's keys in comparable form (numbers as
``dyn_nkey`` text, binary as bytes), which means parsing every item and, for number keys,
the most costly SQL of a read. The first query of an order (the table, or an index) keeps
them in ``CACHE/exports/<copy>-<order>.duckdb``: a table ``keys`` of the order's items (an
index's: those holding its keys, typed as defined), their keys ``k0..kn`` (the index's,
then the table's, as ``LastEvaluatedKey`` names them) and their row in the copy (``r``).
A later Query then reads one partition's rows out of the copy by their row, not every
item; a Scan reads the keys without parsing any item for them.

The file is tied to the one copy it was computed from (the copy's build id: rows are
numbered in that copy), kept as the copy is (0600, built in a private temporary folder
and renamed once complete), and checked on each use: its record names this copy's build
and this order, and it holds the rows it recorded. Otherwise it is computed again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dynotui.table_export.cache import (
    ATTACHED,
    SUFFIX,
    ExportCopy,
    new_database,
    private_file,
    quoted,
    writer_lock,
)

BUILDING = "dynotui_order_building"

FORMAT = 1


def order_digest(key_names: list[str], key_types: list[str], member: str) -> str:
    """The name of an order's keys: their attributes and types, and the SQL choosing the
    order's items (its parameters inlined by the caller's choice of paths)."""
    text = json.dumps([FORMAT, key_names, key_types, member])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _attached_name(order: str) -> str:
    return f"dynotui_order_{order}"


def open_order(
    engine: Any,
    copy: ExportCopy,
    order: str,
    keys: list[str],
    member: str,
    parameters: dict[str, Any],
    *,
    check: Callable[[], None] | None = None,
) -> str:
    """The schema name (attached read-only) of ``order``'s keys for ``copy``, computed now
    if none are kept: ``keys`` is the SQL of each key over ``doc``, ``member`` the SQL
    choosing the order's items, both with ``parameters`` bound; ``check()`` runs before
    they are computed (a refusal keeps nothing)."""
    name = _attached_name(order)
    if order in copy.orders:
        return name
    folder = copy.path.parent
    path = folder / f"{copy.record.digest}-{order}{SUFFIX}"
    if not _attach(engine, path, name, copy, order):
        with writer_lock(folder, f"{copy.record.digest}-{order}"):
            if not _attach(engine, path, name, copy, order):
                if check is not None:
                    check()
                _build(engine, folder, path, copy, order, keys, member, parameters)
                if not _attach(engine, path, name, copy, order):  # pragma: no cover
                    raise RuntimeError(f"the order's keys {path} could not be read back")
    copy.orders.add(order)
    return name


def _attach(engine: Any, path: Path, name: str, copy: ExportCopy, order: str) -> bool:
    if not private_file(path):
        return False
    try:
        engine.execute(f"ATTACH {quoted(path)} AS {name} (READ_ONLY)")
    except Exception:
        return False
    try:
        row = engine.execute(f"SELECT record FROM {name}.record").fetchone()
        record = json.loads(row[0]) if row else {}
        held = engine.execute(f"SELECT count(*) FROM {name}.keys").fetchone()
        whole = (
            isinstance(record, dict)
            and record.get("format") == FORMAT
            and record.get("copy") == copy.record.build
            and record.get("order") == order
            and held is not None
            and int(held[0]) == record.get("rows")
        )
    except Exception:
        whole = False
    if not whole:
        engine.execute(f"DETACH {name}")
    return whole


def _build(
    engine: Any,
    folder: Path,
    path: Path,
    copy: ExportCopy,
    order: str,
    keys: list[str],
    member: str,
    parameters: dict[str, Any],
) -> None:
    with new_database(engine, path, BUILDING):
        columns = "".join(f", {sql} AS k{i}" for i, sql in enumerate(keys))
        engine.execute(
            f"CREATE TABLE {BUILDING}.keys AS SELECT rowid AS r{columns} "
            f"FROM {ATTACHED}.items WHERE coalesce({member}, false)",
            parameters or None,
        )
        counted = engine.execute(f"SELECT count(*) FROM {BUILDING}.keys").fetchone()
        record = {
            "format": FORMAT,
            "copy": copy.record.build,
            "order": order,
            "rows": int(counted[0]) if counted else 0,
        }
        engine.execute(
            f"CREATE TABLE {BUILDING}.record AS SELECT $record AS record",
            {"record": json.dumps(record)},
        )
