"""The SQL of one page: keyset (seek past the last row shown) or OFFSET (walk past the
rows before), with the user's filter and ``LIMIT page size + 1`` for an honest has-next.

Keyset pages are built from bounded index seeks, so that page 10,000 costs what page 1
costs on every order an index offers:

- The rows after a boundary are, for each sort term in turn, those equal to the boundary
  on the terms before it and after it on this one. A run of terms in one direction is
  one row comparison, ``(a, b) OPERATOR(pg_catalog.>) ($1, $2)``, which one index range
  scan serves.
- Mixed directions split into one seek per run (``a < $1``; ``a = $1 AND b > $2``).
- NULLs are their own run: a row comparison is NULL (so false) for a row with a NULL,
  so where a nullable term's NULLs sort after the boundary (NULLS LAST) they are read by
  a seek of their own (``a = $1 AND b IS NULL``), and a boundary inside the NULL run
  continues it (``a IS NULL AND b > $2``), then the values (``a IS NOT NULL``).
- Several seeks are joined by ``UNION ALL``, each with ``ORDER BY ... LIMIT n + 1``, and
  merged in order (a Merge Append of bounded index scans, not one OR the planner cannot
  bound). A term declared NOT NULL needs no NULL seek.

Comparisons and the ORDER BY carry the index's collation and operator class: every
comparison is spelled with the operator of the index's own operator family (or of the
type's default class, for a term no index holds), schema-qualified, so the search path
never picks another (``citext < citext``, not ``text < text``); a term whose type is not
the class's input type (a varchar in text_ops, a domain) is cast to it on both sides, so
the operator found is exactly that one. A row comparison joins terms spelled with one
operator, which PostgreSQL resolves for each pair to that pair's own member. Boundary
values travel as text and are cast back to their term's type, so a timestamptz keeps its
microseconds and a numeric its digits: the output settings are fixed for every statement,
and a date, timestamp or interval is spelled in a form that reads back the same under any
TimeZone, DateStyle or IntervalStyle (which stay the server's, for the filter's literals).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from dynotui.core.errors import FieldError, InputError
from dynotui.postgres.filter import PgFilter, parse_filter
from dynotui.postgres.table_model import PgOrder, PgTable, SortColumn, quote

Mode = Literal["keyset", "offset"]
PAGE_SIZE_MAX = 1000


MAX_ARRAY_DIMENSIONS = 6  # PostgreSQL's MAXDIM


def parse_params(text: str | None) -> tuple[Any, ...]:
    """``--params '["a", 3, [1, 2]]'``: a JSON list, each value sent as text and cast by
    PostgreSQL; a JSON array is an array (``{1,2}``), kept as a tuple."""
    if not text or not text.strip():
        return ()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"the parameters are not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError("the parameters are nested too deeply: a flat JSON list") from None
    if not isinstance(data, list):
        raise InputError('the parameters are a JSON list: ["RETURNED", 100]')
    return tuple(_param(value, 0) for value in data)


def _param(value: Any, depth: int) -> Any:
    if isinstance(value, dict):
        raise InputError(
            "a parameter is a string, number, boolean, null or an array of them, not a JSON "
            'object (give JSON text as a string: "{"a": 1}")'
        )
    if isinstance(value, list):
        if depth >= MAX_ARRAY_DIMENSIONS:
            raise InputError(
                f"an array parameter has at most {MAX_ARRAY_DIMENSIONS} dimensions, as "
                "PostgreSQL's arrays do"
            )
        return tuple(_param(item, depth + 1) for item in value)
    return value


def param_text(value: Any) -> str | None:
    """A parameter as the text PostgreSQL reads: an array as an array literal, every
    string element quoted (so "NULL" and "" stay strings), NULL bare."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "{" + ",".join(_element(item) for item in value) + "}"
    return json.dumps(value)


