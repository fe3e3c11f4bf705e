"""Text from data or from a service, ready for a widget: never markup, never escapes.

Widgets get ``rich.text.Text`` objects (which Textual does not parse) built from
``core.text.visible``; notifications are sent with markup off.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from dynotui.core.text import visible, visible_lines


def plain(text: Any, style: str = "") -> Text:
    """One line of data as a Text: control characters shown, no markup."""
    return Text(visible(text), style=style, no_wrap=True, end="")


def plain_lines(text: Any, style: str = "") -> Text:
    """Several lines of data (messages, JSON) as a Text: no markup, no escapes."""
    return Text(visible_lines(text), style=style, end="")


def notify(widget: Any, message: str, **options: Any) -> None:
    """``notify`` for messages that may hold data or a service's words."""
    if "title" in options:
        options["title"] = visible(options["title"])
    widget.notify(visible_lines(message), markup=False, **options)


def update(widget: Any, text: Text) -> None:
    """``Static.update`` without a layout pass when the text keeps its height (a page
    changes the figures in the sidebar, rarely how many lines they take), and without
    anything when the text is the same."""
    if getattr(widget, "_dynotui_text", None) == text:
        return
    widget._dynotui_text = text.copy()
    width = widget.content_region.width or widget.size.width
    lines = text.plain.split("\n")
    shape = (len(lines), width)
    fits = width and all(len(line) <= width for line in lines)
    same = fits and getattr(widget, "_dynotui_shape", None) == shape
    widget._dynotui_shape = shape if fits else None
    widget.update(text, layout=not same)
