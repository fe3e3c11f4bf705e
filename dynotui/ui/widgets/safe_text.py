"""Text from data or from a service, ready for a widget: never markup, never escapes.

Widgets get ``rich.text.Text`` objects (which Textual does not parse) built from
``core.text.visible``; notifications are sent with markup off. Every widget that shows
such text goes through here.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.app import App
from textual.notifications import SeverityLevel
from textual.widget import Widget
from textual.widgets import Static

from dynotui.core.errors import error_words
from dynotui.core.text import visible, visible_lines


def plain(text: object, style: str = "") -> Text:
    """One line of data as a Text: control characters shown, no markup."""
    return Text(visible(text), style=style, no_wrap=True, end="")


def plain_lines(text: object, style: str = "") -> Text:
    """Several lines of data (messages, JSON) as a Text: no markup, no escapes."""
    return Text(visible_lines(text), style=style, end="")


def notify(
    target: Widget | App[Any],
    message: str,
    *,
    title: str = "",
    severity: SeverityLevel = "information",
    timeout: float | None = None,
) -> None:
    """``notify`` for messages that may hold data or a service's words."""
    target.notify(
        visible_lines(message),
        title=visible(title),
        severity=severity,
        timeout=timeout,
        markup=False,
    )


def notify_error(target: Widget | App[Any], error: BaseException, title: str) -> None:
    """An error in words, as a notification that stays ten seconds."""
    notify(target, error_words(error), title=title, severity="error", timeout=10)


class TextStatic(Static):
    """A Static fed only ``Text`` (never markup) that skips the work a page's redraw does
    not need: nothing when the text is the same, no layout pass when it keeps its shape
    (a page changes the figures in the sidebar, rarely how many lines they take)."""

    def __init__(self, text: Text | str = "", *, id: str | None = None) -> None:
        super().__init__(Text(text) if isinstance(text, str) else text, id=id)
        self._shown: Text | None = None
        self._shape: tuple[int, int] | None = None

    def show(self, text: Text) -> None:
        if self._shown == text:
            return
        self._shown = text.copy()
        width = self.content_region.width or self.size.width
        lines = text.plain.split("\n")
        shape = (len(lines), width)
        fits = bool(width) and all(cell_len(line) <= width for line in lines)
        same = fits and self._shape == shape
        self._shape = shape if fits else None
        self.update(text, layout=not same)

    @property
    def shown(self) -> Text:
        """What the widget shows now, as plain text with its styles."""
        return self._shown.copy() if self._shown is not None else Text("")
