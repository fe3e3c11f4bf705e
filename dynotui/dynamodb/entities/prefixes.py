"""Key prefixes: ``CUSTOMER#`` of ``CUSTOMER#42``, and the separator a key attribute uses.

A prefix is a name (a letter or ``$`` first, then letters, digits, ``$ . _ -``) followed by
one of the known separators; a value that starts with the separator keeps it
(``#META#1`` has the prefix ``#META#``). A value with no separator at all is a *marker*
when it is a name without digits (``PROFILE``, ``METADATA``): a constant sort key that
tells an entity apart as much as a prefix does; anything else (``7f3a-...``, ``42``,
``alice@example.com``) has no prefix.

Which separator a key attribute uses is found from its values: the one that gives the
most values a prefix, among those whose prefixes look like a design (few, and repeated);
none when no separator does.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

SEPARATORS = ("#", "|", ":", "_")
MAX_NAME = 64  # characters of a prefix's name
MAX_PREFIXES = 64  # distinct prefixes of one key attribute, at most, for a design
_NAME = re.compile(r"[A-Za-z$][A-Za-z0-9$._\-]*")
_MARKER = re.compile(r"[A-Za-z$][A-Za-z$._\-]*")


def prefix_of(value: str, separator: str | None, markers: bool = True) -> str | None:
    """The value's prefix with its separator (``ORDER#``), the whole value when it is a
    marker (``PROFILE``, unless ``markers`` is False), or None."""
    if separator is not None:
        lead = separator if value.startswith(separator) else ""
        rest = value[len(lead) : len(lead) + MAX_NAME + 1]
        cut = rest.find(separator)
        if cut > 0:
            name = rest[:cut]
            return lead + name + separator if _NAME.fullmatch(name) else None
        if cut == 0 or lead or separator in value:
            return None  # two separators in a row, or a name too long to be one
    if markers and len(value) <= MAX_NAME and _MARKER.fullmatch(value):
        return value
    return None


def is_marker(prefix: str, separator: str | None) -> bool:
    return separator is None or not prefix.endswith(separator)


def prefix_name(prefix: str, separator: str | None) -> str:
    """How a prefix is named: without its separators (``ORDER`` of ``ORDER#``)."""
    if separator is None or is_marker(prefix, separator):
        return prefix
    return prefix.strip(separator) or prefix


def choose_separator(values: Iterable[str]) -> str | None:
    """The separator these values use for their prefixes, or None (no prefixes).

    Each separator is scored by how many values it gives a prefix ending in it; it
    qualifies when its prefixes (markers included) are at most ``MAX_PREFIXES`` distinct
    and some repeat, as the entity types of a design do (unique heads, like the user
    names of ``alice_smith@…`` keys, are not a design). Ties go to the earlier separator
    in ``SEPARATORS``."""
    seen = list(values)
    best: tuple[int, str] | None = None
    for separator in SEPARATORS:
        found = Counter(p for p in (prefix_of(v, separator) for v in seen) if p is not None)
        score = sum(n for p, n in found.items() if not is_marker(p, separator))
        if score == 0 or len(found) > MAX_PREFIXES:
            continue
        repeats = sum(found.values()) - len(found)
        if repeats == 0 and sum(found.values()) > 1:
            continue
        if best is None or score > best[0]:
            best = (score, separator)
    return best[1] if best else None


def markers_only(values: Iterable[str]) -> bool:
    """Values with no separator that are all markers, few and repeated (``PROFILE``,
    ``SETTINGS``): a design without separators."""
    found = Counter(prefix_of(v, None) for v in values)
    if not found or None in found or len(found) > MAX_PREFIXES:
        return False
    return sum(found.values()) > len(found)
