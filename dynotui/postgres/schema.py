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

from dataclasses import dataclass, replace
from typing import Any

from dynotui.core.errors import InputError
from dynotui.postgres.order_code import (
    DEFAULT_OPCLASS,
    ORDERING,
    ORDERING_COLUMNS,
    TermCode,
    ordering,
    refusals,
)
from dynotui.postgres.table_model import (
    CHANGING as CHANGING,
)
from dynotui.postgres.table_model import (
    NO_INDEX as NO_INDEX,
)
from dynotui.postgres.table_model import (
    PHYSICAL as PHYSICAL,
)
from dynotui.postgres.table_model import (
    PHYSICAL_NOTE as PHYSICAL_NOTE,
)
from dynotui.postgres.table_model import (
    SYSTEM_COLUMNS as SYSTEM_COLUMNS,
)
from dynotui.postgres.table_model import (
    Column as Column,
)
from dynotui.postgres.table_model import (
    Operators as Operators,
)
from dynotui.postgres.table_model import (
    PgOrder as PgOrder,
)
from dynotui.postgres.table_model import (
    PgTable as PgTable,
)
from dynotui.postgres.table_model import (
    PgTableRef as PgTableRef,
)
from dynotui.postgres.table_model import (
    SortColumn as SortColumn,
)
from dynotui.postgres.table_model import (
    changing as changing,
)
from dynotui.postgres.table_model import (
    quote as quote,
)
from dynotui.postgres.table_model import (
    with_tie_breaker as with_tie_breaker,
)

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
    SELECT pg_catalog.format_type(ch.oid, ch.mod) AS base_type, ch.oid AS base_oid,
           ch.typtype = 'c' AS row_valued,
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
       COALESCE(b.nested_datetime, false), b.base_oid, COALESCE(o.opclass, 0),
       {ORDERING_COLUMNS.format(alias="ord")}
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_stats s
    ON s.schemaname = n.nspname AND s.tablename = c.relname AND s.attname = a.attname
    AND NOT s.inherited
{_BASE_TYPE.format(oid="a.atttypid", mod="a.atttypmod", alias="b")}
{DEFAULT_OPCLASS.format(base="b.base_oid", alias="o")}
{ORDERING.format(opclass="o.opclass", alias="ord")}
WHERE a.attrelid = %(oid)s AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum
"""

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
       oc.opcname, oc.oid = d.opclass,
       {ORDERING_COLUMNS.format(alias="ord")},
       ta.attname, b.base_type, COALESCE(b.row_valued, false),
       COALESCE(b.nested_datetime, false), b.base_oid, oc.oid
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
{DEFAULT_OPCLASS.format(base="b.base_oid", alias="d")}
{ORDERING.format(opclass="oc.oid", alias="ord")}
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
    opclass_default: bool  # the default operator class of the term's type
    less: str | None
    equal: str | None
    greater: str | None
    input_oid: int | None
    input_type: str | None
    polymorphic: bool
    column: str | None
    base_type: str | None
    row_valued: bool
    nested_datetime: bool
    base_oid: int
    opclass_oid: int
    refused: str = ""


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
            base_oid or 0,
            opclass,
            ordering=ordering(*order_row, term_type=base_oid or 0),
        )
        for n, t, nullable, frac, base, row_valued, nested, base_oid, opclass, *order_row in (
            session.query(COLUMNS_SQL, {"oid": oid})
        )
    )
    indexes: dict[str, list[_IndexTerm]] = {}
    for row in session.query(INDEXES_SQL, {"oid": oid}):
        term = _IndexTerm(*row)
        indexes.setdefault(term.index, []).append(term)
    columns, indexes = _with_refusals(session, columns, indexes)
    by_name = {c.name: c for c in columns}
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


def _with_refusals(
    session: Any, columns: tuple[Column, ...], indexes: dict[str, list[_IndexTerm]]
) -> tuple[tuple[Column, ...], dict[str, list[_IndexTerm]]]:
    """The columns with why each may not be an order's term (its type's boundary or default
    operator class runs code an order may not run), and each index term's own reason."""
    by_name = {c.name: c for c in columns}
    terms: dict[Any, TermCode] = {c.name: TermCode(c.name, c.cast_oid, c.opclass) for c in columns}
    for name, index_terms in indexes.items():
        for n, t in enumerate(index_terms):
            cast = by_name[t.column].cast_oid if t.column is not None else t.base_oid
            terms[(name, n)] = TermCode(t.column or t.definition, cast or 0, t.opclass_oid)
    options = getattr(session, "options", None)
    why = refusals(session, terms, trusted=bool(getattr(options, "trust_database_code", False)))
    for c in columns:
        if c.ordering is None and c.name not in why:
            why[c.name] = (
                f"type {c.type} of {c.name} has no default b-tree operator class (or no "
                "single one): nothing orders it, so no boundary of it can be compared"
            )
    if not why:
        return columns, indexes
    return (
        tuple(replace(c, refused=why.get(c.name, "")) for c in columns),
        {
            name: [replace(t, refused=why.get((name, n), "")) for n, t in enumerate(ts)]
            for name, ts in indexes.items()
        },
    )


def _sort_column(term: _IndexTerm, by_name: dict[str, Column]) -> SortColumn:
    descending, nulls_first = bool(term.option & 1), bool(term.option & 2)
    notes: list[str] = []
    # The column's own collation needs no COLLATE; another one must be named everywhere.
    # An expression's own collation is not in the catalog: the index's is always named.
    collation = term.collation if term.collation_differs else None
    if term.column is None and term.collation is not None:
        collation = term.collation
    if term.collation_differs and term.collation_name is not None:
        notes.append(f"collate {quote(term.collation_name)}")
    operators = None
    if not term.opclass_default:
        notes.append(term.opclass)
        if term.less and term.equal and term.greater:
            operators = Operators(term.less, term.equal, term.greater)
    column = by_name[term.column] if term.column is not None else None
    term_type = column.cast_oid if column is not None else term.base_oid
    order = ordering(
        term.less,
        term.equal,
        term.greater,
        term.input_oid,
        term.input_type,
        term.polymorphic,
        term_type=term_type or 0,
    )
    refused = term.refused or (
        ""
        if order is not None
        else f"operator class {term.opclass} of index {term.index} has no b-tree operators "
        "for its own type (less, equal, greater): no boundary of it can be compared exactly"
    )
    if column is not None:
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
            refused,
            order,
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
        refused,
        order,
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
