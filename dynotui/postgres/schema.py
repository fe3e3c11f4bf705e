"""A PostgreSQL table and the orders it can be read in: its primary key, each b-tree index
(made unique by the primary key where it is not), or any columns with no index.

Keyset paging needs a unique sort key: rows that tie at a page boundary would be lost
or repeated. So a non-unique index's order is followed by the primary key columns, and
the order says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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


@dataclass(frozen=True)
class SortColumn:
    """One term of an ORDER BY: a column or an index expression, its direction, its NULLs."""

    expression: str  # SQL: a quoted column name, or the index's expression
    label: str
    type: str
    descending: bool = False
    nulls_first: bool = False
    nullable: bool = False

    def reversed(self) -> SortColumn:
        return SortColumn(
            self.expression,
            self.label,
            self.type,
            not self.descending,
            not self.nulls_first,
            self.nullable,
        )

    def sql(self) -> str:
        direction = "DESC" if self.descending else "ASC"
        nulls = "NULLS FIRST" if self.nulls_first else "NULLS LAST"
        return f"{self.expression} {direction} {nulls}"

    def words(self) -> str:
        return self.label + (" desc" if self.descending else "")


@dataclass(frozen=True)
class PgOrder:
    name: str
    columns: tuple[SortColumn, ...]
    index: str | None  # the index that serves it, if any
    unique: bool  # the columns (with any tie-breaker) identify a row
    tie_breaker: tuple[str, ...] = ()  # primary key columns appended to make it unique
    expression_index: bool = False

    def reversed(self) -> PgOrder:
        return PgOrder(
            self.name,
            tuple(c.reversed() for c in self.columns),
            self.index,
            self.unique,
            self.tie_breaker,
            self.expression_index,
        )

    def describe(self) -> str:
        terms = ", ".join(c.words() for c in self.columns)
        how = NO_INDEX if self.index is None else f"index {self.index}"
        extra = f"; tie-broken by {', '.join(self.tie_breaker)}" if self.tie_breaker else ""
        if not self.unique:
            extra += "; NOT unique: rows that tie at a boundary are lost or repeated"
        return f"{self.name}: ({terms}) · {how}{extra}"


@dataclass(frozen=True)
class PgTable:
    schema: str
    name: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]
    orders: tuple[PgOrder, ...]
    estimated_rows: int | None  # pg_class.reltuples: free, as of the last ANALYZE

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
        """An order from ``"col [desc], col2"``: an index's if one serves it, else none."""
        terms: list[SortColumn] = []
        for part in spec.split(","):
            words = part.split()
            if (
                not words
                or len(words) > 2
                or (len(words) == 2 and words[1].lower() not in ("asc", "desc"))
            ):
                known = ", ".join(o.name for o in self.orders)
                raise InputError(
                    f"{spec!r} is neither an order ({known}) nor a column list like "
                    "'created_at desc, id'"
                )
            if words[0] not in {c.name for c in self.columns}:
                orders = ", ".join(o.name for o in self.orders) or "none"
                columns = ", ".join(c.name for c in self.columns)
                raise InputError(
                    f"{words[0]!r} is neither an order ({orders}) nor a column ({columns}) "
                    f"of {self.label}"
                )
            column = self.column(words[0])
            descending = len(words) == 2 and words[1].lower() == "desc"
            terms.append(
                SortColumn(
                    quote(column.name),
                    column.name,
                    column.type,
                    descending,
                    descending,  # PostgreSQL's default: NULLS LAST ascending, FIRST descending
                    column.nullable,
                )
            )
        return with_tie_breaker(self, terms, None, False, name=spec.strip())


def with_tie_breaker(
    table: PgTable | None,
    terms: list[SortColumn],
    index: str | None,
    unique: bool,
    *,
    name: str,
    primary_key: tuple[str, ...] = (),
    columns: dict[str, Column] | None = None,
    expression: bool = False,
) -> PgOrder:
    """Append the primary key columns the order lacks, so that it names one row."""
    if table is not None:
        primary_key, columns = table.primary_key, {c.name: c for c in table.columns}
    assert columns is not None
    present = {t.label for t in terms}
    added: list[str] = []
    if not unique and primary_key:
        last = terms[-1] if terms else None
        for key in primary_key:
            if key not in present:
                column = columns[key]
                descending = last.descending if last else False
                terms.append(
                    SortColumn(quote(key), key, column.type, descending, descending, False)
                )
                added.append(key)
        unique = True
    return PgOrder(name, tuple(terms), index, unique, tuple(added), expression)


