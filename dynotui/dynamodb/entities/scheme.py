"""The rule each item answers to, and the scheme that gives every item its rule.

A scheme is decided once, from the first items read (``decide``): which entity attribute
is in use (if any) and which separator each key attribute uses (if any). Each item then
has one rule (``Scheme.rule_of``), in this order:

1. its entity attribute's value (``_et = "Order"``), when the item carries one;
2. else the prefixes of its partition and sort keys (``CUSTOMER#`` / ``ORDER#``), as a
   pair: the same sort prefix under two partition prefixes is two entities;
3. else no prefix: one group of the items with no mark at all.

Keys of type N or B have no prefix. Items are never read twice to decide: a scheme from a
sample names the entity of any later item, so the app can mark rows page by page.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from dynotui.core.text import visible
from dynotui.dynamodb.entities.marks import choose_attribute, mark_of
from dynotui.dynamodb.entities.prefixes import (
    choose_separator,
    is_marker,
    markers_only,
    prefix_name,
    prefix_of,
)

RuleKind = Literal["attribute", "keys", "rest"]
NO_PREFIX = "(no prefix)"
ALL_ITEMS = "(all items)"
OTHER = "(other)"
MAX_MADE = 4096  # rules kept to be looked up again, per scheme


@dataclass(frozen=True, slots=True)
class Rule:
    """What tells one entity's items apart."""

    kind: RuleKind
    attribute: str | None = None  # kind attribute: the attribute and its value
    value: str | None = None
    partition_key: str | None = None  # kind keys: each key and its prefix (None: none)
    partition_prefix: str | None = None
    sort_key: str | None = None
    sort_prefix: str | None = None
    partition_separator: str | None = None
    sort_separator: str | None = None

    @property
    def unmarked(self) -> bool:
        return self.kind == "keys" and not (self.partition_prefix or self.sort_prefix)

    def base_name(self) -> str:
        if self.kind == "attribute":
            return self.value or ""
        if self.kind == "rest":
            return OTHER
        if self.sort_prefix:
            return prefix_name(self.sort_prefix, self.sort_separator)
        if self.partition_prefix:
            return prefix_name(self.partition_prefix, self.partition_separator)
        return NO_PREFIX

    def qualified_name(self) -> str:
        """``CUSTOMER/ADDRESS``: the sort prefix under its partition prefix."""
        if self.kind == "keys" and self.partition_prefix and self.sort_prefix:
            return (
                prefix_name(self.partition_prefix, self.partition_separator)
                + "/"
                + prefix_name(self.sort_prefix, self.sort_separator)
            )
        return self.base_name()

    def text(self) -> str:
        """The rule in words, for people (data made visible)."""
        if self.kind == "attribute":
            return f'{visible(self.attribute)} = "{visible(self.value)}"'
        if self.kind == "rest":
            return "the rest: past the most entity types told apart"
        parts = [
            _key_text(key, prefix, separator)
            for key, prefix, separator in (
                (self.partition_key, self.partition_prefix, self.partition_separator),
                (self.sort_key, self.sort_prefix, self.sort_separator),
            )
            if key is not None
        ]
        if self.unmarked:
            return "no entity attribute, no key prefix"
        return " and ".join(parts)

    def as_json(self) -> dict[str, Any]:
        if self.kind == "attribute":
            return {"kind": "attribute", "attribute": self.attribute, "value": self.value}
        if self.kind == "rest":
            return {"kind": "rest"}
        return {
            "kind": "keys",
            "partition_key": self.partition_key,
            "partition_prefix": self.partition_prefix,
            "sort_key": self.sort_key,
            "sort_prefix": self.sort_prefix,
        }


def _key_text(key: str, prefix: str | None, separator: str | None) -> str:
    if prefix is None:
        return f"{visible(key)} with no prefix"
    if is_marker(prefix, separator):
        return f'{visible(key)} = "{visible(prefix)}"'
    return f'begins_with({visible(key)}, "{visible(prefix)}")'


def names_of(rules: Iterable[Rule]) -> dict[Rule, str]:
    """A name for each rule, unique among them: the attribute's value, else the sort
    prefix, else the partition prefix; a sort prefix found under two partition prefixes
    is named with both (``CUSTOMER/ADDRESS``); what still collides is numbered."""
    ordered = list(dict.fromkeys(rules))
    if len(ordered) == 1 and ordered[0].unmarked:
        return {ordered[0]: ALL_ITEMS}
    base = Counter(rule.base_name() for rule in ordered)
    named: dict[Rule, str] = {}
    for rule in ordered:
        name = rule.base_name()
        if base[name] > 1 and rule.kind == "keys":
            name = rule.qualified_name()
        named[rule] = name
    taken: Counter[str] = Counter()
    for rule in ordered:
        name = named[rule]
        taken[name] += 1
        if taken[name] > 1:
            named[rule] = f"{name} ({taken[name]})"
    return named


