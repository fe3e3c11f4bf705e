"""When the app's own DynamoDB client is made (``LazyClient.warm``).

Making it loads botocore on the app's one interpreter: a third of a second, on a busy
machine much more, that would hold back whatever is being drawn. While the opening's
child process reads the table and page 1, its client stands in; the app's own is made
once what was read at open is on screen: page 1, once a frame shows it; else (the table
names, a form, an error) once the screen showing it is drawn. With nothing read at open,
once the first screen is up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dynotui.ui.host import Host


class ClientWarming:
    def __init__(self, client: Callable[[], Any], reading_at_open: bool) -> None:
        """``client``: the adapter's client now (a reconnect replaces it);
        ``reading_at_open``: the opening reads the table (and page 1) meanwhile."""
        self.client = client
        self.reading_at_open = reading_at_open
        self._started = False  # the first screen is up
        self._handed_over = False  # what was read at open has been handed to the view
        self._after_page = False  # ... and was page 1: warmed once it is drawn

    def started(self) -> None:
        """The first screen is up."""
        self._started = True
        if not self.reading_at_open or (self._handed_over and not self._after_page):
            self.warm()

    def handed_over(self, host: Host, page_given: bool) -> None:
        """What was read at open is the view's; ``page_given``: it was page 1."""
        self._handed_over, self._after_page = True, page_given
        if page_given:
            host.after_page_drawn(self.warm)
        elif self._started:
            host.after_refresh(self.warm)

    def warm(self) -> None:
        warm = getattr(self.client(), "warm", None)  # a LazyClient: make the real client now
        if warm is not None:
            warm()
