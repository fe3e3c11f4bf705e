"""The types of every numeric flag: ASCII digits only (core/numbers.py), refused as a
usage error naming the flag (argparse adds "argument --page-size: ")."""

from __future__ import annotations

import argparse

from dynotui.core.errors import InputError
from dynotui.core.numbers import decimal_number, whole_number


def whole(text: str) -> int:
    """argparse ``type=`` of a flag that takes a whole number."""
    try:
        return whole_number(text, "")
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc).strip()) from None


def seconds(text: str) -> float:
    """argparse ``type=`` of a flag that takes a number of seconds (or another amount
    with a decimal point)."""
    try:
        return float(decimal_number(text, ""))
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc).strip()) from None
