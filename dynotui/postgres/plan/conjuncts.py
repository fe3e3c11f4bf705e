"""A checked filter's top-level AND terms, each as its own checked text.

To size what an index scan reads before its Filter drops rows, the planner is asked for
the rows of the filter's terms that test that index's columns alone. Each term is a
sub-tree of the filter ``filter.parse_filter`` checked (and ``reach`` vouched for), deparsed
by pglast as the whole is: an AND of such terms holds no node the filter did not, so what
is explained is still only what was checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dynotui.postgres.filter import PgFilter


@dataclass(frozen=True)
class Conjunct:
    deparsed: str
    columns: frozenset[str]  # the names its column references end with
    opaque: bool  # a sub-select or a whole-row reference: what it reads is not its columns


def conjuncts(parsed: PgFilter) -> tuple[Conjunct, ...]:
    """The AND terms of ``parsed`` (one term where the top is not an AND)."""
    import pglast
    from pglast import ast
    from pglast.stream import RawStream

    try:
        select: Any = pglast.parse_sql("SELECT 1 WHERE (\n" + parsed.text + "\n)")[0].stmt
        top: Any = select.whereClause
        both = isinstance(top, ast.BoolExpr) and getattr(top.boolop, "name", "") == "AND_EXPR"
        terms: Any = top.args if both else (top,)
        return tuple(_conjunct(term, ast, RawStream()(term)) for term in terms)
    except RecursionError:  # parse_filter took it: a term as deep is opaque, not a crash
        return (Conjunct(parsed.deparsed, frozenset(), True),)


def _conjunct(term: Any, ast: Any, text: str) -> Conjunct:
    columns: set[str] = set()
    opaque = False
    pending = [term]
    while pending:  # iterative: a term nested thousands deep does not exhaust the stack
        node = pending.pop()
        if isinstance(node, ast.SubLink | ast.SelectStmt):
            opaque = True
        elif isinstance(node, ast.ColumnRef):
            names = [f.sval for f in node.fields if isinstance(f, ast.String)]
            if len(names) != 1 or len(node.fields) != 1:
                opaque = True  # t.f, t.*: perhaps the whole row
            columns.update(names[-1:])
        values = [getattr(node, slot, None) for slot in type(node).__slots__]
        while values:
            value = values.pop()
            if isinstance(value, ast.Node):
                pending.append(value)
            elif isinstance(value, tuple | list):
                values.extend(value)
    return Conjunct(text, frozenset(columns), opaque)


def psycopg_text(terms: tuple[Conjunct, ...]) -> str:
    """The AND of ``terms`` as psycopg takes it: ``$n`` as ``%(pn)s`` (found by
    PostgreSQL's own scanner, so a ``$1`` inside a literal stays text), ``%`` doubled."""
    import pglast

    text = " AND ".join(f"({t.deparsed})" for t in terms)
    out: list[str] = []
    at = 0
    for token in pglast.parser.scan(text):
        if token.name == "PARAM":
            out.append(text[at : token.start].replace("%", "%%"))
            out.append(f"%(p{int(text[token.start + 1 : token.end + 1])})s")
            at = token.end + 1
    out.append(text[at:].replace("%", "%%"))
    return "(" + "".join(out) + ")"
