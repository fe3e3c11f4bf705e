"""What to read: one Query or Scan, validated against the table's schema before any call.

A ``QuerySpec`` holds resolved expressions (placeholders for every attribute name),
so it yields both the boto3 parameters and a canonical **scope** string: the
identity of the result set that cursors are bound to.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any, Literal

from dynotui.core.errors import FieldError, InputError
from dynotui.dynamodb.condition import Tree, canonical, conjuncts, parse_condition
from dynotui.dynamodb.dynamo_json import AttributeValue, Item, number_problem, to_wire
from dynotui.dynamodb.expressions import auto_names, check_placeholders, placeholders
from dynotui.dynamodb.schema import KeyAttribute, SortOrder, TableSchema

# The query form's field for each expression and key role: an error lands beside it.
FORM_FIELDS = {"key condition": "partition_value", "filter": "filter", "projection": "projection"}
ROLE_FIELDS = {"partition key": "partition_value", "sort key": "sort_value"}

Mode = Literal["raw", "fill"]
PAGE_SIZE_MAX = 1000
DEFAULT_PAGE_SIZE = 25
DEFAULT_MAX_ROUNDS = 5
MAX_ROUNDS_LIMIT = 100
SORT_OPERATORS = ("=", "<", "<=", ">", ">=", "BETWEEN", "begins_with")
MAX_TOTAL_SEGMENTS = 1_000_000  # DynamoDB's own bound on TotalSegments


@dataclass(frozen=True)
class QuerySpec:
    table: str
    index: str | None = None
    scan: bool = False
    key_condition: str | None = None
    filter: str | None = None
    projection: str | None = None
    names: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, AttributeValue] = field(default_factory=dict)
    forward: bool = True
    page_size: int = DEFAULT_PAGE_SIZE
    mode: Mode = "raw"
    max_rounds: int = DEFAULT_MAX_ROUNDS
    consistent_read: bool = False
    # One segment of a parallel Scan: Segment (from 0) of TotalSegments; its own scope.
    segment: int | None = None
    total_segments: int | None = None
    # What the user typed, by field: (the text with placeholders, the text as typed).
    # Errors quote the typed text, with positions in it, not dynotui's rewriting.
    typed: Mapping[str, tuple[str, str]] = field(default_factory=dict, compare=False, repr=False)

    def with_(self, **changes: Any) -> QuerySpec:
        return replace(self, **changes)

    @property
    def operation(self) -> str:
        return "scan" if self.scan else "query"

    def expressions(self) -> dict[str, str | None]:
        return {
            "key condition": self.key_condition,
            "filter": self.filter,
            "projection": self.projection,
        }

    def check_options(self) -> None:
        """The checks that need no schema: page size, rounds, mode, placeholders."""
        if not isinstance(self.page_size, int) or not 1 <= self.page_size <= PAGE_SIZE_MAX:
            raise FieldError(
                "page_size", f"page size must be 1 to {PAGE_SIZE_MAX}, got {self.page_size}"
            )
        if not 1 <= self.max_rounds <= MAX_ROUNDS_LIMIT:
            raise FieldError(
                "max_rounds", f"max rounds must be 1 to {MAX_ROUNDS_LIMIT}, got {self.max_rounds}"
            )
        if self.mode not in ("raw", "fill"):
            raise FieldError("mode", f"mode must be 'raw' or 'fill', got '{self.mode}'")
        if self.scan and self.key_condition:
            raise FieldError(
                "scan", "a Scan takes no key condition; use a filter, or make it a Query"
            )
        self._check_segment()
        check_placeholders(self.expressions(), self.names, self.values, FORM_FIELDS)
        self.trees()  # a syntax error is named here, before any call

    def _check_segment(self) -> None:
        if self.segment is None and self.total_segments is None:
            return
        if not self.scan:
            raise FieldError("scan", "segments split a Scan; a Query reads one key range in order")
        total, segment = self.total_segments, self.segment
        if total is None or segment is None or not 1 <= total <= MAX_TOTAL_SEGMENTS:
            raise FieldError(
                "scan", f"a Scan's segment needs a total of 1 to {MAX_TOTAL_SEGMENTS:,} segments"
            )
        if not 0 <= segment < total:
            raise FieldError("scan", f"segment {segment} is not one of 0 to {total - 1}")

    def validate(self, schema: TableSchema) -> SortOrder:
        """Refuse, with a sentence naming the field, anything DynamoDB would refuse."""
        self.check_options()
        order = schema.order(self.index)
        refusal = order.consistent_read_refusal()
        if self.consistent_read and refusal:
            raise FieldError("consistent_read", refusal)
        if not self.scan:
            if not self.key_condition:
                raise FieldError(
                    "partition_value",
                    f"a Query on '{order.name}' needs a key condition on its partition key "
                    f"'{order.partition_key.name}' (or choose Scan)",
                )
            used = {self.names.get(n, n) for n in placeholders(self.key_condition)[0]}
            if order.partition_key.name not in used:
                raise FieldError(
                    "partition_value",
                    f"the key condition must test the partition key "
                    f"'{order.partition_key.name}' of '{order.name}' with '='",
                )
        return order

    def request(self, schema: TableSchema, start_key: Item | None, limit: int) -> dict[str, Any]:
        """boto3 parameters for one call from ``start_key``."""
        params: dict[str, Any] = {
            "TableName": self.table,
            "Limit": limit,
            "ReturnConsumedCapacity": "INDEXES",
        }
        if self.index:
            params["IndexName"] = self.index
        if self.key_condition:
            params["KeyConditionExpression"] = self.key_condition
        if self.filter:
            params["FilterExpression"] = self.filter
        names = dict(self.names)
        if self.projection:
            params["ProjectionExpression"] = self._projection_with_keys(schema, names)
        if names:
            params["ExpressionAttributeNames"] = names
        if self.values:
            params["ExpressionAttributeValues"] = dict(self.values)
        if not self.scan and not self.forward:
            params["ScanIndexForward"] = False
        if self.consistent_read:
            params["ConsistentRead"] = True
        if self.segment is not None:
            params["Segment"] = self.segment
            params["TotalSegments"] = self.total_segments
        if start_key:
            params["ExclusiveStartKey"] = start_key
        return params

    def _projection_with_keys(self, schema: TableSchema, names: dict[str, str]) -> str:
        # Key attributes are always fetched: the next start key is derived from the last
        # item shown, and a projection without them would make that impossible.
        assert self.projection is not None
        paths = [p.strip() for p in self.projection.split(",")]
        tops = {names.get(p.split(".")[0].split("[")[0], p) for p in paths}
        by_name = {v: k for k, v in names.items()}
        for key in schema.cursor_key_names(self.index):
            if key not in tops:
                placeholder = by_name.get(key) or f"#key_{len(names)}"
                names[placeholder] = key
                paths.append(placeholder)
        return ", ".join(paths)

    def projected_names(self) -> tuple[str, ...]:
        """The top-level attribute names the projection asks for (none: all of them)."""
        if not self.projection:
            return ()
        tops = (p.strip().split(".")[0].split("[")[0] for p in self.projection.split(","))
        return tuple(dict.fromkeys(self.names.get(t, t) for t in tops))

    def trees(self) -> tuple[Tree | None, Tree | None]:
        """The key condition and the filter as canonical trees (names and values resolved)."""
        values = {k: to_wire({"v": v})["v"] for k, v in self.values.items()}
        return tuple(  # type: ignore[return-value]
            self._parse(text, values, field) if text else None
            for field, text in (("key condition", self.key_condition), ("filter", self.filter))
        )

    def _parse(self, text: str, values: Mapping[str, Any], field: str) -> Tree:
        try:
            try:
                return parse_condition(text, self.names, values, field)
            except InputError:
                rewritten, as_typed = self.typed.get(field, (None, None))
                if rewritten == text and as_typed is not None:
                    # Bare names parse as names, so the typed text fails at the same token.
                    parse_condition(as_typed, self.names, values, field)
                raise
        except FieldError:
            raise
        except InputError as exc:
            raise FieldError(FORM_FIELDS[field], str(exc)) from None

    def scope(self) -> str:
        """The canonical identity of the result set: table, index, conditions with their
        values, direction, as canonical JSON of the parsed expressions, so spelling,
        spacing and placeholder names do not change it and no name can pose as syntax."""
        key, filter_tree = self.trees()
        identity: dict[str, Any] = {
            "source": "dynamodb",
            "table": self.table,
            "index": self.index or "",
            "op": self.operation,
            "key": key,
            "filter": filter_tree,
            "forward": True if self.scan else self.forward,
        }
        if self.segment is not None:  # a segment's key opens no other segment
            identity["segment"] = [self.segment, self.total_segments]
        return canonical(identity)

    def conditions(self) -> frozenset[str]:
        """Every condition an item must meet, key condition and filter together: two
        queries with the same conditions read the same result set in another order."""
        key, filter_tree = self.trees()
        return frozenset(canonical(c) for c in [*conjuncts(key), *conjuncts(filter_tree)])


def from_expressions(
    table: str,
    *,
    index: str | None = None,
    scan: bool = False,
    key_condition: str | None = None,
    filter: str | None = None,
    projection: str | None = None,
    names: Mapping[str, str] | None = None,
    values: Mapping[str, AttributeValue] | None = None,
    **options: Any,
) -> QuerySpec:
    """A spec from AWS-CLI-style expressions; bare attribute names get placeholders."""
    all_names = dict(names or {})
    resolved: dict[str, Any] = {}
    typed: dict[str, tuple[str, str]] = {}
    for field_name, label, expression in (
        ("key_condition", "key condition", key_condition),
        ("filter", "filter", filter),
        ("projection", "projection", projection),
    ):
        if expression and expression.strip():
            resolved[field_name], all_names = auto_names(expression.strip(), all_names)
            typed[label] = (resolved[field_name], expression.strip())
        else:
            resolved[field_name] = None
    return QuerySpec(
        table=table,
        index=index,
        scan=scan,
        names=all_names,
        values=dict(values or {}),
        typed=typed,
        **resolved,
        **options,
    )


def typed_value(key: KeyAttribute, text: str, role: str) -> AttributeValue:
    """A key value typed by its attribute definition: S as is, N checked, B from base64."""
    field = ROLE_FIELDS.get(role, "partition_value")
    if key.type == "N":
        problem = number_problem(text.strip())
        if problem:
            raise FieldError(field, f"{role} '{key.name}' is a number (N): {text!r} {problem}")
        return {"N": text.strip()}
    if key.type == "B":
        try:
            return {"B": base64.b64decode(text.strip(), validate=True)}
        except (binascii.Error, ValueError) as exc:
            raise FieldError(
                field, f"{role} '{key.name}' is binary (B): give it as base64, {text!r} is not"
            ) from exc
    if text == "":
        raise FieldError(field, f"{role} '{key.name}' is a string (S) and may not be empty")
    return {"S": text}


def _sort_bytes(value: AttributeValue) -> Any:
    ((kind, inner),) = value.items()
    if kind == "N":
        return Decimal(inner)
    return inner.encode() if kind == "S" else bytes(inner)


def key_condition(
    order: SortOrder,
    partition_value: str,
    sort_operator: str | None = None,
    sort_values: Sequence[str] = (),
) -> tuple[str, dict[str, str], dict[str, AttributeValue]]:
    """A key condition expression from form fields, typed by the order's key schema."""
    names = {"#pk": order.partition_key.name}
    values = {":pk": typed_value(order.partition_key, partition_value, "partition key")}
    expression = "#pk = :pk"
    if not sort_operator:
        return expression, names, values
    if order.sort_key is None:
        raise FieldError(
            "sort_value", f"'{order.name}' has no sort key: leave the sort condition empty"
        )
    if sort_operator not in SORT_OPERATORS:
        raise FieldError(
            "sort_value", f"sort key operator must be one of {', '.join(SORT_OPERATORS)}"
        )
    wanted = 2 if sort_operator == "BETWEEN" else 1
    if len(sort_values) != wanted:
        raise FieldError("sort_value", f"{sort_operator} on the sort key takes {wanted} value(s)")
    sort = order.sort_key
    names["#sk"] = sort.name
    typed = [typed_value(sort, v, "sort key") for v in sort_values]
    if sort_operator == "BETWEEN":
        if _sort_bytes(typed[0]) > _sort_bytes(typed[1]):
            raise FieldError(
                "sort_value", "BETWEEN needs the lower bound first: the first value is larger"
            )
        values[":sk1"], values[":sk2"] = typed
        expression += " AND #sk BETWEEN :sk1 AND :sk2"
    elif sort_operator == "begins_with":
        if sort.type == "N":
            raise FieldError(
                "sort_value", f"begins_with works on strings and binary; '{sort.name}' is a number"
            )
        values[":sk"] = typed[0]
        expression += " AND begins_with(#sk, :sk)"
    else:
        values[":sk"] = typed[0]
        expression += f" AND #sk {sort_operator} :sk"
    return expression, names, values


def from_key(
    schema: TableSchema,
    *,
    index: str | None = None,
    partition_value: str,
    sort_operator: str | None = None,
    sort_values: Sequence[str] = (),
    filter: str | None = None,
    projection: str | None = None,
    filter_names: Mapping[str, str] | None = None,
    filter_values: Mapping[str, AttributeValue] | None = None,
    **options: Any,
) -> QuerySpec:
    """A Query spec from form fields: a typed key condition plus an optional filter."""
    order = schema.order(index)
    expression, names, values = key_condition(order, partition_value, sort_operator, sort_values)
    clash = set(values) & set(filter_values or {})
    if clash:
        raise FieldError(
            "values", f"{', '.join(sorted(clash))} is reserved for the key condition; rename it"
        )
    return from_expressions(
        schema.name,
        index=order.index_name,
        key_condition=expression,
        filter=filter,
        projection=projection,
        names={**names, **(filter_names or {})},
        values={**values, **(filter_values or {})},
        **options,
    )
