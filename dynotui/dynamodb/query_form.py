"""The query form's fields as text, and the spec they make, with errors per field.

Kept out of the UI so that every rule about what a form may hold is tested without
a terminal, and the form widget only shows fields and errors.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from dynotui.core import json_input
from dynotui.core.errors import FieldError, InputError
from dynotui.core.numbers import is_whole
from dynotui.dynamodb.condition import conjuncts, parse_condition, tested_names
from dynotui.dynamodb.dynamo_json import from_wire, serialize, to_wire
from dynotui.dynamodb.expressions import auto_names
from dynotui.dynamodb.schema import BASE, SortOrder, TableSchema
from dynotui.dynamodb.spec import (
    DEFAULT_MAX_ROUNDS,
    DEFAULT_PAGE_SIZE,
    QuerySpec,
    from_expressions,
    from_key,
    typed_value,
)

CARRIED = ":was_partition"  # the placeholder of a partition key condition kept as a filter
JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
MAX_SEGMENTS = 64  # what dynotui runs at once: DynamoDB allows up to 1,000,000
DYNAMODB_TYPES = {"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}


@dataclass(frozen=True)
class QueryForm:
    order: str = BASE
    scan: bool = False
    partition_value: str = ""
    sort_operator: str = ""
    sort_value: str = ""
    sort_value2: str = ""
    filter: str = ""
    values: str = ""
    projection: str = ""
    descending: bool = False
    page_size: str = str(DEFAULT_PAGE_SIZE)
    mode: str = "raw"
    max_rounds: str = str(DEFAULT_MAX_ROUNDS)
    consistent_read: bool = False
    segments: str = "1"  # a Scan read in this many parallel segments, paged one at a time

    def with_(self, **changes: Any) -> QueryForm:
        return replace(self, **changes)


def _int(field: str, text: str, label: str) -> int:
    if not is_whole(text.strip()):  # ASCII digits only: int() reads "+5", "1_000" too
        raise FieldError(field, f"{label} must be a whole number (0-9), got {text!r}")
    return int(text.strip())


def parse_values(text: str) -> dict[str, Any]:
    """Filter values as JSON: DynamoDB JSON ({":r": {"S": "x"}}) or plain ({":r": "x"})."""
    if not text.strip():
        return {}
    try:
        data = json_input.loads(text, "values", parse_float=_Digits, parse_int=_Digits)
    except InputError as exc:
        raise FieldError("values", str(exc)) from None
    if not isinstance(data, dict):
        raise FieldError("values", 'values must be a JSON object like {":r": "RETURNED"}')
    values: dict[str, Any] = {}
    for name, value in data.items():
        if not name.startswith(":"):
            raise FieldError("values", f"value names start with ':', got {name!r}")
        if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in DYNAMODB_TYPES:
            try:
                values[name] = from_wire({name: value}, "values")[name]
            except InputError as exc:
                raise FieldError("values", str(exc)) from None
        else:
            values[name] = serialize(_numbers(value))
    return values


class _Digits(str):
    """A JSON number's text as written: every digit kept, and told apart from a JSON
    string ("123" is a string; 123 a number)."""


def _numbers(value: Any) -> Any:
    if isinstance(value, _Digits):
        return Decimal(value)
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    return value


def segment_count(form: QueryForm) -> int:
    """How many parallel segments the form asks for (1: none), checked at its field."""
    segments = _int("segments", form.segments or "1", "segments")
    if not 1 <= segments <= MAX_SEGMENTS:
        raise FieldError("segments", f"segments must be 1 to {MAX_SEGMENTS}, got {segments}")
    if segments > 1 and not form.scan:
        raise FieldError("segments", "segments split a Scan; a Query reads one key range in order")
    return segments


def build_spec(schema: TableSchema, form: QueryForm) -> QuerySpec:
    """The spec the form describes, validated; a FieldError names the field at fault."""
    order = schema.order(form.order)
    options: dict[str, Any] = {
        "page_size": _int("page_size", form.page_size, "page size"),
        "mode": form.mode,
        "max_rounds": _int("max_rounds", form.max_rounds, "max rounds"),
        "forward": not form.descending,
        "consistent_read": form.consistent_read,
    }
    values = parse_values(form.values)
    if form.scan:
        spec = from_expressions(
            schema.name,
            index=order.index_name,
            scan=True,
            filter=form.filter or None,
            projection=form.projection or None,
            values=values,
            **options,
        )
    else:
        if not form.partition_value:
            raise FieldError(
                "partition_value",
                f"give a value for the partition key '{order.partition_key.name}' "
                f"({order.partition_key.type}), or choose Scan",
            )
        sort_values = [form.sort_value] + (
            [form.sort_value2] if form.sort_operator == "BETWEEN" else []
        )
        spec = from_key(
            schema,
            index=order.index_name,
            partition_value=form.partition_value,
            sort_operator=form.sort_operator or None,
            sort_values=sort_values if form.sort_operator else [],
            filter=form.filter or None,
            projection=form.projection or None,
            filter_values=values,
            **options,
        )
    spec.validate(schema)
    segment_count(form)
    return spec


def _carried(old: SortOrder, new: SortOrder, form: QueryForm) -> tuple[str, str] | None:
    """The old order's partition key condition as a filter on the new order, where the
    new order does not key on that attribute (a filter may not test its keys): (filter
    text, its values as DynamoDB JSON), or None."""
    if form.scan or not form.partition_value or old.partition_key == new.partition_key:
        return None
    name = old.partition_key.name
    if name in new.key_names:
        return None
    try:
        value = typed_value(old.partition_key, form.partition_value, "partition key")
    except InputError:
        return None
    return f"{name} = {CARRIED}", carried_json(value)


def carried_json(value: dict[str, Any]) -> str:
    """A key value for the form's filter values, in the form's own plain JSON (its hint's
    format): a string as a JSON string, a number with its digits as typed; binary, which
    plain JSON cannot tell from a string (and a number JSON cannot spell, such as +5), as
    DynamoDB JSON."""
    ((kind, inner),) = value.items()
    if kind == "S":
        return json.dumps({CARRIED: inner}, ensure_ascii=False)
    if kind == "N" and JSON_NUMBER.fullmatch(inner):
        return f"{{{json.dumps(CARRIED)}: {inner}}}"
    return json.dumps({CARRIED: to_wire({"v": value})["v"]})


def for_order(form: QueryForm, schema: TableSchema, order_name: str) -> tuple[QueryForm, str]:
    """The form for another order of the same table, and a note on what changed.

    What still applies is kept: the partition value when the partition key is the same
    attribute, the filter and its values, the projection, page size, mode and rounds.
    The old partition key's condition, where the new order does not key on it, becomes a
    filter (the same items, read in another order). A Query's filter may not test the
    new order's key attributes (DynamoDB refuses it); then the filter is dropped, and an
    ``attribute = value`` condition on the new partition key becomes its partition value.
    """
    old, new = schema.order(form.order), schema.order(order_name)
    partition = form.partition_value if old.partition_key == new.partition_key else ""
    carried = _carried(old, new, form)
    changed = QueryForm(
        order=order_name,
        scan=form.scan,
        partition_value=partition,
        filter=form.filter,
        values=form.values,
        projection=form.projection,
        page_size=form.page_size,
        mode=form.mode,
        max_rounds=form.max_rounds,
    )
    notes: list[str] = []
    if not form.scan and form.filter.strip():
        try:
            text, names = auto_names(form.filter.strip(), {})
            typed = {k: to_wire({"v": v})["v"] for k, v in parse_values(form.values).items()}
            tree = parse_condition(text, names, typed, "filter")
        except InputError:
            tree = None
        tested = tested_names(tree) if tree is not None else set()
        keys = set(new.key_names)
        if tree is not None and tested & keys:
            for condition in conjuncts(tree):
                if (
                    condition[0] == "compare"
                    and condition[1] == "="
                    and condition[2] == ["path", [new.partition_key.name]]
                    and condition[3][0] == "value"
                    and not partition
                ):
                    ((kind, inner),) = condition[3][1].items()
                    if kind == new.partition_key.type and isinstance(inner, str):
                        partition = inner
            changed = changed.with_(filter="", values="", partition_value=partition)
            notes.append(
                f"The filter tests {', '.join(sorted(tested & keys))}, a key attribute of "
                f"'{order_name}', which DynamoDB allows only in the key condition: it was left "
                "out"
                + (
                    f" (its {new.partition_key.name} value is the partition value now)."
                    if partition
                    else "."
                )
            )
    if carried is not None:
        condition_text, value_json = carried
        kept, known = changed.filter.strip(), changed.values.strip()
        if known.endswith("}") and known[:-1].strip() not in ("{", ""):
            # The values as typed (their digits kept), with the carried one added.
            value_json = f"{known[:-1].rstrip()}, {value_json[1:]}"
        changed = changed.with_(
            filter=f"({kept}) AND {condition_text}" if kept else condition_text,
            values=value_json,
        )
        said = condition_text.replace(CARRIED, repr(form.partition_value))
        notes.append(
            f"The partition key condition {said} of '{old.name}' is a filter on "
            f"'{order_name}', which does not key on {old.partition_key.name}: the same items."
        )
    return changed, " ".join(notes)
