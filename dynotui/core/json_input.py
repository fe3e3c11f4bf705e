"""JSON that a user typed or pasted: refused in one line, never a RecursionError.

``json.loads`` raises RecursionError on deep enough nesting, and code that walks the
result recursively can fail on much less. Input is parsed here, its depth measured
without recursion, and anything deeper than ``MAX_DEPTH`` refused as bad input.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from dynotui.core.errors import InputError

# Deep enough for DynamoDB JSON at DynamoDB's own limit of 32 nested levels (two JSON
# levels each, inside a map of values or a list of parameters), far below the recursion
# limit of anything that walks it.
MAX_DEPTH = 72
LONE_SURROGATE = (
    "a string holds half of a UTF-16 surrogate pair (such as \\ud800), which is not text"
)


def depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        level += 1
        deepest = max(deepest, level)
        stack.extend((child, level) for child in children)
    return deepest


def holds_lone_surrogate(value: Any) -> bool:
    """True when a name or string in parsed JSON holds half of a surrogate pair
    (``"\\ud800"`` alone): no UTF-8 text, so no database value, and no encoder takes it."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class TooDeep(InputError):
    """JSON nested deeper than its reader's limit."""


def _too_deep(what: str, max_depth: int) -> InputError:
    return TooDeep(f"{what} is nested more than {max_depth} levels deep: refused")


def _digits(error: ValueError) -> str:
    limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
    return f"more than {limit:,} digits" if "digits" in str(error) else str(error)


def loads(text: str, what: str, max_depth: int = MAX_DEPTH, **options: Any) -> Any:
    """``json.loads(text, **options)``; bad JSON or nesting deeper than ``max_depth`` is an
    InputError that names ``what``."""
    try:
        data = json.loads(text, **options)
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} is not valid JSON: {exc.msg} at character {exc.pos}") from None
    except RecursionError:
        raise _too_deep(what, max_depth) from None
    except ValueError as exc:  # int() of a number longer than Python reads (4,300 digits)
        raise InputError(f"{what}: a number is too long to read ({_digits(exc)})") from None
    if depth(data) > max_depth:
        raise _too_deep(what, max_depth)
    if holds_lone_surrogate(data):
        raise InputError(f"{what}: {LONE_SURROGATE}")
    return data
