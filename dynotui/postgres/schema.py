"""A PostgreSQL table and the orders it can be read in: its primary key, each b-tree index
(made unique by a row key where it is not), or any columns with no index.

Keyset paging needs a unique sort key: rows that tie at a page boundary would be lost
or repeated. So a non-unique index's order is followed by the primary key columns (or
those of a unique index on NOT NULL columns), and the order says so. A UNIQUE index on a
nullable column is not unique (NULLs repeat) unless it treats NULLs as equal.

Everything an order is comes from the catalog: the direction and NULLs placement of each
index column, its collation and operator class (both part of the index's order: a
``COLLATE "C"`` or ``text_pattern_ops`` index sorts otherwise than the column's default),
and whether a term can be NULL (a NOT NULL constraint; for an expression, a ``COALESCE``
with an argument that cannot be NULL). Nothing is guessed from a name.
"""

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

    @property
    def cast_type(self) -> str:
        return self.base_type or self.type


# Columns every table has, which a keyset order may end with where nothing else names one
# row: the table a row lies in (inherited tables, partitions) and its place in it.
SYSTEM_COLUMNS = {
    "tableoid": Column("tableoid", "oid", False),
    "ctid": Column("ctid", "tid", False),
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

    def reversed(self) -> SortColumn:
        return replace(self, descending=not self.descending, nulls_first=not self.nulls_first)

    @property
    def term(self) -> str:
        """The expression as compared and sorted: with the index's collation."""
        if self.collation is None:
            return self.expression
        return f"{self.expression} COLLATE {self.collation}"

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
        """The operator a later row satisfies against the boundary's value."""
        if self.operators is not None:
            return self.operators.less if self.descending else self.operators.greater
        return "<" if self.descending else ">"

    @property
    def equal_operator(self) -> str:
        return self.operators.equal if self.operators is not None else "="

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
    # Why page 2's plan is not bounded index seeks, in this direction and the other, as
    # EXPLAIN found when the table was described ("": it is, or it was not checked).
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
        """The primary key's order; else the first index's; else every column's."""
        if self.orders:
            return self.orders[0]
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
                    SortColumn(spelled, key, column.cast_type, descending, descending, False)
                )
                added.append(key)
        unique = True
    return PgOrder(name, tuple(terms), index, unique, tuple(added), expression, why_not_unique)


_TABLE_COLUMNS = """c.oid, n.nspname, c.relname, c.reltuples::bigint, c.relkind::text,
       EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i WHERE i.inhparent = c.oid)"""
TABLE_SQL = f"""
SELECT {_TABLE_COLUMNS}
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.oid = pg_catalog.to_regclass(%(name)s)
"""

TABLE_BY_NAME_SQL = f"""
SELECT {_TABLE_COLUMNS}
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = %(schema)s AND c.relname = %(name)s
"""

# A type as a boundary value is cast to it (a domain's base, with the typmod the domain
# gives it), and whether its values are rows (a composite, or a domain over one).
_BASE_TYPE = """LEFT JOIN LATERAL (
    WITH RECURSIVE chain(oid, mod, typtype, basetype, typtypmod, depth) AS (
        SELECT t.oid, {mod}, t.typtype, t.typbasetype, t.typtypmod, 0
        FROM pg_catalog.pg_type t WHERE t.oid = {oid}
        UNION ALL
        SELECT t.oid, CASE WHEN c.mod <> -1 THEN c.mod ELSE c.typtypmod END, t.typtype,
               t.typbasetype, t.typtypmod, c.depth + 1
        FROM chain c JOIN pg_catalog.pg_type t ON t.oid = c.basetype
        WHERE c.typtype = 'd' AND c.depth < 100
    )
    SELECT pg_catalog.format_type(ch.oid, ch.mod) AS base_type, ch.typtype = 'c' AS row_valued,
           (WITH RECURSIVE part(oid, depth) AS (
                SELECT ch.oid, 0
                UNION
                SELECT x.oid, p.depth + 1
                FROM part p JOIN pg_catalog.pg_type t ON t.oid = p.oid
                CROSS JOIN LATERAL (
                    SELECT t.typbasetype WHERE t.typbasetype <> 0
                    UNION ALL SELECT t.typelem WHERE t.typelem <> 0
                    UNION ALL SELECT r.rngsubtype FROM pg_catalog.pg_range r
                        WHERE r.rngtypid = t.oid
                    UNION ALL SELECT r.rngtypid FROM pg_catalog.pg_range r
                        WHERE (pg_catalog.to_jsonb(r) ->> 'rngmultitypid')::oid = t.oid
                    UNION ALL SELECT a.atttypid FROM pg_catalog.pg_attribute a
                        WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped
                ) AS x(oid)
                WHERE p.depth < 20
            )
            SELECT pg_catalog.bool_or(p.depth > 0 AND p.oid IN (
                'pg_catalog.timestamptz'::pg_catalog.regtype,
                'pg_catalog.timestamp'::pg_catalog.regtype,
                'pg_catalog.date'::pg_catalog.regtype,
                'pg_catalog.interval'::pg_catalog.regtype))
            FROM part p) AS nested_datetime
    FROM chain ch WHERE ch.typtype <> 'd' LIMIT 1
) AS {alias} ON true"""

