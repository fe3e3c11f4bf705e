"""A PostgreSQL table and its orders as values: columns, sort columns with their operators,
an order made unique by its tie-breaker, and how a sort column's text is read. No catalog
is read here (``schema`` reads it), so the statements built from these (``sql``,
``flat``) import no catalog code."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from dynotui.core.errors import InputError

NO_INDEX = "no index: sorts the whole result per page"
# Columns whose name says they change as rows are updated: a keyset over them moves rows
# across pages while someone reads (seed 001's warning about updated_at).
CHANGING = re.compile(r"(updated|modified|changed|touched)(_at|_on|_time)?$|^last_", re.I)


def quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


@dataclass(frozen=True)
class Ordering:
    """How a term is compared and sorted: the operators of the b-tree operator family its
    index (or its type's default operator class) orders it by, as SQL
    (``OPERATOR(pg_catalog.<)``), and the type both the term and its boundary are cast to
    where the term's own type is another (None: compared as it is)."""

    less: str
    equal: str
    greater: str
    input_type: str | None = None


BUILT_IN_ORDERING = Ordering(
    "OPERATOR(pg_catalog.<)", "OPERATOR(pg_catalog.=)", "OPERATOR(pg_catalog.>)"
)


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    nullable: bool
    null_frac: float | None = None  # pg_stats: the share of NULLs at the last ANALYZE
    # What a boundary value is cast to: a domain's base type (a domain's CHECK is the
    # database's code, and the comparison is the base type's anyway), else ``type``.
    base_type: str | None = None
    row_valued: bool = False  # a composite: ROW(NULL, NULL) IS NULL, though not NULL
    # A date, timestamp or interval inside an array, range or composite: its text follows
    # the session's DateStyle and TimeZone, so no boundary of it reads back exactly.
    nested_datetime: bool = False
    cast_oid: int = 0  # the OID of cast_type
    opclass: int = 0  # the OID of the type's default b-tree operator class (0: none)
    # Why the column cannot be a term of an order: its boundary's cast or its operator
    # class runs code an order may not run (``order_code``); "" if it can.
    refused: str = ""
    # Its type's default b-tree operator class's operators (None: it has none, and no
    # order may sort by it).
    ordering: Ordering | None = None

    @property
    def cast_type(self) -> str:
        return self.base_type or self.type


# Columns every table has, which a keyset order may end with where nothing else names one
# row: the table a row lies in (inherited tables, partitions) and its place in it.
SYSTEM_COLUMNS = {
    "tableoid": Column("tableoid", "oid", False, ordering=BUILT_IN_ORDERING),
    "ctid": Column("ctid", "tid", False, ordering=BUILT_IN_ORDERING),
}
PHYSICAL = "physical order"
PHYSICAL_NOTE = (
    "exact while rows are not updated during paging (an updated row moves to a new ctid)"
)


@dataclass(frozen=True)
class Operators:
    """An operator class's ordering operators, as SQL (``OPERATOR(pg_catalog.~<~)``)."""

    less: str
    equal: str
    greater: str


@dataclass(frozen=True)
class SortColumn:
    """One term of an ORDER BY: a column or an index expression, its direction, its NULLs,
    and the collation and operator class that define its order."""

    expression: str  # SQL: a quoted column name, or the index's expression in parentheses
    label: str
    type: str
    descending: bool = False
    nulls_first: bool = False
    nullable: bool = False
    collation: str | None = None  # SQL name, applied to the ORDER BY and every comparison
    operators: Operators | None = None  # a non-default operator class's operators
    notes: tuple[str, ...] = ()  # what else sets the term apart: its collation, its opclass
    row_valued: bool = False  # a composite value: see ``is_null``
    nested_datetime: bool = False  # see Column.nested_datetime
    refused: str = ""  # see Column.refused
    ordering: Ordering | None = None  # None: compared with the type's "<", "=" and ">"

    def reversed(self) -> SortColumn:
        return replace(self, descending=not self.descending, nulls_first=not self.nulls_first)

    @property
    def term(self) -> str:
        """The expression as compared and sorted: cast to its operator class's input type
        where its own type is another, with the index's collation."""
        term = self.expression
        if self.ordering is not None and self.ordering.input_type is not None:
            term = f"({term})::{self.ordering.input_type}"
        if self.collation is None:
            return term
        return f"{term} COLLATE {self.collation}"

    @property
    def boundary_type(self) -> str:
        """The type a boundary value is cast to: the operator class's input type, where the
        term is cast to it, else the term's own (a domain's base)."""
        if self.ordering is not None and self.ordering.input_type is not None:
            return self.ordering.input_type
        return self.type

    def order_sql(self, term: str | None = None) -> str:
        term = self.term if term is None else term
        nulls = "NULLS FIRST" if self.nulls_first else "NULLS LAST"
        if self.operators is not None:
            using = self.operators.greater if self.descending else self.operators.less
            return f"{term} USING {using} {nulls}"
        return f"{term} {'DESC' if self.descending else 'ASC'} {nulls}"

    def sql(self) -> str:
        return self.order_sql()

    @property
    def after_operator(self) -> str:
        """The operator a later row satisfies against the boundary's value: the operator
        family's own, schema-qualified."""
        ops = self.ordering or self.operators
        if ops is not None:
            return ops.less if self.descending else ops.greater
        return "<" if self.descending else ">"

    @property
    def equal_operator(self) -> str:
        ops = self.ordering or self.operators
        return ops.equal if ops is not None else "="

    def text_sql(self, value: str | None = None) -> str:
        """SQL for the sort value as boundary text: the same text under any TimeZone,
        DateStyle or IntervalStyle (dynotui leaves those as the server has them, for the
        filter's literals), which reads back as the same value in any of them."""
        x = f"({self.expression if value is None else value})"
        kind = _text_kind(self.type)
        if kind is None:
            return f"{x}::text"
        if kind == "interval":  # ISO 8601 with designators: read alike in every style
            spelled = (
                f"'P' || (EXTRACT(year FROM {x}) * 12 + EXTRACT(month FROM {x}))::bigint || 'M'"
                f" || EXTRACT(day FROM {x})::bigint || 'DT'"
                f" || EXTRACT(hour FROM {x})::bigint || 'H'"
                f" || EXTRACT(minute FROM {x})::bigint || 'M'"
                f" || pg_catalog.rtrim(pg_catalog.rtrim("
                f"EXTRACT(second FROM {x})::numeric(9, 6)::text, '0'), '.') || 'S'"
            )
        else:
            utc = f"{x} AT TIME ZONE 'UTC'" if kind == "timestamptz" else x
            shape = "YYYY-MM-DD" if kind == "date" else "YYYY-MM-DD HH24:MI:SS.US"
            digits = f"pg_catalog.to_char({utc}, '{shape}')"
            if kind != "date":  # no trailing zeros, as PostgreSQL's ISO output
                digits = f"pg_catalog.rtrim(pg_catalog.rtrim({digits}, '0'), '.')"
            spelled = (
                digits
                + (" || '+00'" if kind == "timestamptz" else "")
                + f" || CASE pg_catalog.to_char({utc}, 'BC') WHEN 'BC' THEN ' BC' ELSE '' END"
            )
        return f"CASE WHEN pg_catalog.isfinite({x}) THEN {spelled} ELSE {x}::text END"

    @property
    def is_null(self) -> str:
        """The test for a NULL sort value. ``x IS NULL`` on a composite is true for
        ROW(NULL, NULL) too, which is a value sorted among the others; ``IS NOT DISTINCT
        FROM NULL`` is PostgreSQL's test of the value itself (an index can serve it)."""
        if self.row_valued:
            return f"{self.term} IS NOT DISTINCT FROM NULL"
        return f"{self.term} IS NULL"

    @property
    def is_not_null(self) -> str:
        if self.row_valued:
            return f"{self.term} IS DISTINCT FROM NULL"
        return f"{self.term} IS NOT NULL"

    def words(self) -> str:
        """The term as a label: everything that makes this order differ from another."""
        words = [self.label]
        if self.descending:
            words.append("desc")
        if self.nulls_first != self.descending:  # not PostgreSQL's default placement
            words.append("nulls first" if self.nulls_first else "nulls last")
        return " ".join([*words, *self.notes])


@dataclass(frozen=True)
class PgOrder:
    name: str
    columns: tuple[SortColumn, ...]
    index: str | None  # the index that serves it, if any
    unique: bool  # the columns (with any tie-breaker) identify a row
    tie_breaker: tuple[str, ...] = ()  # row-key columns appended to make it unique
    expression_index: bool = False
    why_not_unique: str = ""  # when an index is UNIQUE yet does not name one row
    # Why page 2's plan (and page 1's) is not bounded index seeks, in this direction and
    # the other, as EXPLAIN found when the table was described ("": it is, or unchecked).
    cost_note: str = ""
    reverse_cost_note: str = ""

    def reversed(self) -> PgOrder:
        return replace(
            self,
            columns=tuple(c.reversed() for c in self.columns),
            cost_note=self.reverse_cost_note,
            reverse_cost_note=self.cost_note,
        )

    @property
    def label(self) -> str:
        return "(" + ", ".join(c.words() for c in self.columns) + ")"

    @property
    def refused(self) -> str:
        """Why this order cannot be read ("" if it can): the first term whose boundary or
        operator class runs code an order may not run."""
        return next((c.refused for c in self.columns if c.refused), "")

    @property
    def physical(self) -> bool:
        """Made unique by where rows lie (ctid), not by a key."""
        return any(c.expression == "ctid" for c in self.columns)

    def describe(self) -> str:
        how = NO_INDEX if self.index is None else f"index {self.index}"
        if self.name == PHYSICAL:
            how = "in the order rows lie in the table"
        extra = f"; tie-broken by {', '.join(self.tie_breaker)}" if self.tie_breaker else ""
        if self.why_not_unique:
            extra += f" ({self.why_not_unique})"
        if self.physical:
            extra += f"; {PHYSICAL_NOTE}"
        if not self.unique:
            extra += "; NOT unique: no key names one row, so it cannot be paged exactly"
        if self.refused:
            extra += f"; REFUSED: {self.refused}"
        if self.cost_note:
            extra += f"; {self.cost_note}"
        return f"{self.name}: {self.label} · {how}{extra}"


@dataclass(frozen=True)
class PgTableRef:
    """A table as the catalog names it: ``identifier`` is the shortest properly quoted
    name that resolves, on this session's search path, to exactly this table."""

    schema: str
    name: str
    identifier: str
    rows: int | None  # pg_class.reltuples: free, as of the last ANALYZE

    @property
    def label(self) -> str:
        return self.name if self.schema == "public" else f"{self.schema}.{self.name}"


@dataclass(frozen=True)
class PgTable:
    schema: str
    name: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]
    orders: tuple[PgOrder, ...]
    estimated_rows: int | None  # pg_class.reltuples: free, as of the last ANALYZE
    # The primary key, else a unique index on NOT NULL columns, else (tableoid,) ctid;
    # empty where nothing names one row (a view, a foreign table).
    row_key: tuple[str, ...] = ()
    kind: str = "r"  # pg_class.relkind
    why_physical: str = ""  # why the row key is where rows lie rather than a key

    @property
    def qualified(self) -> str:
        return f"{quote(self.schema)}.{quote(self.name)}"

    @property
    def label(self) -> str:
        return self.name if self.schema == "public" else f"{self.schema}.{self.name}"

    def column(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        if name in SYSTEM_COLUMNS and name in self.row_key:
            return SYSTEM_COLUMNS[name]
        known = ", ".join(c.name for c in self.columns)
        raise InputError(f"table {self.label} has no column {name!r} (columns: {known})")

    def default_order(self) -> PgOrder:
        """The primary key's order; else the first index's (the first that is not refused,
        if any is not)."""
        if self.orders:
            return next((o for o in self.orders if not o.refused), self.orders[0])
        raise InputError(
            f"table {self.label} has no primary key and no index: name columns to order by, "
            "like 'created_at, id' (a unique combination, or rows tie at page boundaries)"
        )

    def order(self, name: str) -> PgOrder:
        for order in self.orders:
            if order.name == name or order.index == name:
                return order
        return self.order_of(name)

    def order_of(self, spec: str) -> PgOrder:
        """An order from ``"col [asc|desc] [nulls first|last], col2"``, read by PostgreSQL's
        parser as an ORDER BY: an index's order if one is the same, else one no index serves."""
        terms = []
        for name, descending, nulls_first in _parse_order_spec(spec, self):
            column = self.column(name)
            terms.append(
                SortColumn(
                    quote(column.name),
                    column.name,
                    column.cast_type,
                    descending,
                    descending if nulls_first is None else nulls_first,
                    column.nullable,
                    row_valued=column.row_valued,
                    nested_datetime=column.nested_datetime,
                    refused=column.refused,
                    ordering=column.ordering,
                )
            )
        custom = with_tie_breaker(terms, None, False, name=spec.strip(), table=self)
        for order in self.orders:
            for candidate in (order, order.reversed()):
                if candidate.columns == custom.columns:
                    return candidate
        return custom


def _parse_order_spec(spec: str, table: PgTable) -> list[tuple[str, bool, bool | None]]:
    import pglast
    from pglast import ast

    known = ", ".join(o.name for o in table.orders) or "none"
    columns = ", ".join(c.name for c in table.columns)
    refused = InputError(
        f"{spec!r} is neither an order ({known}) nor a column list like "
        f"'created_at desc, id' (columns of {table.label}: {columns})"
    )
    if not spec.strip() or len(spec) > 10_000:
        raise refused
    try:
        statements = pglast.parse_sql(f"SELECT 1 ORDER BY\n{spec}\n")
    except (pglast.parser.ParseError, RecursionError):
        raise refused from None
    if len(statements) != 1 or not isinstance(statements[0].stmt, ast.SelectStmt):
        raise refused
    select: Any = statements[0].stmt
    shape_ok = (
        select.sortClause
        and not select.fromClause
        and not select.whereClause
        and not select.limitCount
        and not select.limitOffset
        and not select.lockingClause
        and not select.withClause
        and getattr(select.op, "name", "") == "SETOP_NONE"
    )
    if not shape_ok:
        raise refused
    terms: list[tuple[str, bool, bool | None]] = []
    for sort in select.sortClause:
        node: Any = sort.node
        fields: Any = node.fields if isinstance(node, ast.ColumnRef) else ()
        direction = sort.sortby_dir.name
        if len(fields) != 1 or not isinstance(fields[0], ast.String) or direction == "SORTBY_USING":
            raise refused
        name = fields[0].sval  # folded to lower case unless it was quoted: the server's reading
        if name not in {c.name for c in table.columns}:
            raise InputError(
                f"{name!r} is neither an order ({known}) nor a column ({columns}) of {table.label}"
            )
        nulls = sort.sortby_nulls.name
        terms.append(
            (
                name,
                direction == "SORTBY_DESC",
                None if nulls == "SORTBY_NULLS_DEFAULT" else nulls == "SORTBY_NULLS_FIRST",
            )
        )
    return terms


def with_tie_breaker(
    terms: list[SortColumn],
    index: str | None,
    unique: bool,
    *,
    name: str,
    table: PgTable | None = None,
    row_key: tuple[str, ...] = (),
    columns: dict[str, Column] | None = None,
    expression: bool = False,
    why_not_unique: str = "",
) -> PgOrder:
    """Append the row-key columns the order lacks, so that it names one row."""
    if table is not None:
        row_key, columns = table.row_key, {c.name: c for c in table.columns}
    assert columns is not None
    present = {t.label for t in terms if t.expression in (quote(t.label), t.label)}
    added: list[str] = []
    if not unique and row_key:
        last = terms[-1] if terms else None
        for key in row_key:
            if key not in present:
                column = columns.get(key) or SYSTEM_COLUMNS[key]
                descending = last.descending if last else False
                spelled = key if key in SYSTEM_COLUMNS else quote(key)
                terms.append(
                    SortColumn(
                        spelled,
                        key,
                        column.cast_type,
                        descending,
                        descending,
                        False,
                        refused=column.refused,
                        ordering=column.ordering,
                    )
                )
                added.append(key)
        unique = True
    return PgOrder(name, tuple(terms), index, unique, tuple(added), expression, why_not_unique)


_TIMESTAMP = re.compile(r"^timestamp(\(\d+\))? with(out)? time zone$")


def _text_kind(type_name: str) -> str | None:
    """Which of the types whose text follows TimeZone, DateStyle or IntervalStyle this is
    (a built-in's name as format_type spells it on PostgreSQL's own search path)."""
    match = _TIMESTAMP.match(type_name)
    if match:
        return "timestamp" if match.group(2) else "timestamptz"
    if type_name == "date":
        return "date"
    if type_name == "interval" or type_name.startswith(("interval(", "interval ")):
        return "interval"
    return None


def changing(column: SortColumn) -> bool:
    return bool(CHANGING.search(column.label))
