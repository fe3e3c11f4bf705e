"""Database calls in daemon threads, their outcome posted back as a Message.

Textual's thread workers run in the event loop's default executor, which Python
joins at exit: an endpoint that never answers would keep ``q`` waiting for minutes.
A daemon thread is never joined, so quitting is instant whatever is in flight; the
call's outcome arrives as a Message, and whoever receives it decides whether it is
still wanted (a superseded read's cost is still counted).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

from textual.message import Message
from textual.message_pump import MessagePump

_lock = threading.Lock()
_in_flight = 0


def in_flight() -> int:
    """Calls not yet reported back: tests and scripts wait for none to be left."""
    return _in_flight


def _count(step: int) -> None:
    global _in_flight
    with _lock:
        _in_flight += step


def run_in_background(
    target: MessagePump,
    work: Callable[[], Any],
    done: Callable[[Any], Message],
    failed: Callable[[BaseException], Message],
    name: str = "dynotui-call",
) -> threading.Thread:
    """Run ``work`` in a daemon thread; post ``done(result)`` or ``failed(error)`` to ``target``."""

    def run() -> None:
        try:
            try:
                message = done(work())
            except BaseException as exc:
                message = failed(exc)
            # RuntimeError: the app has shut down, nobody is waiting any more.
            with contextlib.suppress(RuntimeError):
                target.post_message(message)
        finally:
            _count(-1)

    _count(1)
    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread
