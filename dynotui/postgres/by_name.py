"""Built-ins that take an object by name, and what that name may be (DESIGN rule 14).

Some built-ins are handed an object as a name the parse tree only sees as a string:
``pg_input_is_valid('1', 'public.dom')`` runs that type's input function and its domain's
CHECKs; ``to_tsvector('my_config', body)`` runs a text search configuration's parser and
dictionaries; ``'t(5)'::regtype`` and ``to_regtype('t(5)')`` run ``t``'s modifier input
function; ``format_type(oid, typmod)`` its modifier output function. The catalog walk of a
filter never meets those objects, so each such argument must be a literal naming one of
PostgreSQL's own objects (OID below 16384), looked up on this server, at its version, with
the search path the filter runs with; anything else is refused by name. Trusting the
database's code lets a literal name the database's objects, which the walk then follows
(a VOLATILE CHECK is refused all the same); an expression is never allowed (its value is
not known before it runs).

Which arguments take names comes from the server's catalog, not from a list kept here:

- an argument of a reg* type (``regtype``, ``regclass``, ``regproc``, ``regconfig``, ...:
  the types of ``pg_catalog`` named ``reg...`` whose input function is ``<name>in``);
- an ``oid`` argument: a number naming an object of any kind (below 16384: PostgreSQL's);
- a text argument of a function returning a reg* type (``to_regtype(text)``), or of one
  whose overload of the same arity takes a reg* type or ``oid`` in that place, the other
  arguments alike (``has_table_privilege(text, text)`` beside ``(oid, text)``);
- the text arguments PostgreSQL's documentation gives as type names and the catalog does
  not (``DOCUMENTED``: ``pg_input_is_valid``, ``pg_input_error_info``, ``to_regtypemod``),
  each checked to exist on the server before it is relied on.

A function that uses the session's default text search configuration (one whose name has
an overload taking a ``regconfig``, ``tsvector`` or ``tsquery``: ``to_tsvector(text)``,
``text @@ text``) is held to the same rule for that configuration.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dynotui.core.errors import InputError
from dynotui.postgres.catalog_edges import Key
from dynotui.postgres.code_rules import FIRST_NORMAL_OBJECT_ID, TRUST_FLAG, denied
from dynotui.postgres.filter import Literal, Name, PgFilter

# (function in pg_catalog, 1-based argument, the reg* type whose kind of name it takes):
# text arguments that PostgreSQL's documentation (Functions and Operators, "System
# Information Functions") gives as a type's name, which no catalog column says.
DOCUMENTED = (
    ("pg_input_is_valid", 2, "regtype"),
    ("pg_input_error_info", 2, "regtype"),
    ("to_regtypemod", 1, "regtype"),
)
OID = "oid"
UNKNOWN_KIND = "object"  # a text name beside an ``oid`` overload: of no kind dynotui knows
TEXT_TYPES = ("text", "name", "cstring", "varchar", "bpchar")
# The reg* kinds whose input runs code of what a non-literal names (a type's modifier input
# function, also for a function's or an operator's argument types): a cast of anything
# but a literal to one of them is refused. The others' input is a lookup.
RUNS_CODE = ("regtype", "regprocedure", "regoperator")
KIND_WORDS = {
    "regtype": "a type",
    "regclass": "a relation",
    "regproc": "a function",
    "regprocedure": "a function",
    "regoper": "an operator",
    "regoperator": "an operator",
    "regcollation": "a collation",
    "regconfig": "a text search configuration",
    "regdictionary": "a text search dictionary",
    "regnamespace": "a schema",
    "regrole": "a role",
    OID: "an object",
    UNKNOWN_KIND: "an object",
}
LOOKUP = {  # how a name of each kind is looked up (by the server, as the filter's would be)
    "regtype": "pg_catalog.to_regtype(x.name)::oid",
    "regclass": "pg_catalog.to_regclass(x.name)::oid",
    "regproc": "pg_catalog.to_regproc(x.name)::oid",
    "regprocedure": "pg_catalog.to_regprocedure(x.name)::oid",
    "regoper": "pg_catalog.to_regoper(x.name)::oid",
    "regoperator": "pg_catalog.to_regoperator(x.name)::oid",
    "regcollation": "pg_catalog.to_regcollation(x.name)::oid",
    "regnamespace": "pg_catalog.to_regnamespace(x.name)::oid",
    "regrole": "pg_catalog.to_regrole(x.name)::oid",
    "regconfig": """(SELECT c.oid FROM pg_catalog.pg_ts_config c
        JOIN pg_catalog.pg_namespace n ON n.oid = c.cfgnamespace
        WHERE c.cfgname = x.parts[pg_catalog.array_length(x.parts, 1)]
          AND CASE WHEN pg_catalog.array_length(x.parts, 1) = 2 THEN n.nspname = x.parts[1]
                   ELSE n.nspname = ANY (pg_catalog.current_schemas(true)) END
        ORDER BY pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)
        LIMIT 1)""",
    "regdictionary": """(SELECT d.oid FROM pg_catalog.pg_ts_dict d
        JOIN pg_catalog.pg_namespace n ON n.oid = d.dictnamespace
        WHERE d.dictname = x.parts[pg_catalog.array_length(x.parts, 1)]
          AND CASE WHEN pg_catalog.array_length(x.parts, 1) = 2 THEN n.nspname = x.parts[1]
                   ELSE n.nspname = ANY (pg_catalog.current_schemas(true)) END
        ORDER BY pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)
        LIMIT 1)""",
}

REG_TYPES_SQL = """
SELECT t.oid, t.typname::text, NULL
FROM pg_catalog.pg_type t JOIN pg_catalog.pg_proc i ON i.oid = t.typinput
WHERE t.typnamespace = 'pg_catalog'::pg_catalog.regnamespace AND t.typname LIKE 'reg%%'
  AND i.proname = t.typname || 'in'
