"""What an order makes the server run, judged as a filter's reach is (DESIGN rule 14).

A keyset page sends each sort term's boundary as text cast to the term's type: the cast
runs that type's input function and, inside it, those of a composite's attributes and an
array's elements, and the CHECK constraints of every domain among them, at any depth (the
term's own domain is cast to its base: its CHECK is not run). The ORDER BY and every
comparison run the operator class the term is ordered by: its operators and support
functions (a composite's and an array's compare their parts by those parts' own default
operator classes). So for each term, its cast type and its operator class's members are the
seeds of the same catalog walk a filter gets (``catalog_edges.follow``), and an order that
would run code not shipped with PostgreSQL (OID 16384 and above, unless the session trusts
database code), VOLATILE or denied code is refused when it is listed, in one line naming
the way to it. A table whose terms are all PostgreSQL's own types and operator classes
costs no statement at all: nothing PostgreSQL ships is followed.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from dynotui.postgres.catalog_edges import Key, describe, follow, labelled, nearest_first, path
from dynotui.postgres.code_rules import FIRST_NORMAL_OBJECT_ID, function_problem
from dynotui.postgres.table_model import Ordering

# The default b-tree operator class of the type with OID ``{base}`` (a domain's base), as
# PostgreSQL's GetDefaultOpClass picks it: an exact match on the input type, else the one
# binary-compatible default of the category's preferred type, else the only one (an array,
# an enum, a range, a multirange or a composite matches its polymorphic class; a cast
# counts when it is binary and implicit). None where there is none, or no single one.
DEFAULT_OPCLASS = """LEFT JOIN LATERAL (
    SELECT CASE
        WHEN pg_catalog.count(*) FILTER (WHERE m.exact) = 1
            THEN pg_catalog.min(m.oid) FILTER (WHERE m.exact)
        WHEN pg_catalog.count(*) FILTER (WHERE m.exact) > 0 THEN NULL
        WHEN pg_catalog.count(*) FILTER (WHERE m.preferred) = 1
            THEN pg_catalog.min(m.oid) FILTER (WHERE m.preferred)
        WHEN pg_catalog.count(*) FILTER (WHERE m.preferred) = 0 AND pg_catalog.count(*) = 1
            THEN pg_catalog.min(m.oid)
    END AS opclass
    FROM (
        SELECT oc.oid, oc.opcintype = bt.oid AS exact,
               oc.opcintype <> bt.oid AND it.typispreferred
                   AND it.typcategory = bt.typcategory AS preferred
        FROM pg_catalog.pg_type bt
        JOIN pg_catalog.pg_opclass oc ON oc.opcdefault
        JOIN pg_catalog.pg_am am ON am.oid = oc.opcmethod AND am.amname = 'btree'
        JOIN pg_catalog.pg_type it ON it.oid = oc.opcintype
        WHERE bt.oid = {base} AND (
            oc.opcintype = bt.oid
            OR (oc.opcintype = 'pg_catalog.anyarray'::pg_catalog.regtype
                AND bt.typelem <> 0 AND bt.typlen = -1)
            OR (oc.opcintype = 'pg_catalog.anyenum'::pg_catalog.regtype AND bt.typtype = 'e')
            OR (oc.opcintype = 'pg_catalog.anyrange'::pg_catalog.regtype AND bt.typtype = 'r')
            OR (oc.opcintype = 'pg_catalog.anymultirange'::pg_catalog.regtype
                AND bt.typtype = 'm')
            OR (oc.opcintype = 'pg_catalog.record'::pg_catalog.regtype AND bt.typtype = 'c')
            OR EXISTS (
                SELECT 1 FROM pg_catalog.pg_cast k
                WHERE k.castsource = bt.oid AND k.casttarget = oc.opcintype
                  AND k.castmethod = 'b' AND k.castcontext = 'i'))
    ) AS m
) AS {alias} ON true"""

# The b-tree operators of the operator class with OID ``{opclass}`` for its own input type
# (strategies 1 less, 3 equal, 5 greater), schema-qualified: what every comparison of a
# boundary uses, never a bare "<" (which the search path resolves, and which a term of a
# type that casts to text would resolve to text's); and its input type, which the term and
# its boundary are cast to where the term's type is another (a varchar in text_ops, a
# domain), unless it is polymorphic (array_ops, record_ops: the term's own type then).
_STRATEGY = """(SELECT pg_catalog.format('OPERATOR(%%I.%%s)', opn.nspname, op.oprname)
            FROM pg_catalog.pg_amop ao
            JOIN pg_catalog.pg_operator op ON op.oid = ao.amopopr
            JOIN pg_catalog.pg_namespace opn ON opn.oid = op.oprnamespace
            WHERE ao.amopfamily = ord_oc.opcfamily AND ao.amoplefttype = ord_oc.opcintype
              AND ao.amoprighttype = ord_oc.opcintype AND ao.amopstrategy = {strategy}
              AND ao.amoppurpose = 's')"""
ORDERING = f"""LEFT JOIN LATERAL (
    SELECT {_STRATEGY.format(strategy=1)} AS less,
           {_STRATEGY.format(strategy=3)} AS equal,
           {_STRATEGY.format(strategy=5)} AS greater,
           ord_oc.opcintype::oid AS input_oid,
           pg_catalog.format_type(ord_oc.opcintype, NULL) AS input_type,
           it.typtype = 'p' AS polymorphic
    FROM pg_catalog.pg_opclass ord_oc JOIN pg_catalog.pg_type it ON it.oid = ord_oc.opcintype
    WHERE ord_oc.oid = {{opclass}}
) AS {{alias}} ON true"""
ORDERING_COLUMNS = (
    "{alias}.less, {alias}.equal, {alias}.greater, {alias}.input_oid, {alias}.input_type,"
    " COALESCE({alias}.polymorphic, false)"
)

# What an operator class runs: the operators and support functions of its family for its
# own input type, and that type.
MEMBERS_SQL = """
SELECT oc.oid, 'o', ao.amopopr::oid
FROM pg_catalog.pg_opclass oc
JOIN pg_catalog.pg_amop ao ON ao.amopfamily = oc.opcfamily
    AND ao.amoplefttype = oc.opcintype AND ao.amoprighttype = oc.opcintype
