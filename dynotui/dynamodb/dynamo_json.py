"""DynamoDB JSON in and out, lossless and strict, plus a plain-JSON view for people.

Inside dynotui items and keys are in the low-level client's shape
(``{"n": {"N": "1.50"}, "b": {"B": b"..."}}``). On the wire to users they are in
the AWS CLI's shape: identical except that binary is base64 text. What users type is
checked the way DynamoDB checks it, and refused, never coerced.
"""

from __future__ import annotations

import base64
import binascii
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from dynotui.core import json_input
from dynotui.core.errors import InputError
from dynotui.core.exact_json import Number
from dynotui.core.exact_json import dumps as exact_dumps

AttributeValue = dict[str, Any]
Item = dict[str, AttributeValue]

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
MAX_DIGITS = 38
MAX_NESTING = 32  # lists and maps inside one value: DynamoDB refuses a 33rd
SMALLEST = Decimal("1E-130")
LARGEST = Decimal("9.9999999999999999999999999999999999999E+125")


def number_problem(text: Any) -> str | None:
    """Why DynamoDB would refuse ``text`` as a number (N), or None if it accepts it."""
    if not isinstance(text, str) or not _NUMBER.fullmatch(text):
        return "is not a number"
    value = Decimal(text)
    if not value:
        return None
    # Significant digits, counted exactly: normalize() would round to the context's 28.
    digits = "".join(map(str, value.as_tuple().digits)).strip("0")
    if len(digits) > MAX_DIGITS:
        return f"has more than {MAX_DIGITS} significant digits"
    if value.copy_abs() > LARGEST:
        return "is too large (at most 9.99...E+125)"
    if value.copy_abs() < SMALLEST:
        return "is too small (at least 1E-130)"
    return None


def to_wire(value: Any) -> Any:
    """Low-level attribute values (or an item/key of them) to JSON-safe DynamoDB JSON."""
    if isinstance(value, dict):
        return {k: _value_to_wire(v) for k, v in value.items()}
    return value


def _value_to_wire(av: AttributeValue) -> AttributeValue:
    ((kind, inner),) = av.items()
    if kind == "B":
        return {"B": base64.b64encode(bytes(inner)).decode()}
    if kind == "BS":
        return {"BS": [base64.b64encode(bytes(b)).decode() for b in inner]}
    if kind == "M":
        return {"M": {k: _value_to_wire(v) for k, v in inner.items()}}
    if kind == "L":
        return {"L": [_value_to_wire(v) for v in inner]}
    return {kind: inner}


def from_wire(item: Any, what: str = "value") -> Item:
    """AWS CLI DynamoDB JSON (an item or a key) to the low-level client's shape."""
    if not isinstance(item, dict):
        raise InputError(f"{what} must be a JSON object of DynamoDB attribute values")
    return {str(k): value_from_wire(v, f"{what}.{k}") for k, v in item.items()}


def _base64(text: Any, where: str) -> bytes:
    if not isinstance(text, str):
        raise InputError(f"{where}: binary values are written as base64 strings")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise InputError(f"{where}: {text!r} is not valid base64") from None


def _unique(values: list[Any], key: Any, where: str, kind: str) -> None:
    seen = [key(v) for v in values]
    if len(set(seen)) != len(seen):
        raise InputError(f"{where}: a {kind} holds each value once; {values!r} repeats one")


def _set(inner: Any, where: str, kind: str) -> list[Any]:
    if not isinstance(inner, list) or not inner:
        raise InputError(f"{where}: {kind} is a non-empty JSON list")
    return inner


