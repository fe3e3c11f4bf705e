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
- **on the deny-list** below: built-in functions that STABLE does not make harmless.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from dynotui.core.errors import InputError
from dynotui.postgres.filter import PgFilter

FIRST_NORMAL_OBJECT_ID = 16384  # PostgreSQL's FirstNormalObjectId: initdb's objects lie below
TRUST_FLAG = "--trust-database-code"
# Unless the session trusts database code, every statement of dynotui's runs with only
# PostgreSQL's own schema on the search path (pg_temp last: it may hold no functions that
# an unqualified name finds), so an unqualified name finds a built-in or nothing.
OWN_SEARCH_PATH = "pg_catalog, pg_temp"

# Functions refused whatever their volatility says: they reach files, other sessions or
# servers, hold locks past the transaction, or run SQL text that was never checked here.
DENIED_NAMES = {
    "pg_read_file": "reads server files",
    "pg_read_binary_file": "reads server files",
    "pg_stat_file": "reads server files",
    "pg_current_logfile": "reads server files",
    "pg_logdir_ls": "reads server files",
    "loread": "reads large objects",
    "lowrite": "writes large objects",
    "pg_terminate_backend": "ends another session",
    "pg_cancel_backend": "cancels another session's statement",
    "pg_signal_backend": "signals another session",
    "pg_log_backend_memory_contexts": "acts on another session",
    "pg_notify": "sends a notification to other sessions",
    "pg_reload_conf": "changes the server's configuration",
    "pg_promote": "changes the server's state",
    "pg_switch_wal": "changes the server's state",
    "pg_create_restore_point": "changes the server's state",
    "pg_import_system_collations": "changes the catalog",
    "pg_prewarm": "changes the server's buffers",
    "set_config": "changes session settings",
    "txid_current": "assigns a transaction id",
    "pg_current_xact_id": "assigns a transaction id",
    "nextval": "advances a sequence",
    "setval": "changes a sequence",
    "ts_stat": "runs SQL text",
    "ts_rewrite": "runs SQL text",
    "connectby": "runs SQL text",
}
DENIED_PREFIXES = {
    "pg_ls_": "lists server directories",
    "pg_file_": "writes server files",
    "lo_": "reads or writes large objects, server files included",
    "dblink": "connects to another server or database",
    "postgres_fdw_": "acts on foreign-server connections",
    "pg_advisory": "takes an advisory lock (a session lock outlives the transaction)",
    "pg_try_advisory": "takes an advisory lock (a session lock outlives the transaction)",
    "pg_sleep": "sleeps",
    "pg_rotate_logfile": "changes the server's state",
    "pg_backup_": "changes the server's state",
    "pg_wal_replay_": "changes the server's state",
    "pg_stat_reset": "resets statistics",
    "pg_logical_": "acts on replication",
    "pg_replication_": "acts on replication",
    "pg_create_": "creates replication state",
    "pg_drop_": "drops replication state",
    "pg_copy_": "copies replication state",
    "pg_sync_replication": "acts on replication",
    "query_to_xml": "runs SQL text",
    "cursor_to_xml": "runs SQL text",
    "table_to_xml": "runs SQL on a table it names",
    "schema_to_xml": "runs SQL on every table of a schema",
    "database_to_xml": "runs SQL on every table of the database",
    "crosstab": "runs SQL text",
}

# The comparison operators the rest of the statement (keyset seeks, ORDER BY, CASE x WHEN,
# GREATEST, IN) may apply to a filter's values: followed along with the named ones.
IMPLIED_OPERATORS = ("=", "<>", "<", ">", "<=", ">=")


def denied(name: str) -> str | None:
    """Why a function of this name is refused, or None."""
    if name in DENIED_NAMES:
        return DENIED_NAMES[name]
    for prefix, reason in DENIED_PREFIXES.items():
        if name.startswith(prefix):
            return reason
    return None


# Kinds of catalog object: f function, o operator, t type, r relation read (its columns,
# a view's definition, row-level security policies), c a relation as a row type (columns).
KIND_WORDS = {"f": "function", "o": "operator", "t": "type", "r": "relation", "c": "row type"}

_CLASS_KIND = """CASE d.refclassid
        WHEN 'pg_catalog.pg_proc'::pg_catalog.regclass THEN 'f'
        WHEN 'pg_catalog.pg_operator'::pg_catalog.regclass THEN 'o'
        WHEN 'pg_catalog.pg_type'::pg_catalog.regclass THEN 't'
        ELSE 'r' END"""
