"""Receipts: the figures a check measured, kept as JSON to diff, and compared with an
earlier one so a pattern whose read units per page grew past a tolerance fails.

A receipt is read as hostile as the patterns file (bounded, a regular file, its shape
checked); only its figures are taken from it, never its words.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dynotui.core import json_input
from dynotui.core.errors import InputError
from dynotui.core.figures_text import number
from dynotui.patterns.budget import GROWN, PER_PAGE, Over, Verdict
from dynotui.patterns.load import Unreadable, read_text

KIND = "dynotui check receipt"
VERSION = 1
MAX_RECEIPT_BYTES = 16 << 20
DEFAULT_TOLERANCE = 0.20
MAX_TOLERANCE_PERCENT = 100_000


def receipt_json(file: str, verdicts: Sequence[Verdict]) -> dict[str, Any]:
    return {
        "kind": KIND,
        "version": VERSION,
        "file": file,
        "patterns": {
            v.pattern.name: {**v.worst(), "reads": [r.as_json() for r in v.reads]} for v in verdicts
        },
    }


def receipt_text(file: str, verdicts: Sequence[Verdict]) -> str:
    """The receipt as stable JSON text: sorted keys, one figure per line, so two receipts
    diff line by line."""
    return json.dumps(receipt_json(file, verdicts), indent=2, sort_keys=True) + "\n"


def load_receipt(path: Path) -> dict[str, float | None]:
    """An earlier receipt's read units per page, by pattern name."""
    what = f"the receipt {path}"
    try:
        text = read_text(path, MAX_RECEIPT_BYTES)
    except Unreadable as exc:
        raise InputError(f"{what} {exc.problem}") from None
    document = json_input.loads(text, what)
    if (
        not isinstance(document, dict)
        or document.get("kind") != KIND
        or document.get("version") != VERSION
    ):
        raise InputError(f"{what} is not a receipt written by 'dynotui check --receipt'")
    patterns = document.get("patterns")
    if not isinstance(patterns, dict):
        raise InputError(f"{what} has no patterns object")
    found: dict[str, float | None] = {}
    for name, figures in patterns.items():
        per_page = figures.get(PER_PAGE) if isinstance(figures, dict) else "missing"
        if per_page is not None and (
            isinstance(per_page, bool)
            or not isinstance(per_page, (int, float))
            or not math.isfinite(per_page)
            or per_page < 0
        ):
            raise InputError(
                f"{what}: pattern {json.dumps(name, ensure_ascii=False)} has no number "
                f"for {PER_PAGE}"
            )
        found[name] = None if per_page is None else float(per_page)
    return found


def parse_tolerance(text: str) -> float:
    """``20``, ``20%`` or ``12.5``: a percentage in ASCII digits (one point at most), as
    a fraction."""
    digits = text.strip()
    digits = digits[:-1] if digits.endswith("%") else digits
    whole, _, part = digits.partition(".")
    ascii_digits = all(s.isascii() and (s.isdigit() or s == "") for s in (whole, part))
    if not digits or digits == "." or not ascii_digits or len(digits) > 12:
        raise InputError(
            f"--tolerance takes a percentage in digits, such as 20 or 12.5%, not {text!r}"
        )
    percent = float(digits)
    if percent > MAX_TOLERANCE_PERCENT:
        raise InputError(f"--tolerance is at most {MAX_TOLERANCE_PERCENT:,}%")
    return percent / 100


def compare(
    verdicts: Sequence[Verdict], earlier: Mapping[str, float | None], tolerance: float
) -> None:
    """Add a ``grown`` failure to each pattern whose read units per page grew past the
    earlier receipt's by more than ``tolerance`` (a pattern new since then is not
    compared; one that was free and now costs has grown without bound)."""
    for verdict in verdicts:
        before = earlier.get(verdict.pattern.name)
        now = verdict.worst()[PER_PAGE]
        if before is None or now is None:
            continue
        if now <= before * (1 + tolerance):
            continue
        growth = f"+{(now / before - 1) * 100:.4g}%" if before > 0 else "from nothing"
        note = (
            f"{number(before)} to {number(now)} ({growth}, past the tolerance of "
            f"{tolerance * 100:.4g}%)"
        )
        verdict.over.append(Over(GROWN, now, before, None, note))