# A NOT NULL that is NOT VALID (PostgreSQL 18) does not vouch for the rows already there.
COLUMNS_SQL = f"""
SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),
       NOT a.attnotnull OR EXISTS (
           SELECT 1 FROM pg_catalog.pg_constraint k
           WHERE k.conrelid = a.attrelid AND k.contype = 'n' AND NOT k.convalidated
             AND k.conkey = ARRAY[a.attnum]),
       s.null_frac, b.base_type, COALESCE(b.row_valued, false),
       COALESCE(b.nested_datetime, false)
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_stats s
    ON s.schemaname = n.nspname AND s.tablename = c.relname AND s.attname = a.attname
    AND NOT s.inherited
{_BASE_TYPE.format(oid="a.atttypid", mod="a.atttypmod", alias="b")}
WHERE a.attrelid = %(oid)s AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum
"""

# The operator class's own operator for a b-tree strategy (1 less, 3 equal, 5 greater),
# schema-qualified: what every comparison of a boundary uses, never a bare "<".
_STRATEGY_OPERATOR_SQL = """(SELECT pg_catalog.format('OPERATOR(%%I.%%s)', o.nspname, o.oprname)
        FROM pg_catalog.pg_amop ao
        JOIN LATERAL (SELECT op.oprname, opn.nspname FROM pg_catalog.pg_operator op
                      JOIN pg_catalog.pg_namespace opn ON opn.oid = op.oprnamespace
                      WHERE op.oid = ao.amopopr) AS o ON true
        WHERE ao.amopfamily = oc.opcfamily AND ao.amoplefttype = oc.opcintype
          AND ao.amoprighttype = oc.opcintype AND ao.amopstrategy = {strategy}
          AND ao.amoppurpose = 's')"""

INDEXES_SQL = f"""
SELECT c.relname, i.indisunique, i.indisprimary, i.indexprs IS NOT NULL,
       pg_catalog.pg_get_indexdef(i.indexrelid, k.n + 1, true),
       i.indoption[k.n], i.indkey[k.n],
       pg_catalog.format_type(ia.atttypid, ia.atttypmod),
       COALESCE((pg_catalog.to_jsonb(i) ->> 'indnullsnotdistinct')::boolean, false),
       CASE WHEN i.indcollation[k.n] <> 0 THEN
           pg_catalog.quote_ident(cn.nspname) || '.' || pg_catalog.quote_ident(co.collname)
       END,
       i.indcollation[k.n] <> 0 AND i.indcollation[k.n] IS DISTINCT FROM (
           CASE WHEN i.indkey[k.n] <> 0 THEN ta.attcollation ELSE 100 END
       ),
       co.collname,
       oc.opcname, oc.opcdefault,
       {_STRATEGY_OPERATOR_SQL.format(strategy=1)},
       {_STRATEGY_OPERATOR_SQL.format(strategy=3)},
       {_STRATEGY_OPERATOR_SQL.format(strategy=5)},
       ta.attname, b.base_type, COALESCE(b.row_valued, false),
       COALESCE(b.nested_datetime, false)
FROM pg_catalog.pg_index i
JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
JOIN pg_catalog.pg_am am ON am.oid = c.relam
CROSS JOIN LATERAL pg_catalog.generate_series(0, i.indnkeyatts - 1) AS k(n)
JOIN pg_catalog.pg_attribute ia ON ia.attrelid = i.indexrelid AND ia.attnum = k.n + 1
JOIN pg_catalog.pg_opclass oc ON oc.oid = i.indclass[k.n]
LEFT JOIN pg_catalog.pg_attribute ta ON ta.attrelid = i.indrelid AND ta.attnum = i.indkey[k.n]
    AND i.indkey[k.n] <> 0
LEFT JOIN pg_catalog.pg_collation co ON co.oid = i.indcollation[k.n]
LEFT JOIN pg_catalog.pg_namespace cn ON cn.oid = co.collnamespace
{_BASE_TYPE.format(oid="ia.atttypid", mod="ia.atttypmod", alias="b")}
WHERE i.indrelid = %(oid)s AND am.amname = 'btree' AND i.indpred IS NULL AND i.indisvalid
ORDER BY i.indisprimary DESC, c.relname, k.n
"""


