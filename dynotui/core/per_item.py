"""What a query costs per item, one way for everyone who quotes it.

The figure is the cost of each page's latest fresh read over the items those reads
showed: the result set's items each once. A page read again replaces its own figures
(a re-read bills again, but shows the same items, and a cached page is no read), and
the match fill mode reads past the page to know whether a next one exists is not an item
shown (the next page shows it). The compare line, the report's compare table and the
advisor all read it from here, so one side of a compare has one cost per item.

Kept O(1) per page read: a running sum, corrected when a page is read again.
"""

from __future__ import annotations

from collections.abc import Hashable
from threading import Lock


class PerItem:
    """Cost per item shown over each page's latest fresh read. Pages whose cost was not
    reported count for neither the cost nor the items."""

    def __init__(self) -> None:
        self._pages: dict[Hashable, tuple[float, int]] = {}
        self._lock = Lock()  # shared across views (the advisor's measurements) and threads
        self.units = 0.0
        self.shown = 0
        self.pages_not_reported = 0

    def read(self, page: Hashable, units: float | None, shown: int) -> None:
        """Page ``page`` read fresh: its cost (None: not reported) and the items shown."""
        with self._lock:
            old = self._pages.pop(page, None)
            if old is not None:
                self.units -= old[0]
                self.shown -= old[1]
            if units is None:
                self.pages_not_reported += 1
                return
            self._pages[page] = (float(units), shown)
            self.units += units
            self.shown += shown

    @property
    def value(self) -> float | None:
        """The cost per item shown, or None while no item shown has a reported cost."""
        with self._lock:
            return self.units / self.shown if self.shown else None

    @property
    def pages(self) -> int:
        """Pages whose latest read is counted."""
        return len(self._pages)
