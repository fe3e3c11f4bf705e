"""What the app keeps in history: each query opened, and where the user left it.

A write touches a file (8-27 ms): it runs on a thread of its own, in the order the pages
were shown, never on the UI's. Quitting waits a moment for what is queued, so the page
last shown is the page ``--resume`` reopens. A history that cannot be written is said
once; the app goes on without it.
"""

from __future__ import annotations

import queue
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from dynotui.core.errors import error_words
from dynotui.core.history import HistoryQuery, HistoryStore, cost_record
from dynotui.core.page import Page
from dynotui.core.pager import Pager

Job = Callable[[], None]
FLUSH_WAIT = 1.0  # seconds quitting waits, at most, for history still being written


@dataclass
class _Mark:
    """A stack's entry in history; the id arrives once the first write is done."""

    entry_id: str | None = None


class HistoryLog:
    def __init__(self, store: HistoryStore | None, warn: Callable[[str], None]) -> None:
        """``warn`` is called (on the writer's thread) once, if history cannot be kept."""
        self.store = store
        self.warn = warn
        self._marks: weakref.WeakKeyDictionary[Pager, _Mark] = weakref.WeakKeyDictionary()
        self._jobs: queue.Queue[Job] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._said: set[str] = set()
        self._unrecorded: list[Callable[[], None]] = []  # pages shown, recorded once drawn

    @property
    def enabled(self) -> bool:
        return self.store is not None and self.store.enabled

    def page_shown_later(
        self, pager: Pager, page: Page[Any], describe: Callable[[], HistoryQuery | None]
    ) -> None:
        """``page_shown``, once ``record_shown`` is called (when the frame showing the page
        is drawn: describing the query and writing would otherwise hold that frame back)."""
        self._unrecorded.append(partial(self.page_shown, pager, page, describe))

    def record_shown(self) -> None:
        """The pages shown so far, into the history, in the order they were shown."""
        pending, self._unrecorded = self._unrecorded, []
        for record in pending:
            record()

    def page_shown(
        self,
        pager: Pager,
        page: Page[Any],
        describe: Callable[[], HistoryQuery | None],
    ) -> None:
        """Page ``page`` of ``pager``'s stack is on screen: record the query the first time,
        and where the user is now (its page number, kept across reopenings, and start
        key)."""
        store = self.store
        if store is None or not store.enabled:
            return
        mark = self._marks.get(pager)
        if mark is None:
            described = describe()
            if described is None:
                return
            mark = self._marks[pager] = _Mark()
            chosen = mark

            def opened() -> None:
                chosen.entry_id = store.record_open(described)

            self._submit(opened)
        source = pager.source
        boundary = None if page.start_key is None else source.key_to_json(page.start_key)
        number = page.number
        cost = cost_record(pager.totals)
        kept = mark

        def viewed() -> None:
            store.viewed(kept.entry_id, page=number, boundary=boundary, cost=cost)

        self._submit(viewed)

    def flush(self, timeout: float = FLUSH_WAIT) -> None:
        """Wait until what is queued is written, at most ``timeout`` seconds."""
        if self._thread is None:
            return
        done = threading.Event()
        self._jobs.put(done.set)
        done.wait(timeout)

    def _submit(self, job: Job) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="dynotui-history", daemon=True)
            self._thread.start()
        self._jobs.put(job)

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            try:
                job()
            except Exception as exc:  # a history that cannot be kept never stops the app
                words = error_words(exc)
                if words not in self._said:  # each reason once, however many writes fail
                    self._said.add(words)
                    self.warn(f"History: this was not kept: {words}")
