"""Which of the grid's columns are in view sideways: whole columns only.

The grid moves a column at a time and the first ``fixed`` columns (the keys) stay in
place. Every column in view fits whole beside the keys and the angle quotes that mark
columns beyond either edge; a column too wide to sit beside the keys is first beyond the
right edge (the keys alone in view), then in view without them. Keys wider than the
screen move with the rest. Only a single column wider than the whole grid is in view cut,
and the grid cuts it with an ellipsis, never at the edge.

Pure functions over the columns' widths (each with its padding), so they are tested
alone and worked out once per width and position, not per line drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# How the key columns stand at a sideways position.
BESIDE = "beside"  # in place, the other columns beside them
ALONE = "alone"  # in place, alone: the next column is too wide to sit beside them
OUT = "out"  # out of view: that wide column is shown without them, or they move

Position = tuple[int, str]  # the first of the other columns in view; how the keys stand


@dataclass(frozen=True)
class View:
    shown: list[int]  # the columns in view, left to right
    left: bool  # columns lie beyond the left edge
    right: bool  # columns lie beyond the right edge
    pinned: bool  # the keys are in view, in place (drawn before the left marker)


def _fill(widths: Sequence[int], index: int, used: int, width: int) -> tuple[list[int], int]:
    """The columns from ``index`` on that fit whole beside ``used`` cells (room kept for
    the right marker while columns follow), and the first that does not."""
    shown, count = [], len(widths)
    while index < count:
        marker = 1 if index < count - 1 else 0
        if used + widths[index] + marker > width:
            break
        shown.append(index)
        used += widths[index]
        index += 1
    return shown, index


def positions(widths: Sequence[int], fixed: int, width: int) -> list[Position]:
    """Every sideways position, left to right. A column too wide to sit beside the keys
    takes two steps at the start (the keys alone, then that column without them) and one
    elsewhere (without them)."""
    count, keys = len(widths), sum(widths[:fixed])
    if not fixed or keys + 2 > width:  # no keys, or keys too wide to stay: all move
        return [(i, OUT) for i in range(count)] or [(0, OUT)]
    steps: list[Position] = []
    for index in range(fixed, count):
        left = 1 if index > fixed else 0
        right = 1 if index < count - 1 else 0
        if keys + left + widths[index] + right <= width:
            steps.append((index, BESIDE))
        else:
            if index == fixed:
                steps.append((index, ALONE))
            steps.append((index, OUT))
    return steps or [(fixed, BESIDE)]


def nearest(steps: Sequence[Position], wanted: Position) -> int:
    """The step that is ``wanted``, else the first at or past its column (the columns or
    the width changed since it was chosen), else the last."""
    if wanted in steps:
        return steps.index(wanted)
    for at, (index, _) in enumerate(steps):
        if index >= wanted[0]:
            return at
    return len(steps) - 1


def view(widths: Sequence[int], fixed: int, width: int, position: Position) -> View:
    """What is in view at ``position`` (one of ``positions``)."""
    first, keys = position
    count = len(widths)
    if keys == ALONE:
        return View(list(range(fixed)), False, count > fixed, True)
    if keys == BESIDE:
        left = first > fixed
        shown, index = _fill(widths, first, sum(widths[:fixed]) + (1 if left else 0), width)
        return View(list(range(fixed)) + shown, left, index < count, True)
    left = first > 0
    shown, index = _fill(widths, first, 1 if left else 0, width)
    if not shown and first < count:  # wider than the grid by itself
        shown, index = [first], first + 1
    return View(shown, left, index < count, False)