@dataclass(frozen=True)
class _IndexTerm:
    index: str
    unique: bool
    primary: bool
    expression_index: bool
    definition: str
    option: int
    attnum: int
    index_type: str
    nulls_not_distinct: bool
    collation: str | None
    collation_differs: bool
    collation_name: str | None
    opclass: str
    opclass_default: bool
    less: str | None
    equal: str | None
    greater: str | None
    column: str | None
    base_type: str | None
    row_valued: bool
    nested_datetime: bool


def describe_table(session: Any, name: str | PgTableRef) -> PgTable:
    """Columns, row key and every b-tree order of table ``name``: a name as PostgreSQL
    reads it (``orders``, ``"Order Items"``, ``sales.orders``), or a ref from
    ``table_refs`` (found by its schema and name exactly)."""
    if isinstance(name, PgTableRef):
        rows = session.query(TABLE_BY_NAME_SQL, {"schema": name.schema, "name": name.name})
        shown = name.identifier
    else:
        try:
            rows = session.query(TABLE_SQL, {"name": name}, user_search_path=True)
        except InputError as exc:
            raise InputError(f"{name!r} is not a table name PostgreSQL can read: {exc}") from None
        shown = name
    if not rows:
        raise InputError(f"table {shown!r} does not exist (or is not visible) in this database")
    oid, schema, relname, reltuples, kind, has_children = rows[0]
    columns = tuple(
        Column(
            n,
            t,
            bool(nullable),
            None if frac is None else float(frac),
            None if base in (None, t) else base,
            bool(row_valued),
            bool(nested),
        )
        for n, t, nullable, frac, base, row_valued, nested in session.query(
            COLUMNS_SQL, {"oid": oid}
        )
    )
    by_name = {c.name: c for c in columns}
    indexes: dict[str, list[_IndexTerm]] = {}
    for row in session.query(INDEXES_SQL, {"oid": oid}):
        term = _IndexTerm(*row)
        indexes.setdefault(term.index, []).append(term)
    # A read of a table with inheritance children reads them too, and a parent's primary
    # key or unique index holds for the parent alone (a partitioned table's hold for all
    # of its partitions, which PostgreSQL makes them share).
    spans_children = bool(has_children) and kind != "p"
    primary_key: tuple[str, ...] = ()
    for terms in indexes.values():
        if terms[0].primary:
            primary_key = tuple(t.column or "" for t in terms)
    row_key = () if spans_children else primary_key
    if not row_key and not spans_children:
        for terms in indexes.values():
            if (
                terms[0].unique
                and not terms[0].expression_index
                and all(t.column and not by_name[t.column].nullable for t in terms)
            ):
                row_key = tuple(t.column or "" for t in terms)
                break
    why_physical = ""
    if not row_key and kind in ("r", "p", "m"):
        # Nothing else names one row: where it lies does (in which table, at which ctid).
        row_key = ("tableoid", "ctid") if has_children else ("ctid",)
        why_physical = (
            "its inheritance children may repeat its keys"
            if spans_children
            else "a materialized view has no key"
            if kind == "m"
            else "it has no primary key and no unique index on NOT NULL columns"
        )
    orders = []
    for index_name, terms in indexes.items():
        sort_terms = [_sort_column(t, by_name) for t in terms]
        unique, why = terms[0].unique, ""
        if unique and spans_children:
            unique, why = False, "UNIQUE in this table, not in its inheritance children"
        elif unique and not terms[0].nulls_not_distinct and any(s.nullable for s in sort_terms):
            # NULLs are distinct in a UNIQUE index: rows with a NULL here can repeat.
            unique, why = False, "UNIQUE, but a nullable column lets NULLs repeat"
        name = "primary key" if terms[0].primary else index_name
        orders.append(
            with_tie_breaker(
                sort_terms,
                index_name,
                unique,
                name=name,
                row_key=row_key,
                columns=by_name,
                expression=terms[0].expression_index,
                why_not_unique=why,
            )
        )
    if not orders and why_physical:
        orders.append(
            with_tie_breaker([], None, False, name=PHYSICAL, row_key=row_key, columns=by_name)
        )
    table = PgTable(
        schema,
        relname,
        columns,
        primary_key,
        tuple(orders),
        reltuples,
        row_key,
        kind,
        why_physical,
    )
    from dynotui.postgres.flat import with_cost_notes  # it builds the pages' statements

    return with_cost_notes(session, table)


