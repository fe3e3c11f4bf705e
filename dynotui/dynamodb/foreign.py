"""Foreign cursors on DynamoDB: start keys and AWS CLI NextTokens others handed out.

What the JSON of a foreign cursor may be (``core.foreign`` has peeled off base64):

- a start key in DynamoDB JSON (``{"pk": {"S": "a"}, "sk": {"N": "3"}}``), as ``x``,
  ``dynotui pages`` and the AWS CLI write it, or in plain JSON (``{"pk": "a", "sk": 3}``),
  as ElectroDB and many hand-made APIs return it, typed here by the table's definitions;
- that key inside ``{"ExclusiveStartKey": ...}`` or ``{"LastEvaluatedKey": ...}``;
- a botocore paginator token, which is what the AWS CLI prints as ``NextToken``: base64
  of ``{"ExclusiveStartKey": key-or-null}`` with, when ``--max-items`` stopped part way
  into a page, ``"boto_truncate_amount": n`` (resume n items past that key), and, when
  the key holds binary, ``"boto_encoded_keys"`` (the paths botocore base64-encoded:
  binary key values, already base64 in DynamoDB JSON). See botocore's ``paginate.py``
  ``TokenEncoder``, ``TokenDecoder`` and ``PageIterator._truncate_response``.

A key is refused unless it fits the order being read: every key attribute of the order
(an index's keys and the table's), nothing else, each typed as AttributeDefinitions say,
and, for a Query, inside its key condition (DynamoDB refuses a start key outside it).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from dynotui.core.exact_json import Number
from dynotui.core.foreign import ForeignCursor, ForeignCursorError, ForeignStart, ForeignText
from dynotui.dynamodb.condition import conjuncts
from dynotui.dynamodb.dynamo_json import number_problem, to_wire
from dynotui.dynamodb.schema import KeyAttribute, SortOrder, TableSchema
from dynotui.dynamodb.source import QuerySource, start_key_from_json
from dynotui.dynamodb.spec import QuerySpec

NEXT_TOKEN = "AWS CLI NextToken"
DYNAMODB_JSON = "DynamoDB JSON start key"
PLAIN_JSON = "plain JSON start key"
WRAPPERS = {
    "ExclusiveStartKey": "ExclusiveStartKey",
    "LastEvaluatedKey": "LastEvaluatedKey",
}
BOTO_KEYS = ("boto_truncate_amount", "boto_encoded_keys")
TYPE_TAGS = frozenset({"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"})
MAX_SKIP = 1_000_000  # more items than one 1 MB response can hold
TYPE_WORDS = {"S": "a string (S)", "N": "a number (N)", "B": "binary (B)"}


def _typed(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in TYPE_TAGS


def _is_wrapper(data: dict[str, Any]) -> str | None:
    """The wrapping field's name if ``data`` is ``{"ExclusiveStartKey": key, ...}``.

    A table may name a key attribute ExclusiveStartKey: then its value is one typed value
    (``{"S": ...}``) or a scalar, never null or an object of attributes."""
    for name in WRAPPERS:
        if name in data and set(data) - {name} <= set(BOTO_KEYS):
            inner = data[name]
            if inner is None or (isinstance(inner, dict) and not _typed(inner)):
                return name
    return None


def _skip(value: Any) -> int:
    if value is None:
        return 0
    if not isinstance(value, Number) or not str.isdigit(value):
        raise ForeignCursorError(
            f"the NextToken's boto_truncate_amount is {value!r}, not a whole number of items"
        )
    # Compared by length first: int() refuses text past Python's digit limit (4,300).
    digits = value.lstrip("0") or "0"
    if len(digits) > len(str(MAX_SKIP)) or int(digits) > MAX_SKIP:
        amount = f"{int(digits):,}" if len(digits) <= 30 else f"a {len(digits):,}-digit number of"
        raise ForeignCursorError(
            f"the NextToken points {amount} items into a page; at most {MAX_SKIP:,} are read "
            "to pass over"
        )
    return int(digits)


def _check_encoded(paths: Any, key: Any, field: str) -> None:
    """botocore base64-encodes bytes and lists their paths: in a key, only B values."""
    if paths is None:
        return
    if not isinstance(paths, list):
        raise ForeignCursorError("the NextToken's boto_encoded_keys is not a list of paths")
    for path in paths:
        if (
            not isinstance(path, list)
            or len(path) != 3
            or path[0] != field
            or path[2] != "B"
            or not isinstance(key, dict)
            or not isinstance(key.get(path[1]), dict)
            or not isinstance(key[path[1]].get("B"), str)
        ):
            raise ForeignCursorError(
                f"the NextToken's boto_encoded_keys names {path!r}, which is not a binary key value"
            )


def unwrap(found: ForeignText) -> ForeignCursor:
    """What a foreign cursor's JSON says about where to start, without any schema."""
    data = found.data
    if isinstance(data, list):
        raise ForeignCursorError(
            "this cursor is a JSON list; a DynamoDB start key is a JSON object of key "
            "attributes (a list is how a PostgreSQL boundary row is written)"
        )
    if not isinstance(data, dict):
        raise ForeignCursorError("this cursor's JSON is not an object of key attributes")
    notes: list[str] = []
    skip = 0
    field = _is_wrapper(data)
    if field is not None:
        key = data[field]
        skip = _skip(data.get("boto_truncate_amount"))
        _check_encoded(data.get("boto_encoded_keys"), key, field)
        if data.get("boto_encoded_keys"):
            notes.append("Its binary key values were base64-encoded by botocore.")
        boto = any(name in data for name in BOTO_KEYS)
        producer = (
            NEXT_TOKEN
            if boto or (field == "ExclusiveStartKey" and found.encoding == "base64")
            else f"{field} object"
        )
        if key is None:
            if not skip:
                raise ForeignCursorError(
                    f"this {producer} holds no start key and no position: it points at the "
                    "start of the result, where page 1 already is"
                )
            return ForeignCursor(producer, found.wrapping, None, skip, tuple(notes))
    else:
        key, producer = data, ""
    if not isinstance(key, dict) or not key:
        raise ForeignCursorError("the start key is not an object of key attributes")
    typed = [name for name, value in key.items() if _typed(value)]
    if typed and len(typed) != len(key):
        untyped = sorted(set(key) - set(typed))
        raise ForeignCursorError(
            "the start key mixes DynamoDB JSON and plain values "
            f'({", ".join(untyped)} not typed like {{"S": "..."}})'
        )
    if not producer:
        producer = DYNAMODB_JSON if typed else PLAIN_JSON
    elif not typed:
        producer += " (plain JSON key)"
    return ForeignCursor(producer, found.wrapping, key, skip, tuple(notes))


