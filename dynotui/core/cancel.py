"""Cancelling a read between calls: a superseded read makes no further call."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from dynotui.core.errors import ReadCancelled


class CancelToken:
    """Set by whoever started a read; checked by the reader before every call. A reader
    may also ask to be told (``on_cancel``), to stop a statement already running."""

    __slots__ = ("_callbacks", "_event", "_lock")

    def __init__(self) -> None:
        self._event = threading.Event()
        self._callbacks: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    def cancel(self) -> None:
        with self._lock:
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` on cancel (at once if already cancelled); returns a function
        that withdraws it."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)

                def withdraw() -> None:
                    with self._lock:
                        if callback in self._callbacks:
                            self._callbacks.remove(callback)

                return withdraw
        callback()
        return lambda: None

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``, ending early on cancel; True if cancelled."""
        return self._event.wait(seconds)

    def check(self, cost: Any = None) -> None:
        """Raise ReadCancelled, carrying what was spent so far, if the read was cancelled."""
        if self._event.is_set():
            raise ReadCancelled(cost)


NEVER = CancelToken()  # for reads nobody cancels: the CLI, tests, benchmarks
