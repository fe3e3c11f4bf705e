"""PartiQL SELECT as DynamoDB reads it: a tokenizer, a grammar, and the text rebuilt.

dynotui sends DynamoDB the statement rebuilt from the tokens it checked, never the text
as typed: comments are dropped and every token is written in one canonical spelling, so
whatever the server makes of the typed text, what it runs is what was checked here.

The lexical rules are DynamoDB's, measured on DynamoDB Local (PartiQL's reader there):

- between tokens only space, tab, LF, CR, VT and FF; NEL, U+2028, U+2029, NBSP and the
  zero-width characters are not whitespace to it, and are refused here;
- a ``--`` comment ends at LF or CR (and only there: not at VT, FF, NEL, U+2028 or
  U+2029, which the server keeps inside the comment);
- ``/* ... */`` comments do not nest (the first ``*/`` ends one); an unterminated one
  is an error;
- ``'...'`` strings double a quote (``''``) and have no backslash escapes; ``"..."``
  identifiers double theirs (``""``) and may not be empty;
- backtick Ion literals are refused by DynamoDB ("Ion Literals are not supported"), and
  so here.

The grammar is the SELECT that DynamoDB runs, and nothing else::

    SELECT ( * | path [, path]... ) FROM name [. name]
        [WHERE condition] [ORDER BY path [ASC | DESC] [, ...]] [;]

with conditions of OR, AND, NOT, parentheses, comparisons, [NOT] BETWEEN, [NOT] IN,
IS [NOT] MISSING / NULL, ``begins_with``, ``contains``, ``attribute_type`` and
``size``; operands are paths, ``?``, strings, numbers, TRUE, FALSE, NULL and list, map
and bag literals. Whatever falls outside it is refused with the character it failed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from dynotui.core.errors import InputError

Kind = Literal["keyword", "function", "name", "quoted", "string", "number", "param", "op"]

WHITESPACE = " \t\n\r\x0b\x0c"
LINE_ENDS = "\n\r"
MAX_NESTING = 32


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


KEYWORDS = _words(
    "SELECT FROM WHERE AND OR NOT BETWEEN IN IS NULL MISSING TRUE FALSE ORDER BY ASC DESC"
)
# Words that start or shape other statements: never taken as a bare attribute name, so a
# statement cannot smuggle one in where a name is expected. Quoted, they are names.
STATEMENT_WORDS = _words(
    "INSERT UPDATE DELETE REPLACE UPSERT SET REMOVE INTO VALUE VALUES EXISTS LIMIT OFFSET AS "
    "AT DISTINCT JOIN UNION PIVOT UNPIVOT LET GROUP HAVING RETURNING CREATE DROP EXEC"
)
FUNCTIONS = frozenset({"begins_with", "contains", "attribute_type", "size"})
PREDICATE_FUNCTIONS = frozenset({"begins_with", "contains", "attribute_type"})
COMPARISONS = frozenset({"=", "<>", "!=", "<", "<=", ">", ">="})

_NUMBER = re.compile(r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPERATORS = ("<=", ">=", "<>", "!=", "<<", ">>", *"=<>()[]{},.:;*-+")


class PartiQLSyntaxError(InputError):
    """The statement is outside what dynotui can check; the message names the character."""


@dataclass(frozen=True)
class Token:
    kind: Kind
    text: str  # the canonical spelling, as sent
    value: str = ""  # a name's or a string's content
    at: int = field(default=0, compare=False)  # offset in the text as typed

    @staticmethod
    def of(kind: Kind, value: str, at: int = 0) -> Token:
        if kind == "quoted":
            return Token(kind, '"' + value.replace('"', '""') + '"', value, at)
        if kind == "string":
            return Token(kind, "'" + value.replace("'", "''") + "'", value, at)
        return Token(kind, value, value, at)


def _fail(text: str, at: int, what: str) -> PartiQLSyntaxError:
    near = text[at : at + 20]
    where = f"at character {at + 1}" + (f" ({near!r})" if near else " (the end)")
    return PartiQLSyntaxError(f"the statement cannot be checked: {what} {where}")


def _quoted(text: str, at: int, quote: str) -> tuple[str, int]:
    """The content of a quoted run starting at ``at`` and the offset after it."""
    parts: list[str] = []
    i = at + 1
    while True:
        end = text.find(quote, i)
        if end < 0:
            kind = "string" if quote == "'" else "quoted name"
            raise _fail(text, at, f"this {kind} is never closed (missing {quote})")
        parts.append(text[i:end])
        if text.startswith(quote * 2, end):
            parts.append(quote)
            i = end + 2
            continue
        return "".join(parts), end + 1


def tokenize(text: str) -> list[Token]:
    """The statement's tokens, comments and whitespace dropped, as DynamoDB lexes them."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in WHITESPACE:
            i += 1
        elif text.startswith("--", i):
            ends = [p for p in (text.find(c, i) for c in LINE_ENDS) if p >= 0]
            i = min(ends) if ends else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise _fail(text, i, "this /* comment is never closed")
            i = end + 2
        elif ch in "'\"":
            value, after = _quoted(text, i, ch)
            if ch == '"' and not value:
                raise _fail(text, i, 'an attribute or table name "" is empty')
            tokens.append(Token.of("string" if ch == "'" else "quoted", value, i))
            i = after
        elif ch == "?":
            tokens.append(Token("param", "?", "?", i))
            i += 1
        elif number := _NUMBER.match(text, i):
            after = number.end()
            if after < n and (text[after].isalnum() or text[after] in "_."):
                raise _fail(text, i, "a number runs into the next character")
            tokens.append(Token("number", number.group(), number.group(), i))
            i = after
        elif word := _WORD.match(text, i):
            written = word.group()
            upper = written.upper()
            if upper in KEYWORDS or upper in STATEMENT_WORDS:
                tokens.append(Token("keyword", upper, upper, i))
            else:
                tokens.append(Token("name", written, written, i))
            i = word.end()
        else:
            op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
            if op is None:
                if ch == "`":
                    raise _fail(text, i, "Ion literals in backticks are not supported")
                raise _fail(text, i, f"{ch!r} is not part of a DynamoDB SELECT")
            tokens.append(Token("op", op, op, i))
            i += len(op)
    return tokens