def _mistyped(name: str, value: Any, want: str) -> str | None:
    """Why ``value`` (DynamoDB JSON or plain) is not a key value of type ``want``."""
    if _typed(value):
        ((kind, inner),) = value.items()
        if kind != want:
            return f"{name} is {kind}, the table defines it as {want}"
        # DynamoDB JSON writes every value as a string; a bare JSON number is still
        # exact for N (its digits are kept), and nothing else.
        if not isinstance(inner, str) or (isinstance(inner, Number) and kind != "N"):
            return f"{name}'s {kind} value is {_plain_kind(inner)}, not a JSON string"
    else:
        kind, inner = want, value
        if want == "N" and not isinstance(inner, Number):
            return f"{name} is {_plain_kind(inner)}, the table defines it as {TYPE_WORDS[want]}"
        if want != "N" and (isinstance(inner, Number) or not isinstance(inner, str)):
            return f"{name} is {_plain_kind(inner)}, the table defines it as {TYPE_WORDS[want]}" + (
                ", written as base64 text" if want == "B" else ""
            )
    if kind == "S" and not inner:
        return f"{name} is an empty string, which no key holds"
    if kind == "N":
        problem = number_problem(str(inner))
        if problem:
            return f"{name} is {inner!r}, which {problem}"
    if kind == "B":
        try:
            if not base64.b64decode(inner, validate=True):
                return f"{name} is empty binary, which no key holds"
        except (binascii.Error, ValueError):
            return f"{name} is not base64"
    return None


def _plain_kind(value: Any) -> str:
    if isinstance(value, Number):
        return "a JSON number"
    if isinstance(value, str):
        return "a JSON string"
    if isinstance(value, bool):
        return "a JSON boolean"
    if value is None:
        return "null"
    return "a JSON structure"


def _wire(value: Any, want: str) -> dict[str, str]:
    if _typed(value):
        return {want: str(next(iter(value.values())))}
    return {want: str(value)}


def _order_words(schema: TableSchema, order: SortOrder) -> str:
    if order.kind == "table":
        return f"table '{schema.name}'"
    return f"{order.kind.upper()} '{order.name}' of '{schema.name}'"


