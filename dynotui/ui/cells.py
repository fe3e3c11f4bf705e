"""How a DynamoDB value fits in one grid cell: exact numbers, summarised nesting, and
every string made visible (no escape acts on the terminal)."""

from __future__ import annotations

import base64

from dynotui.core.text import visible
from dynotui.dynamodb.dynamo_json import AttributeValue, Item

NOT_PROJECTED = "· not projected"


def cell(value: AttributeValue | None, projected: bool = True) -> str:
    if value is None:
        return "" if projected else NOT_PROJECTED
    ((kind, inner),) = value.items()
    if kind == "S":
        return visible(inner)
    if kind == "N":
        return inner  # DynamoDB's own digits: never through float
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
