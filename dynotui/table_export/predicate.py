"""A DynamoDB condition (dynotui's own parse of it) as a DuckDB predicate over an export line.

Each line is ``{"Item": {name: {TYPE: value}}}``; the column ``doc`` holds it as JSON. An
attribute is reached by a JSON pointer (``/Item/name/M/child/L/0``), bound as a parameter
like every value: nothing the user typed is spliced into the SQL. The predicate keeps
DynamoDB's semantics of types, which SQL would not:

- a comparison holds only between operands of one type (a number never equals a string),
  and an operand that is missing makes it false; ``<>`` is NOT ``=``, so it holds for a
  missing operand, as on DynamoDB;
- numbers compare exactly (``dyn_nkey``: 38 digits, never a double), strings by their
  UTF-8 bytes, binary by unsigned bytes, sets as sets;
- every node is true or false, never NULL, so NOT is DynamoDB's NOT.

What it cannot translate exactly is refused by name (``InputError``), never approximated.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from dynotui.core.errors import InputError
from dynotui.dynamodb.condition import Tree

SCALARS = ("S", "N", "B", "BOOL", "NULL")
SETS = ("SS", "NS", "BS")
DOCUMENTS = ("M", "L")
KINDS = (*SCALARS, *SETS, *DOCUMENTS)
ORDERED = ("S", "N", "B")
ELEMENT = {"SS": "S", "NS": "N", "BS": "B"}
MAX_IN = 100  # DynamoDB's own bound on IN's operands
REFUSAL = "the export cannot answer this exactly"


def pointer(components: list[str | int]) -> str:
    """The JSON pointer of an attribute's typed value object in an export line."""
    parts = ["Item"]
    for position, component in enumerate(components):
        if isinstance(component, int):
            parts += ["L", str(component)]
        else:
            escaped = component.replace("~", "~0").replace("/", "~1")
            parts += [escaped] if position == 0 else ["M", escaped]
    return "/" + "/".join(parts)


@dataclass
class Params:
    """The statement's bound parameters: ``$p0``, ``$p1``..."""

    values: dict[str, Any] = field(default_factory=dict)
    _names: dict[str, str] = field(default_factory=dict)

    def bind(self, value: Any) -> str:
        """The parameter holding ``value``: one per distinct value."""
        known = repr(value)
        if known not in self._names:
            self._names[known] = name = f"p{len(self.values)}"
            self.values[name] = value
        return f"${self._names[known]}"


def _refuse(what: str) -> InputError:
    return InputError(f"{REFUSAL}: {what}; nothing was read")


class Operand:
    """One side of a condition, as SQL by DynamoDB type."""

    label = "an operand"

    def can(self, kind: str) -> bool:
        """Whether it may be of type ``kind`` at all."""
        raise NotImplementedError

    def of(self, kind: str) -> str:
        """SQL of its value when it is of type ``kind`` (NULL when it is not)."""
        raise NotImplementedError

    def present(self) -> str:
        raise NotImplementedError

    @property
    def kind(self) -> str | None:
        """Its one type, when known before reading (a value's)."""
        return None


class PathOperand(Operand):
    def __init__(self, components: list[str | int], params: Params, visible: bool) -> None:
        self.pointer = pointer(components)
        self.params = params
        self.visible = visible  # an index that does not project it holds nothing there
        self.label = _path_text(components)

    def can(self, kind: str) -> bool:
        return self.visible

    def of(self, kind: str) -> str:
        where = self.params.bind(f"{self.pointer}/{kind}")
        if kind in SETS:
            return f"CAST(json_extract(doc, {where}) AS VARCHAR[])"
        if kind in DOCUMENTS:
            return f"json_extract(doc, {where})"
        return f"json_extract_string(doc, {where})"

    def present(self) -> str:
        if not self.visible:
            return "false"
        return f"(json_extract(doc, {self.params.bind(self.pointer)}) IS NOT NULL)"