WHERE oc.oid = ANY (%(opclasses)s::oid[])
UNION ALL
SELECT oc.oid, 'f', ap.amproc::oid
FROM pg_catalog.pg_opclass oc
JOIN pg_catalog.pg_amproc ap ON ap.amprocfamily = oc.opcfamily
    AND ap.amproclefttype = oc.opcintype AND ap.amprocrighttype = oc.opcintype
WHERE oc.oid = ANY (%(opclasses)s::oid[])
UNION ALL
SELECT oc.oid, 't', oc.opcintype::oid
FROM pg_catalog.pg_opclass oc WHERE oc.oid = ANY (%(opclasses)s::oid[])
"""

OPCLASS_NAMES_SQL = """
SELECT oc.oid, pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(oc.opcname)
FROM pg_catalog.pg_opclass oc JOIN pg_catalog.pg_namespace n ON n.oid = oc.opcnamespace
WHERE oc.oid = ANY (%(opclasses)s::oid[])
"""

SUBJECT = "an order"


def ordering(
    less: str | None,
    equal: str | None,
    greater: str | None,
    input_oid: int | None,
    input_type: str | None,
    polymorphic: bool,
    *,
    term_type: int,
) -> Ordering | None:
    """The term's ordering from a row of ``ORDERING_COLUMNS`` (None where the operator
    class lacks an operator: no comparison of it is exact); ``term_type``: the OID of the
    term's type (a domain's base), which is cast to the input type where it differs."""
    if not (less and equal and greater):
        return None
    cast = input_type if input_oid != term_type and not polymorphic else None
    return Ordering(less, equal, greater, cast)


@dataclass(frozen=True)
class TermCode:
    """What one sort term makes the server run: the type its boundary is cast to and the
    operator class it is ordered by (0: none known)."""

    label: str  # the term as people read it: ``cc_c``, ``lower(name)``
    cast_type: int
    opclass: int


def refusals(session: Any, terms: Mapping[Hashable, TermCode], *, trusted: bool) -> dict[Any, str]:
    """For each term that may not be paged, why, in words that follow "refused: "; the
    others are left out. No statement is sent where every type and operator class is
    PostgreSQL's own (whose code is PostgreSQL's own: a test holds every server to it)."""
    user = sorted({t.opclass for t in terms.values() if t.opclass >= FIRST_NORMAL_OBJECT_ID})
    if not user and all(t.cast_type < FIRST_NORMAL_OBJECT_ID for t in terms.values()):
        return {}
    members: dict[int, list[Key]] = {}
    names: dict[int, str] = {}
    if user:
        for opclass, kind, oid in session.query(MEMBERS_SQL, {"opclasses": user}):
            members.setdefault(opclass, []).append((kind, oid))
        names = dict(session.query(OPCLASS_NAMES_SQL, {"opclasses": user}))
    verdicts: dict[tuple[int, int], str] = {}
    found: dict[Any, str] = {}
    for key, term in terms.items():
        seeds: list[Key] = [("t", term.cast_type)] if term.cast_type else []
        seeds += [m for m in members.get(term.opclass, []) if m not in seeds]
        if all(oid < FIRST_NORMAL_OBJECT_ID for _, oid in seeds):
            continue
        pair = (term.cast_type, term.opclass)
        if pair not in verdicts:
            verdicts[pair] = _verdict(
                session, seeds, term.cast_type, names.get(term.opclass, ""), trusted=trusted
            )
        if verdicts[pair]:
            found[key] = verdicts[pair].replace("{term}", term.label)
    return found


def _verdict(session: Any, seeds: list[Key], cast_type: int, opclass: str, *, trusted: bool) -> str:
    """The first function the term's boundary or order may not run, nearest first, and
    the way to it ("" if none): ``the boundary of {term} may run f(integer) (used by the
    CHECK constraint c of type d, ..., which the boundary of {term} is cast to), which is
    VOLATILE ...``; the caller fills in {term}."""
    reached = follow(session, [(kind, oid, None) for kind, oid in seeds])
    described = describe(session, reached)
    cast = ("t", cast_type)
    for key in nearest_first(reached):
        if key[0] != "f":
            continue  # a type or operator is judged by the code it runs
        own = key[1] < FIRST_NORMAL_OBJECT_ID
        reason = function_problem(described[key], own=own, trusted=trusted, subject=SUBJECT)
        if reason is None:
            continue
        chain = path(key, reached)
        hops = [
            f"{reached[child].how} {labelled(parent, described)}"
            for child, parent in itertools.pairwise(chain)
        ]
        if chain[-1] == cast:
            hops.append("which the boundary of {term} is cast to")
            where, verb = "the boundary of {term}", "may run"
        else:
            hops.append(f"a member of operator class {opclass}, which orders {{term}}")
            where, verb = "the order of {term}", "runs" if len(chain) == 1 else "may run"
        return f"{where} {verb} {labelled(key, described)} ({', '.join(hops)}), {reason}"
    return ""
