"""Data is text: what a table or a service says is shown, never obeyed.

Values, attribute and table names and error messages come from people we do not
know. Written to a terminal as they are, an ESC sequence clears the screen or
renames the window, OSC 52 writes the clipboard, and a bidirectional override
makes text read differently from what it is; a zero-width space or U+FEFF makes two
different names look alike. ``visible`` turns every such character into a visible
stand-in; the UI never parses data as markup.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from typing import Any

# C0 controls as their Unicode "control pictures" (U+2400 block): ␛ for ESC, ␀ for NUL.
_C0 = {code: chr(0x2400 + code) for code in range(0x20)}
_DEL = {0x7F: "\u2421"}  # ␡
# C1 controls (8-bit CSI, OSC, ...) have no pictures: show their code.
_C1 = {code: f"\\x{code:02x}" for code in range(0x80, 0xA0)}
# The Unicode line and paragraph separators, which terminals may treat as line breaks.
_SEPARATORS = (0x2028, 0x2029)


def _invisible(code: int) -> bool:
    """Format characters (category Cf: bidirectional embeddings, overrides, isolates and
    marks, zero-width space, joiners, U+FEFF, tag characters, ...) and the separators:
    they change how text reads without showing themselves."""
    return code in _SEPARATORS or unicodedata.category(chr(code)) == "Cf"


def _escape(code: int) -> str:
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _json_escape(code: int) -> str:
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)  # JSON writes astral characters as a pair
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


class _Table(dict[int, Any]):
    """A ``str.translate`` table whose invisible characters are found on first sight,
    from this Python's own Unicode database, and remembered."""

    def __init__(self, fixed: dict[int, Any], escape: Callable[[int], str]) -> None:
        super().__init__(fixed)
        self.escape = escape

    def __missing__(self, code: int) -> Any:
        value: Any = self.escape(code) if _invisible(code) else code
        self[code] = value
        return value


_ONE_LINE = _Table({**_C0, **_DEL, **_C1, 0x0A: "\u2424", 0x09: "\u2409"}, _escape)
_LINES = _Table({**_C0, **_DEL, **_C1, 0x09: "    ", 0x0A: 0x0A}, _escape)
# JSON already escapes C0; these it would write raw with ensure_ascii=False.
_JSON = _Table({code: f"\\u{code:04x}" for code in (0x7F, *range(0x80, 0xA0))}, _json_escape)


def visible(text: Any) -> str:
    """One line of plain text: controls, ESC, DEL, C1, bidi overrides and zero-width or
    other format characters made visible; newline as ␤ and tab as ␉."""
    shown = str(text)
    if shown.isascii() and shown.isprintable():
        return shown  # nothing to replace (C1 and Cf are not ASCII): ten times faster
    return shown.translate(_ONE_LINE)


def visible_lines(text: Any) -> str:
    """As ``visible``, but newlines stay line breaks (messages, item views); tabs are spaces."""
    return str(text).translate(_LINES)


def safe_json(value: Any, **options: Any) -> str:
    """``json.dumps`` whose text is safe to print: no raw DEL, C1, bidi or format characters."""
    return json.dumps(value, ensure_ascii=False, **options).translate(_JSON)


def safe_json_text(text: str) -> str:
    """JSON text made safe to print, still the same JSON: DEL, C1, bidi and other format
    characters as \\u escapes."""
    return text.translate(_JSON)


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 page``, ``2,000 pages``, ``3 retries``: a count and its word."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


def duration(seconds: float) -> str:
    """``42 s``, ``15 min``, ``3.5 h``: seconds below a minute, so nothing reads "0 min"."""
    seconds = abs(seconds)
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 86_400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86_400:.1f} days"
