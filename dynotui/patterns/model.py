"""One access pattern as the file names it: the query (``pages``'s flags), how much of it
to read, the values to try and the budget each must hold.

A pattern is data, checked for its shape when the file is loaded (``load.py``); its query
is turned back into ``pages`` flags (``cli/command_args.py``) so the command's own parser, spec and
checks build it, exactly as ``dynotui pages`` would.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dynotui.core.errors import InputError

# The query's keys: ``dynotui pages``'s flags in snake_case, and what each holds. "text" is
# a string; "json_object"/"json_list" a TOML table or array (or the same as a JSON string,
# as the flag takes it), passed on as JSON text.
QUERY_KEYS: Mapping[str, str] = {
    "table_name": "text",
    "index_name": "text",
    "key_condition_expression": "text",
    "filter_expression": "text",
    "projection_expression": "text",
    "expression_attribute_names": "json_object",
    "expression_attribute_values": "json_object",
    "no_scan_index_forward": "bool",
    "consistent_read": "bool",
    "scan": "bool",
    "statement": "text",
    "parameters": "json_list",
    "page_size": "int",
    "mode": "mode",
    "max_rounds": "int",
}
MODES = ("raw", "fill")  # DynamoDB's; keyset and offset are PostgreSQL's
PATTERN_KEYS = (
    "name",
    "description",
    *QUERY_KEYS,
    "pages",
    "calls_per_day",
    "try_values",
    "try_parameters",
    "budget",
)
BUDGET_KEYS = ("read_units_per_page", "read_units_per_item", "waste", "scan")


class PatternFileError(InputError):
    """A patterns file refused before anything is read: one line naming the file, the
    pattern and the key (``key`` is None for the file as a whole)."""

    def __init__(
        self, path: str, problem: str, pattern: str | None = None, key: str | None = None
    ) -> None:
        where = [path]
        if pattern is not None:
            where.append(f"pattern {pattern}")
        if key is not None:
            where.append(f"key {key}")
        super().__init__(f"{', '.join(where)}: {problem}")
        self.path = path
        self.pattern = pattern
        self.key = key


@dataclass(frozen=True)
class Budget:
    """What one read of the pattern may cost; None: not budgeted. A Scan is over budget
    unless ``scan`` allows it."""

    read_units_per_page: float | None = None
    read_units_per_item: float | None = None
    waste: float | None = None
    scan: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "read_units_per_page": self.read_units_per_page,
            "read_units_per_item": self.read_units_per_item,
            "waste": self.waste,
            "scan": self.scan,
        }


@dataclass(frozen=True)
class Case:
    """One read of a pattern: its query with one set of values to try (``label`` names
    them; None for the pattern's own values)."""

    label: str | None
    query: Mapping[str, Any]


@dataclass(frozen=True)
class Pattern:
    name: str
    number: int  # its place in the file, from 1
    query: Mapping[str, Any]
    pages: int = 1
    calls_per_day: float | None = None
    description: str | None = None
    try_values: Sequence[Mapping[str, Any]] = ()
    try_parameters: Sequence[Sequence[Any]] = ()
    budget: Budget = field(default_factory=Budget)

    @property
    def is_statement(self) -> bool:
        return "statement" in self.query

    @property
    def label(self) -> str:
        """How errors name it: by name, as JSON text (quoted, escapes visible)."""
        return json.dumps(self.name, ensure_ascii=False)

    def cases(self) -> list[Case]:
        """The reads the budget must hold for: one per value to try, else the query as
        written. Values to try replace the query's values of the same placeholder."""
        if self.try_values:
            values = dict(self.query.get("expression_attribute_values") or {})
            return [
                Case(
                    _label(tried),
                    {**self.query, "expression_attribute_values": {**values, **tried}},
                )
                for tried in self.try_values
            ]
        if self.try_parameters:
            return [
                Case(_label(tried), {**self.query, "parameters": list(tried)})
                for tried in self.try_parameters
            ]
        return [Case(None, dict(self.query))]


def _label(tried: Any) -> str:
    return json.dumps(tried, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class PatternFile:
    path: str
    patterns: Sequence[Pattern]

    def named(self, name: str) -> Pattern | None:
        return next((p for p in self.patterns if p.name == name), None)