UNION ALL SELECT t.oid, t.typname::text, NULL FROM pg_catalog.pg_type t
WHERE t.typnamespace = 'pg_catalog'::pg_catalog.regnamespace
  AND t.typname IN ('oid', 'text', 'name', 'cstring', 'varchar', 'bpchar', 'tsvector', 'tsquery')
UNION ALL SELECT pg_catalog.get_current_ts_config()::oid, '',
                 pg_catalog.get_current_ts_config()::text
"""

# Every function the filter's calls may resolve to (each name on its search path, or in
# the schema it gives), and each one's siblings: the overloads of the same name in the
# same schema, which say what a text argument is.
CANDIDATES_SQL = """
WITH wanted(schema_name, name) AS (
    SELECT * FROM ROWS FROM (
        pg_catalog.unnest(%(schemas)s::text[]), pg_catalog.unnest(%(names)s::text[]))
)
SELECT DISTINCT w.schema_name, w.name, p.oid, p.oid::pg_catalog.regprocedure::text,
       n.nspname::text, p.proname::text, p.pronargs, p.pronargdefaults, p.provariadic <> 0,
       COALESCE(p.proargnames, '{}'::text[]),
       ARRAY(SELECT x FROM pg_catalog.unnest(p.proargtypes::oid[]) AS x),
       p.prorettype::oid
FROM wanted w
JOIN pg_catalog.pg_proc p ON p.proname = w.name
JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = w.schema_name
   OR (w.schema_name IS NULL AND n.nspname = ANY (pg_catalog.current_schemas(true)))
"""

RESOLVE_SQL = """
SELECT x.i, CASE x.kind {cases} END
FROM ROWS FROM (
    pg_catalog.unnest(%(indexes)s::int[]), pg_catalog.unnest(%(kinds)s::text[]),
    pg_catalog.unnest(%(names)s::text[])) AS y(i, kind, name)
CROSS JOIN LATERAL (
    SELECT y.i, y.kind, y.name,
           CASE WHEN y.kind IN ('regconfig', 'regdictionary')
                THEN pg_catalog.string_to_array(y.name, '.') END AS parts
) AS x
"""

# The code a text search configuration, dictionary or parser runs: its parser's functions,
# its dictionaries' templates' functions (followed like a filter's reach when trusted).
TEXT_SEARCH_CODE_SQL = """
SELECT x.fn::oid FROM pg_catalog.pg_ts_config c
JOIN pg_catalog.pg_ts_parser p ON p.oid = c.cfgparser
CROSS JOIN LATERAL (VALUES (p.prsstart), (p.prstoken), (p.prsend), (p.prsheadline),
                           (p.prslextype)) AS x(fn)