def _sort_column(term: _IndexTerm, by_name: dict[str, Column]) -> SortColumn:
    descending, nulls_first = bool(term.option & 1), bool(term.option & 2)
    notes: list[str] = []
    # The column's own collation needs no COLLATE; another one must be named everywhere.
    collation = term.collation if term.collation_differs else None
    if term.collation_differs and term.collation_name is not None:
        notes.append(f"collate {quote(term.collation_name)}")
    operators = None
    if not term.opclass_default:
        notes.append(term.opclass)
        if term.less and term.equal and term.greater:
            operators = Operators(term.less, term.equal, term.greater)
    if term.column is not None:
        column = by_name[term.column]
        return SortColumn(
            quote(column.name),
            column.name,
            column.cast_type,
            descending,
            nulls_first,
            column.nullable,
            collation,
            operators,
            tuple(notes),
            column.row_valued,
            column.nested_datetime,
        )
    return SortColumn(
        f"({term.definition})",
        term.definition,
        term.base_type or term.index_type,
        descending,
        nulls_first,
        not never_null(term.definition, by_name),
        collation,
        operators,
        tuple(notes),
        term.row_valued,
        term.nested_datetime,
    )


def never_null(expression: str, columns: dict[str, Column]) -> bool:
    """Whether an index expression can be shown, from the catalog, never to be NULL: a
    NOT NULL column, a literal, or a COALESCE with such an argument. Anything else may
    be NULL (a COALESCE of two nullable columns is NULL when both are)."""
    import pglast
    from pglast import ast

    try:
        statement: Any = pglast.parse_sql(f"SELECT {expression}")[0].stmt
    except (pglast.parser.ParseError, RecursionError):
        return False
    target = statement.targetList[0].val if statement.targetList else None

    def proven(node: Any) -> bool:
        if isinstance(node, ast.A_Const):
            return not node.isnull
        if isinstance(node, ast.TypeCast):
            return isinstance(node.arg, ast.A_Const) and not node.arg.isnull
        if isinstance(node, ast.ColumnRef):
            parts: Any = node.fields
            fields = [str(f.sval) for f in parts if isinstance(f, ast.String)]
            column = columns.get(fields[-1]) if len(fields) == 1 else None
            return column is not None and not column.nullable
        if isinstance(node, ast.CoalesceExpr):
            arguments: Any = node.args
            return any(proven(arg) for arg in arguments)
        return False

    return proven(target)


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


TABLES_SQL = """
SELECT n.nspname, c.relname, c.reltuples::bigint,
       CASE WHEN pg_catalog.to_regclass(pg_catalog.quote_ident(c.relname)) = c.oid
            THEN pg_catalog.quote_ident(c.relname)
            ELSE pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname)
       END
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%%'
  AND pg_catalog.has_table_privilege(c.oid, 'SELECT')
ORDER BY n.nspname <> 'public', n.nspname, c.relname
"""


def table_refs(session: Any) -> list[PgTableRef]:
    """Tables (and views) this session may read, each with an identifier that opens
    exactly it (``describe_table(session, ref)`` or ``describe_table(session,
    ref.identifier)``), and reltuples as a free row estimate."""
    return [
        PgTableRef(schema, name, identifier, None if n < 0 else n)
        for schema, name, n, identifier in session.query(TABLES_SQL, user_search_path=True)
    ]


def list_tables(session: Any) -> list[tuple[str, int | None]]:
    """(identifier, row estimate) for each readable table: the identifier is quoted and
    qualified as PostgreSQL needs to find that very table (``orders``, ``"Orders"``,
    ``"Order Items"``, ``sales."Orders"``)."""
    return [(ref.identifier, ref.rows) for ref in table_refs(session)]
