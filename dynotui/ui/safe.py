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
