"""Foreign cursors on PostgreSQL: a boundary row, as JSON, for the current order.

A keyset page resumes after the sort values of the last row shown. Someone else's API
hands those out as a JSON list in the order's terms (``["2026-09-01 10:00:00+00", 42]``)
or as an object by column or expression label (``{"placed_at": "...", "id": 42}``).
Either is checked against the order being read (as many values as it has terms, each
name one of its labels, NULL only where the term can be NULL) and becomes the boundary
the source pages from: every value as PostgreSQL text, which the page's statement casts
to the term's type. ``server_text`` has the server read each value now, so that a value
its type cannot hold is named with its column before any page is read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dynotui.core.errors import InputError
from dynotui.core.exact_json import Number
from dynotui.core.foreign import ForeignCursor, ForeignCursorError, ForeignStart, ForeignText
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

BY_POSITION = "PostgreSQL boundary row (JSON list)"
BY_LABEL = "PostgreSQL boundary row (JSON object by column)"


def unwrap(found: ForeignText) -> ForeignCursor:
    data = found.data
    if isinstance(data, list | dict) and not data:
        raise ForeignCursorError("the boundary row is empty: it holds no sort values")
    if isinstance(data, list):
        return ForeignCursor(BY_POSITION, found.wrapping, data)
    if isinstance(data, dict):
        return ForeignCursor(BY_LABEL, found.wrapping, data)
    raise ForeignCursorError(
        "a PostgreSQL boundary row is a JSON list of the order's sort values, or an object "
        "of them by column"
    )


def _text(label: str, value: Any, nullable: bool) -> str | None:
    if value is None:
        if not nullable:
            raise ForeignCursorError(
                f"the boundary row's {label} is null, and that term is never NULL: no row holds it"
            )
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Number):
        return str.__str__(value)  # the exact digits the cursor carried
    if isinstance(value, str):  # no length limit of its own: the pasted text is capped
        return value
    raise ForeignCursorError(
        f"the boundary row's {label} is a JSON structure; sort values are text, numbers, "
        "booleans or null"
    )


def fit(
    cursor: ForeignCursor, query: PgQuery, key_from_json: Callable[[Any], Any] | None = None
) -> ForeignStart:
    """The boundary row checked against ``query``'s order, as the source's boundary."""
    if query.mode != "keyset":
        raise ForeignCursorError(
            "this order is read with OFFSET, which starts at a row number; a boundary row "
            "opens keyset reads"
        )
    columns = query.order.columns
    labels = [c.label for c in columns]
    data = cursor.key
    if isinstance(data, list):
        if len(data) != len(columns):
            raise ForeignCursorError(
                f"the boundary row holds {len(data)} value(s); the order "
                f"{query.order.name!r} has {len(columns)}: {', '.join(labels)}"
            )
        values = list(data)
    else:
        missing = [label for label in labels if label not in data]
        extra = sorted(set(data) - set(labels))
        if missing or extra:
            parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
                [f"extra {', '.join(extra)}"] if extra else []
            )
            raise ForeignCursorError(
                f"the boundary row does not fit the order {query.order.name!r}: "
                f"{'; '.join(parts)} (its terms are {', '.join(labels)})"
            )
        values = [data[label] for label in labels]
    boundary = [_text(c.label, v, c.nullable) for c, v in zip(columns, values, strict=True)]
    if key_from_json is not None:
        boundary = key_from_json(boundary)  # the source's own check, as for signed tokens
    return ForeignStart(cursor, boundary, list(boundary))


def server_text(session: Any, query: PgQuery, start: ForeignStart) -> ForeignStart:
    """The boundary as the server reads it: each value cast to its term's type and back
    to text, so a value the type cannot hold is refused naming its column, now."""
    boundary = list(start.start_key)
    read: list[str | None] = []
    for i, (column, value) in enumerate(zip(query.order.columns, boundary, strict=True)):
        if value is None:
            read.append(None)
            continue
        try:
            (row,) = session.query(
                f"SELECT {column.text_sql(f'%(k{i})s::{column.boundary_type}')}",
                {f"k{i}": value},
            )
        except InputError:
            raise ForeignCursorError(
                f"the boundary row's {column.label} is {value!r}, which PostgreSQL does not "
                f"read as {column.boundary_type}"
            ) from None
        read.append(row[0])
    return ForeignStart(start.cursor, read, list(read))


class PgForeign:
    """The foreign-cursor reader for one PostgreSQL read (``core.foreign.ForeignReader``)."""

    def __init__(self, query: PgQuery, key_from_json: Callable[[Any], Any] | None = None) -> None:
        self.query = query
        self.key_from_json = key_from_json

    def unwrap(self, found: ForeignText) -> ForeignCursor:
        return unwrap(found)

    def fit(self, cursor: ForeignCursor) -> ForeignStart:
        return fit(cursor, self.query, self.key_from_json)


def foreign_reader(source: PgSource) -> PgForeign:
    """The foreign-cursor reader for a PostgreSQL source, checking as its tokens are."""
    return PgForeign(source.query, source.key_from_json)
