"""Words more than one widget says: one spelling each."""

from __future__ import annotations

from dynotui.core.page import HasNext

NEXT_PAGE = {
    HasNext.YES: "a next page exists",
    HasNext.UNKNOWN: "more may follow",
    HasNext.NO: "this is the last page",
}


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def times(ratio: float) -> str:
    """2.5x, 0.31x, 251x: two significant digits, never an exponent."""
    return f"{ratio:,.0f}x" if ratio >= 10 else f"{ratio:.2g}x"