def _sort_value(value: Mapping[str, Any]) -> Any:
    ((kind, inner),) = value.items()
    if kind == "N":
        return Decimal(inner)
    if kind == "B":
        return base64.b64decode(inner)
    return str(inner).encode()


def _flip(operator: str) -> str:
    return {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(operator, operator)


def _holds(condition: list[Any], key: KeyAttribute, value: Mapping[str, Any]) -> bool | None:
    """Whether the start key's value meets one key condition term on ``key`` (None: the
    term tests another attribute)."""
    path = ["path", [key.name]]
    mine = _sort_value(value)
    if condition[0] == "compare":
        _, operator, left, right = condition
        if left == path and right[0] == "value":
            other = right[1]
        elif right == path and left[0] == "value":
            operator, other = _flip(operator), left[1]
        else:
            return None
        bound = _sort_value(other)
        met: bool = {
            "=": mine == bound,
            "<": mine < bound,
            "<=": mine <= bound,
            ">": mine > bound,
            ">=": mine >= bound,
        }.get(operator, True)
        return met
    if condition[0] == "between" and condition[1] == path:
        return bool(_sort_value(condition[2][1]) <= mine <= _sort_value(condition[3][1]))
    if condition[0] == "function" and condition[1] == "begins_with" and condition[2][0] == path:
        prefix = _sort_value(condition[2][1][1])
        return isinstance(mine, bytes) and mine.startswith(prefix)
    return None


def _outside(spec: QuerySpec, order: SortOrder, key: Mapping[str, Any]) -> str | None:
    """Why DynamoDB would refuse this start key for the Query's key condition, if it would."""
    if spec.scan or not spec.key_condition:
        return None
    tree = spec.trees()[0]
    for attribute in (order.partition_key, order.sort_key):
        if attribute is None:
            continue
        for condition in conjuncts(tree):
            if _holds(condition, attribute, key[attribute.name]) is False:
                shown = next(iter(key[attribute.name].values()))
                return (
                    f"its {attribute.name} is {shown!r}, outside this query's key condition "
                    "(the cursor belongs to another query)"
                )
    return None


def fit(cursor: ForeignCursor, schema: TableSchema, spec: QuerySpec) -> ForeignStart:
    """The cursor's key checked against the order ``spec`` reads, as a start key."""
    order = schema.order(spec.index)
    where = _order_words(schema, order)
    if cursor.key is None:
        return ForeignStart(cursor, None, None)
    expected = schema.cursor_key_names(spec.index)
    types = {name: schema.attribute_type(name) or "S" for name in expected}
    key = cursor.key
    problems = []
    missing = [f"{name} ({types[name]})" for name in expected if name not in key]
    extra = [name for name in key if name not in types]
    if missing:
        problems.append(f"missing {', '.join(missing)}")
    if extra:
        problems.append(f"extra {', '.join(sorted(extra))}")
    for name in expected:
        if name in key:
            problem = _mistyped(name, key[name], types[name])
            if problem:
                problems.append(problem)
    if problems:
        holds = (
            "its keys and the table's"
            if order.kind != "table"
            else "the partition key and the sort key"
        )
        raise ForeignCursorError(
            f"the {cursor.producer} does not fit {where}: {'; '.join(problems)} "
            f"(a start key there holds {holds}: {', '.join(expected)})"
        )
    wire = {name: _wire(key[name], types[name]) for name in expected}
    outside = _outside(spec, order, wire)
    if outside:
        raise ForeignCursorError(f"the {cursor.producer} does not fit {where}: {outside}")
    start_key = start_key_from_json(wire, schema, spec.index)
    return ForeignStart(cursor, start_key, to_wire(start_key))


class DynamoForeign:
    """The foreign-cursor reader for one Query or Scan (``core.foreign.ForeignReader``)."""

    def __init__(self, schema: TableSchema, spec: QuerySpec) -> None:
        self.schema = schema
        self.spec = spec

    def unwrap(self, found: ForeignText) -> ForeignCursor:
        return unwrap(found)

    def fit(self, cursor: ForeignCursor) -> ForeignStart:
        return fit(cursor, self.schema, self.spec)


def foreign_reader(source: Any) -> DynamoForeign | None:
    """The foreign-cursor reader for a DynamoDB source: a Query or Scan reads start keys;
    a PartiQL statement resumes only from NextTokens in dynotui's own signed tokens."""
    if isinstance(source, QuerySource):
        return DynamoForeign(source.schema, source.spec)
    return None
