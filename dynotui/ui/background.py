"""Database calls in daemon threads, their outcome posted back as a Message.

Textual's thread workers run in the event loop's default executor, which Python
joins at exit: an endpoint that never answers would keep ``q`` waiting for minutes.
A daemon thread is never joined, so quitting is instant whatever is in flight; the
call's outcome arrives as a Message, and whoever receives it decides whether it is
still wanted (a superseded read's cost is still counted).

An outcome is ``Done(value)`` or ``Failed(error)`` (``core/outcome.py``), never "a value
or an exception" in one untyped field: the receiver matches on the two.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TypeVar

from textual.message import Message
from textual.message_pump import MessagePump

from dynotui.core.outcome import Done, Failed, Outcome

__all__ = ["Done", "Failed", "Outcome", "call_in_background", "run_in_background"]

T = TypeVar("T")
THREAD_NAME = "dynotui-call"  # every call's thread: one still alive has not reported yet


def run_in_background(
    target: MessagePump,
    work: Callable[[], T],
    report: Callable[[Outcome[T]], Message],
    name: str = THREAD_NAME,
) -> threading.Thread:
    """Run ``work`` in a daemon thread; post ``report(Done(result))`` or
    ``report(Failed(error))`` to ``target``."""

    def run() -> None:
        outcome: Outcome[T]
        try:
            outcome = Done(work())
        except BaseException as exc:
            outcome = Failed(exc)
        # RuntimeError: the app has shut down, nobody is waiting any more.
        with contextlib.suppress(RuntimeError):
            target.post_message(report(outcome))

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread


class CallReported(Message):
    """The outcome of a call an adapter made through ``PagerApp.call``, with what to do
    with it: the adapter's callbacks run on the UI thread, in order with other messages."""

    def __init__(self, deliver: Callable[[], None]) -> None:
        super().__init__()
        self.deliver = deliver


def call_in_background(
    target: MessagePump,
    work: Callable[[], T],
    done: Callable[[T], None],
    failed: Callable[[BaseException], None],
    name: str = THREAD_NAME,
) -> threading.Thread:
    """``work`` in a daemon thread, then ``done(value)`` or ``failed(error)`` on the thread
    of ``target`` (which must handle ``CallReported`` by calling ``deliver``)."""

    def report(outcome: Outcome[T]) -> CallReported:
        if isinstance(outcome, Done):
            value = outcome.value
            return CallReported(lambda: done(value))
        error = outcome.error
        return CallReported(lambda: failed(error))

    return run_in_background(target, work, report, name)
