"""A filter (``--where``) read by PostgreSQL's own parser, checked, and rebuilt.

The text is parsed by libpg_query (pglast) as ``SELECT 1 WHERE (<text>)`` and must have
exactly that shape: one statement, one target, a WHERE and nothing else. Every node of the
expression must be of a kind a read needs (a whitelist: comparisons, boolean logic, calls,
casts, CASE, arrays, sub-selects that only read); a data-modifying statement anywhere is
refused. What is sent is the expression as pglast deparses it, in parentheses, so what runs
is what was checked and no parenthesis in the text can close the WHERE early. The cursor
scope is built from the same deparsed text: whitespace outside literals does not matter,
whitespace inside them does.

What the parser cannot know (which object a name resolves to, what that object runs) is
asked of the server being read, from what the walk collects here: see ``reach``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from dynotui.core.errors import InputError
from dynotui.core.extras import missing

MAX_FILTER_TEXT = 100_000

_BETWEEN_OPERATORS = (">=", "<=")

Name = tuple[str | None, str]  # (schema or None for the search path, name)


@dataclass(frozen=True)
class PgFilter:
    """A parsed, shape-checked filter: what runs, and what the server must vouch for."""

    text: str  # as typed
    deparsed: str  # PostgreSQL's deparse of the expression: what is sent, in parentheses
    params_used: frozenset[int]
    functions: tuple[Name, ...]
    operators: tuple[Name, ...]
    types: tuple[str, ...]  # cast targets (and one-argument calls that may be casts)
    columns: tuple[str, ...]  # column names the top-level expression tests, for advice
    placeholders: tuple[tuple[int, int, int], ...] = field(default=())  # (start, end, $n)
    column_names: tuple[str, ...] = ()  # every name a column reference ends with
    whole_row: bool = False  # a reference that may be the whole row (t, t.*, t.f)
    sub_selects: int = 0  # SELECTs inside the expression
    relations: tuple[str, ...] = ()  # what their FROM names, as PostgreSQL would read it

    def psycopg(self) -> str:
        """The deparsed fragment as psycopg takes it: ``$n`` as ``%(pn)s``, ``%`` doubled.

        The positions of the parameters come from PostgreSQL's own scanner run over the
        deparsed text, so a ``$1`` inside a string literal stays text."""
        out: list[str] = []
        at = 0
        for start, end, number in self.placeholders:
            out.append(self.deparsed[at:start].replace("%", "%%"))
            out.append(f"%(p{number})s")
            at = end
        out.append(self.deparsed[at:].replace("%", "%%"))
        return "(" + "".join(out) + ")"


def _pglast() -> Any:
    try:
        import pglast
    except ImportError:
        raise InputError(missing("postgres", "PostgreSQL support")) from None
    return pglast


def _parse_error(exc: Exception, offset: int, text: str) -> InputError:
    message, *rest = exc.args or (str(exc),)
    where = ""
    if rest and isinstance(rest[0], int):
        position = rest[0] - offset
        if 0 <= position <= len(text):
            where = f" (at character {position + 1})"
    return InputError(f"the filter does not parse as SQL: {message}{where}")


def _balanced(text: str) -> None:
    """Parentheses balanced by the scanner's tokens (a ')' inside a literal is text)."""
    pglast = _pglast()
    depth = 0
    try:
        tokens = pglast.parser.scan(text)
    except pglast.parser.ParseError as exc:
        raise _parse_error(exc, 0, text) from None
    for token in tokens:
        if token.name == "ASCII_40":
            depth += 1
        elif token.name == "ASCII_41":
            depth -= 1
            if depth < 0:
                raise InputError(
                    f"the filter's parentheses do not balance: a ')' at character "
                    f"{token.start + 1} closes more than the filter opened"
                )
    if depth:
        raise InputError("the filter's parentheses do not balance: a '(' is never closed")