def _element(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return param_text(value) or "NULL"


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

    @cached_property
    def filter(self) -> PgFilter | None:
        """The filter as PostgreSQL's parser reads it (None: every row)."""
        if not self.where or not self.where.strip():
            if self.params:
                numbers = ", ".join(f"${n + 1}" for n in range(len(self.params)))
                raise FieldError(
                    "params", f"parameter(s) {numbers} given but not used by the filter"
                )
            return None
        try:
            return parse_filter(self.where, len(self.params))
        except FieldError:
            raise
        except InputError as exc:
            raise FieldError("where", str(exc)) from None

    def check(self) -> None:
        """Refuse, naming the form's field at fault, what no page could be read with."""
        if not 1 <= self.page_size <= PAGE_SIZE_MAX:
            raise FieldError(
                "page_size", f"page size must be 1 to {PAGE_SIZE_MAX}, got {self.page_size}"
            )
        if self.mode not in ("keyset", "offset"):
            raise FieldError("mode", f"mode must be 'keyset' or 'offset', got {self.mode!r}")
        for name in self.projection:
            try:
                self.table.column(name)
            except InputError as exc:
                raise FieldError("columns", str(exc)) from None
        if not self.order.unique:
            what = {"v": "a view", "f": "a foreign table"}.get(self.table.kind, "this relation")
            raise FieldError(
                "order",
                f"{self.table.label} is {what}: no key and no ctid names one of its rows, so "
                f"rows that tie on {self.order.label} at a page boundary would be lost or "
                "repeated; dynotui pages only an order that names one row",
            )
        if self.order.refused:
            raise FieldError("order", f"refused: order {self.order.name}: {self.order.refused}")
        for term in self.order.columns:
            if term.nested_datetime:
                raise FieldError(
                    "order",
                    f"{term.label} ({term.type}) holds dates or times inside it, whose text "
                    "follows the session's DateStyle and TimeZone: its boundaries could not "
                    "be read back exactly, so dynotui does not page in this order",
                )
        _ = self.filter

    @property
    def shown_columns(self) -> tuple[str, ...]:
        return self.projection or tuple(c.name for c in self.table.columns)

    @property
    def filter_sql(self) -> str | None:
        """The filter as sent: the deparsed expression in parentheses, psycopg's ``%(pN)s``."""
        parsed = self.filter
        return None if parsed is None else parsed.psycopg()

    def filter_params(self) -> dict[str, Any]:
        return {f"p{i + 1}": param_text(value) for i, value in enumerate(self.params)}

    def scope(self) -> str:
        """Table, order (terms, directions, NULLs, collations, operators), the filter as
        PostgreSQL deparses it (only whitespace outside literals is ignored) and its
        parameters, projection and mode: what a cursor is bound to."""
        parsed = self.filter
        return json.dumps(
            {
                "source": "postgres",
                "table": [self.table.schema, self.table.name],
                "order": [
                    [c.expression, c.descending, c.nulls_first, c.collation, _ops(c)]
                    for c in self.order.columns
                ],
                "where": parsed.deparsed if parsed is not None else "",
                "params": [param_text(p) for p in self.params],
                "projection": list(self.projection),
                "mode": self.mode,
            },
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )


def _ops(column: SortColumn) -> list[str] | None:
    ops = column.operators
    return None if ops is None else [ops.less, ops.equal, ops.greater]


@dataclass(frozen=True)
class Seek:
    """One bounded index seek of a keyset page: conditions joined by AND."""

    conditions: tuple[str, ...]
    words: str  # for people: "abalance < boundary; abalance = boundary and aid > boundary"


@dataclass(frozen=True)
class Keyset:
    """How the rows after a boundary are read: the seeks, in the order of the rows they
    read (each seek's rows all come before the next's), and the parameters they use."""

    seeks: tuple[Seek, ...]
    params: dict[str, Any]

    def describe(self) -> str:
        if not self.seeks:
            return "nothing after the boundary"
        if len(self.seeks) == 1:
            return f"one seek ({self.seeks[0].words})"
        joined = "; then ".join(s.words for s in self.seeks)
        return (
            f"{len(self.seeks)} seeks joined by UNION ALL, each read only if the ones "
            f"before it end before the page does ({joined})"
        )


def _cast(column: SortColumn, i: int) -> str:
    return f"%(k{i})s::{column.boundary_type}"


def _joins(
    columns: tuple[SortColumn, ...], boundary: list[str | None], i: int, covered: int
) -> bool:
    """Whether the seek past term ``i`` (on the terms before being equal) and the seek past
    term ``i - 1`` read adjacent runs of rows that one row comparison, ``(t[i-1], t[i], ...)
    > (...)``, reads as one: both terms in one direction, compared by an operator of one
    name (``OPERATOR(pg_catalog.>)``), and a boundary value that is not NULL; term ``i``
    has no NULLs between the two runs (it is NOT NULL, or its NULLs sort first); and both
    are terms of the order's index, so that the index can bound the comparison (a
    tie-breaker the index lacks gets a seek of its own, which the planner can serve with
    another index)."""
    before, term = columns[i - 1], columns[i]
    return (
        i < covered
        and boundary[i - 1] is not None
        and boundary[i] is not None
        and before.descending == term.descending
        and before.after_operator == term.after_operator
        and (not term.nullable or term.nulls_first)
    )


def keyset(
    columns: tuple[SortColumn, ...], boundary: list[str | None], covered: int | None = None
) -> Keyset:
    """The seeks that read every row after ``boundary`` in this order, and no other, in
    the order of their rows: first the rows equal to the boundary on every term but the
    last and after it on that one, then those equal on one term fewer, and so on; a
    nullable term's NULLs where they sort (after its values, or before them). ``covered``:
    how many leading terms the order's index holds (all, if None)."""
    covered = len(columns) if covered is None else covered
    params = {f"k{i}": value for i, value in enumerate(boundary) if value is not None}
    prefix: list[str] = []  # for each depth: the terms before equal to the boundary's
    prefix_words: list[str] = []
    prefixes: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    for i, column in enumerate(columns):
        prefixes.append((tuple(prefix), tuple(prefix_words)))
        if boundary[i] is None:
            prefix.append(column.is_null)
            prefix_words.append(f"{column.label} is null")
        else:
            prefix.append(f"{column.term} {column.equal_operator} {_cast(column, i)}")
            prefix_words.append(f"{column.label} = the boundary's")
    seeks: list[Seek] = []
    i = len(columns) - 1
    while i >= 0:
        column = columns[i]
        conditions, words = prefixes[i]
        if boundary[i] is None:
            if column.nulls_first:  # the NULL run comes first: every value is after it
                seeks.append(
                    Seek(
                        (*conditions, column.is_not_null),
                        _words([*words, f"{column.label} is not null"]),
                    )
                )
            i -= 1
            continue
        end = i
        while i > 0 and _joins(columns, boundary, i, covered):
            i -= 1
        run = columns[i : end + 1]
        conditions, words = prefixes[i]
        first = columns[i]
        if len(run) == 1:
            condition = f"{first.term} {first.after_operator} {_cast(first, i)}"
        else:
            left = ", ".join(c.term for c in run)
            right = ", ".join(_cast(c, i + n) for n, c in enumerate(run))
            condition = f"({left}) {first.after_operator} ({right})"
        labels = ", ".join(c.label for c in run)
        relation = "before" if first.descending else "after"
        seeks.append(
            Seek((*conditions, condition), _words([*words, f"({labels}) {relation} the boundary"]))
        )
        if first.nullable and not first.nulls_first:
            # Its NULLs sort after every value: a run of their own, after the values.
            seeks.append(
                Seek((*conditions, first.is_null), _words([*words, f"{first.label} is null"]))
            )
        i -= 1
    return Keyset(tuple(seeks), params)


def _words(parts: list[str]) -> str:
    return " and ".join(parts)


@dataclass(frozen=True)
class StatementParts:
    """The pieces every page statement of a query is made of (codegen rebuilds pages
    from the same pieces)."""

    select: str  # the select list of a page, or of one seek of it
    outer: str  # what the seeks joined by UNION ALL return (with SEEK_COLUMN, to check)
    source: str
    order_by: str


# Each seek's rows carry its number: rows of several seeks must come in seek order (the
# plan is an Append of them, read in turn, stopped by the LIMIT), and a page whose rows
# do not is refused rather than shown out of order.
SEEK_COLUMN = "dynotui_seek"
# A Parallel Append would interleave the seeks: never for a page (its rows are few).
PAGE_SETTINGS = {"enable_parallel_append": "off"}


def statement_parts(query: PgQuery, *, readable: bool = False) -> StatementParts:
    columns = query.order.columns
    if readable:
        select = [quote(name) for name in query.shown_columns]
        outer = list(select)
    else:
        # Output names never equal a column's: ORDER BY would read a bare name as the
        # output column (text), and sort "10" before "9".
        select = [f"{quote(name)}::text AS c{i}" for i, name in enumerate(query.shown_columns)]
        # Boundaries in a text no session setting changes (values as the server shows them).
        select += [f"{c.text_sql()} AS k{i}" for i, c in enumerate(columns)]
        outer = [f"c{i}" for i in range(len(query.shown_columns))]
        outer += [f"k{i}" for i in range(len(columns))]
        outer.append(SEEK_COLUMN)
    return StatementParts(
        select=", ".join(select),
        outer=", ".join(outer),
        source=query.table.qualified,
        order_by=", ".join(c.sql() for c in columns),
    )


def covered_terms(order: PgOrder) -> int:
    """How many leading terms of the order its index holds (all, with no index: then no
    seek is bounded by an index anyway, and fewer seeks sort less)."""
    if order.index is None:
        return len(order.columns)
    return len(order.columns) - len(order.tie_breaker)


def page_sql(
    query: PgQuery, boundary: Any, limit: int, *, readable: bool = False
) -> tuple[str, dict[str, Any]]:
    """The statement for one page from ``boundary`` (keyset: the last row's sort values;
    offset: the number of rows to skip). ``readable``: the columns as they are, for people
    (the same rows; dynotui reads every value as text, and the sort values besides)."""
    sql, params, _ = page_statement(query, boundary, limit, readable=readable)
    return sql, params


def page_statement(
    query: PgQuery, boundary: Any, limit: int, *, readable: bool = False
) -> tuple[str, dict[str, Any], Keyset | None]:
    """``page_sql``, and the keyset seeks it uses (None: no boundary, or OFFSET)."""
    parts = statement_parts(query, readable=readable)
    params: dict[str, Any] = query.filter_params()
    params["limit"] = limit
    filter_sql = query.filter_sql
    base = [filter_sql] if filter_sql else []
    plan: Keyset | None = None
    if query.mode == "keyset" and boundary is not None:
        plan = keyset(query.order.columns, list(boundary), covered_terms(query.order))
        params.update(plan.params)
    if plan is not None and len(plan.seeks) > 1:
        # No ORDER BY over the seeks: each seek's rows come before the next's, so their
        # Append read in turn is the order, and the LIMIT stops it as soon as the page is
        # full (a seek never reached reads nothing; a merge would descend every index).
        branches = [
            f"(SELECT {parts.select}, {n} AS {SEEK_COLUMN}\n FROM {parts.source}\n WHERE "
            + "\n  AND ".join([*base, *seek.conditions])
            + f"\n ORDER BY {parts.order_by}\n LIMIT %(limit)s)"
            for n, seek in enumerate(plan.seeks, start=1)
        ]
        sql = (
            f"SELECT {parts.outer}\nFROM (\n"
            + "\nUNION ALL\n".join(branches)
            + "\n) AS dynotui_page\nLIMIT %(limit)s"
        )
        return sql, params, plan
    conditions = list(base)
    if plan is not None:
        conditions += list(plan.seeks[0].conditions) if plan.seeks else ["FALSE"]
    sql = f"SELECT {parts.select}\nFROM {parts.source}"
    if conditions:
        sql += "\nWHERE " + "\n  AND ".join(conditions)
    sql += f"\nORDER BY {parts.order_by}\nLIMIT %(limit)s"
    if query.mode == "offset" and boundary:
        sql += " OFFSET %(offset)s"
        params["offset"] = int(boundary)
    return sql, params, plan


def count_sql(query: PgQuery) -> tuple[str, dict[str, Any]]:
    sql = f"SELECT count(*) FROM {query.table.qualified}"
    filter_sql = query.filter_sql
    if filter_sql:
        sql += "\nWHERE " + filter_sql
    return sql, query.filter_params()
