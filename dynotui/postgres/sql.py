"""The SQL of one page: keyset (seek past the last row shown) or OFFSET (walk past the
rows before), with the user's filter and ``LIMIT page size + 1`` for an honest has-next.

One direction, no NULLs: ``WHERE (a, b) > ($1, $2)``, a row comparison one index range
scan serves. Mixed directions or a nullable column: the expanded form, each NULL placed
where ``NULLS FIRST/LAST`` says. Boundary values travel as text and are cast back to
their column's type, so a timestamptz keeps its microseconds and a numeric its digits.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from dynotui.core.errors import InputError
from dynotui.postgres.schema import PgOrder, PgTable, SortColumn, quote

Mode = Literal["keyset", "offset"]
PAGE_SIZE_MAX = 1000
_FILTER_TOKEN = re.compile(
    r"(?P<string>[Ee]?'(?:[^'\\]|''|\\.)*')|(?P<quoted>\"(?:[^\"]|\"\")*\")"
    r"|(?P<dollar>\$[A-Za-z_]*\$)|(?P<param>\$\d+)|(?P<comment>--[^\n]*|/\*.*?\*/)"
    r"|(?P<percent>%)|(?P<other>[^'\"$%/-]+|.)",
    re.S,
)


def convert_filter(text: str, count: int) -> str:
    """A WHERE fragment with ``$n`` parameters, as psycopg wants it (``%(pn)s``).

    ``%`` is doubled (psycopg reads it everywhere), ``$n`` outside quotes and comments
    becomes a named parameter, and every one of ``count`` parameters must be used."""
    out: list[str] = []
    used: set[int] = set()
    for match in _FILTER_TOKEN.finditer(text):
        kind, token = match.lastgroup, match.group()
        if kind == "dollar":
            raise InputError("dollar-quoted strings are not supported in a filter; use '...'")
        if kind == "param":
            number = int(token[1:])
            if not 1 <= number <= count:
                raise InputError(f"the filter uses {token} but {count} parameter(s) were given")
            used.add(number)
            out.append(f"%(p{number})s")
        else:
            out.append(token.replace("%", "%%"))
    unused = sorted(set(range(1, count + 1)) - used)
    if unused:
        raise InputError(
            f"parameter(s) {', '.join(f'${n}' for n in unused)} given but not used by the filter"
        )
    return "".join(out)


def parse_params(text: str | None) -> tuple[Any, ...]:
    """``--params '["a", 3]'``: a JSON list, sent as text and cast by PostgreSQL."""
    if not text or not text.strip():
        return ()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"the parameters are not valid JSON: {exc.msg}") from None
    if not isinstance(data, list):
        raise InputError('the parameters are a JSON list: ["RETURNED", 100]')
    for value in data:
        if isinstance(value, dict | list):
            raise InputError("a parameter is a string, number, boolean or null, not a structure")
    return tuple(data)


def param_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


@dataclass(frozen=True)
class PgQuery:
    """What to read: a table in an order, filtered, projected; keyset or offset pages."""

    table: PgTable
    order: PgOrder  # with its direction applied
    where: str | None = None
    params: tuple[Any, ...] = ()
    projection: tuple[str, ...] = ()
    page_size: int = 25
    mode: Mode = "keyset"
    descending: bool = False

    def check(self) -> None:
        if not 1 <= self.page_size <= PAGE_SIZE_MAX:
            raise InputError(f"page size must be 1 to {PAGE_SIZE_MAX}, got {self.page_size}")
        if self.mode not in ("keyset", "offset"):
            raise InputError(f"mode must be 'keyset' or 'offset', got {self.mode!r}")
        for name in self.projection:
            self.table.column(name)
        convert_filter(self.where or "", len(self.params))

    @property
    def shown_columns(self) -> tuple[str, ...]:
        return self.projection or tuple(c.name for c in self.table.columns)

    def scope(self) -> str:
        """Table, order (terms, directions, NULLs), filter and its parameters, projection
        and mode: what a cursor is bound to."""
        return json.dumps(
            {
                "source": "postgres",
                "table": [self.table.schema, self.table.name],
                "order": [[c.expression, c.descending, c.nulls_first] for c in self.order.columns],
                "where": " ".join((self.where or "").split()),
                "params": [param_text(p) for p in self.params],
                "projection": list(self.projection),
                "mode": self.mode,
            },
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )


def _uniform(columns: tuple[SortColumn, ...], boundary: list[str | None]) -> bool:
    return (
        len({c.descending for c in columns}) == 1
        and not any(c.nullable for c in columns)
        and all(value is not None for value in boundary)
    )


def after(
    columns: tuple[SortColumn, ...], boundary: list[str | None]
) -> tuple[str, dict[str, Any]]:
    """The condition for rows after ``boundary`` in this order, and its parameters."""
    params = {f"k{i}": value for i, value in enumerate(boundary) if value is not None}
    casts = [f"%(k{i})s::{c.type}" for i, c in enumerate(columns)]
    if _uniform(columns, boundary):
        op = "<" if columns[0].descending else ">"
        left = ", ".join(c.expression for c in columns)
        return f"({left}) {op} ({', '.join(casts)})", params
    disjuncts = []
    for i, column in enumerate(columns):
        value = boundary[i]
        if value is None:
            if not column.nulls_first:
                continue  # NULLs come last: nothing of this term lies after a NULL
            later = f"{column.expression} IS NOT NULL"
        else:
            later = f"{column.expression} {'<' if column.descending else '>'} {casts[i]}"
            if column.nullable and not column.nulls_first:
                later = f"({later} OR {column.expression} IS NULL)"
        equal = [
            f"{c.expression} IS NULL" if boundary[j] is None else f"{c.expression} = {casts[j]}"
            for j, c in enumerate(columns[:i])
        ]
        disjuncts.append("(" + " AND ".join([*equal, later]) + ")")
    if not disjuncts:
        return "FALSE", params
    condition = "(" + " OR ".join(disjuncts) + ")"
    # The leading run of one direction bounds the scan: an index starts there instead of
    # at the beginning and filtering its way to the page (the same rows either way).
    run = 0
    while (
        run < len(columns)
        and columns[run].descending == columns[0].descending
        and not columns[run].nullable
        and boundary[run] is not None
    ):
        run += 1
    if run:
        left = ", ".join(c.expression for c in columns[:run])
        op = "<=" if columns[0].descending else ">="
        condition = f"({left}) {op} ({', '.join(casts[:run])}) AND {condition}"
    return condition, params


def page_sql(
    query: PgQuery, boundary: Any, limit: int, *, readable: bool = False
) -> tuple[str, dict[str, Any]]:
    """The statement for one page from ``boundary`` (keyset: the last row's sort values;
    offset: the number of rows to skip). ``readable``: the columns as they are, for people
    (the same rows; dynotui reads every value as text, and the sort values besides)."""
    columns = query.order.columns
    if readable:
        select = [quote(name) for name in query.projection] or ["*"]
    else:
        # Output names never equal a column's: ORDER BY would read a bare name as the
        # output column (text), and sort "10" before "9".
        select = [f"{quote(name)}::text AS c{i}" for i, name in enumerate(query.shown_columns)]
        select += [f"({c.expression})::text AS k{i}" for i, c in enumerate(columns)]
    conditions: list[str] = []
    params: dict[str, Any] = {
        f"p{i + 1}": param_text(value) for i, value in enumerate(query.params)
    }
    if query.where and query.where.strip():
        # On its own lines: a comment in the filter cannot swallow what follows.
        conditions.append("(\n" + convert_filter(query.where, len(query.params)) + "\n)")
    if query.mode == "keyset" and boundary is not None:
        condition, keys = after(columns, list(boundary))
        conditions.append(condition)
        params.update(keys)
    sql = f"SELECT {', '.join(select)}\nFROM {query.table.qualified}"
    if conditions:
        sql += "\nWHERE " + "\n  AND ".join(conditions)
    sql += "\nORDER BY " + ", ".join(c.sql() for c in columns)
    sql += "\nLIMIT %(limit)s"
    params["limit"] = limit
    if query.mode == "offset" and boundary:
        sql += " OFFSET %(offset)s"
        params["offset"] = int(boundary)
    return sql, params


def count_sql(query: PgQuery) -> tuple[str, dict[str, Any]]:
    params = {f"p{i + 1}": param_text(value) for i, value in enumerate(query.params)}
    sql = f"SELECT count(*) FROM {query.table.qualified}"
    if query.where and query.where.strip():
        sql += "\nWHERE (\n" + convert_filter(query.where, len(query.params)) + "\n)"
    return sql, params