def parse_filter(text: str, param_count: int) -> PgFilter:
    """Parse ``text`` as one boolean expression; refuse any other shape or node."""
    pglast = _pglast()
    from pglast import ast
    from pglast.stream import RawStream

    if len(text) > MAX_FILTER_TEXT:
        raise InputError(f"the filter is longer than {MAX_FILTER_TEXT:,} characters")
    _balanced(text)
    prefix = "SELECT 1 WHERE (\n"
    try:
        statements = pglast.parse_sql(prefix + text + "\n)")
    except pglast.parser.ParseError as exc:
        raise _parse_error(exc, len(prefix), text) from None
    except RecursionError:
        raise InputError("the filter is nested too deeply") from None
    if len(statements) != 1:
        raise InputError(
            f"the filter must be one boolean expression: it holds {len(statements)} statements"
        )
    select = statements[0].stmt
    _check_shape(select, ast)
    expression = select.whereClause
    collected = _Collected()
    try:
        _walk(expression, collected, ast, top_level=True)
        deparsed = RawStream()(expression)
    except RecursionError:
        raise InputError("the filter is nested too deeply") from None
    used = frozenset(collected.params)
    wrong = sorted(n for n in used if not 1 <= n <= param_count)
    if wrong:
        raise InputError(f"the filter uses ${wrong[0]} but {param_count} parameter(s) were given")
    unused = sorted(set(range(1, param_count + 1)) - used)
    if unused:
        raise InputError(
            f"parameter(s) {', '.join(f'${n}' for n in unused)} given but not used by the filter"
        )
    placeholders = tuple(
        (token.start, token.end + 1, int(deparsed[token.start + 1 : token.end + 1]))
        for token in pglast.parser.scan(deparsed)
        if token.name == "PARAM"
    )
    return PgFilter(
        text=text,
        deparsed=deparsed,
        params_used=used,
        functions=tuple(dict.fromkeys(collected.functions)),
        operators=tuple(dict.fromkeys(collected.operators)),
        types=tuple(dict.fromkeys(collected.types)),
        columns=tuple(dict.fromkeys(collected.columns)),
        placeholders=placeholders,
        column_names=tuple(dict.fromkeys(collected.column_names)),
        whole_row=collected.whole_row,
        sub_selects=collected.sub_selects,
        relations=tuple(dict.fromkeys(collected.relations)),
    )


def _check_shape(select: Any, ast: Any) -> None:
    """``SELECT 1 WHERE (...)`` and nothing more: text that added a FROM, a GROUP BY, a
    UNION or a LIMIT after closing the parenthesis is refused."""
    if not isinstance(select, ast.SelectStmt):
        raise InputError("the filter must be one boolean expression, not a statement")
    extras = [
        name
        for name in (
            "distinctClause",
            "intoClause",
            "fromClause",
            "groupClause",
            "havingClause",
            "windowClause",
            "valuesLists",
            "sortClause",
            "limitOffset",
            "limitCount",
            "lockingClause",
            "withClause",
            "larg",
            "rarg",
        )
        if getattr(select, name, None)
    ]
    target: Any = select.targetList or ()
    one = (
        len(target) == 1
        and isinstance(target[0].val, ast.A_Const)
        and isinstance(target[0].val.val, ast.Integer)
        and target[0].val.val.ival == 1
    )
    setop = getattr(select.op, "name", str(select.op))
    if extras or not one or setop != "SETOP_NONE" or select.whereClause is None:
        clause = extras[0] if extras else "its shape"
        raise InputError(
            "the filter must be one boolean expression (a WHERE condition); "
            f"this text adds {_CLAUSE_WORDS.get(clause, clause)} to the statement"
        )


_CLAUSE_WORDS = {
    "distinctClause": "a DISTINCT",
    "intoClause": "an INTO",
    "fromClause": "a FROM",
    "groupClause": "a GROUP BY",
    "havingClause": "a HAVING",
    "windowClause": "a WINDOW",
    "valuesLists": "a VALUES",
    "sortClause": "an ORDER BY",
    "limitOffset": "an OFFSET",
    "limitCount": "a LIMIT",
    "lockingClause": "a FOR UPDATE/SHARE",
    "withClause": "a WITH",
    "larg": "a set operation (UNION, INTERSECT, EXCEPT)",
    "rarg": "a set operation (UNION, INTERSECT, EXCEPT)",
}

# Node kinds a read needs. Anything else (a DELETE in a CTE, SELECT INTO, TABLESAMPLE,
# XMLTABLE, ...) is refused by name rather than passed on.
ALLOWED_NODES = frozenset(
    {
        "A_ArrayExpr",
        "A_Const",
        "A_Expr",
        "A_Indices",
        "A_Indirection",
        "A_Star",
        "Alias",
        "BitString",
        "BoolExpr",
        "Boolean",
        "BooleanTest",
        "CaseExpr",
        "CaseWhen",
        "CoalesceExpr",
        "CollateClause",
        "ColumnRef",
        "CommonTableExpr",
        "Float",
        "FuncCall",
        "GroupingSet",
        "Integer",
        "JoinExpr",
        "MinMaxExpr",
        "NamedArgExpr",
        "NullTest",
        "ParamRef",
        "RangeFunction",
        "RangeSubselect",
        "RangeVar",
        "ResTarget",
        "RowExpr",
        "SQLValueFunction",
        "SelectStmt",
        "SortBy",
        "String",
        "SubLink",
        "TypeCast",
        "TypeName",
        "WindowDef",
        "WithClause",
    }
)
_WRITES = {
    "InsertStmt": "an INSERT",
    "UpdateStmt": "an UPDATE",
    "DeleteStmt": "a DELETE",
    "MergeStmt": "a MERGE",
}


