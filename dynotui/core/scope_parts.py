"""A cursor scope's parts, each named, so a refused cursor says which part differs.

A scope is canonical JSON (``spec.scope()`` and the like): an object whose keys are its
parts (table, index, key condition, filter, direction...). An expression tree holds its
values as ``["value", v]`` nodes: its shape and its values are two parts, so changing
``:r`` from RETURNED to PLACED reads "the filter's values differ", not "the filter".

A token carries a short digest of each part, keyed with the signing secret (a value's
digest must not let anyone holding the token test guesses of a filter value). On a scope
refusal the parts are compared with each secret this machine has; a token from another
machine matches none, and gets the general sentence.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from typing import Any

_DOMAIN = b"dynotui-scope-part"
DIGEST_LENGTH = 8  # characters of base64url: 48 bits, enough to tell two parts apart
VALUES = " values"
# Each part as a refusal names it, in the order it names them; a part not listed is named
# by its key, after these.
WORDS = {
    "source": "database",
    "export": "export",
    "table": "table",
    "index": "index (order)",
    "order": "order",
    "op": "operation (Query or Scan)",
    "key": "key condition",
    "key" + VALUES: "key condition's values",
    "filter": "filter",
    "filter" + VALUES: "filter's values",
    "forward": "direction",
    "segment": "segment",
    "statement": "statement",
    "parameters": "parameters",
    "consistent": "consistent read",
    "where": "filter",
    "params": "filter's parameters",
    "projection": "columns",
    "mode": "mode",
}
GENERAL = "table, order, key condition, filter or direction differ"


def _split(value: Any, values: list[Any]) -> Any:
    """``value`` with each ``["value", v]`` node's ``v`` taken out into ``values``."""
    if isinstance(value, list):
        if len(value) == 2 and value[0] == "value":
            values.append(value[1])
            return ["value"]
        return [_split(item, values) for item in value]
    if isinstance(value, dict):
        return {name: _split(item, values) for name, item in value.items()}
    return value


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def parts(scope: str) -> dict[str, str]:
    """Each part of ``scope`` as canonical JSON, by name; empty when it is not an object
    (then no part is named). A nested object (an export's query) gives its own parts;
    the outer ones win a name both have."""
    try:
        data = json.loads(scope)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    flat: dict[str, Any] = {}
    for name, value in data.items():
        if isinstance(value, dict):
            for inner, item in value.items():
                flat.setdefault(inner, item)
        else:
            flat[name] = value
    found: dict[str, str] = {}
    try:
        for name, value in flat.items():
            values: list[Any] = []
            found[name] = _canonical(_split(value, values))
            if values:
                found[name + VALUES] = _canonical(values)
    except RecursionError:
        return {}
    return found


def digests(secret: bytes, scope: str) -> dict[str, str]:
    """Each part's keyed digest, by name: what a token carries."""
    out = {}
    for name, text in parts(scope).items():
        message = b"\n".join([_DOMAIN, name.encode(), text.encode()])
        mac = hmac.new(secret, message, hashlib.sha256).digest()
        out[name] = base64.urlsafe_b64encode(mac).decode("ascii")[:DIGEST_LENGTH]
    return out


def differing(carried: Mapping[str, Any], scope: str, secrets: Iterable[bytes]) -> list[str]:
    """The names of the parts in which a token's scope (``carried``: its digests) differs
    from ``scope``, with the first of ``secrets`` under which any part agrees; empty when
    none does (another machine's token, or one without digests)."""
    for secret in secrets:
        ours = digests(secret, scope)
        if not any(carried.get(name) == digest for name, digest in ours.items()):
            continue
        names = [*WORDS, *sorted(set(ours) | set(carried) - set(WORDS))]
        return [name for name in names if carried.get(name) != ours.get(name)]
    return []


def words(names: Iterable[str]) -> str:
    """``["table", "filter values"]`` as "table and filter's values"."""
    said = list(dict.fromkeys(WORDS.get(name, name) for name in names))
    if len(said) == 1:
        return said[0]
    return ", ".join(said[:-1]) + " and " + said[-1]
