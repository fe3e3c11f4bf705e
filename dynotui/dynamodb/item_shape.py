"""How DynamoDB items are written out as a file (``core/export.py`` writes them): the shape
both ``dynotui pages --format`` and the app's export use, so it lives below them both."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynotui.core.exact_json import dumps as exact_dumps
from dynotui.core.export import ItemShape
from dynotui.core.text import safe_json, safe_json_text
from dynotui.dynamodb.dynamo_json import plain_item, plain_text, to_wire


def dynamo_shape(key_names: tuple[str, ...], plain: bool) -> ItemShape:
    """CSV cells of exact text; JSON as DynamoDB JSON, or plain JSON with ``plain`` (its
    numbers with DynamoDB's own digits)."""

    def as_json(item: Mapping[str, Any]) -> str:
        if plain:
            return safe_json_text(exact_dumps(plain_item(dict(item))))
        return safe_json(to_wire(item))

    return ItemShape(key_names, plain_text, as_json)
