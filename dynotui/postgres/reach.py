"""What a filter can run, found in the server's catalog from what the parse tree names.

A filter runs more than the functions it names. Overload resolution picks one of several
candidates; a cast runs a cast function, a type's input function and a domain's CHECK (of
a domain of a domain, at any depth, and of a composite's attributes); the planner swaps an
operator for its negator (``NOT (a =#= b)``) or commutator and calls its estimators; a
function fills in default arguments by running their expressions; an aggregate runs its
support functions; a view and a row-level security policy run their own expressions.

So everything the filter names (every overload of each function and operator name on
the search path its statement runs with, every type it casts to, the types of the
columns it reads, every relation a sub-select reads) is followed through the catalog
along each of those edges, breadth first, until nothing new is reached. What is reached
is an over-approximation of what can run, never an under-approximation, and nothing is
executed to find it (planning a statement may run functions; this only reads catalogs).

The filter is refused, naming the object and the path to it, if anything reached is:

- **not PostgreSQL's own** (an object created after initdb: OID 16384 or above), unless
  the session trusts database code (``--trust-database-code``);
- **VOLATILE** (it may change something);
- **on the deny-list** (``code_rules``): built-in functions that STABLE does not make harmless.
"""

from __future__ import annotations

import itertools
from typing import Any

from dynotui.core.errors import InputError
from dynotui.postgres import by_name
from dynotui.postgres.catalog_edges import (
    Described,
    Key,
    Step,
    describe,
    follow,
    labelled,
    nearest_first,
    path,
)
from dynotui.postgres.code_rules import (
    FIRST_NORMAL_OBJECT_ID,
    TRUST_FLAG,
    denied,
    function_problem,
)
from dynotui.postgres.filter import PgFilter

WHOLE_ROW = "*"  # the seed that is the table's row type, where the row is passed whole

# The comparison operators the rest of the statement (keyset seeks, ORDER BY, CASE x WHEN,
# GREATEST, IN) may apply to a filter's values: followed along with the named ones.
IMPLIED_OPERATORS = ("=", "<>", "<", ">", "<=", ">=")

SEED_SQL = """
WITH wanted_function(schema_name, name) AS (
    SELECT * FROM ROWS FROM (
        pg_catalog.unnest(%(function_schemas)s::text[]),
        pg_catalog.unnest(%(function_names)s::text[]))
), wanted_operator(schema_name, name) AS (
    SELECT * FROM ROWS FROM (
        pg_catalog.unnest(%(operator_schemas)s::text[]),
        pg_catalog.unnest(%(operator_names)s::text[]))
), on_path(nsp) AS (
    SELECT n.oid FROM pg_catalog.pg_namespace n
    WHERE n.nspname = ANY (pg_catalog.current_schemas(true))
), the_table(oid) AS (
    SELECT c.oid FROM pg_catalog.pg_class c
    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = %(table_schema)s AND c.relname = %(table_name)s
)
SELECT 'f', p.oid, NULL::text
FROM wanted_function w
JOIN pg_catalog.pg_proc p ON p.proname = w.name
JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = w.schema_name OR (w.schema_name IS NULL AND n.oid IN (SELECT nsp FROM on_path))
UNION ALL
SELECT 'o', o.oid, NULL
FROM wanted_operator w
JOIN pg_catalog.pg_operator o ON o.oprname = w.name
JOIN pg_catalog.pg_namespace n ON n.oid = o.oprnamespace
WHERE n.nspname = w.schema_name OR (w.schema_name IS NULL AND n.oid IN (SELECT nsp FROM on_path))
UNION ALL
SELECT 't', r.oid, NULL
FROM pg_catalog.unnest(%(types)s::text[]) AS w(name)
CROSS JOIN LATERAL (SELECT pg_catalog.to_regtype(w.name)::oid AS oid) AS r
WHERE r.oid IS NOT NULL
UNION ALL
SELECT 'r', r.oid, NULL
FROM pg_catalog.unnest(%(relations)s::text[]) AS w(name)
CROSS JOIN LATERAL (SELECT pg_catalog.to_regclass(w.name)::oid AS oid) AS r
WHERE r.oid IS NOT NULL
UNION ALL
SELECT 't', a.atttypid, a.attname::text
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = (SELECT oid FROM the_table) AND a.attnum > 0 AND NOT a.attisdropped
  AND a.attname = ANY (%(columns)s::text[])
UNION ALL
-- the row as a whole (t.*, or a name that is no column: t alone, t.f as the call f(t), or
-- another relation's column in a sub-select): the table's row type, whose attributes are
-- its columns
SELECT 'c', t.oid, '*'
FROM the_table t
WHERE %(every_column)s OR EXISTS (
    SELECT 1 FROM pg_catalog.unnest(%(columns)s::text[]) AS w(name)
    WHERE NOT EXISTS (
        SELECT 1 FROM pg_catalog.pg_attribute b
        WHERE b.attrelid = t.oid AND b.attname = w.name AND b.attnum > 0
          AND NOT b.attisdropped))
"""

# Names the filter calls that resolve to nothing on its search path, with what they are
# elsewhere: said in words rather than left to "function does not exist".
ELSEWHERE_SQL = """
SELECT w.name, pg_catalog.string_agg(p.oid::pg_catalog.regprocedure::text, ', ' ORDER BY p.oid)
FROM pg_catalog.unnest(%(names)s::text[]) AS w(name)
JOIN pg_catalog.pg_proc p ON p.proname = w.name
WHERE NOT EXISTS (
    SELECT 1 FROM pg_catalog.pg_proc q JOIN pg_catalog.pg_namespace n ON n.oid = q.pronamespace
    WHERE q.proname = w.name AND n.nspname = ANY (pg_catalog.current_schemas(true))
)
GROUP BY w.name
ORDER BY w.name
"""