# -- the rebuilt text ----------------------------------------------------------------------

_NO_SPACE_BEFORE = frozenset({",", ")", "]", "}", ".", ":", ";"})
_NO_SPACE_AFTER = frozenset({"(", "[", "{", ".", "-", "+"})


def _glued(before: Token, token: Token) -> bool:
    if token.kind == "op" and token.text in _NO_SPACE_BEFORE:
        return True
    if before.kind == "op" and before.text in _NO_SPACE_AFTER:
        return True
    if token.text == "(" and before.kind == "function":
        return True
    # a path's index: a[0], "a"['k'], a[0][1]
    return token.text == "[" and (before.kind in ("name", "quoted") or before.text == "]")


def rebuild(tokens: list[Token] | tuple[Token, ...]) -> str:
    """The tokens as one line of text. Only pairs that cannot merge into another token
    are written together: no ``--`` or ``/*`` can arise, signs sit on their numbers."""
    out: list[str] = []
    for i, token in enumerate(tokens):
        if i and not _glued(tokens[i - 1], token):
            out.append(" ")
        out.append(token.text)
    return "".join(out)


# -- the grammar ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Path:
    """An attribute and the steps into it (``a.b[0]``: ``a``, then ``b`` and ``0``)."""

    name: str
    steps: tuple[str | int, ...] = ()


@dataclass(frozen=True)
class Select:
    """A checked SELECT: what it reads, and the canonical tokens that are sent."""

    tokens: tuple[Token, ...]
    table: str
    index: str | None
    columns: tuple[Path, ...] | None  # None: SELECT *
    equalities: frozenset[str]  # attributes a top-level AND tests with = or IN
    placeholders: int

    @property
    def text(self) -> str:
        return rebuild(self.tokens)


# A condition is reduced to what the advisor asks of it: the attributes it pins with =
# or IN throughout (an AND of such tests pins each; OR and NOT pin nothing).
Pinned = frozenset[str]