WHERE c.oid = ANY (%(configs)s::oid[]) AND x.fn <> 0
UNION
SELECT x.fn::oid FROM pg_catalog.pg_ts_dict d
JOIN pg_catalog.pg_ts_template t ON t.oid = d.dicttemplate
CROSS JOIN LATERAL (VALUES (t.tmplinit), (t.tmpllexize)) AS x(fn)
WHERE (d.oid = ANY (%(dictionaries)s::oid[]) OR d.oid IN (
    SELECT m.mapdict FROM pg_catalog.pg_ts_config_map m
    WHERE m.mapcfg = ANY (%(configs)s::oid[]))) AND x.fn <> 0
"""

# Whether the filter uses the session's default text search configuration: a call with as
# many arguments as an overload whose sibling takes a regconfig first and the same after it
# (``to_tsvector(text)`` beside ``to_tsvector(regconfig, text)``), or an operator of a name
# that matches a tsvector to a tsquery and also takes text (``text @@ text``).
USES_TEXT_SEARCH_SQL = """
SELECT EXISTS (
    SELECT 1
    FROM ROWS FROM (pg_catalog.unnest(%(functions)s::text[]),
                    pg_catalog.unnest(%(arities)s::int[])) AS c(name, arity)
    JOIN pg_catalog.pg_proc p ON p.proname = c.name AND p.pronargs = c.arity
    JOIN pg_catalog.pg_proc q ON q.proname = p.proname AND q.pronamespace = p.pronamespace
        AND q.pronargs = p.pronargs + 1
        AND (q.proargtypes::oid[])[0] = 'pg_catalog.regconfig'::pg_catalog.regtype
        AND ARRAY(SELECT x FROM pg_catalog.unnest((q.proargtypes::oid[])[1:]) AS x)
            = ARRAY(SELECT x FROM pg_catalog.unnest(p.proargtypes::oid[]) AS x)
) OR EXISTS (
    SELECT 1 FROM pg_catalog.pg_operator o
    JOIN pg_catalog.pg_operator m ON m.oprname = o.oprname
        AND m.oprleft = 'pg_catalog.tsvector'::pg_catalog.regtype
        AND m.oprright = 'pg_catalog.tsquery'::pg_catalog.regtype
    WHERE o.oprname = ANY (%(operators)s::text[])
      AND 'pg_catalog.text'::pg_catalog.regtype IN (o.oprleft, o.oprright)
)
"""


@dataclass(frozen=True)
class _Candidate:
    wanted: Name
    oid: int
    label: str
    schema: str
    name: str
    nargs: int
    defaults: int
    variadic: bool
    argnames: tuple[str, ...]
    argtypes: tuple[int, ...]
    result: int

    def fits(self, given: int) -> bool:
        if self.variadic:
            return given >= self.nargs - 1
        return self.nargs - self.defaults <= given <= self.nargs


@dataclass(frozen=True)
class _Name:
    """A name to check: who takes it, of which kind, as which literal."""

    taker: str  # "gives pg_input_is_valid(text,text)" / "casts"
    kind: str
    literal: Literal


def check(session: Any, parsed: PgFilter, *, trusted: bool) -> list[Key]:
    """Refuse, in one line naming the function and the name, a filter that hands a
    built-in an object by name other than as a literal naming one of PostgreSQL's own
    (the database's too, when ``trusted``). Returns what the walk must follow besides the
    parse tree's names: the types, and the code of text search objects, that literals name
    (only when trusted: otherwise they are PostgreSQL's own)."""
    if not parsed.calls and not parsed.reg_casts and not parsed.operators:
        return []  # nothing takes a name, and nothing uses text search
    rows = session.query(REG_TYPES_SQL)
    kinds = {oid: name for oid, name, _ in rows if name}
    default_config = next((oid, label) for oid, name, label in rows if not name)
    configs: list[int] = []
    dictionaries: list[int] = []
    seeds: list[Key] = []
    to_look_up: list[tuple[_Name, str, str | None]] = []
    for entry in _names_given(session, parsed, kinds):
        literal, kind = entry.literal, entry.literal.reg or entry.kind
        if literal.text is None and literal.number is None:
            raise InputError(
                f"refused: the filter {entry.taker} {KIND_WORDS[entry.kind]} by name from an "
                "expression, not a literal: dynotui cannot tell which object's code that "
                "runs; a built-in takes an object by name only as a literal naming one of "
                "PostgreSQL's own"
            )
        number = literal.number
        if number is None and kind == OID:
            digits = literal.text or ""
            if not (digits.isascii() and digits.isdigit() and len(digits) < 12):
                continue  # no OID: an overload taking one is not what runs (or it fails)
            number = int(digits)
        if number is not None:
            if 0 <= number < FIRST_NORMAL_OBJECT_ID or (trusted and number >= 0):
                continue  # below 16384: PostgreSQL's own, whatever kind of object it is
            raise InputError(
                f"refused: the filter {entry.taker} {KIND_WORDS[kind]} by OID "
                f"({literal.shown}), {_not_own(kind)}"
            )
        if kind == UNKNOWN_KIND:
            if trusted:
                continue
            raise InputError(
                f"refused: the filter {entry.taker} an object by name ({literal.shown}) "
                "of a kind dynotui cannot look up: a built-in takes an object by name only "
                "as a literal naming one of PostgreSQL's own of a kind dynotui knows, unless "
                f"you trust this database's code ({TRUST_FLAG})"
            )
        to_look_up.append((entry, kind, _lookup_text(kind, literal.text or "")))
    looked_up = _look_up(session, [(kind, text) for _, kind, text in to_look_up])
    for (entry, kind, text), oid in zip(to_look_up, looked_up, strict=True):
        shown = entry.literal.shown
        if text is None or oid is None:
            raise InputError(
                f"refused: the filter {entry.taker} {KIND_WORDS[kind]} by name ({shown}), "
                f"which names no {KIND_WORDS[kind].split(' ', 1)[1]} on the filter's search "
                "path: a built-in takes an object by name only as a literal naming one of "
                "PostgreSQL's own"
            )
        if oid < FIRST_NORMAL_OBJECT_ID:
            continue
        if not trusted:
            raise InputError(
                f"refused: the filter {entry.taker} {KIND_WORDS[kind]} by name ({shown}), "
                f"{_not_own(kind)}"
            )
        if kind == "regtype":
            seeds.append(("t", oid))
        elif kind == "regconfig":
            configs.append(oid)
        elif kind == "regdictionary":
            dictionaries.append(oid)
    if default_config[0] >= FIRST_NORMAL_OBJECT_ID and _uses_text_search(session, parsed):
        if not trusted:
            raise InputError(
                "refused: the filter uses the session's default text search configuration "
                f"(default_text_search_config), {default_config[1]}, {_not_own('regconfig')}"
            )
        configs.append(default_config[0])
    if configs or dictionaries:
        for (fn,) in session.query(
            TEXT_SEARCH_CODE_SQL, {"configs": configs, "dictionaries": dictionaries}
        ):
            if fn >= FIRST_NORMAL_OBJECT_ID:  # built-in templates: PostgreSQL's own code
                seeds.append(("f", fn))
    return seeds


def _not_own(kind: str) -> str:
    what = KIND_WORDS[kind].split(" ", 1)[1]
    return (
        f"which is not one of PostgreSQL's own: a built-in is given a {what} by name or OID "
        f"only when the {what} is PostgreSQL's, unless you trust this database's code "
        f"({TRUST_FLAG})"
    )


def _names_given(session: Any, parsed: PgFilter, kinds: dict[int, str]) -> list[_Name]:
    """Every argument that takes a name, with the literal (or expression) given for it."""
    found: list[_Name] = []
    for reg, literal in parsed.reg_casts:
        if literal.reg is None and reg not in RUNS_CODE:
            continue  # a cast of a value (tableoid::regclass): a lookup, no code
        found.append(_Name(f"casts to {reg}", reg, literal))
    calls = list(parsed.calls)
    if not calls:
        return found
    rows = session.query(
        CANDIDATES_SQL,
        {"schemas": [c.name[0] for c in calls], "names": [c.name[1] for c in calls]},
    )
    candidates = [
        _Candidate((w_schema, w_name), oid, label, nsp, pn, n, d, v, tuple(an), tuple(at), rt)
        for w_schema, w_name, oid, label, nsp, pn, n, d, v, an, at, rt in rows
    ]
    for call in calls:
        given = len(call.args) + len(call.named)
        for candidate in candidates:
            if candidate.wanted != call.name or not candidate.fits(given):
                continue
            if denied(candidate.name) is not None:
                continue  # refused by the walk, with its own reason
            siblings = [
                c for c in candidates if c.schema == candidate.schema and c.name == candidate.name
            ]
            for position, literal in _arguments(call, candidate):
                kind = _kind(candidate, position, siblings, kinds)
                if kind is not None:
                    found.append(_Name(f"gives {candidate.label}", kind, literal))
    return found


def _arguments(call: Any, candidate: _Candidate) -> list[tuple[int, Literal]]:
    """(0-based position in the candidate's arguments, what is given there)."""
    placed = [(i, literal) for i, literal in enumerate(call.args) if i < candidate.nargs]
    for name, literal in call.named:
        if name in candidate.argnames[: candidate.nargs]:
            placed.append((candidate.argnames.index(name), literal))
    return placed


def _kind(
    candidate: _Candidate, position: int, siblings: list[_Candidate], kinds: dict[int, str]
) -> str | None:
    """Which kind of name the candidate's argument at ``position`` takes, or None."""
    if position >= len(candidate.argtypes):
        return None
    own = kinds.get(candidate.argtypes[position])
    if own is not None and (own.startswith("reg") or own == OID):
        return own
    if own not in TEXT_TYPES:
        return None
    for function, number, kind in DOCUMENTED:
        if (candidate.schema, candidate.name, position + 1) == ("pg_catalog", function, number):
            return kind
    result = kinds.get(candidate.result, "")
    if result.startswith("reg"):
        return result
    for sibling in siblings:
        if sibling.oid == candidate.oid or len(sibling.argtypes) != len(candidate.argtypes):
            continue
        other = kinds.get(sibling.argtypes[position], "")
        same_elsewhere = all(
            a == b
            for i, (a, b) in enumerate(zip(sibling.argtypes, candidate.argtypes, strict=True))
            if i != position
        )
        if same_elsewhere and (other.startswith("reg") or other == OID):
            return UNKNOWN_KIND if other == OID else other
    return None


def _lookup_text(kind: str, text: str) -> str | None:
    """The literal as dynotui looks it up: a type's name without its modifiers (looking
    ``t(5)`` up would run ``t``'s modifier input function); a function's or operator's
    signature only without modifiers in it; None where the text is no such name."""
    if kind == "regtype":
        return _bare_type_name(text)
    if kind in ("regprocedure", "regoperator") and text.count("(") > 1:
        return None
    return text


def _bare_type_name(text: str) -> str | None:
    """``numeric`` for ``numeric(7,4)``, read by PostgreSQL's parser as its own
    ``parseTypeString`` reads a type name (``SELECT NULL::<text>``, nothing else)."""
    import pglast
    from pglast import ast

    from dynotui.postgres.filter import type_name

    if len(text) > 1000:
        return None
    try:
        statements = pglast.parse_sql(f"SELECT NULL::{text}")
    except (pglast.parser.ParseError, RecursionError):
        return None
    if len(statements) != 1:
        return None
    select: Any = statements[0].stmt
    if not isinstance(select, ast.SelectStmt) or len(select.targetList or ()) != 1:
        return None
    if any(
        getattr(select, part, None)
        for part in ("fromClause", "whereClause", "sortClause", "withClause", "limitCount")
    ):
        return None
    targets: Any = select.targetList
    value: Any = targets[0].val
    if not isinstance(value, ast.TypeCast) or not isinstance(value.arg, ast.A_Const):
        return None
    if value.typeName is None or value.typeName.pct_type or value.typeName.setof:
        return None
    return type_name(value.typeName, ast)


def _look_up(session: Any, wanted: list[tuple[str, str | None]]) -> list[int | None]:
    if not wanted:
        return []
    kinds = sorted({kind for kind, text in wanted if text is not None and kind in LOOKUP})
    cases = " ".join(f"WHEN '{kind}' THEN {LOOKUP[kind]}" for kind in kinds) or "WHEN '' THEN 0"
    rows = dict(
        session.query(
            RESOLVE_SQL.format(cases=cases),
            {
                "indexes": [i for i, (_, t) in enumerate(wanted) if t is not None],
                "kinds": [k for k, t in wanted if t is not None],
                "names": [t for _, t in wanted if t is not None],
            },
        )
    )
    return [rows.get(i) if text is not None else None for i, (_, text) in enumerate(wanted)]


def _uses_text_search(session: Any, parsed: PgFilter) -> bool:
    """Whether a call or operator of the filter may use the session's default text search
    configuration (``USES_TEXT_SEARCH_SQL``)."""
    operators = sorted({name for _, name in parsed.operators})
    if not parsed.calls and not operators:
        return False
    rows = session.query(
        USES_TEXT_SEARCH_SQL,
        {
            "functions": [c.name[1] for c in parsed.calls],
            "arities": [len(c.args) + len(c.named) for c in parsed.calls],
            "operators": operators,
        },
    )
    return bool(rows[0][0])
