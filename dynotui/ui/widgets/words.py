"""Words more than one widget says: one spelling each; and lines made of whole parts."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text

from dynotui.core.page import HasNext
from dynotui.core.text import visible

JOINT = " · "

NEXT_PAGE = {
    HasNext.YES: "a next page exists",
    HasNext.UNKNOWN: "more may follow",
    HasNext.NO: "this is the last page",
}


def fitted(parts: Sequence[tuple[str, str]], width: int) -> Text:
    """As many of ``parts`` (text, style; most telling first) as fit in ``width`` cells
    on one line, each whole (``width`` 0: all of them)."""
    line = Text()
    for words, style in parts:
        piece = visible(words)
        joint = JOINT if line.plain else ""
        if width and cell_len(line.plain + joint + piece) > width:
            break
        line.append(joint)
        line.append(piece, style=style)
    return line


def flowed(parts: Sequence[str], width: int) -> str:
    """``parts`` on as many lines of ``width`` cells as they need, never one split
    between two lines (a part longer than a line has it to itself)."""
    lines: list[str] = []
    for part in parts:
        piece = visible(part)
        if lines and cell_len(lines[-1] + JOINT + piece) <= width:
            lines[-1] += JOINT + piece
        else:
            lines.append(piece)
    return "\n".join(lines)


# The header's title room: its icon (8 cells) and the clock's space (10) on either side, and
# "dynotui — " before the label.
HEADER_AROUND = 8 + 10 + len("dynotui — ")


def whole_parts(text: str, width: int, joint: str = JOINT) -> str:
    """``text``'s ``joint``-separated parts that fit in ``width`` cells, each whole (the
    first always, cut with an ellipsis only if it alone is too wide): never a word cut."""
    parts = visible(text).split(joint)
    line = parts[0] if cell_len(parts[0]) <= width else parts[0][: max(width - 1, 1)] + "…"
    for part in parts[1:]:
        if cell_len(line + joint + part) > width:
            break
        line += joint + part
    return line