class _Parser:
    def __init__(self, text: str, tokens: list[Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.i = 0
        self.out: list[Token] = []
        self.depth = 0

    # reading
    def peek(self, ahead: int = 0) -> Token | None:
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else None

    def at(self, *texts: str) -> bool:
        token = self.peek()
        return token is not None and token.kind in ("keyword", "op") and token.text in texts

    def fail(self, what: str) -> PartiQLSyntaxError:
        token = self.peek()
        return _fail(self.text, token.at if token else len(self.text), what)

    def take(self, token: Token | None = None) -> Token:
        token = token or self.tokens[self.i]
        self.out.append(token)
        self.i += 1
        return token

    def expect(self, text: str, what: str | None = None) -> Token:
        if not self.at(text):
            raise self.fail(f"expected {what or text}")
        return self.take()

    def nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.fail(f"nested more than {MAX_NESTING} deep")

    # names and paths
    def name(self, what: str) -> str:
        token = self.peek()
        if token is not None and token.kind == "keyword":
            written = self.text[token.at : token.at + len(token.text)]
            raise self.fail(
                f"{written!r} is a keyword: to mean the {what} of that name, write it in "
                f'double quotes ("{written}")'
            )
        if token is None or token.kind not in ("name", "quoted"):
            raise self.fail(f"expected the {what}")
        self.take()
        return token.value

    def path(self) -> Path:
        name = self.name("attribute")
        steps: list[str | int] = []
        while True:
            if self.at("."):
                self.take()
                steps.append(self.name("attribute"))
            elif self.at("["):
                self.take()
                token = self.peek()
                if token is not None and token.kind == "number" and token.text.isdigit():
                    steps.append(int(self.take().text))
                elif token is not None and token.kind == "string":
                    steps.append(self.take().value)
                else:
                    raise self.fail("expected a list index (0, 1, ...) or a 'key'")
                self.expect("]")
            else:
                return Path(name, tuple(steps))

    def function(self) -> str | None:
        token, following = self.peek(), self.peek(1)
        if (
            token is not None
            and token.kind == "name"
            and token.value.lower() in FUNCTIONS
            and following is not None
            and following.text == "("
        ):
            return token.value.lower()
        return None

    # operands
    def literal(self) -> None:
        """A value: ?, string, number (with one sign), TRUE, FALSE, NULL or a collection."""
        token = self.peek()
        if token is None:
            raise self.fail("expected a value")
        if token.kind in ("param", "string", "number"):
            self.take()
        elif token.kind == "op" and token.text in ("-", "+"):
            self.take()
            if (following := self.peek()) is None or following.kind != "number":
                raise self.fail("a sign goes only before a number")
            self.take()
        elif self.at("TRUE", "FALSE", "NULL"):
            self.take()
        elif self.at("[", "<<"):
            self.values(self.take().text)
        elif self.at("{"):
            self.take()
            self.nest()
            if not self.at("}"):
                while True:
                    if (key := self.peek()) is None or key.kind != "string":
                        raise self.fail("a map's keys are 'strings'")
                    self.take()
                    self.expect(":")
                    self.literal()
                    if not self.at(","):
                        break
                    self.take()
            self.expect("}")
            self.depth -= 1
        else:
            raise self.fail("expected a value (?, 'text', a number, TRUE, FALSE, NULL, [...])")

    def values(self, opened: str) -> None:
        closing = {"[": "]", "<<": ">>", "(": ")"}[opened]
        self.nest()
        if not self.at(closing):
            while True:
                self.literal()
                if not self.at(","):
                    break
                self.take()
        self.expect(closing)
        self.depth -= 1

    def operand(self) -> Path | None:
        """A path (returned), ``size(path)``, or a value (None)."""
        function = self.function()
        if function == "size":
            self.take(Token("function", "size", "size", self.tokens[self.i].at))
            self.expect("(")
            self.path()
            self.expect(")")
            return None
        if function is not None:
            raise self.fail(f"{function}(...) is a condition of its own, not a value")
        token = self.peek()
        if token is not None and token.kind in ("name", "quoted"):
            return self.path()
        if token is not None and token.kind == "keyword" and not self.at("TRUE", "FALSE", "NULL"):
            self.name("attribute")  # refuses, naming the keyword
        self.literal()
        return None

    # conditions
    def condition(self) -> Pinned:
        pinned = self.conjunction()
        if not self.at("OR"):
            return pinned
        while self.at("OR"):
            self.take()
            self.conjunction()
        return frozenset()

    def conjunction(self) -> Pinned:
        pinned = self.negation()
        while self.at("AND"):
            self.take()
            pinned |= self.negation()
        return pinned

    def negation(self) -> Pinned:
        if self.at("NOT"):
            self.take()
            self.nest()
            self.negation()
            self.depth -= 1
            return frozenset()
        return self.predicate()

    def predicate(self) -> Pinned:
        if self.at("("):
            self.take()
            self.nest()
            inner = self.condition()
            self.expect(")", "a closing )")
            self.depth -= 1
            return inner
        function = self.function()
        if function in PREDICATE_FUNCTIONS:
            self.take(Token("function", function, function, self.tokens[self.i].at))
            self.expect("(")
            self.path()
            self.expect(",")
            self.operand()
            self.expect(")")
            if self.at(*COMPARISONS):  # begins_with(a, 'x') = TRUE
                self.take()
                self.literal()
            return frozenset()
        left = self.operand()
        return self.test(left)

    def test(self, left: Path | None) -> Pinned:
        simple = left.name if left is not None and not left.steps else None
        if self.at(*COMPARISONS):
            op = self.take().text
            right = self.operand()
            if op == "=" and simple is not None and right is None:
                return frozenset({simple})
            if op == "=" and left is None and right is not None and not right.steps:
                return frozenset({right.name})
            return frozenset()
        negated = False
        if self.at("NOT"):
            self.take()
            negated = True
        if self.at("BETWEEN"):
            self.take()
            self.operand()
            self.expect("AND", "AND (BETWEEN x AND y)")
            self.operand()
            return frozenset()
        if self.at("IN"):
            self.take()
            if not self.at("[", "(", "<<"):
                raise self.fail("IN takes a list: IN [?, ?] or IN ('a', 'b')")
            self.values(self.take().text)
            if simple is not None and not negated:
                return frozenset({simple})
            return frozenset()
        if negated:
            raise self.fail("expected BETWEEN or IN after NOT")
        if self.at("IS"):
            self.take()
            if self.at("NOT"):
                self.take()
            if not self.at("MISSING", "NULL"):
                raise self.fail("expected MISSING or NULL after IS")
            self.take()
            return frozenset()
        raise self.fail("expected a comparison (=, <>, <, <=, >, >=, BETWEEN, IN, IS)")

    # the statement
    def select(self) -> Select:
        first = self.peek()
        if first is None:
            raise PartiQLSyntaxError('the statement is empty: write a SELECT ... FROM "table" ...')
        if first.text != "SELECT":
            shown = first.value or first.text
            raise PartiQLSyntaxError(
                f"only SELECT statements are run (dynotui never writes); this one starts with "
                f"{shown!r}"
            )
        self.take()
        columns: list[Path] | None = None
        if self.at("*"):
            self.take()
        else:
            columns = [self.path()]
            while self.at(","):
                self.take()
                columns.append(self.path())
        self.expect("FROM", 'FROM "table"')
        table = self.name("table")
        index = None
        if self.at("."):
            self.take()
            index = self.name("index")
        equal: frozenset[str] = frozenset()
        if self.at("WHERE"):
            self.take()
            equal = self.condition()
        if self.at("ORDER"):
            self.take()
            self.expect("BY", "ORDER BY")
            while True:
                self.path()
                if self.at("ASC", "DESC"):
                    self.take()
                if not self.at(","):
                    break
                self.take()
        if self.at(";"):
            self.take()
            if self.peek() is not None:
                raise PartiQLSyntaxError(
                    "one statement at a time: ExecuteStatement runs a single SELECT, and "
                    f"this text goes on after its ';' at character {self.peek().at + 1}"  # type: ignore[union-attr]
                )
        if self.peek() is not None:
            raise self.fail("expected the end of the statement")
        return Select(
            tokens=tuple(t for t in self.out if t.text != ";"),
            table=table,
            index=index,
            columns=None if columns is None else tuple(columns),
            equalities=equal,
            placeholders=sum(1 for t in self.out if t.kind == "param"),
        )


def parse_select(text: str) -> Select:
    """The statement checked against DynamoDB's SELECT; PartiQLSyntaxError otherwise."""
    return _Parser(text, tokenize(text)).select()
