"""DynamoDB condition expressions parsed into a canonical tree.

The tree is what two expressions mean, not how they are spelled: placeholders are
replaced by the names and typed values they stand for, spacing, parentheses and
keyword case are gone, and the operands of AND, OR and IN are in one order. Scopes
(what cursor tokens are bound to) are built from it, so an attribute name can never
be read as expression text, and only equivalent queries share a scope.

    condition := or ; or := and (OR and)* ; and := not (AND not)* ; not := NOT not | atom
    atom      := '(' condition ')' | function | operand comparator operand
               | operand BETWEEN operand AND operand | operand IN '(' operand, ... ')'
    operand   := path | :value | size(path) ;  path := name ('.' name | '[' digits ']')*
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from dynotui.core.errors import InputError

Tree = list[Any]

_TOKEN = re.compile(
    r"\s*(?:(?P<name>#[A-Za-z0-9_]+)|(?P<value>:[A-Za-z0-9_]+)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<number>\d+)|(?P<op><>|<=|>=|=|<|>)|(?P<punct>[(),.\[\]])|(?P<bad>\S))?",
)
COMPARATORS = ("=", "<>", "<", "<=", ">", ">=")
CONDITION_FUNCTIONS = {
    "attribute_exists": ("path",),
    "attribute_not_exists": ("path",),
    "attribute_type": ("path", "operand"),
    "begins_with": ("path", "operand"),
    "contains": ("path", "operand"),
}
KEYWORDS = {"and", "or", "not", "between", "in"}


def _key(tree: Any) -> str:
    return json.dumps(tree, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class _Parser:
    def __init__(
        self, text: str, names: Mapping[str, str], values: Mapping[str, Any], field: str
    ) -> None:
        self.text = text
        self.names = names
        self.values = values
        self.field = field
        self.tokens: list[tuple[str, str, int]] = []
        position = 0
        while position < len(text):
            match = _TOKEN.match(text, position)
            assert match is not None
            if match.lastgroup is None:  # only trailing spaces were left
                break
            if match.lastgroup == "bad":
                self.fail(f"unexpected character {match.group('bad')!r}", match.start("bad"))
            kind = match.lastgroup
            self.tokens.append((kind, match.group(kind), match.start(kind)))
            position = match.end()
        self.at = 0

    def fail(self, message: str, position: int | None = None) -> None:
        if position is None:
            position = self.tokens[self.at][2] if self.at < len(self.tokens) else len(self.text)
        raise InputError(
            f"the {self.field} is not a valid expression: {message} at character "
            f"{position + 1} of {self.text!r}"
        )

    def peek(self, offset: int = 0) -> tuple[str, str]:
        index = self.at + offset
        if index < len(self.tokens):
            kind, text, _ = self.tokens[index]
            return kind, text
        return "end", ""

    def keyword(self, word: str) -> bool:
        kind, text = self.peek()
        return kind == "ident" and text.lower() == word

    def take(self, text: str) -> None:
        if self.peek()[1] != text:
            self.fail(f"expected {text!r}")
        self.at += 1

    def parse(self) -> Tree:
        if not self.tokens:
            self.fail("it is empty")
        tree = self.disjunction()
        if self.at != len(self.tokens):
            self.fail(f"unexpected {self.peek()[1]!r}")
        return tree

    def disjunction(self) -> Tree:
        parts = [self.conjunction()]
        while self.keyword("or"):
            self.at += 1
            parts.append(self.conjunction())
        return _group("or", parts)

    def conjunction(self) -> Tree:
        parts = [self.negation()]
        while self.keyword("and"):
            self.at += 1
            parts.append(self.negation())
        return _group("and", parts)

    def negation(self) -> Tree:
        if self.keyword("not"):
            self.at += 1
            inner = self.negation()
            return inner[1] if inner[0] == "not" else ["not", inner]
        return self.atom()

    def atom(self) -> Tree:
        kind, text = self.peek()
        if text == "(":
            self.at += 1
            tree = self.disjunction()
            self.take(")")
            return tree
        if kind == "ident" and text in CONDITION_FUNCTIONS and self.peek(1)[1] == "(":
            return self.function()
        left = self.operand()
        kind, text = self.peek()
        if kind == "op":
            self.at += 1
            return ["compare", text, left, self.operand()]
        if self.keyword("between"):
            self.at += 1
            low = self.operand()
            if not self.keyword("and"):
                self.fail("BETWEEN takes two operands joined by AND")
            self.at += 1
            return ["between", left, low, self.operand()]
        if self.keyword("in"):
            self.at += 1
            self.take("(")
            options = [self.operand()]
            while self.peek()[1] == ",":
                self.at += 1
                options.append(self.operand())
            self.take(")")
            return ["in", left, sorted({_key(o): o for o in options}.values(), key=_key)]
        self.fail("expected a comparison, BETWEEN, IN or a function")
        raise AssertionError  # fail() always raises

    def function(self) -> Tree:
        name = self.peek()[1]
        self.at += 1
        self.take("(")
        arguments: list[Any] = []
        for position, role in enumerate(CONDITION_FUNCTIONS[name]):
            if position:
                if self.peek()[1] != ",":
                    self.fail(f"{name}() takes {len(CONDITION_FUNCTIONS[name])} arguments")
                self.at += 1
            arguments.append(self.path() if role == "path" else self.operand())
        if self.peek()[1] != ")":
            self.fail(f"{name}() takes {len(CONDITION_FUNCTIONS[name])} arguments")
        self.at += 1
        return ["function", name, arguments]

    def operand(self) -> Tree:
        kind, text = self.peek()
        if kind == "value":
            self.at += 1
            if text not in self.values:
                self.fail(f"{text} has no value")
            return ["value", self.values[text]]
        if kind == "ident" and text == "size" and self.peek(1)[1] == "(":
            self.at += 2
            path = self.path()
            self.take(")")
            return ["size", path]
        return self.path()

    def path(self) -> Tree:
        components: list[str | int] = [self.name()]
        while self.peek()[1] in (".", "["):
            if self.peek()[1] == ".":
                self.at += 1
                components.append(self.name())
            else:
                self.at += 1
                kind, text = self.peek()
                if kind != "number":
                    self.fail("a list index is a number")
                self.at += 1
                components.append(int(text))
                self.take("]")
        return ["path", components]

    def name(self) -> str:
        kind, text = self.peek()
        if kind == "name":
            if text not in self.names:
                self.fail(f"{text} has no name")
            self.at += 1
            return self.names[text]
        if kind == "ident" and text.lower() not in KEYWORDS:
            self.at += 1
            return text
        self.fail("expected an attribute name")
        raise AssertionError


def _group(operator: str, parts: list[Tree]) -> Tree:
    if len(parts) == 1:
        return parts[0]
    flat: dict[str, Tree] = {}
    for part in parts:
        for child in part[1] if part[0] == operator else [part]:
            flat[_key(child)] = child
    children = sorted(flat.values(), key=_key)
    return children[0] if len(children) == 1 else [operator, children]


def parse_condition(
    text: str, names: Mapping[str, str], values: Mapping[str, Any], field: str = "expression"
) -> Tree:
    """The canonical tree of a condition; ``values`` are JSON-safe typed values."""
    return _Parser(text, names, values, field).parse()


def tested_names(tree: Tree | None) -> set[str]:
    """Top-level attributes a condition tree tests anywhere."""
    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, list):
            if node and node[0] == "path":
                names.add(str(node[1][0]))
                return
            for child in node:
                walk(child)

    walk(tree)
    return names


def conjuncts(tree: Tree | None) -> list[Tree]:
    """The conditions that must all hold: the operands of a top-level AND."""
    if tree is None:
        return []
    return list(tree[1]) if tree[0] == "and" else [tree]


def canonical(tree: Any) -> str:
    return _key(tree)
