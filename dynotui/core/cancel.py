"""Cancelling a read between calls: a superseded read makes no further call."""

from __future__ import annotations

import threading
from typing import Any

from dynotui.core.errors import ReadCancelled


class CancelToken:
    """Set by whoever started a read; checked by the reader before every call."""

    __slots__ = ("_event",)

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self, cost: Any = None) -> None:
        """Raise ReadCancelled, carrying what was spent so far, if the read was cancelled."""
        if self._event.is_set():
            raise ReadCancelled(cost)


NEVER = CancelToken()  # for reads nobody cancels: the CLI, tests, benchmarks
