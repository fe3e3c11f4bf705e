"""Data into a report as text, never as markup: one function per output language."""

from __future__ import annotations

import html
import re
from typing import Any

from dynotui.core.text import visible, visible_lines


def esc(text: Any) -> str:
    """One line of data for HTML or SVG text and attribute values: controls and bidi
    overrides made visible, then ``& < > " '`` escaped."""
    return html.escape(visible(text), quote=True)


def esc_block(text: Any) -> str:
    """Lines of data (code) for a ``<pre>``: line breaks kept."""
    return html.escape(visible_lines(text), quote=True)


# What Markdown (CommonMark, GitHub's) may read as syntax in the middle of a line or a
# table cell: emphasis, code, links, cells, strikethrough. (< > & are HTML-escaped; data
# never starts a line, so list and heading marks cannot begin there.)
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]|~])")


def md(text: Any) -> str:
    """One line of data for Markdown text or a table cell: visible, HTML-escaped (so
    ``<script>`` stays text where Markdown allows raw HTML), punctuation backslashed."""
    escaped = html.escape(visible(text), quote=False)
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", escaped)


def md_fence(text: Any, language: str = "") -> str:
    """Lines of data as a fenced code block whose fence no line of it can close."""
    body = visible_lines(text).rstrip("\n")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{body}\n{fence}"
