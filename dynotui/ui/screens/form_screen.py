"""A form that types nothing it was not shown for: keys pressed before it is on screen
(the key that opened it, pressed twice on a slow machine, or a word typed ahead) are
dropped, never typed into its first field ("eSELECT ..."), and never reach the keys of
the screen beneath.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from textual import events
from textual.widget import Widget

from dynotui.ui.screens.dialog import Dialog

R = TypeVar("R")


class FormScreen(Dialog[R], Generic[R]):
    AUTO_FOCUS = None  # nothing takes keys until the form has been drawn

    def __init__(self) -> None:
        super().__init__()
        self.shown = False

    def focus_when_shown(self, widget: Widget) -> None:
        """Give ``widget`` the focus once the form is on screen; keys until then drop."""

        def shown() -> None:
            self.shown = True
            widget.focus()

        self.call_after_refresh(shown)

    def on_key(self, event: events.Key) -> None:
        if not self.shown:
            event.stop()
            event.prevent_default()
