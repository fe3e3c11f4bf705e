"""Numbers a user types (a flag, a field): ASCII digits only, one spelling each.

Python's ``int()`` and ``float()`` take far more than a number as written: full-width and
Arabic-Indic digits (U+FF13, U+0663), underscores (``1_000``), a sign (``+5``), spaces,
``nan`` and ``inf``, and ``int()`` of 5,000 digits fails in words of its own. Every
number dynotui reads from a user goes through here instead: the text must match the
pattern, then it is converted. Ranges stay with each caller, which knows its words.
"""

from __future__ import annotations

import re
from decimal import Decimal

from dynotui.core.errors import InputError

MAX_DIGITS = 18  # more than any count, page, port or second a user means
_WHOLE = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")
_ASCII_SPACE = " \t"
SHOWN = 40  # characters of a refused value the message shows


def shown_value(text: object) -> str:
    """A refused value as a one-line message shows it: visible, and cut when long."""
    from dynotui.core.text import visible

    words = repr(text)
    return visible(words if len(words) <= SHOWN else words[: SHOWN - 1] + "…")


def is_whole(text: str) -> bool:
    """Whether ``text`` is a whole number of ASCII digits (``int(text)`` then reads it)."""
    return bool(_WHOLE.fullmatch(text)) and len(text) <= MAX_DIGITS


def whole_number(text: object, what: str) -> int:
    """``text`` as a whole number of ASCII digits (0 or more), or InputError naming
    ``what`` ("--page-size")."""
    value = text.strip(_ASCII_SPACE) if isinstance(text, str) else None
    if value is None or not _WHOLE.fullmatch(value) or len(value) > MAX_DIGITS:
        raise InputError(
            f"{what} takes a whole number in ASCII digits (0-9), got {shown_value(text)}"
        )
    return int(value)


def decimal_number(text: object, what: str) -> Decimal:
    """``text`` as a number of ASCII digits with an optional decimal point ("0.5",
    ".5", "30"), or InputError naming ``what``: no sign, exponent, nan or inf."""
    value = text.strip(_ASCII_SPACE) if isinstance(text, str) else None
    digits = len(value.replace(".", "")) if value is not None else 0
    if value is None or not _DECIMAL.fullmatch(value) or digits > 2 * MAX_DIGITS:
        raise InputError(
            f"{what} takes a number in ASCII digits (0-9, a decimal point allowed), got "
            f"{shown_value(text)}"
        )
    return Decimal(value)