class ValueOperand(Operand):
    def __init__(self, wire: dict[str, Any], params: Params, name: str = "a value") -> None:
        ((self._kind, inner),) = wire.items()
        self.inner = inner
        self.params = params
        self.label = name

    @property
    def kind(self) -> str | None:
        return self._kind

    def can(self, kind: str) -> bool:
        return kind == self._kind

    def of(self, kind: str) -> str:
        if self._kind in DOCUMENTS:
            raise _refuse(f"{self.label} is a {self._kind} (a map or list compared whole)")
        if self._kind == "BOOL":
            return self.params.bind("true" if self.inner else "false")
        if self._kind == "NULL":
            return self.params.bind("true")
        if self._kind in SETS:
            return f"CAST({self.params.bind(list(self.inner))} AS VARCHAR[])"
        return self.params.bind(self.inner)

    def present(self) -> str:
        return "true"


class SizeOperand(Operand):
    """``size(path)``: a number, for a string (its length in UTF-16 code units), binary
    (bytes), a set, a list or a map (elements); none for a number, boolean or null."""

    def __init__(self, path: PathOperand) -> None:
        self.path = path
        self.label = f"size({path.label})"

    @property
    def kind(self) -> str | None:
        return "N"

    def can(self, kind: str) -> bool:
        return kind == "N" and self.path.visible

    def of(self, kind: str) -> str:
        p = self.path
        cases = [
            # UTF-16 code units, as DynamoDB Local measures it: a character past U+FFFF
            # counts two (a surrogate pair).
            f"WHEN {p.of('S')} IS NOT NULL THEN length({p.of('S')}) + "
            f"length(regexp_replace({p.of('S')}, '[^\\x{{10000}}-\\x{{10FFFF}}]', '', 'g'))",
            f"WHEN {p.of('B')} IS NOT NULL THEN octet_length(from_base64({p.of('B')}))",
            *(f"WHEN {p.of(k)} IS NOT NULL THEN len({p.of(k)})" for k in SETS),
            f"WHEN {p.of('M')} IS NOT NULL THEN len(json_keys({p.of('M')}))",
            f"WHEN {p.of('L')} IS NOT NULL THEN json_array_length({p.of('L')})",
        ]
        return f"CAST(CASE {' '.join(cases)} END AS VARCHAR)"

    def present(self) -> str:
        return f"({self.of('N')} IS NOT NULL)" if self.can("N") else "false"


def _sort_value(value: ValueOperand) -> Any:
    """A value's place in DynamoDB's order of its type (S, N or B, checked before)."""
    if value.kind == "N":
        return Decimal(value.inner)
    if value.kind == "B":
        return base64.b64decode(value.inner)
    return str(value.inner).encode()


def _path_text(components: list[str | int]) -> str:
    text = ""
    for component in components:
        text += f"[{component}]" if isinstance(component, int) else f".{component}"
    return text.lstrip(".")


def _false_if_null(sql: str) -> str:
    return f"coalesce({sql}, false)"


def _ordered(kind: str, left: str, op: str, right: str) -> str:
    if kind == "N":
        return f"(dyn_nkey({left}) {op} dyn_nkey({right}))"
    if kind == "B":
        return f"(from_base64({left}) {op} from_base64({right}))"
    return f"({left} {op} {right})"


def _equal(kind: str, left: str, right: str, refusal: Callable[[str], str]) -> str:
    if kind in ORDERED:
        return _ordered(kind, left, "=", right)
    if kind == "BOOL":
        return f"({left} = {right})"
    if kind == "NULL":
        return "true"
    if kind == "NS":
        return (
            f"(list_sort(list_transform({left}, e -> dyn_nkey(e))) = "
            f"list_sort(list_transform({right}, e -> dyn_nkey(e))))"
        )
    if kind in SETS:
        return f"(list_sort({left}) = list_sort({right}))"
    # Two maps (or lists) are equal when their contents are, numbers by value: that is
    # not JSON text equality, so an item that needs it stops the read in words. The
    # message depends on the row, so DuckDB raises it for such a row only.
    message = refusal("maps" if kind == "M" else "lists")
    return f"error(left(CAST({left} AS VARCHAR), 0) || {message})"


