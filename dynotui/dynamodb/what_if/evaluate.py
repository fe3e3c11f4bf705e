"""A condition tree (``dynamodb/condition.py``) tested on an item, as DynamoDB tests it.

The estimate must know which items an imagined index would read and which of them its
filter keeps, without asking DynamoDB (the index does not exist). The semantics follow
DynamoDB's, checked against DynamoDB Local (``tests/test_what_if_evaluate.py`` runs every
case both ways): a missing attribute or a value of another type makes a comparison false,
except ``<>``, which is then true; strings order by their UTF-8 bytes, numbers by value,
binary by unsigned bytes; ``size()`` of a string counts its characters.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from dynotui.dynamodb.condition import Tree

Value = dict[str, Any]
_ORDERED = ("S", "N", "B")
_SETS = {"SS": "S", "NS": "N", "BS": "B"}


def _norm(value: Mapping[str, Any]) -> Value:
    """A tree's value (DynamoDB JSON, binary as base64) in the items' shape (bytes)."""
    ((kind, inner),) = value.items()
    if kind == "B" and isinstance(inner, str):
        return {"B": base64.b64decode(inner)}
    if kind == "BS":
        return {"BS": [base64.b64decode(b) if isinstance(b, str) else bytes(b) for b in inner]}
    return {kind: inner}


def order_key(value: Mapping[str, Any]) -> Any:
    """The value's order within its type."""
    ((kind, inner),) = value.items()
    if kind == "N":
        return Decimal(inner)
    if kind == "S":
        return inner.encode()
    return bytes(inner)


def _equal(a: Value, b: Value) -> bool:
    ((ka, va),) = a.items()
    ((kb, vb),) = b.items()
    if ka != kb:
        return False
    if ka in _ORDERED:
        return bool(order_key(a) == order_key(b))
    if ka in _SETS:
        element = _SETS[ka]
        return {order_key({element: x}) for x in va} == {order_key({element: x}) for x in vb}
    if ka == "L":
        return len(va) == len(vb) and all(_equal(x, y) for x, y in zip(va, vb, strict=True))
    if ka == "M":
        return va.keys() == vb.keys() and all(_equal(va[k], vb[k]) for k in va)
    return bool(va == vb)


def _resolve(item: Mapping[str, Any], components: list[Any]) -> Value | None:
    current: Any = {"M": item}
    for part in components:
        ((kind, inner),) = current.items()
        if isinstance(part, int):
            if kind != "L" or part >= len(inner):
                return None
            current = inner[part]
        else:
            if kind != "M" or part not in inner:
                return None
            current = inner[part]
    return dict(current)


def _operand(item: Mapping[str, Any], node: Tree) -> Value | None:
    kind = node[0]
    if kind == "value":
        return _norm(node[1])
    if kind == "path":
        return _resolve(item, node[1])
    if kind == "size":
        found = _resolve(item, node[1][1])
        if found is None:
            return None
        ((vkind, inner),) = found.items()
        if vkind == "S":
            return {"N": str(len(inner))}
        if vkind == "B":
            return {"N": str(len(bytes(inner)))}
        if vkind in _SETS or vkind in ("L", "M"):
            return {"N": str(len(inner))}
        return None
    raise ValueError(f"not an operand: {kind}")


def _compare(op: str, a: Value | None, b: Value | None) -> bool:
    if op == "<>":
        return a is None or b is None or not _equal(a, b)
    if a is None or b is None:
        return False
    if op == "=":
        return _equal(a, b)
    ((ka, _),) = a.items()
    ((kb, _),) = b.items()
    if ka != kb or ka not in _ORDERED:
        return False
    left, right = order_key(a), order_key(b)
    return bool(
        {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]
    )


def _function(item: Mapping[str, Any], name: str, arguments: list[Any]) -> bool:
    found = _resolve(item, arguments[0][1])
    if name == "attribute_exists":
        return found is not None
    if name == "attribute_not_exists":
        return found is None
    operand = _operand(item, arguments[1])
    if found is None or operand is None:
        return False
    ((kind, inner),) = found.items()
    ((okind, oinner),) = operand.items()
    if name == "attribute_type":
        return okind == "S" and kind == oinner
    if name == "begins_with":
        if kind != okind or kind not in ("S", "B"):
            return False
        return bool(order_key(found).startswith(order_key(operand)))
    if name == "contains":
        if kind in ("S", "B"):
            return kind == okind and order_key(operand) in order_key(found)
        if kind in _SETS:
            return _SETS[kind] == okind and any(
                order_key({okind: x}) == order_key(operand) for x in inner
            )
        if kind == "L":
            return any(_equal(dict(x), operand) for x in inner)
        return False
    raise ValueError(f"unknown function {name}")


def holds(tree: Tree | None, item: Mapping[str, Any]) -> bool:
    """Whether ``item`` (low-level attribute values) meets the condition (None: no condition)."""
    if tree is None:
        return True
    kind = tree[0]
    if kind == "and":
        return all(holds(child, item) for child in tree[1])
    if kind == "or":
        return any(holds(child, item) for child in tree[1])
    if kind == "not":
        return not holds(tree[1], item)
    if kind == "compare":
        return _compare(tree[1], _operand(item, tree[2]), _operand(item, tree[3]))
    if kind == "between":
        value = _operand(item, tree[1])
        return _compare(">=", value, _operand(item, tree[2])) and _compare(
            "<=", value, _operand(item, tree[3])
        )
    if kind == "in":
        value = _operand(item, tree[1])
        return any(_compare("=", value, _operand(item, option)) for option in tree[2])
    if kind == "function":
        return _function(item, tree[1], tree[2])
    raise ValueError(f"not a condition: {kind}")
