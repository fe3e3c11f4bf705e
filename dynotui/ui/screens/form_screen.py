"""A form that takes every key typed for it: keys pressed before it is on screen (a word
typed ahead while it opens, seconds on a busy machine) are held and typed into it once
it is drawn, into the field it focuses, never acted on by the screen beneath. A repeat of
the key that opens it (``e`` pressed twice) is not typed ("eSELECT ..."): a form opened
another way (an order chosen, a table opened) drops that key too, if typed first.

Keys typed while the table a form is for is still being opened (the main screen's
``TypedAhead``) are held there and typed into the form the same way.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from textual import events
from textual.widget import Widget

from dynotui.ui.screens.dialog import Dialog

R = TypeVar("R")


class TypedAhead:
    """Keys typed for a form that is not up yet, in order."""

    def __init__(self) -> None:
        self.keys: list[events.Key] = []

    def hold(self, event: events.Key) -> None:
        self.keys.append(events.Key(event.key, event.character))

    def take(self) -> list[events.Key]:
        keys, self.keys = self.keys, []
        return keys


class FormScreen(Dialog[R], Generic[R]):
    AUTO_FOCUS = None  # nothing takes keys until the form has been drawn

    def __init__(self, opener: str = "") -> None:
        """``opener``: the character of the key that opened the form (its repeats, typed
        before the form is drawn, are not typed into it)."""
        super().__init__()
        self.shown = False
        self.opener = opener
        self._held = TypedAhead()

    def focus_when_shown(self, widget: Widget) -> None:
        """Give ``widget`` the focus once the form is on screen, then type into it what was
        typed before (held until then)."""

        def shown() -> None:
            self.shown = True
            widget.focus()
            self._type_held()

        self.call_after_refresh(shown)

    def _type_held(self) -> None:
        beneath = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else None
        earlier = getattr(beneath, "typed_ahead", None)
        keys = earlier.take() if isinstance(earlier, TypedAhead) else []
        keys += self._held.take()
        while keys and self.opener and keys[0].character == self.opener:
            keys.pop(0)  # the opening key pressed again while the form was coming
        for key in keys:  # as if typed now: to the field that has the focus
            self.app.post_message(key)

    def hold(self, event: events.Key) -> None:
        """A key typed for this form before it was drawn: typed into it once it is."""
        self._held.hold(event)

    def on_key(self, event: events.Key) -> None:
        if not self.shown:
            event.stop()
            event.prevent_default()
            self.hold(event)