@dataclass
class _Collected:
    functions: list[Name] = field(default_factory=list)
    operators: list[Name] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    params: list[int] = field(default_factory=list)
    column_names: list[str] = field(default_factory=list)
    whole_row: bool = False
    sub_selects: int = 0
    relations: list[str] = field(default_factory=list)


def _name(parts: Any) -> Name:
    names = [p.sval for p in parts]
    return (names[-2] if len(names) > 1 else None), names[-1]


def _children(node: Any, ast: Any) -> Iterator[Any]:
    """Every node below ``node``, lists of lists included (a FROM function is one)."""
    pending = [getattr(node, slot, None) for slot in type(node).__slots__]
    while pending:
        value = pending.pop()
        if isinstance(value, ast.Node):
            yield value
        elif isinstance(value, tuple | list):
            pending.extend(value)


def _walk(root: Any, found: _Collected, ast: Any, *, top_level: bool) -> None:
    from pglast.stream import RawStream

    # Iterative: a filter nested thousands deep must not exhaust Python's stack.
    stack: list[tuple[Any, bool]] = [(root, top_level)]
    while stack:
        node, top = stack.pop()
        kind = type(node).__name__
        if kind in _WRITES:
            raise InputError(
                f"refused: the filter holds {_WRITES[kind]} statement; dynotui only reads"
            )
        if kind not in ALLOWED_NODES:
            raise InputError(f"refused: {kind} is not allowed in a filter")
        inner = top
        if isinstance(node, ast.SelectStmt):
            inner = False
            found.sub_selects += 1
            if node.intoClause is not None:
                raise InputError("refused: SELECT INTO in a filter writes a table")
            if node.lockingClause:
                raise InputError("refused: FOR UPDATE/SHARE in a filter locks rows")
        elif isinstance(node, ast.CommonTableExpr):
            query = type(node.ctequery).__name__
            if query in _WRITES:
                raise InputError(
                    f"refused: the filter holds {_WRITES[query]} statement (in a WITH); "
                    "dynotui only reads"
                )
        elif isinstance(node, ast.FuncCall):
            schema, name = _name(node.funcname)
            found.functions.append((schema, name))
            if len(node.args or ()) == 1:  # int4(x), mytype(x): a call or a cast
                found.types.append(".".join(_quote_ident(p.sval) for p in node.funcname))
        elif isinstance(node, ast.A_Expr):
            operator = _name(node.name)
            if operator[1].startswith(("BETWEEN", "NOT BETWEEN")):
                found.operators.extend((None, op) for op in _BETWEEN_OPERATORS)
            else:
                found.operators.append(operator)
        elif isinstance(node, ast.SubLink):
            if node.operName:
                found.operators.append(_name(node.operName))
        elif isinstance(node, ast.SortBy):
            if node.useOp:  # ORDER BY x USING op, in a sub-select
                found.operators.append(_name(node.useOp))
        elif isinstance(node, ast.TypeCast):
            found.types.append(RawStream()(node.typeName))
        elif isinstance(node, ast.ParamRef):
            found.params.append(node.number)
        elif isinstance(node, ast.RangeVar):
            parts = (node.catalogname, node.schemaname, node.relname)
            found.relations.append(".".join(_quote_ident(p) for p in parts if p))
        elif isinstance(node, ast.ColumnRef):
            names = [f.sval for f in node.fields if isinstance(f, ast.String)]
            if len(names) > 1:
                # t.f is also PostgreSQL's notation for the call f(t)
                found.functions.append((None, names[-1]))
            if len(names) != len(node.fields) or len(names) != 1:
                found.whole_row = True  # t.*, t.f: the row may be passed whole
            if names:
                found.column_names.append(names[-1])
            if top and names:
                found.columns.append(names[-1])
        elif isinstance(node, ast.A_Indirection):
            for item in node.indirection or ():
                if isinstance(item, ast.String):  # (row).f: a field, or the call f(row)
                    found.functions.append((None, item.sval))
                elif isinstance(item, ast.A_Star):
                    found.whole_row = True
        stack.extend((child, inner) for child in _children(node, ast))


def _quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
