"""How a DynamoDB value fits in one table cell: exact numbers, summarised nesting."""

from __future__ import annotations

import base64
from collections.abc import Iterable

from dynotui.core.dynamo_json import AttributeValue, Item

MAX_CELL = 28


def _clip(text: str, width: int = MAX_CELL) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def cell(value: AttributeValue | None, projected: bool = True) -> str:
    if value is None:
        return "" if projected else "· not projected"
    ((kind, inner),) = value.items()
    if kind == "S":
        return _clip(inner)
    if kind == "N":
        return inner  # DynamoDB's own digits: never through float
    if kind == "B":
        data = bytes(inner)
        return _clip(f"0x{data[:12].hex()}{'…' if len(data) > 12 else ''} ({len(data):,} B)")
    if kind == "BOOL":
        return "true" if inner else "false"
    if kind == "NULL":
        return "null"
    if kind == "M":
        return _clip("{" + ", ".join(inner) + "}") if len(inner) <= 4 else f"{{{len(inner)} keys}}"
    if kind == "L":
        return f"[{len(inner)} item{'' if len(inner) == 1 else 's'}]"
    if kind in ("SS", "NS"):
        return _clip("{" + ", ".join(sorted(inner)) + "}")
    if kind == "BS":
        return f"{{{len(inner)} binary}}"
    return _clip(str(inner))


def columns(
    items: Iterable[Item], key_names: tuple[str, ...], asked: tuple[str, ...] = ()
) -> list[str]:
    """Key columns first (index keys, then table keys), then the union of the rest and
    of what the projection asked for (so a non-projected attribute still has a column)."""
    seen = dict.fromkeys(key_names)
    rest: dict[str, None] = {name: None for name in asked if name not in seen}
    for item in items:
        for name in item:
            if name not in seen:
                rest[name] = None
    return [*seen, *sorted(rest)]


def key_text(key: Item | None, order: tuple[str, ...] = ()) -> str:
    """A start key in one line, in key-schema ``order``: ``customer=acme, order_no=1290``."""
    if not key:
        return "(start of the result)"
    parts = []
    names = [n for n in order if n in key] + [n for n in key if n not in order]
    for name in names:
        value = key[name]
        ((kind, inner),) = value.items()
        shown = base64.b64encode(bytes(inner)).decode() if kind == "B" else str(inner)
        parts.append(f"{name}={shown}")
    return ", ".join(parts)
