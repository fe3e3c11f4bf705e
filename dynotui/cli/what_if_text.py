"""``dynotui what-if``'s human output: now and what-if side by side, estimates marked.

The rows are ``what_if/words.py``'s, as in the report. Every value from the table or the
user (names, values in conditions) is made visible (``core.text.visible``) before it is
laid out: nothing in the data acts on the terminal.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from dynotui.core.text import visible
from dynotui.dynamodb.what_if import words

LABEL = 24
COLUMN = 27


def _table(rows: Sequence[tuple[str, str, str]]) -> list[str]:
    lines = [f"{'':<{LABEL}}{'now (measured)':<{COLUMN}}  what-if (estimated)"]
    for label, left, right in rows:
        left_lines = textwrap.wrap(visible(left), COLUMN) or [""]
        right_lines = textwrap.wrap(visible(right), COLUMN) or [""]
        for n in range(max(len(left_lines), len(right_lines))):
            first = label if n == 0 else ""
            a = left_lines[n] if n < len(left_lines) else ""
            b = right_lines[n] if n < len(right_lines) else ""
            lines.append(f"{first:<{LABEL}}{a:<{COLUMN}}  {b}".rstrip())
    return lines


def _pairs(rows: Sequence[tuple[str, str]]) -> list[str]:
    out: list[str] = []
    for label, value in rows:
        out += textwrap.wrap(
            visible(value), 78, initial_indent=f"  {label:<22}", subsequent_indent=" " * 24
        )
    return out


def estimate_text(data: Mapping[str, Any]) -> str:
    """The estimate's JSON as the terminal shows it, 80 columns wide."""
    out = [
        *textwrap.wrap(
            visible(f"What if table {data['table']} had the {words.index_words(data)}?"),
            80,
            break_on_hyphens=False,
        ),
        "",
        *_table(words.comparison_rows(data)),
        "",
        "The index's own cost (estimated):",
        *_pairs(words.cost_rows(data)),
        "",
        *textwrap.wrap(visible(words.sample_words(data)), 80, break_on_hyphens=False),
    ]
    for note in words.notes(data):
        out += textwrap.wrap(visible(note), 80, initial_indent="- ", subsequent_indent="  ")
    source = data.get("prices", {}).get("reads", {}).get("source", "")
    out += textwrap.wrap(visible(f"{words.FOOTNOTE}; prices: {source}"), 80, break_on_hyphens=False)
    return "\n".join(out) + "\n"
