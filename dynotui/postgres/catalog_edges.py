"""The catalog's edges between objects that can run code, and the walk along them.

From a set of seeds (functions, operators, types, relations), every object reachable along
an edge that can run code is found breadth first, each with the way it was first reached:
a function's argument and result types, planner support function, default arguments and
SQL-standard body, an aggregate's support functions; an operator's function, estimators,
negator and commutator; a type's I/O functions, what it is made of (a domain's base and
CHECKs, an array's element, a composite's attributes, a range's subtype), its default
b-tree and hash operator classes; casts between types reached; a relation's column types,
view definition, row-level security policies and generated columns. Nothing is executed
to find them: only catalogs are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dynotui.postgres.code_rules import FIRST_NORMAL_OBJECT_ID

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


def follow(session: Any, seeds: list[tuple[str, int, str | None]]) -> dict[Key, Step]:
    """Every object reachable from ``seeds`` (kind, OID, the column it is the type of, or
    None), with how each was first reached (breadth first: the shortest way)."""
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


def describe(session: Any, found: dict[Key, Step] | list[Key]) -> dict[Key, Described]:
    """Each object's label (``f(integer)``, ``mallory.d3``), a function's name and
    volatility."""
    keys = list(found)
    return {
        (kind, oid): Described(label, name, volatility)
        for kind, oid, label, name, volatility, _ in session.query(
            DESCRIBE_SQL, {"kinds": [k for k, _ in keys], "oids": [o for _, o in keys]}
        )
    }


def path(key: Key, found: dict[Key, Step]) -> list[Key]:
    """``key``, its parent, ..., the seed it was reached from."""
    chain = [key]
    parent = found[key].parent
    while parent is not None and len(chain) <= len(found):
        chain.append(parent)
        parent = found[parent].parent
    return chain


def nearest_first(found: dict[Key, Step]) -> list[Key]:
    """The reached objects nearest the seeds first (a shorter way reads better), then by
    kind and OID, for a stable choice."""
    return sorted(found, key=lambda key: (len(path(key, found)), key))


def labelled(item: Key, described: dict[Key, Described]) -> str:
    """``f(integer)`` for a function, ``type mallory.d3`` for anything else."""
    text = described[item].label
    return text if item[0] == "f" else f"{KIND_WORDS[item[0]]} {text}"