COLUMNS_SQL = """
SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), NOT a.attnotnull
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = %(oid)s AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum
"""

INDEXES_SQL = """
SELECT c.relname, i.indisunique, i.indisprimary, i.indexprs IS NOT NULL,
       k.n, pg_catalog.pg_get_indexdef(i.indexrelid, k.n + 1, true),
       i.indoption[k.n], i.indkey[k.n],
       pg_catalog.format_type(ia.atttypid, ia.atttypmod)
FROM pg_catalog.pg_index i
JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
JOIN pg_catalog.pg_am am ON am.oid = c.relam
CROSS JOIN LATERAL generate_series(0, i.indnkeyatts - 1) AS k(n)
JOIN pg_catalog.pg_attribute ia ON ia.attrelid = i.indexrelid AND ia.attnum = k.n + 1
WHERE i.indrelid = %(oid)s AND am.amname = 'btree' AND i.indpred IS NULL AND i.indisvalid
ORDER BY i.indisprimary DESC, c.relname, k.n
"""


def describe_table(session: Any, name: str) -> PgTable:
    """Columns, primary key and every b-tree order of table ``name`` (may be qualified)."""
    rows = session.query(
        "SELECT c.oid, n.nspname, c.relname, c.reltuples::bigint "
        "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
        "ON n.oid = c.relnamespace WHERE c.oid = to_regclass(%(name)s)",
        {"name": name},
    )
    if not rows:
        raise InputError(f"table {name!r} does not exist (or is not visible) in this database")
    oid, schema, relname, reltuples = rows[0]
    columns = tuple(
        Column(n, t, bool(nullable)) for n, t, nullable in session.query(COLUMNS_SQL, {"oid": oid})
    )
    index_rows = session.query(INDEXES_SQL, {"oid": oid})
    by_name = {c.name: c for c in columns}
    indexes: dict[str, list[Any]] = {}
    for row in index_rows:
        indexes.setdefault(row[0], []).append(row)
    primary_key: tuple[str, ...] = ()
    for rows in indexes.values():
        if rows[0][2]:
            primary_key = tuple(by_name_of(r, by_name) for r in rows)
    orders = []
    for index_name, rows in indexes.items():
        terms = []
        for _, _, _, _, _, definition, option, attnum, type_name in rows:
            descending, nulls_first = bool(option & 1), bool(option & 2)
            if attnum:
                column = by_name_of(rows[0], by_name, definition)
                terms.append(
                    SortColumn(
                        quote(column),
                        column,
                        type_name,
                        descending,
                        nulls_first,
                        by_name[column].nullable,
                    )
                )
            else:
                # An expression may be NULL unless it is a COALESCE (the seed's remedy).
                nullable = not definition.upper().startswith("COALESCE(")
                terms.append(
                    SortColumn(definition, definition, type_name, descending, nulls_first, nullable)
                )
        unique, primary = rows[0][1], rows[0][2]
        name = "primary key" if primary else index_name
        orders.append(
            with_tie_breaker(
                None,
                terms,
                index_name,
                unique,
                name=name,
                primary_key=primary_key,
                columns=by_name,
                expression=rows[0][3],
            )
        )
    return PgTable(schema, relname, columns, primary_key, tuple(orders), reltuples)


def by_name_of(row: Any, by_name: dict[str, Column], definition: str | None = None) -> str:
    """The column an index term names (its definition is the quoted or bare name)."""
    text = definition if definition is not None else row[5]
    name = text[1:-1].replace('""', '"') if text.startswith('"') else text
    if name not in by_name:
        raise InputError(f"index column {text!r} is not a column of the table")
    return name


def changing(column: SortColumn) -> bool:
    return bool(CHANGING.search(column.label))


TABLES_SQL = """
SELECT n.nspname, c.relname, c.reltuples::bigint
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%%'
  AND pg_catalog.has_table_privilege(c.oid, 'SELECT')
ORDER BY n.nspname <> 'public', n.nspname, c.relname
"""


def list_tables(session: Any) -> list[tuple[str, int | None]]:
    """Tables (and views) this session may read: (name, schema-qualified unless public),
    with reltuples as a free row estimate."""
    rows = session.query(TABLES_SQL)
    return [
        (name if schema == "public" else f"{quote(schema)}.{quote(name)}", None if n < 0 else n)
        for schema, name, n in rows
    ]
