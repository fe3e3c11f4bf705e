"""Data is text: what a table or a service says is shown, never obeyed.

Values, attribute and table names and error messages come from people we do not
know. Written to a terminal as they are, an ESC sequence clears the screen or
renames the window, OSC 52 writes the clipboard, and a bidirectional override
makes text read differently from what it is. ``visible`` turns every such
character into a visible stand-in; the UI never parses data as markup.
"""

from __future__ import annotations

import json
from typing import Any

# C0 controls as their Unicode "control pictures" (U+2400 block): ␛ for ESC, ␀ for NUL.
_C0 = {code: chr(0x2400 + code) for code in range(0x20)}
_DEL = {0x7F: "\u2421"}  # ␡
# C1 controls (8-bit CSI, OSC, ...) have no pictures: show their code.
_C1 = {code: f"\\x{code:02x}" for code in range(0x80, 0xA0)}
# Bidirectional embeddings, overrides, isolates and marks, and the Unicode line and
# paragraph separators, which terminals may treat as line breaks.
_INVISIBLE = (
    0x061C,
    0x200E,
    0x200F,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
    0x2028,
    0x2029,
)
_FORMAT = {code: f"\\u{code:04x}" for code in _INVISIBLE}

_ONE_LINE = str.maketrans({**_C0, **_DEL, **_C1, **_FORMAT, 0x0A: "\u2424", 0x09: "\u2409"})
_LINES = str.maketrans({**_C0, **_DEL, **_C1, **_FORMAT, 0x09: "    "})
del _LINES[0x0A]

# JSON already escapes C0; these it would write raw with ensure_ascii=False.
_JSON = str.maketrans({code: f"\\u{code:04x}" for code in (0x7F, *range(0x80, 0xA0), *_INVISIBLE)})


def visible(text: Any) -> str:
    """One line of plain text: controls, ESC, DEL, C1 and bidi overrides made visible;
    newline as ␤ and tab as ␉."""
    shown = str(text)
    if shown.isascii() and shown.isprintable():
        return shown  # nothing to replace (C1 and bidi are not ASCII): ten times faster
    return shown.translate(_ONE_LINE)


def visible_lines(text: Any) -> str:
    """As ``visible``, but newlines stay line breaks (messages, item views); tabs are spaces."""
    return str(text).translate(_LINES)


def safe_json(value: Any, **options: Any) -> str:
    """``json.dumps`` whose text is safe to print: no raw DEL, C1 or bidi controls."""
    return json.dumps(value, ensure_ascii=False, **options).translate(_JSON)


def safe_json_text(text: str) -> str:
    """JSON text made safe to print, still the same JSON: DEL, C1, bidi as \\u escapes."""
    return text.translate(_JSON)
