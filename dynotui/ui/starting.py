"""A start's first frame: drawn before the app's parts are imported.

Importing the core, the widgets and the database's adapter, then composing and styling
the main screen, take longer than Textual's own start (``benchmarks/startup.py``). A
command that opens the app (``cli/app_launch.py``) gives ``PagerApp`` a ``Starting``
instead of an adapter: the app draws its header and a line saying what it opens, then
makes the adapter, and the main screen takes that frame's place. Keys typed meanwhile
are held and pressed again, in order, on the main screen (as a terminal holds keys typed
before an app runs). This module imports Textual and the core's text only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Header, Static

from dynotui.core.text import visible

if TYPE_CHECKING:
    from dynotui.ui.adapter import Adapter


@dataclass(frozen=True)
class Starting:
    """What the first frame says, and how the adapter is made once it is drawn."""

    label: str  # the connection, in the header (as the adapter's own label)
    doing: str  # what is being opened, in words
    adapter: Callable[[], Adapter]


class StartingScreen(Screen[None]):
    """The header and what is being opened; keys are held for the main screen."""

    DEFAULT_CSS = """
    StartingScreen #starting {
        margin: 1 2;
        color: $text-muted;
    }
    """

    def __init__(self, doing: str) -> None:
        super().__init__()
        self.doing = doing
        self.held: list[events.Key] = []
        self._press: Callable[[events.Key], object] | None = None

    def hand_on(self, press: Callable[[events.Key], object]) -> None:
        """The app's parts are made: the keys held are pressed, and any key this screen
        is still handed (typed before the main screen took its place) after them."""
        self._press = press
        held, self.held = self.held, []
        for key in held:
            press(key)

    def compose(self) -> ComposeResult:
        yield Header()
        # Words made of a table name or a value: shown as text, never as markup.
        yield Static(visible(self.doing), id="starting", markup=False)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        if self._press is not None:
            self._press(event)
        else:
            self.held.append(event)
