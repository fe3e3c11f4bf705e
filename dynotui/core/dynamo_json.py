"""DynamoDB JSON in and out, lossless, plus a plain-JSON view for people.

Inside dynotui items and keys are in the low-level client's shape
(``{"n": {"N": "1.50"}, "b": {"B": b"..."}}``). On the wire to users they are in
the AWS CLI's shape: identical except that binary is base64 text.
"""

from __future__ import annotations

import base64
import binascii
import json
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

from dynotui.core.errors import InputError

_deserializer = TypeDeserializer()
_serializer = TypeSerializer()

AttributeValue = dict[str, Any]
Item = dict[str, AttributeValue]


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
    return {str(k): _value_from_wire(v, f"{what}.{k}") for k, v in item.items()}


def _value_from_wire(av: Any, where: str) -> AttributeValue:
    if not isinstance(av, dict) or len(av) != 1:
        raise InputError(f'{where}: expected one typed value like {{"S": "x"}}, got {av!r}')
    ((kind, inner),) = av.items()
    try:
        if kind in ("S", "N"):
            if not isinstance(inner, str):
                raise InputError(f"{where}: {kind} values are written as JSON strings")
            if kind == "N":
                Decimal(inner)
            return {kind: inner}
        if kind == "B":
            return {"B": base64.b64decode(inner, validate=True)}
        if kind == "BOOL":
            if not isinstance(inner, bool):
                raise InputError(f"{where}: BOOL takes true or false")
            return {"BOOL": inner}
        if kind == "NULL":
            return {"NULL": True}
        if kind in ("SS", "NS"):
            return {kind: [str(x) for x in inner]}
        if kind == "BS":
            return {"BS": [base64.b64decode(x, validate=True) for x in inner]}
        if kind == "M":
            return {"M": {str(k): _value_from_wire(v, f"{where}.{k}") for k, v in inner.items()}}
        if kind == "L":
            return {"L": [_value_from_wire(v, f"{where}[{i}]") for i, v in enumerate(inner)]}
    except (ArithmeticError, binascii.Error, TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"{where}: {inner!r} is not a valid {kind} value") from exc
    raise InputError(f"{where}: unknown DynamoDB type '{kind}'")


def parse_wire_json(text: str, what: str) -> Item:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} is not valid JSON: {exc.msg} at character {exc.pos}") from exc
    return from_wire(data, what)


def serialize(value: Any) -> AttributeValue:
    return _serializer.serialize(value)


def to_python(item: Item) -> dict[str, Any]:
    return {k: _deserializer.deserialize(v) for k, v in item.items()}


def plain(value: Any) -> Any:
    """Deserialized values made JSON-safe: exact numbers, base64 binary, sets as sorted lists."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((plain(v) for v in value), key=str)
    if isinstance(value, Decimal):
        return _number(value)
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode()
    if hasattr(value, "value") and isinstance(value.value, bytes | bytearray):  # boto3 Binary
        return base64.b64encode(bytes(value.value)).decode()
    return value


def _number(value: Decimal) -> int | float | str:
    # A JSON number only where it is exact; otherwise the digits as a string.
    if value == value.to_integral_value():
        return int(value)
    as_float = float(value)
    return as_float if Decimal(repr(as_float)) == value else str(value)


def plain_item(item: Item) -> dict[str, Any]:
    return plain(to_python(item))
