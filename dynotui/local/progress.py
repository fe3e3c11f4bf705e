"""One line of progress on stderr, so no step of the demo's start is silent.

On a terminal the line is redrawn in place (elapsed seconds, bytes, a bar); elsewhere
(a log, CI) each step prints when it starts and when it ends.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

BAR = 24


def bar(done: int, total: int, width: int = BAR) -> str:
    filled = round(width * done / total) if total else width
    return "█" * filled + "░" * (width - filled)


class Step:
    """``with Step("Starting DynamoDB Local"):`` shows the seconds passing until it ends;
    ``update`` adds detail (bytes fetched, items written)."""

    def __init__(self, title: str, out: TextIO | None = None, interval: float = 0.2) -> None:
        self.title = title
        self.out = out or sys.stderr
        self.interval = interval
        self.detail = ""
        self.began = time.perf_counter()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._live = self.out.isatty()
        self._thread: threading.Thread | None = None

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.began

    def update(self, detail: str) -> None:
        self.detail = detail
        if self._live:
            self._draw()

    def _line(self) -> str:
        detail = f"  {self.detail}" if self.detail else ""
        return f"{self.title}…{detail}  {self.seconds:.1f} s"

    def _draw(self) -> None:
        with self._lock:
            self.out.write("\r\x1b[2K" + self._line())
            self.out.flush()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self._draw()

    def __enter__(self) -> Step:
        self.began = time.perf_counter()
        if self._live:
            self._draw()
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        else:
            print(f"{self.title}…", file=self.out, flush=True)
        return self

    def finish(self, summary: str | None = None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        text = summary or f"{self.title}: done"
        with self._lock:
            prefix = "\r\x1b[2K" if self._live else ""
            self.out.write(f"{prefix}{text} ({self.seconds:.1f} s)\n")
            self.out.flush()
        self._live = False

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._stop.is_set():
            return
        self.finish(f"{self.title}: failed" if exc_type else None)


Report = Callable[[str], None]


def silent(_: str) -> None:
    pass
