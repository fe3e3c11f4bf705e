"""A PostgreSQL read in the history file, and back: table, order, filter, parameters,
columns, mode, and the connection without its password.

The order is stored by name and by its terms; on reopening, the table is described
from the catalog again and the order found by name must still have those terms (an
index rebuilt another way is another order, and its stored boundary means nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dynotui.core.history import (
    HistoryEntry,
    HistoryError,
    HistoryQuery,
    reopened_note,
)
from dynotui.core.pager import Pager
from dynotui.core.text import visible
from dynotui.postgres.schema import describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

DATABASE = "postgres"
SECRET_PARAMETERS = ("password", "sslpassword")
LABEL_LENGTH = 160


def connection_record(uri: str | None, demo: bool = False) -> dict[str, Any]:
    """The connection string with no password in it (libpq's own parse, rebuilt without
    it); empty means the PG* variables. A password comes from PGPASSWORD or ~/.pgpass.
    The demo's own server (``demo``) is recorded as the demo, without its socket: that
    goes with the demo, and the next one reopens the entry on its own server."""
    if demo:
        return {"conninfo": "", "demo": True}
    if not uri:
        return {"conninfo": ""}
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    try:
        parts = conninfo_to_dict(uri)
    except Exception:
        raise HistoryError("the connection string does not parse: not kept in history") from None
    kept = {k: v for k, v in parts.items() if k not in SECRET_PARAMETERS and v is not None}
    return {"conninfo": make_conninfo("", **kept)}


def _terms(query: PgQuery) -> list[list[Any]]:
    return [[c.label, c.descending] for c in query.order.columns]


def query_record(query: PgQuery) -> dict[str, Any]:
    return {
        "table": [query.table.schema, query.table.name],
        "order": query.order.name,
        "descending": query.descending,
        "terms": _terms(query),
        "where": query.where,
        "params": list(query.params),
        "projection": list(query.projection),
        "page_size": query.page_size,
        "mode": query.mode,
    }


def _label(query: PgQuery) -> str:
    parts = [
        query.table.label,
        f"order {query.order.name}" + (" reversed" if query.descending else ""),
    ]
    if query.where:
        parts.append(f"where {query.where}")
    if query.params:
        parts.append(f"params {list(query.params)}")
    parts.append(query.mode)
    text = visible(" ".join(" · ".join(parts).split()))
    return text if len(text) <= LABEL_LENGTH else text[: LABEL_LENGTH - 1] + "…"


def query_entry(query: PgQuery, uri: str | None, demo: bool = False) -> HistoryQuery:
    return HistoryQuery(DATABASE, connection_record(uri, demo), query_record(query), _label(query))


def read_on_demo(entry: HistoryEntry) -> bool:
    """True when the entry was read on the PostgreSQL demo's own server."""
    return entry.database == DATABASE and entry.connection.get("demo") is True


@dataclass(frozen=True)
class PgReopening:
    conninfo: str  # for PgOptions(uri=...): without a password
    record: Mapping[str, Any]
    start_json: Any
    page: int
    demo: bool = False  # read on the demo's own server: reopened only on a demo's

    @property
    def note(self) -> str:
        return reopened_note(self.page, "boundary", "rows may have changed")


def _field(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise HistoryError(f"the history entry's {name} is missing or of the wrong type")
    return value


def reopen(entry: HistoryEntry) -> PgReopening:
    if entry.database != DATABASE:
        raise HistoryError(f"the history entry is a {entry.database} query, not PostgreSQL's")
    conninfo = _field(entry.connection, "conninfo", str)
    return PgReopening(conninfo, entry.query, entry.boundary, entry.page, demo=read_on_demo(entry))


def query_from_record(session: Any, record: Mapping[str, Any]) -> PgQuery:
    """The read the record describes, against the table as the catalog has it now."""
    table_name = _field(record, "table", list)
    if len(table_name) != 2 or not all(isinstance(p, str) for p in table_name):
        raise HistoryError("the history entry's table is not a schema and a name")
    from dynotui.postgres.schema import quote

    table = describe_table(session, f"{quote(table_name[0])}.{quote(table_name[1])}")
    order = table.order(_field(record, "order", str))
    descending = _field(record, "descending", bool)
    if descending:
        order = order.reversed()
    params = _field(record, "params", list)
    if any(isinstance(p, dict | list) for p in params):
        raise HistoryError("the history entry's parameters are not plain values")
    projection = _field(record, "projection", list)
    if not all(isinstance(c, str) for c in projection):
        raise HistoryError("the history entry's columns are not names")
    where = record.get("where")
    if where is not None and not isinstance(where, str):
        raise HistoryError("the history entry's filter is not text")
    mode = _field(record, "mode", str)
    if mode not in ("keyset", "offset"):
        raise HistoryError(f"the history entry's mode {mode!r} is not keyset or offset")
    query = PgQuery(
        table,
        order,
        where=where,
        params=tuple(params),
        projection=tuple(projection),
        page_size=_field(record, "page_size", int),
        mode=mode,
        descending=descending,
    )
    if _terms(query) != record.get("terms"):
        raise HistoryError(
            f"the order {order.name!r} of {table.label} is not what it was when this entry "
            "was kept (its terms changed): open it anew"
        )
    query.check()
    return query


def reopened_pager(reopening: PgReopening, session: Any) -> Pager:
    """A pager whose page 1 is the entry's page, read again from its stored boundary."""
    source = PgSource(session, query_from_record(session, reopening.record))
    start = None if reopening.start_json is None else source.key_from_json(reopening.start_json)
    return Pager(source, start_key=start, first_number=max(reopening.page, 1))
