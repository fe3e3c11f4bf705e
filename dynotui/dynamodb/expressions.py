"""Expression text: placeholders for every attribute name, and checks before any call.

DynamoDB has ~570 reserved words (``status``, ``name``, ``size``, ...). Rewriting
every bare attribute name to a ``#placeholder`` makes all of them just work, and
checking placeholders here turns DynamoDB's ValidationExceptions into errors that
name the field before a request is sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from dynotui.core.errors import FieldError

KEYWORDS = {"and", "or", "not", "between", "in"}
_TOKEN = re.compile(
    r"(?P<name>#[A-Za-z0-9_]+)|(?P<value>:[A-Za-z0-9_]+)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<number>\d+)|(?P<space>\s+)|(?P<other>.)",
    re.S,
)


def _tokens(expression: str) -> list[tuple[str, str]]:
    return [(m.lastgroup or "other", m.group()) for m in _TOKEN.finditer(expression)]


def _next_significant(tokens: list[tuple[str, str]], start: int) -> str:
    for kind, text in tokens[start:]:
        if kind != "space":
            return text
    return ""


def auto_names(expression: str, names: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """Replace bare attribute names with ``#placeholders``; returns the text and all names."""
    result = dict(names)
    by_name = {v: k for k, v in result.items()}
    tokens = _tokens(expression)
    out: list[str] = []
    for position, (kind, text) in enumerate(tokens):
        if kind != "ident" or text.lower() in KEYWORDS:
            out.append(text)
            continue
        if _next_significant(tokens, position + 1) == "(":  # a function: begins_with(...)
            out.append(text)
            continue
        placeholder = by_name.get(text)
        if placeholder is None:
            placeholder = "#" + text
            suffix = 1
            while placeholder in result:
                placeholder = f"#{text}_{suffix}"
                suffix += 1
            result[placeholder] = text
            by_name[text] = placeholder
        out.append(placeholder)
    return "".join(out), result


def placeholders(expression: str | None) -> tuple[set[str], set[str]]:
    """The ``#name`` and ``:value`` placeholders an expression uses."""
    names: set[str] = set()
    values: set[str] = set()
    for kind, text in _tokens(expression or ""):
        if kind == "name":
            names.add(text)
        elif kind == "value":
            values.add(text)
    return names, values


def check_placeholders(
    expressions: Mapping[str, str | None],
    names: Mapping[str, str],
    values: Iterable[str],
    fields: Mapping[str, str] | None = None,
) -> None:
    """Every placeholder defined, every definition used: DynamoDB refuses either slip.
    ``fields`` names the form field of each expression (unused values: "values")."""
    fields = fields or {}
    used_names: set[str] = set()
    used_values: set[str] = set()
    for field, expression in expressions.items():
        n, v = placeholders(expression)
        missing = sorted((n - set(names)) | (v - set(values)))
        if missing:
            raise FieldError(
                fields.get(field, field),
                f"{field} uses {', '.join(missing)} but no value or name is given for it",
            )
        used_names |= n
        used_values |= v
    unused = sorted((set(names) - used_names) | (set(values) - used_values))
    if unused:
        raise FieldError(
            "values", f"{', '.join(unused)} is defined but used by no expression; remove it"
        )


def substitute(expression: str, names: Mapping[str, str], values: Mapping[str, str]) -> str:
    """The expression with placeholders replaced: names by names, values by canonical text."""
    out = []
    for kind, text in _tokens(expression):
        if kind == "name":
            out.append(names.get(text, text))
        elif kind == "value":
            out.append(values.get(text, text))
        elif kind == "space":
            out.append(" ")
        else:
            out.append(text)
    return "".join(out).strip()
