"""The entity attribute: the attribute a library writes on every item to name its entity.

Known names, in this order when several are present: ElectroDB ``__edb_e__``,
dynamodb-toolbox ``_et``, OneTable ``_type``, then the plain ``entity`` and ``type``. A
library's own name is trusted as it is; a plain name is an entity attribute only when its
values look like entity types (few, repeated), since ``type`` may as well hold a payment
method. The user's ``--entity-attribute NAME`` is trusted as it is.

An item's mark is its attribute's value when that is a string (or a number) of at most
``MAX_VALUE`` characters; anything else (a map, a huge string, an empty one) is no mark,
and the item is told apart by its keys instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

LIBRARY_NAMES = ("__edb_e__", "_et", "_type")  # ElectroDB, dynamodb-toolbox, OneTable
PLAIN_NAMES = ("entity", "type")
KNOWN_NAMES = LIBRARY_NAMES + PLAIN_NAMES
MAX_VALUE = 100  # characters of an entity type's name, at most
MAX_TYPES = 64  # distinct values of a plain name, at most, for an entity attribute


def mark_of(item: Mapping[str, Mapping[str, Any]], attribute: str) -> str | None:
    """The item's entity type by ``attribute``, or None."""
    value = item.get(attribute)
    if not isinstance(value, Mapping) or len(value) != 1:
        return None
    ((kind, inner),) = value.items()
    if kind not in ("S", "N") or not isinstance(inner, str):
        return None
    if not inner or len(inner) > MAX_VALUE:
        return None
    return inner


def choose_attribute(items: Iterable[Mapping[str, Mapping[str, Any]]]) -> str | None:
    """The known name that marks the most of these items (a plain name only when its
    values look like entity types), or None."""
    values: dict[str, Counter[str]] = {name: Counter() for name in KNOWN_NAMES}
    for item in items:
        for name in KNOWN_NAMES:
            if name in item:
                mark = mark_of(item, name)
                if mark is not None:
                    values[name][mark] += 1
    best: tuple[int, str] | None = None
    for name in KNOWN_NAMES:
        found = values[name]
        marked = sum(found.values())
        if not marked:
            continue
        if name in PLAIN_NAMES and (len(found) > MAX_TYPES or marked == len(found) > 1):
            continue
        if best is None or marked > best[0]:
            best = (marked, name)
    return best[1] if best else None