@dataclass(frozen=True, slots=True)
class Scheme:
    """How items are told apart on one order (the base table or an index)."""

    partition_key: str
    sort_key: str | None
    attribute: str | None = None
    partition_separator: str | None = None
    sort_separator: str | None = None
    partition_markers: bool = False  # whole values as prefixes, with no separator
    sort_markers: bool = False
    _made: dict[tuple[str | None, str | None], Rule] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    @property
    def one_group(self) -> bool:
        """Every item is told to the one group (``ALL_ITEMS``): no attribute or prefix to
        tell any apart (``rule_of`` reads the partition key's prefix by separator only)."""
        return (
            self.attribute is None
            and self.partition_separator is None
            and self.sort_separator is None
            and not self.sort_markers
        )

    def _prefix(
        self, item: Mapping[str, Any], key: str | None, separator: str | None, markers: bool
    ) -> str | None:
        if key is None:
            return None
        value = item.get(key)
        if not isinstance(value, Mapping) or not isinstance(value.get("S"), str):
            return None  # absent, or a number or binary key: no prefix
        if separator is None and not markers:
            return None
        return prefix_of(value["S"], separator, markers)

    def rule_of(self, item: Mapping[str, Any]) -> Rule:
        if self.attribute is not None:
            mark = mark_of(item, self.attribute)
            if mark is not None:
                return Rule("attribute", attribute=self.attribute, value=mark)
        # Constant values mark an entity in the sort key alone (``PROFILE``); beside a
        # separator they need not repeat to count (one customer's page has one profile).
        prefixes = (
            self._prefix(item, self.partition_key, self.partition_separator, False),
            self._prefix(
                item,
                self.sort_key,
                self.sort_separator,
                self.sort_markers or self.sort_separator is not None,
            ),
        )
        rule = self._made.get(prefixes)
        if rule is None:  # one Rule per pair of prefixes: made once, then looked up
            rule = Rule(
                "keys",
                partition_key=self.partition_key,
                partition_prefix=prefixes[0],
                sort_key=self.sort_key,
                sort_prefix=prefixes[1],
                partition_separator=self.partition_separator,
                sort_separator=self.sort_separator,
            )
            if len(self._made) < MAX_MADE:  # hostile data may bring endless prefixes
                self._made[prefixes] = rule
        return rule

    def as_json(self) -> dict[str, Any]:
        return {
            "entity_attribute": self.attribute,
            "partition_key": self.partition_key,
            "partition_separator": self.partition_separator,
            "sort_key": self.sort_key,
            "sort_separator": self.sort_separator,
        }

    def text(self) -> str:
        parts = []
        if self.attribute is not None:
            parts.append(f"entity attribute {visible(self.attribute)!r}")
        for key, separator, markers in (
            (self.partition_key, self.partition_separator, self.partition_markers),
            (self.sort_key, self.sort_separator, self.sort_markers),
        ):
            if key is None:
                continue
            if separator is not None:
                parts.append(f"{visible(key)} prefixes before {separator!r}")
            elif markers:
                parts.append(f"{visible(key)} constant values")
        return ", then ".join(parts) if parts else "no entity attribute, no key prefix"


def _strings(items: Iterable[Mapping[str, Any]], key: str | None) -> list[str]:
    if key is None:
        return []
    found = []
    for item in items:
        value = item.get(key)
        if isinstance(value, Mapping) and isinstance(value.get("S"), str):
            found.append(value["S"])
    return found


def decide(
    items: Iterable[Mapping[str, Any]],
    partition_key: str,
    sort_key: str | None,
    *,
    attribute: str | None = None,
    use_attribute: bool = True,
) -> Scheme:
    """The scheme these items follow. ``attribute`` names the entity attribute (the
    user's choice, trusted); else a known name is looked for unless ``use_attribute`` is
    False. Separators are found from the items the attribute does not mark."""
    seen = list(items)
    chosen = (
        attribute if attribute is not None else (choose_attribute(seen) if use_attribute else None)
    )
    unmarked = [i for i in seen if chosen is None or mark_of(i, chosen) is None]
    separators = {}
    markers = {}
    for role, key in (("partition", partition_key), ("sort", sort_key)):
        values = _strings(unmarked, key)
        separators[role] = choose_separator(values)
        # Constant values as entity marks only in the sort key (``PROFILE``): a partition
        # key's are the one value a Query reads (``acme``), not a type.
        markers[role] = role == "sort" and separators[role] is None and markers_only(values)
    return Scheme(
        partition_key=partition_key,
        sort_key=sort_key,
        attribute=chosen,
        partition_separator=separators["partition"],
        sort_separator=separators["sort"],
        partition_markers=markers["partition"],
        sort_markers=markers["sort"],
    )
