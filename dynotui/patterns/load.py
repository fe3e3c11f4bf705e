"""Reading a patterns file: bounded, parsed, and every key's type checked before anything
is read from a table.

The file is treated as hostile (it comes from a repository, or from an agent): only a
regular file is opened (a FIFO never holds the read), at most ``MAX_FILE_BYTES`` are read,
TOML nesting that would exhaust the parser's stack is refused, and so is anything deeper
than ``MAX_DEPTH`` once parsed. Each problem is one ``PatternFileError`` line naming the
file, the pattern and the key. Only known keys are taken: an unknown key is refused by
name, never ignored (a misspelled budget would otherwise hold nothing).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dynotui.core import bounded_file, json_input
from dynotui.core.bounded_file import read_bounded
from dynotui.core.errors import InputError
from dynotui.patterns.model import (
    BUDGET_KEYS,
    MODES,
    PATTERN_KEYS,
    QUERY_KEYS,
    Budget,
    Pattern,
    PatternFile,
    PatternFileError,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MAX_FILE_BYTES = 1 << 20  # a file of hundreds of patterns is tens of KB
MAX_PATTERNS = 1000
MAX_PAGES = 1000  # pages read per value tried
MAX_TRIES = 100  # values to try per pattern
MAX_NAME = 200
# DynamoDB JSON's own depth (json_input.MAX_DEPTH) inside a pattern's few levels.
MAX_DEPTH = json_input.MAX_DEPTH + 8
DEFAULT_FILE = "dynotui.toml"


class Unreadable(InputError):
    """A file that is not read: ``problem`` says why, in words that follow its path."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path} {problem}")
        self.problem = problem


