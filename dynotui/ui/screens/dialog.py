"""Every screen over the main one: ``q`` quits dynotui from it, as from the main screen.

A modal screen hides the app's own bindings, so the app's ``q`` never reaches it: each
dialog binds ``q`` to the app's quit itself. A text field that has the focus takes ``q``
as a letter (it consumes printable keys before any binding), so typing is unchanged.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from textual.binding import Binding
from textual.screen import ModalScreen

R = TypeVar("R")


class Dialog(ModalScreen[R], Generic[R]):
    BINDINGS = [Binding("q", "app.quit", "Quit", show=False)]