def value_from_wire(av: Any, where: str, nesting: int = 0) -> AttributeValue:
    if not isinstance(av, dict) or len(av) != 1:
        raise InputError(f'{where}: expected one typed value like {{"S": "x"}}, got {av!r}')
    ((kind, inner),) = av.items()
    if kind == "S":
        if not isinstance(inner, str):
            raise InputError(f"{where}: S values are written as JSON strings")
        return {"S": inner}
    if kind == "N":
        problem = number_problem(inner)
        if problem:
            raise InputError(f"{where}: {inner!r} is not a valid N value: it {problem}")
        return {"N": inner}
    if kind == "B":
        return {"B": _base64(inner, where)}
    if kind == "BOOL":
        if not isinstance(inner, bool):
            raise InputError(f"{where}: BOOL takes true or false, got {inner!r}")
        return {"BOOL": inner}
    if kind == "NULL":
        if inner is not True:
            raise InputError(f"{where}: NULL takes only true, got {inner!r}")
        return {"NULL": True}
    if kind == "SS":
        values = _set(inner, where, "SS")
        if not all(isinstance(v, str) for v in values):
            raise InputError(f"{where}: SS holds strings only")
        _unique(values, lambda v: v, where, "string set")
        return {"SS": list(values)}
    if kind == "NS":
        values = _set(inner, where, "NS")
        for value in values:
            problem = number_problem(value)
            if problem:
                raise InputError(f"{where}: {value!r} in NS is not a valid number: it {problem}")
        _unique(values, Decimal, where, "number set")
        return {"NS": list(values)}
    if kind == "BS":
        values = [_base64(v, where) for v in _set(inner, where, "BS")]
        _unique(values, lambda v: v, where, "binary set")
        return {"BS": values}
    if kind in ("M", "L") and nesting >= MAX_NESTING:
        raise InputError(
            f"{where.split('.')[0].split('[')[0]}: a value nests more than {MAX_NESTING} lists "
            "or maps, which DynamoDB refuses"
        )
    if kind == "M":
        if not isinstance(inner, dict):
            raise InputError(f"{where}: M takes a JSON object")
        return {
            "M": {str(k): value_from_wire(v, f"{where}.{k}", nesting + 1) for k, v in inner.items()}
        }
    if kind == "L":
        if not isinstance(inner, list):
            raise InputError(f"{where}: L takes a JSON list")
        return {
            "L": [value_from_wire(v, f"{where}[{i}]", nesting + 1) for i, v in enumerate(inner)]
        }
    raise InputError(f"{where}: unknown DynamoDB type {kind!r}")


def parse_wire_json(text: str, what: str) -> Item:
    return from_wire(json_input.loads(text, what), what)


def serialize(value: Any) -> AttributeValue:
    """A Python value (Decimal for numbers) as an attribute value, as boto3 types it."""
    from boto3.dynamodb.types import TypeSerializer

    try:
        return dict(TypeSerializer().serialize(value))
    except (TypeError, ValueError, InvalidOperation) as exc:
        raise InputError(f"{value!r} cannot be stored in DynamoDB: {exc}") from None


def plain(value: AttributeValue) -> Any:
    """One attribute value as plain JSON: numbers exact (``Number``), binary as base64,
    sets as sorted lists, maps and lists recursively."""
    ((kind, inner),) = value.items()
    if kind == "S" or kind == "BOOL":
        return inner
    if kind == "N":
        return Number(inner)
    if kind == "NULL":
        return None
    if kind == "B":
        return base64.b64encode(bytes(inner)).decode()
    if kind == "M":
        return {k: plain(v) for k, v in inner.items()}
    if kind == "L":
        return [plain(v) for v in inner]
    if kind == "SS":
        return sorted(inner)
    if kind == "NS":
        return [Number(n) for n in sorted(inner, key=Decimal)]
    if kind == "BS":
        return sorted(base64.b64encode(bytes(b)).decode() for b in inner)
    raise ValueError(f"unknown DynamoDB type {kind}")


def plain_item(item: Item) -> dict[str, Any]:
    return {k: plain(v) for k, v in item.items()}


def plain_text(value: AttributeValue) -> str:
    """One attribute value as text, exact (a CSV cell): a string as itself, a number as
    DynamoDB's digits, binary as base64, anything else as its plain JSON, compact
    (``true``, ``false``, ``null``, sets as sorted lists, maps and lists with exact numbers)."""
    ((kind, inner),) = value.items()
    if kind in ("S", "N"):
        return str(inner)
    if kind == "B":
        return base64.b64encode(bytes(inner)).decode()
    return exact_dumps(plain(value), compact=True)