class Translator:
    """One condition tree to one SQL predicate; ``visible(name)`` says whether a top-level
    attribute can be read on this order (an index projects some)."""

    def __init__(self, params: Params, visible: Callable[[str], bool] = lambda _: True) -> None:
        self.params = params
        self.visible = visible

    def predicate(self, tree: Tree | None) -> str:
        return "true" if tree is None else self._node(tree)

    def _node(self, node: Tree) -> str:
        head = node[0]
        if head in ("and", "or"):
            joined = f" {head.upper()} ".join(self._node(child) for child in node[1])
            return f"({joined})"
        if head == "not":
            return f"(NOT {self._node(node[1])})"
        if head == "compare":
            return self.compare(node[1], self.operand(node[2]), self.operand(node[3]))
        if head == "between":
            return self.between(*(self.operand(o) for o in node[1:4]))
        if head == "in":
            if len(node[2]) > MAX_IN:
                raise InputError(f"IN takes at most {MAX_IN} operands, as in DynamoDB")
            left = self.operand(node[1])
            options = [self.compare("=", left, self.operand(o)) for o in node[2]]
            return f"({' OR '.join(options)})"
        if head == "function":
            return self.function(node[1], node[2])
        raise _refuse(f"the condition {head!r}")

    def operand(self, node: Tree) -> Operand:
        head = node[0]
        if head == "value":
            return ValueOperand(node[1], self.params)
        if head == "path":
            components = node[1]
            return PathOperand(components, self.params, self.visible(str(components[0])))
        if head == "size":
            path = self.operand(node[1])
            assert isinstance(path, PathOperand)
            return SizeOperand(path)
        raise _refuse(f"the operand {head!r}")

    def compare(self, op: str, left: Operand, right: Operand) -> str:
        if op in ("=", "<>"):
            kinds = [k for k in KINDS if left.can(k) and right.can(k)]
            label = f"{left.label} {op} {right.label}"

            def refusal(what: str) -> str:
                return self.params.bind(
                    f"{REFUSAL}: comparing two {what} whole ({label}); nothing was read"
                )

            cases = [
                f"(CASE WHEN {left.of(k)} IS NOT NULL AND {right.of(k)} IS NOT NULL "
                f"THEN {_equal(k, left.of(k), right.of(k), refusal)} ELSE false END)"
                for k in kinds
            ]
            equal = _false_if_null(f"({' OR '.join(cases)})") if cases else "false"
            # DynamoDB's <> is NOT =: true for a missing operand too (measured on
            # DynamoDB Local against its own Scan).
            return equal if op == "=" else f"(NOT {equal})"
        self._check_ordered(op, left, right)
        cases = [
            _ordered(k, left.of(k), op, right.of(k))
            for k in ORDERED
            if left.can(k) and right.can(k)
        ]
        return _false_if_null(f"({' OR '.join(cases)})") if cases else "false"

    def _check_ordered(self, op: str, *operands: Operand) -> None:
        for operand in operands:
            if operand.kind is not None and operand.kind not in ORDERED:
                raise InputError(
                    f"{op} compares strings, numbers or binary; {operand.label} is a "
                    f"{operand.kind}, which DynamoDB refuses too"
                )

    def between(self, value: Operand, low: Operand, high: Operand) -> str:
        self._check_ordered("BETWEEN", value, low, high)
        if isinstance(low, ValueOperand) and isinstance(high, ValueOperand):
            if low.kind != high.kind:
                raise InputError("BETWEEN's bounds are of two types, which DynamoDB refuses")
            if _sort_value(low) > _sort_value(high):
                raise InputError(
                    "BETWEEN needs the lower bound first: DynamoDB refuses a larger first bound"
                )
        cases = []
        for k in ORDERED:
            if not (value.can(k) and low.can(k) and high.can(k)):
                continue
            x, lo, hi = value.of(k), low.of(k), high.of(k)
            cases.append(f"({_ordered(k, lo, '<=', x)} AND {_ordered(k, x, '<=', hi)})")
        return _false_if_null(f"({' OR '.join(cases)})") if cases else "false"

    def function(self, name: str, arguments: list[Tree]) -> str:
        path = self.operand(arguments[0])
        assert isinstance(path, PathOperand)
        if name == "attribute_exists":
            return path.present()
        if name == "attribute_not_exists":
            return f"(NOT {path.present()})"
        operand = self.operand(arguments[1])
        if name == "attribute_type":
            return self._attribute_type(path, operand)
        if name == "begins_with":
            return self._begins_with(path, operand)
        if name == "contains":
            return self._contains(path, operand)
        raise _refuse(f"the function {name}()")

    def _attribute_type(self, path: PathOperand, operand: Operand) -> str:
        if not isinstance(operand, ValueOperand) or operand.kind != "S":
            raise InputError("attribute_type() takes a string value naming a type, e.g. :t")
        wanted = str(operand.inner)
        if wanted not in KINDS:
            raise InputError(
                f"attribute_type(): {wanted!r} is not a DynamoDB type ({', '.join(KINDS)})"
            )
        return f"({path.of(wanted)} IS NOT NULL)" if path.can(wanted) else "false"

    def _begins_with(self, path: PathOperand, operand: Operand) -> str:
        if operand.kind is not None and operand.kind not in ("S", "B"):
            raise InputError(
                f"begins_with() takes a string or binary; {operand.label} is a {operand.kind}"
            )
        cases = []
        if path.can("S") and operand.can("S"):
            cases.append(f"starts_with({path.of('S')}, {operand.of('S')})")
        if path.can("B") and operand.can("B"):
            # Hex text of whole bytes: a prefix of it is a prefix of the bytes.
            whole, start = path.of("B"), operand.of("B")
            cases.append(f"starts_with(hex(from_base64({whole})), hex(from_base64({start})))")
        return _false_if_null(f"({' OR '.join(cases)})") if cases else "false"

    def _contains(self, path: PathOperand, operand: Operand) -> str:
        if operand.kind in DOCUMENTS:
            raise _refuse(f"contains() of a {operand.kind} ({operand.label})")
        cases = []
        if path.can("S") and operand.can("S"):
            cases.append(f"contains({path.of('S')}, {operand.of('S')})")
        if path.can("B") and operand.can("B"):
            # Bytes within bytes: the operand's hex text at an even offset of the path's.
            whole, part = path.of("B"), operand.of("B")
            cases.append(
                f"regexp_matches(hex(from_base64({whole})), "
                f"'^(?:..)*?' || hex(from_base64({part})))"
            )
        for set_kind, element in ELEMENT.items():
            if not (path.can(set_kind) and operand.can(element)):
                continue
            members, wanted = path.of(set_kind), operand.of(element)
            if element == "N":
                keys = f"list_transform({members}, e -> dyn_nkey(e))"
                cases.append(f"list_contains({keys}, dyn_nkey({wanted}))")
            else:
                cases.append(f"list_contains({members}, {wanted})")
        for kind in SCALARS:
            if not (path.can("L") and operand.can(kind)):
                continue
            listed, wanted = path.of("L"), operand.of(kind)
            tag = self.params.bind(f"$.{kind}")
            elements = (
                f"list_transform(CAST({listed} AS JSON[]), e -> json_extract_string(e, {tag}))"
            )
            if kind == "N":
                elements = f"list_transform({elements}, e -> dyn_nkey(e))"
                wanted = f"dyn_nkey({wanted})"
            elif kind == "B":
                elements = f"list_transform({elements}, e -> from_base64(e))"
                wanted = f"from_base64({wanted})"
            cases.append(f"list_contains({elements}, {wanted})")
        return _false_if_null(f"({' OR '.join(cases)})") if cases else "false"
