"""How a DynamoDB value fits in one grid cell: exact numbers, summarised nesting, and
every string made visible (no escape acts on the terminal)."""

from __future__ import annotations

import base64
from decimal import Decimal, InvalidOperation

from dynotui.core.text import visible
from dynotui.dynamodb.dynamo_json import AttributeValue, Item

NOT_PROJECTED = "· not projected"


def cell(value: AttributeValue | None, projected: bool = True) -> str:
    if value is None:
        return "" if projected else NOT_PROJECTED
    ((kind, inner),) = value.items()
    if kind == "S":
        return visible(inner) if inner else EMPTY_STRING
    if kind == "N":
        return number_text(str(inner))
    if kind == "B":
        data = bytes(inner)
        return f"0x{data[:12].hex()}{'…' if len(data) > 12 else ''} ({len(data):,} B)"
    if kind == "BOOL":
        return "true" if inner else "false"
    if kind == "NULL":
        return "null"
    if kind == "M":
        keys = ", ".join(visible(k) for k in list(inner)[:4])
        return "{" + keys + "}" if len(inner) <= 4 else f"{{{len(inner)} keys}}"
    if kind == "L":
        return f"[{len(inner)} item{'' if len(inner) == 1 else 's'}]"
    if kind in ("SS", "NS"):
        return visible("{" + ", ".join(sorted(inner)[:20]) + "}")
    if kind == "BS":
        return f"{{{len(inner)} binary}}"
    return visible(str(inner))


LONG_NUMBER = 24  # digits up to this many are shown as they are: 10000 stays 10000
EMPTY_STRING = '""'  # an empty string, which is a value, unlike an absent attribute


def number_text(digits: str) -> str:
    """A DynamoDB number in a cell: its own digits, or, where those run past
    ``LONG_NUMBER``, the exact exponent form of the same number when it is shorter
    (``1E125``, ``-1E-20``): never rounded, never cut."""
    try:
        value = Decimal(digits)
    except InvalidOperation:
        return visible(digits)
    if len(digits) <= LONG_NUMBER:
        return digits
    sign, numerals, exponent = value.as_tuple()
    if not isinstance(exponent, int) or not any(numerals):
        return digits
    figures = "".join(map(str, numerals)).rstrip("0")
    power = exponent + len(numerals) - 1
    mantissa = figures[0] + ("." + figures[1:] if len(figures) > 1 else "")
    exact = f"{'-' if sign else ''}{mantissa}E{power}"
    return exact if len(exact) < len(digits) else digits


def key_text(key: Item | None, order: tuple[str, ...] = ()) -> str:
    """A start key in one line, in key-schema ``order``: ``customer=acme, order_no=1290``."""
    if not key:
        return "(start of the result)"
    parts = []
    names = [n for n in order if n in key] + [n for n in key if n not in order]
    for name in names:
        ((kind, inner),) = key[name].items()
        shown = base64.b64encode(bytes(inner)).decode() if kind == "B" else str(inner)
        parts.append(f"{visible(name)}={visible(shown)}")
    return ", ".join(parts)