def read_text(path: Path, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes``; anything else is one
    ``Unreadable`` saying why. Read as every file dynotui reads (core/bounded_file.py:
    opened without waiting on a FIFO, checked through the open descriptor)."""
    try:
        data = read_bounded(path, max_bytes)
    except bounded_file.Unreadable as exc:
        words = {
            "missing": "does not exist",
            "directory": "is a directory, not a file",
            "too_large": f"is larger than {max_bytes:,} bytes: refused",
        }
        raise Unreadable(path, words.get(exc.kind, exc.problem)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(path, f"is not UTF-8 text (byte {exc.start})") from None


def load(path: Path | str) -> PatternFile:
    """The patterns of the file at ``path``, each checked for its keys and their types."""
    try:
        text = read_text(Path(path))
    except Unreadable as exc:
        raise PatternFileError(str(path), exc.problem) from None
    return parse(text, str(path))


def parse(text: str, where: str) -> PatternFile:
    """The patterns in TOML ``text``; ``where`` names the file in errors."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PatternFileError(where, f"not valid TOML: {exc}") from None
    except ValueError:  # an integer past Python's 4,300 digits
        limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
        raise PatternFileError(
            where, f"a number is too long to read (more than {limit:,} digits)"
        ) from None
    except RecursionError:
        raise PatternFileError(where, "nested too deeply to read: refused") from None
    except MemoryError:
        raise PatternFileError(where, "too large to read: refused") from None
    if json_input.depth(document) > MAX_DEPTH:
        raise PatternFileError(where, f"nested more than {MAX_DEPTH} levels deep: refused")
    unknown = sorted(set(document) - {"pattern"})
    if unknown:
        raise PatternFileError(
            where,
            "the file holds [[pattern]] tables only",
            key=_key(unknown[0]),
        )
    entries = document.get("pattern")
    if entries is None:
        raise PatternFileError(where, "no [[pattern]] in the file: name at least one")
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise PatternFileError(where, "write each pattern as a [[pattern]] table", key="pattern")
    if not entries:
        raise PatternFileError(where, "no [[pattern]] in the file: name at least one")
    if len(entries) > MAX_PATTERNS:
        raise PatternFileError(where, f"more than {MAX_PATTERNS} patterns: refused")
    patterns: list[Pattern] = []
    for number, entry in enumerate(entries, start=1):
        pattern = _pattern(where, number, entry)
        if any(p.name == pattern.name for p in patterns):
            raise PatternFileError(
                where, "another pattern has this name: names are unique", pattern.label, "name"
            )
        patterns.append(pattern)
    return PatternFile(where, tuple(patterns))


def _key(name: str) -> str:
    """A key as errors show it: as written when it is a bare word, else as JSON text."""
    bare = name.replace("_", "").replace("-", "").isalnum() and name.isascii()
    return name if bare else json.dumps(name, ensure_ascii=False)


class _Checker:
    """The checks of one pattern's values, each error naming the pattern and the key."""

    def __init__(self, where: str, pattern: str) -> None:
        self.where = where
        self.pattern = pattern

    def fail(self, key: str, problem: str) -> PatternFileError:
        return PatternFileError(self.where, problem, self.pattern, key)

    def text(self, key: str, value: Any) -> str:
        if not isinstance(value, str):
            raise self.fail(key, f"a string, not {_kind(value)}")
        if not value.strip():
            raise self.fail(key, "empty: leave the key out instead")
        return value

    def boolean(self, key: str, value: Any) -> bool:
        if not isinstance(value, bool):
            raise self.fail(key, f"true or false, not {_kind(value)}")
        return value

    def integer(self, key: str, value: Any, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"an integer of {low} to {high:,}, not {_kind(value)}")
        if not low <= value <= high:
            raise self.fail(key, f"an integer of {low} to {high:,}, not {value}")
        return value

    def number(self, key: str, value: Any, high: float | None = None) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(key, f"a number, not {_kind(value)}")
        within = f"0 to {high:g}" if high is not None else "0 or more"
        if not math.isfinite(value) or value < 0 or (high is not None and value > high):
            raise self.fail(key, f"a number of {within}, not {value}")
        return float(value)

    def json_value(self, key: str, value: Any, kind: type) -> Any:
        """A TOML table or array, or the same as JSON text (as the flag takes it)."""
        if isinstance(value, str):
            try:
                value = json_input.loads(value, "the JSON")
            except InputError as exc:
                raise self.fail(key, str(exc)) from None
        if not isinstance(value, kind) or not _plain(value):
            shape = "a table (or JSON object)" if kind is dict else "an array (or JSON list)"
            raise self.fail(key, f"{shape} of strings, numbers, booleans, arrays and tables")
        return value


def _plain(value: Any) -> bool:
    """Only what JSON says: a TOML date or time is no DynamoDB value; no NaN or infinity."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float):
            if not math.isfinite(item):
                return False
        elif not isinstance(item, (str, int, bool)) and item is not None:
            return False
    return True


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return f"a {type(value).__name__.replace('datetime', 'date and time')}"


def _name(where: str, number: int, entry: Mapping[str, Any]) -> str:
    unnamed = f"#{number}"
    if "name" not in entry:
        raise PatternFileError(where, "every pattern has a name", unnamed, "name")
    name = entry["name"]
    if not isinstance(name, str) or not name.strip():
        raise PatternFileError(where, "a name is a non-empty string", unnamed, "name")
    if len(name) > MAX_NAME or not name.isprintable():
        raise PatternFileError(
            where,
            f"a name is at most {MAX_NAME} printable characters (no control or format characters)",
            unnamed,
            "name",
        )
    return name


def _pattern(where: str, number: int, entry: Mapping[str, Any]) -> Pattern:
    name = _name(where, number, entry)
    label = json.dumps(name, ensure_ascii=False)
    check = _Checker(where, label)
    unknown = [k for k in entry if k not in PATTERN_KEYS]
    if unknown:
        raise check.fail(
            _key(unknown[0]), "not a key of a pattern (see 'dynotui check --help' for the keys)"
        )
    query: dict[str, Any] = {}
    for key, kind in QUERY_KEYS.items():
        if key not in entry:
            continue
        value = entry[key]
        if kind == "text":
            query[key] = check.text(key, value)
        elif kind == "bool":
            query[key] = check.boolean(key, value)
        elif kind == "int":
            query[key] = check.integer(key, value, 1, 1000)
        elif kind == "mode":
            if value not in MODES:
                raise check.fail(key, f"'raw' or 'fill', not {_shown(value)}")
            query[key] = value
        else:
            query[key] = check.json_value(key, value, dict if kind == "json_object" else list)
    if "statement" not in query and "table_name" not in query:
        raise check.fail("table_name", "a Query or Scan names its table (or give a statement)")
    pattern = Pattern(
        name=name,
        number=number,
        query=query,
        pages=check.integer("pages", entry.get("pages", 1), 1, MAX_PAGES),
        calls_per_day=(
            check.number("calls_per_day", entry["calls_per_day"])
            if "calls_per_day" in entry
            else None
        ),
        description=(
            check.text("description", entry["description"]) if "description" in entry else None
        ),
        try_values=_tries(check, entry, "try_values", dict),
        try_parameters=_tries(check, entry, "try_parameters", list),
        budget=_budget(check, entry.get("budget", {})),
    )
    _check_kinds(check, pattern, entry)
    return pattern


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else _kind(value)


def _tries(check: _Checker, entry: Mapping[str, Any], key: str, kind: type) -> tuple[Any, ...]:
    if key not in entry:
        return ()
    value = entry[key]
    each = "a table of values by placeholder" if kind is dict else "an array of parameters"
    if not isinstance(value, list) or not value:
        raise check.fail(key, f"a non-empty array, each {each}")
    if len(value) > MAX_TRIES:
        raise check.fail(key, f"at most {MAX_TRIES} values to try, not {len(value):,}")
    return tuple(check.json_value(key, tried, kind) for tried in value)


def _budget(check: _Checker, value: Any) -> Budget:
    if not isinstance(value, dict):
        raise check.fail("budget", f"a table ([pattern.budget]), not {_kind(value)}")
    unknown = [k for k in value if k not in BUDGET_KEYS]
    if unknown:
        raise check.fail(
            f"budget.{_key(unknown[0])}", f"not a budget's key (it takes {', '.join(BUDGET_KEYS)})"
        )

    def figure(key: str, high: float | None = None) -> float | None:
        return check.number(f"budget.{key}", value[key], high) if key in value else None

    return Budget(
        read_units_per_page=figure("read_units_per_page"),
        read_units_per_item=figure("read_units_per_item"),
        waste=figure("waste", 1.0),
        scan=check.boolean("budget.scan", value.get("scan", False)),
    )


def _check_kinds(check: _Checker, pattern: Pattern, entry: Mapping[str, Any]) -> None:
    """What a PartiQL statement cannot say, and what only it can."""
    if pattern.is_statement:
        if "try_values" in entry:
            raise check.fail("try_values", "a statement takes try_parameters (its ? values)")
        if pattern.budget.waste is not None:
            raise check.fail(
                "budget.waste",
                "ExecuteStatement reports no ScannedCount, so a statement's waste cannot be "
                "measured: budget its read units instead",
            )
    elif "try_parameters" in entry:
        raise check.fail("try_parameters", "a Query or Scan takes try_values (by placeholder)")
    for tried in pattern.try_values:
        if not tried:
            raise check.fail("try_values", "each value to try names at least one placeholder")