_CODE_CLASSES = """d.refclassid IN ('pg_catalog.pg_proc'::pg_catalog.regclass,
        'pg_catalog.pg_operator'::pg_catalog.regclass, 'pg_catalog.pg_type'::pg_catalog.regclass,
        'pg_catalog.pg_class'::pg_catalog.regclass)"""

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
  AND (%(every_column)s OR a.attname = ANY (%(columns)s::text[])
       -- a name that is no column is the whole row (or another relation's, in a sub-select)
       OR EXISTS (
           SELECT 1 FROM pg_catalog.unnest(%(columns)s::text[]) AS w(name)
           WHERE NOT EXISTS (
               SELECT 1 FROM pg_catalog.pg_attribute b
               WHERE b.attrelid = a.attrelid AND b.attname = w.name AND b.attnum > 0
                 AND NOT b.attisdropped)))
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

# The OIDs a stored expression (a pg_node_tree: a default argument, a domain's CHECK, a
# view's query, a policy) names, read from its text: pg_depend leaves out every object
# initdb made (a CHECK that calls random() records no dependency on it), the tree does not.
_TREE_FIELDS = (
    "funcid|opfuncid|aggfnoid|winfnoid|opno|funcresulttype|opresulttype|consttype|vartype"
    "|typeId|resulttype|minmaxtype|aggtype|wintype|relid"
)


def _tree(source: str, tree: str, from_kind: str, from_oid: str, how: str, where: str) -> str:
    """SQL rows (from_kind, from_oid, to_kind, to_oid, how) for each OID ``tree`` names,
    over the rows of ``source`` that satisfy ``where``."""
    return f"""
    SELECT '{from_kind}', {from_oid}, CASE
               WHEN m.m[1] IN ('funcid', 'opfuncid', 'aggfnoid', 'winfnoid') THEN 'f'
               WHEN m.m[1] = 'opno' THEN 'o'
               WHEN m.m[1] = 'relid' THEN 'r'
               ELSE 't' END,
           m.m[2]::oid, {how}
    FROM {source}
    CROSS JOIN LATERAL pg_catalog.regexp_matches(
        ({tree})::text, ':({_TREE_FIELDS}) (\\d+)', 'g') AS m(m)
    WHERE m.m[2] <> '0' AND {where}
    UNION ALL
    SELECT '{from_kind}', {from_oid}, 'o', x.x::oid, {how}
    FROM {source}
    CROSS JOIN LATERAL pg_catalog.regexp_matches(({tree})::text, ':opnos \\(o ([0-9 ]+)\\)', 'g')
        AS m(m)
    CROSS JOIN LATERAL pg_catalog.regexp_split_to_table(m.m[1], ' ') AS x(x)
    WHERE {where}"""


EDGES_SQL = f"""
WITH fn AS (
    SELECT p.* FROM pg_catalog.pg_proc p WHERE p.oid = ANY (%(f)s::oid[])
), op AS (
    SELECT o.* FROM pg_catalog.pg_operator o WHERE o.oid = ANY (%(o)s::oid[])
), ty AS (
    SELECT t.* FROM pg_catalog.pg_type t WHERE t.oid = ANY (%(t)s::oid[])
), rel(kind, oid) AS (
    SELECT 'r', x FROM pg_catalog.unnest(%(r)s::oid[]) AS x
    UNION ALL SELECT 'c', x FROM pg_catalog.unnest(%(c)s::oid[]) AS x
), edge(from_kind, from_oid, to_kind, to_oid, how) AS (
    -- a function: its argument and result types, its planner support function, what its
    -- default arguments (and a SQL-standard body) use, an aggregate's support functions
    SELECT 'f', fn.oid, 't', x.oid, 'an argument or result type of'
    FROM fn CROSS JOIN LATERAL pg_catalog.unnest(
        fn.proargtypes::oid[] || COALESCE(fn.proallargtypes, '{{}}'::oid[]) || fn.prorettype::oid
    ) AS x(oid)
    UNION ALL
    SELECT 'f', fn.oid, 'f', fn.prosupport::oid, 'the planner support function of'
    FROM fn WHERE fn.prosupport <> 0
    UNION ALL
    SELECT 'f', d.objid, {_CLASS_KIND}, d.refobjid, 'used by a default argument (or the body) of'
    FROM pg_catalog.pg_depend d
    WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass
      AND d.objid = ANY (%(f)s::oid[]) AND d.deptype = 'n' AND {_CODE_CLASSES}
    UNION ALL
    {_tree("fn", "fn.proargdefaults", "f", "fn.oid", "'used by a default argument of'", "true")}
    {{sqlbody}}
    UNION ALL
    SELECT 'f', a.aggfnoid::oid, 'f', x.fn::oid, x.how
    FROM pg_catalog.pg_aggregate a
    CROSS JOIN LATERAL (VALUES
        (a.aggtransfn, 'the transition function of'), (a.aggfinalfn, 'the final function of'),
        (a.aggcombinefn, 'the combine function of'), (a.aggserialfn, 'the serial function of'),
        (a.aggdeserialfn, 'the deserial function of'),
        (a.aggmtransfn, 'the moving transition function of'),
        (a.aggminvtransfn, 'the inverse transition function of'),
        (a.aggmfinalfn, 'the moving final function of')
    ) AS x(fn, how)
    WHERE a.aggfnoid = ANY (%(f)s::oid[]) AND x.fn <> 0
    UNION ALL
    SELECT 'f', a.aggfnoid::oid, 'o', a.aggsortop::oid, 'the sort operator of'
    FROM pg_catalog.pg_aggregate a WHERE a.aggfnoid = ANY (%(f)s::oid[]) AND a.aggsortop <> 0
    UNION ALL
    SELECT 'f', a.aggfnoid::oid, 't', x.ty, 'the state type of'
    FROM pg_catalog.pg_aggregate a
    CROSS JOIN LATERAL (VALUES (a.aggtranstype::oid), (a.aggmtranstype::oid)) AS x(ty)
    WHERE a.aggfnoid = ANY (%(f)s::oid[]) AND x.ty <> 0
    -- an operator: its function and estimators, its negator and commutator, its types
    UNION ALL
    SELECT 'o', op.oid, 'f', x.fn::oid, x.how
    FROM op CROSS JOIN LATERAL (VALUES
        (op.oprcode, 'the function of'), (op.oprrest, 'the selectivity estimator of'),
        (op.oprjoin, 'the join selectivity estimator of')
    ) AS x(fn, how)
    WHERE x.fn <> 0
    UNION ALL
    SELECT 'o', op.oid, 'o', x.other, x.how
    FROM op CROSS JOIN LATERAL (VALUES
        (op.oprnegate::oid, 'the negator (what NOT turns it into) of'),
        (op.oprcom::oid, 'the commutator of')
    ) AS x(other, how)
    WHERE x.other <> 0
    UNION ALL
    SELECT 'o', op.oid, 't', x.ty, 'an operand or result type of'
    FROM op CROSS JOIN LATERAL (VALUES
        (op.oprleft::oid), (op.oprright::oid), (op.oprresult::oid)
    ) AS x(ty)
    WHERE x.ty <> 0
    -- a type: its input, output, binary and modifier functions, what it is made of (a
    -- domain's base, an array's element, a composite's attributes, a range's subtype),
    -- a domain's CHECK constraints, its default operator classes' operators and functions
    UNION ALL
    SELECT 't', ty.oid, 'f', x.fn::oid, x.how
    FROM ty CROSS JOIN LATERAL (VALUES
        (ty.typinput::oid, 'the input function of'), (ty.typoutput::oid, 'the output function of'),
        (ty.typreceive::oid, 'the binary input function of'),
        (ty.typsend::oid, 'the binary output function of'),
        (ty.typmodin::oid, 'the modifier input function of'),
        (ty.typmodout::oid, 'the modifier output function of')
        {{subscript}}
    ) AS x(fn, how)
    WHERE x.fn <> 0
    UNION ALL
    SELECT 't', ty.oid, 't', x.other, x.how
    FROM ty CROSS JOIN LATERAL (VALUES
        (ty.typbasetype::oid, 'the base type of'),
        (ty.typelem::oid, 'the element type of')
    ) AS x(other, how)
    WHERE x.other <> 0
    UNION ALL
    SELECT 't', ty.oid, 'c', ty.typrelid::oid, 'the attributes of'
    FROM ty WHERE ty.typrelid <> 0
    UNION ALL
    SELECT 't', rg.rngtypid::oid, x.kind, x.other, x.how
    FROM pg_catalog.pg_range rg
    CROSS JOIN LATERAL (VALUES
        ('t', rg.rngsubtype::oid, 'the subtype of'),
        ('f', rg.rngcanonical::oid, 'the canonical function of'),
        ('f', rg.rngsubdiff::oid, 'the subtype difference function of')
    ) AS x(kind, other, how)
    WHERE rg.rngtypid = ANY (%(t)s::oid[]) AND x.other <> 0
    {{multirange}}
    UNION ALL
    SELECT 't', con.contypid::oid, {_CLASS_KIND}, d.refobjid,
           'used by the CHECK constraint ' || pg_catalog.quote_ident(con.conname) || ' of'
    FROM pg_catalog.pg_constraint con
    JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass
        AND d.objid = con.oid AND {_CODE_CLASSES}
    WHERE con.contypid = ANY (%(t)s::oid[])
    UNION ALL
    {
    _tree(
        "pg_catalog.pg_constraint con",
        "con.conbin",
        "t",
        "con.contypid::oid",
        "'used by the CHECK constraint ' || pg_catalog.quote_ident(con.conname) || ' of'",
        "con.contypid = ANY (%(t)s::oid[])",
    )
}
    UNION ALL
    SELECT 't', oc.opcintype::oid, 'f', ap.amproc::oid,
           'a support function of the default operator class ' || oc.opcname || ' of'
    FROM pg_catalog.pg_opclass oc
    JOIN pg_catalog.pg_amproc ap ON ap.amprocfamily = oc.opcfamily
        AND ap.amproclefttype = oc.opcintype
    WHERE oc.opcdefault AND oc.opcintype = ANY (%(t)s::oid[])
      AND oc.opcmethod IN (SELECT am.oid FROM pg_catalog.pg_am am
                           WHERE am.amname IN ('btree', 'hash'))
    UNION ALL
    SELECT 't', oc.opcintype::oid, 'o', ao.amopopr::oid,
           'an operator of the default operator class ' || oc.opcname || ' of'
    FROM pg_catalog.pg_opclass oc
    JOIN pg_catalog.pg_amop ao ON ao.amopfamily = oc.opcfamily
        AND ao.amoplefttype = oc.opcintype
    WHERE oc.opcdefault AND oc.opcintype = ANY (%(t)s::oid[])
      AND oc.opcmethod IN (SELECT am.oid FROM pg_catalog.pg_am am
                           WHERE am.amname IN ('btree', 'hash'))
    -- casts between types the filter reaches: which one runs depends on the values
    UNION ALL
    SELECT 't', c.casttarget::oid, 'f', c.castfunc::oid,
           'the cast from ' || c.castsource::pg_catalog.regtype::text || ' to'
    FROM pg_catalog.pg_cast c
    WHERE c.castsource = ANY (%(all_t)s::oid[]) AND c.casttarget = ANY (%(all_t)s::oid[])
      AND c.castfunc <> 0
      AND (c.castsource = ANY (%(new_t)s::oid[]) OR c.casttarget = ANY (%(new_t)s::oid[])
           OR c.castfunc >= 16384 OR c.oid >= 16384)
    -- a relation: its columns' types; read, also a view's definition and the row-level
    -- security policies that filter it
    UNION ALL
    SELECT rel.kind, a.attrelid::oid, 't', a.atttypid::oid,
           'the type of column ' || pg_catalog.quote_ident(a.attname) || ' of'
    FROM rel JOIN pg_catalog.pg_attribute a ON a.attrelid = rel.oid
    WHERE a.attnum > 0 AND NOT a.attisdropped
    UNION ALL
    SELECT 'r', rw.ev_class::oid, {_CLASS_KIND}, d.refobjid, 'used by the view definition of'
    FROM pg_catalog.pg_rewrite rw
    JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass
        AND d.objid = rw.oid AND {_CODE_CLASSES}
    WHERE rw.ev_class = ANY (%(r)s::oid[]) AND d.refobjid <> rw.ev_class
    UNION ALL
    SELECT 'r', pol.polrelid::oid, {_CLASS_KIND}, d.refobjid,
           'used by the row-level security policy ' || pg_catalog.quote_ident(pol.polname) || ' of'
    FROM pg_catalog.pg_policy pol
    JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_policy'::pg_catalog.regclass
        AND d.objid = pol.oid AND {_CODE_CLASSES}
    WHERE pol.polrelid = ANY (%(r)s::oid[]) AND d.refobjid <> pol.polrelid
    UNION ALL
    {
    _tree(
        "pg_catalog.pg_rewrite rw",
        "rw.ev_action",
        "r",
        "rw.ev_class::oid",
        "'used by the view definition of'",
        "rw.ev_class = ANY (%(r)s::oid[])",
    )
}
    UNION ALL
    {
    _tree(
        "pg_catalog.pg_policy pol",
        "pg_catalog.concat(pol.polqual, pol.polwithcheck)",
        "r",
        "pol.polrelid::oid",
        "'used by the row-level security policy ' || pg_catalog.quote_ident(pol.polname) || ' of'",
        "pol.polrelid = ANY (%(r)s::oid[])",
    )
}
    UNION ALL
    {
    _tree(
        "pg_catalog.pg_attrdef ad JOIN pg_catalog.pg_attribute ga"
        " ON ga.attrelid = ad.adrelid AND ga.attnum = ad.adnum",
        "ad.adbin",
        "r",
        "ad.adrelid::oid",
        "'used by the generated column ' || pg_catalog.quote_ident(ga.attname) || ' of'",
        "ad.adrelid = ANY (%(r)s::oid[]) AND ga.attgenerated = 'v'",
    )
}
)
SELECT DISTINCT ON (e.to_kind, e.to_oid) e.from_kind, e.from_oid, e.to_kind, e.to_oid, e.how
FROM edge e
ORDER BY e.to_kind, e.to_oid, e.from_kind, e.from_oid, e.how
"""
_SUBSCRIPT = ", (ty.typsubscript::oid, 'the subscript handler of')"
_SQLBODY = "UNION ALL" + _tree(
    "fn", "fn.prosqlbody", "f", "fn.oid", "'used by the body of'", "true"
)
_MULTIRANGE = """UNION ALL
    SELECT 't', rg.rngmultitypid::oid, 't', rg.rngtypid::oid, 'the range type of'
    FROM pg_catalog.pg_range rg WHERE rg.rngmultitypid = ANY (%(t)s::oid[])"""

DESCRIBE_SQL = """
SELECT x.kind, x.oid,
       CASE x.kind
           WHEN 'f' THEN x.oid::pg_catalog.regprocedure::text
           WHEN 'o' THEN x.oid::pg_catalog.regoperator::text
           WHEN 't' THEN x.oid::pg_catalog.regtype::text
           ELSE x.oid::pg_catalog.regclass::text
       END,
       p.proname, p.provolatile, p.prokind
FROM ROWS FROM (pg_catalog.unnest(%(kinds)s::text[]), pg_catalog.unnest(%(oids)s::oid[]))
    AS x(kind, oid)
LEFT JOIN pg_catalog.pg_proc p ON x.kind = 'f' AND p.oid = x.oid
"""


_SEEN_AS = {  # (how the filter uses a named object itself, the same as the end of a path)
    "f": ("calls {}", "which the filter calls"),
    "o": ("applies {}", "which the filter applies"),
    "t": ("names {}", "which the filter names"),
    "r": ("reads {}", "which the filter reads"),
}


@dataclass(frozen=True)
class Step:
    """How an object was reached: from which object (None: the filter names it, or it is
    the type of a column the filter reads), and how."""

    parent: tuple[str, int] | None
    how: str = ""  # "the negator (what NOT turns it into) of"
    column: str | None = None  # a seed that is the type of this column


@dataclass(frozen=True)
class Described:
    label: str
    name: str | None  # a function's name
    volatility: str | None  # a function's: i, s or v


Key = tuple[str, int]


def reach(session: Any, parsed: PgFilter, schema: str, table: str) -> dict[Key, Step]:
    """Every catalog object the filter may run or use, with how each was first reached
    (breadth first: the shortest way from the filter)."""
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
    found: dict[Key, Step] = {}
    frontier: list[Key] = []
    for kind, oid, column in seeds:
        if (kind, oid) not in found:
            found[(kind, oid)] = Step(None, column=column)
            frontier.append((kind, oid))
    edges_sql = _edges_sql(session)
    while frontier:
        # PostgreSQL's own objects reach only PostgreSQL's own code, none of it VOLATILE or
        # denied (a test holds every server to that): only the database's are followed.
        # Casts are looked for between every type reached, whoever made them.
        by_kind: dict[str, list[int]] = {kind: [] for kind in KIND_WORDS}
        for kind, oid in frontier:
            if oid >= FIRST_NORMAL_OBJECT_ID:
                by_kind[kind].append(oid)
        new_types = [oid for kind, oid in frontier if kind == "t"]
        every_type = [oid for kind, oid in found if kind == "t"]
        frontier = []
        for from_kind, from_oid, to_kind, to_oid, how in session.query(
            edges_sql, {**by_kind, "all_t": every_type, "new_t": new_types}
        ):
            if (to_kind, to_oid) not in found:
                found[(to_kind, to_oid)] = Step((from_kind, from_oid), how)
                frontier.append((to_kind, to_oid))
    return found


def _edges_sql(session: Any) -> str:
    version = getattr(session, "server_version", 0) or 0
    modern = not version or version >= 140000  # typsubscript and multiranges: 14 on
    return (
        EDGES_SQL.replace("{subscript}", _SUBSCRIPT if modern else "")
        .replace("{multirange}", _MULTIRANGE if modern else "")
        .replace("{sqlbody}", _SQLBODY if modern else "")
    )


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
    found = reach(session, parsed, schema, table)
    keys = list(found)
    described = {
        (kind, oid): Described(label, name, volatility)
        for kind, oid, label, name, volatility, _ in session.query(
            DESCRIBE_SQL, {"kinds": [k for k, _ in keys], "oids": [o for _, o in keys]}
        )
    }
    for key in _nearest_first(found):
        reason = _problem(key, described[key], found[key], trusted)
        if reason is not None:
            raise InputError(f"refused: the filter {_way(key, found, described)}, {reason}")


def _problem(key: Key, what: Described, step: Step, trusted: bool) -> str | None:
    kind, oid = key
    own = oid < FIRST_NORMAL_OBJECT_ID
    if kind == "f":
        reason = denied(what.name or "")
        if reason is not None:
            return f"which {reason}"
        if not own and not trusted:
            return (
                "which is not PostgreSQL's own: a filter runs only PostgreSQL's built-in "
                f"code unless you trust this database's code ({TRUST_FLAG})"
            )
        if what.volatility == "v":
            return (
                "which is VOLATILE (it may change something); a filter may only run "
                "IMMUTABLE or STABLE functions"
            )
        return None
    if step.parent is None and step.column is None and not own and not trusted:
        # Named by the filter (a cast, an operator, a relation); a column's own type is
        # the table's and is judged by the code it runs.
        return (
            "which is not PostgreSQL's own: a filter names only PostgreSQL's built-in "
            f"objects and the table's columns unless you trust this database's code "
            f"({TRUST_FLAG})"
        )
    return None


def _chain(key: Key, found: dict[Key, Step]) -> list[Key]:
    """``key``, its parent, ..., the object the filter names."""
    chain = [key]
    parent = found[key].parent
    while parent is not None and len(chain) <= len(found):
        chain.append(parent)
        parent = found[parent].parent
    return chain


def _nearest_first(found: dict[Key, Step]) -> list[Key]:
    """The reached objects nearest the filter first (a shorter way reads better), then by
    kind and OID, for a stable choice."""
    return sorted(found, key=lambda key: (len(_chain(key, found)), key))


def _way(key: Key, found: dict[Key, Step], described: dict[Key, Described]) -> str:
    """How the filter reaches ``key``, in words: ``calls f(integer)``, or ``may run
    f(integer) (used by the CHECK constraint c of type d1, the base type of type d2,
    which the filter names)``."""

    def label(item: Key) -> str:
        text = described[item].label
        return text if item[0] == "f" else f"{KIND_WORDS[item[0]]} {text}"

    chain = _chain(key, found)
    seed = chain[-1]
    column = found[seed].column
    if len(chain) == 1:
        if column is not None:
            return f"reads column {column}, of {label(seed)}"
        return _SEEN_AS[seed[0]][0].format(label(seed))
    hops = [f"{found[child].how} {label(parent)}" for child, parent in itertools.pairwise(chain)]
    tail = (
        f"the type of column {column}, which the filter reads"
        if column is not None
        else _SEEN_AS[seed[0]][1]
    )
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