_SEEN_AS = {  # (how the filter uses a named object itself, the same as the end of a path)
    "f": ("calls {}", "which the filter calls"),
    "o": ("applies {}", "which the filter applies"),
    "t": ("names {}", "which the filter names"),
    "r": ("reads {}", "which the filter reads"),
}


def reach(
    session: Any, parsed: PgFilter, schema: str, table: str, named: list[Key] | None = None
) -> dict[Key, Step]:
    """Every catalog object the filter may run or use, with how each was first reached
    (breadth first: the shortest way from the filter). ``named``: objects the filter hands
    a built-in by name (``by_name``), followed as if the filter named them."""
    operators = list(dict.fromkeys([*parsed.operators, *((None, o) for o in IMPLIED_OPERATORS)]))
    seeds = session.query(
        SEED_SQL,
        {
            "function_schemas": [s for s, _ in parsed.functions],
            "function_names": [n for _, n in parsed.functions],
            "operator_schemas": [s for s, _ in operators],
            "operator_names": [n for _, n in operators],
            "types": list(parsed.types),
            "relations": list(parsed.relations),
            "table_schema": schema,
            "table_name": table,
            "every_column": parsed.whole_row,
            "columns": list(parsed.column_names),
        },
    )
    extra = [(kind, oid, None) for kind, oid in named or ()]
    return follow(session, [*seeds, *extra])


def check_on_server(
    session: Any, parsed: PgFilter, schema: str, table: str, *, trusted: bool = False
) -> None:
    """Refuse the filter, in one line naming the object and the way to it, if anything it
    may run is VOLATILE, denied, or (unless ``trusted``) not PostgreSQL's own."""
    if parsed.sub_selects and not trusted:
        raise InputError(
            "refused: the filter holds a sub-select, which reads other relations (a view "
            "or a row-level security policy runs its own code there); a filter reads only "
            f"the table's own columns unless you trust this database's code ({TRUST_FLAG})"
        )
    if not trusted:
        _refuse_names_elsewhere(session, parsed)
    named = by_name.check(session, parsed, trusted=trusted)
    found = reach(session, parsed, schema, table, named)
    described = describe(session, found)
    for key in nearest_first(found):
        reason = _problem(key, described[key], found[key], trusted)
        if reason is not None:
            raise InputError(f"refused: the filter {_way(key, found, described)}, {reason}")


def _problem(key: Key, what: Described, step: Step, trusted: bool) -> str | None:
    kind, oid = key
    own = oid < FIRST_NORMAL_OBJECT_ID
    if kind == "f":
        return function_problem(what, own=own, trusted=trusted, subject="a filter")
    if step.parent is None and step.column is None and not own and not trusted:
        # Named by the filter (a cast, an operator, a relation); a column's own type is
        # the table's and is judged by the code it runs.
        return (
            "which is not PostgreSQL's own: a filter names only PostgreSQL's built-in "
            f"objects and the table's columns unless you trust this database's code "
            f"({TRUST_FLAG})"
        )
    return None


def _way(key: Key, found: dict[Key, Step], described: dict[Key, Described]) -> str:
    """How the filter reaches ``key``, in words: ``calls f(integer)``, or ``may run
    f(integer) (used by the CHECK constraint c of type d1, the base type of type d2,
    which the filter names)``."""

    def label(item: Key) -> str:
        return labelled(item, described)

    chain = path(key, found)
    seed = chain[-1]
    column = found[seed].column
    if len(chain) == 1:
        if column == WHOLE_ROW:
            return f"passes the whole row, of {label(seed)}"
        if column is not None:
            return f"reads column {column}, of {label(seed)}"
        return _SEEN_AS[seed[0]][0].format(label(seed))
    hops = [f"{found[child].how} {label(parent)}" for child, parent in itertools.pairwise(chain)]
    if column == WHOLE_ROW:
        tail = "the table's row, which the filter passes whole"
    elif column is not None:
        tail = f"the type of column {column}, which the filter reads"
    else:
        tail = _SEEN_AS[seed[0]][1]
    verb = "may run" if key[0] == "f" else "reaches"
    return f"{verb} {label(key)} ({', '.join(hops)}, {tail})"


def _refuse_names_elsewhere(session: Any, parsed: PgFilter) -> None:
    """A function called by a bare name that PostgreSQL does not ship but that exists
    elsewhere: refused in words, not left to "function does not exist"."""
    bare = sorted({name for schema, name in parsed.functions if schema is None})
    if not bare:
        return
    for name, where in session.query(ELSEWHERE_SQL, {"names": bare}):
        reason = denied(name)
        if reason is not None:
            raise InputError(f"refused: the filter calls {name} ({where}), which {reason}")
        raise InputError(
            f"refused: the filter calls {name}, which is not PostgreSQL's own ({where}): a "
            "filter runs only PostgreSQL's built-in code unless you trust this database's "
            f"code ({TRUST_FLAG})"
        )


def verify(session: Any, parsed: PgFilter | None, schema: str, table: str) -> None:
    """``check_on_server`` once per filter, table and session (the answer does not change
    while the server's catalog does not)."""
    if parsed is None:
        return
    options = getattr(session, "options", None)
    trusted = bool(getattr(options, "trust_database_code", False))
    verified = getattr(session, "verified_filters", None)
    key = f"{schema}.{table}:{parsed.deparsed}"
    if verified is not None and key in verified:
        return
    check_on_server(session, parsed, schema, table, trusted=trusted)
    if verified is not None:
        verified.add(key)
