"""JSON whose numbers keep every digit the database gave.

``json`` writes a Decimal only through float, which loses digits past the 17th, and
a string would change the value's type. ``Number`` is a number kept as its text;
``dumps`` writes it bare, and everything else as ``json.dumps`` would.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


class Number(str):
    """A JSON number, as its exact decimal text (``"12345678901234567890.5"``)."""

    __slots__ = ()


def dumps(value: Any, *, indent: int | None = None, compact: bool = False) -> str:
    """Like ``json.dumps(value, ensure_ascii=False, indent=indent)``, numbers exact;
    ``compact`` leaves out the spaces after ``,`` and ``:``."""
    out: list[str] = []
    _write(value, out, indent, 0, ":" if compact else ": ", "," if compact else ", ")
    return "".join(out)


def _write(
    value: Any, out: list[str], indent: int | None, depth: int, colon: str, comma: str
) -> None:
    if isinstance(value, Number):
        out.append(str.__str__(value))
    elif isinstance(value, Mapping):
        entries = [(json.dumps(str(k), ensure_ascii=False) + colon, v) for k, v in value.items()]
        _container(entries, "{}", out, indent, depth, colon, comma)
    elif isinstance(value, list | tuple):
        _container([("", v) for v in value], "[]", out, indent, depth, colon, comma)
    else:
        out.append(json.dumps(value, ensure_ascii=False))


def _container(
    entries: list[tuple[str, Any]],
    brackets: str,
    out: list[str],
    indent: int | None,
    depth: int,
    colon: str,
    comma: str,
) -> None:
    if not entries:
        out.append(brackets)
        return
    out.append(brackets[0])
    inner = "\n" + " " * (indent * (depth + 1)) if indent is not None else ""
    for position, (prefix, item) in enumerate(entries):
        if position:
            out.append("," if indent is not None else comma)
        out.append(inner + prefix)
        _write(item, out, indent, depth + 1, colon, comma)
    if indent is not None:
        out.append("\n" + " " * (indent * depth))
    out.append(brackets[1])
