"""A view's reader (``core/view_reader.py``) with no app: a screen that records what it is
asked to draw and say, and a runner that holds each piece of work until the test runs it
(on a thread of its own, as the app's would, its outcome delivered on the test's thread).
The source is the in-memory DynamoDB, read by dynotui's own source and reader."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dynotui.core.errors import InputError
from dynotui.core.ledger import SessionLedger
from dynotui.core.outcome import Done, Failed, Outcome
from dynotui.core.page import Page
from dynotui.core.read_state import Reading
from dynotui.core.view_reader import ViewReader
from dynotui.core.view_state import ViewState
from dynotui.dynamodb.memory import MemoryDynamoDB
from dynotui.dynamodb.schema import TableSchema, describe_table
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import QuerySpec, from_key
from dynotui.local.tables import table_definition


@dataclass(frozen=True)
class MemoryQuery:
    """A query as the reader sees one: something that makes a source."""

    spec: QuerySpec
    schema: TableSchema
    refusal: str | None = None  # make_source refuses it, as a query that cannot be read

    def make_source(self, client: object, clock: Callable[[], float]) -> QuerySource:
        if self.refusal is not None:
            raise InputError(self.refusal)
        return QuerySource(client, self.spec, self.schema, clock=clock)


@dataclass(frozen=True)
class Opening:
    """An adapter's answer (``NewStack``'s fields)."""

    query: MemoryQuery
    start_key: object = None
    note: str = ""
    origin: str = ""
    first_number: int = 1
    key_json: object = None
    first_page: Any = None
    segments: Any = None


@dataclass
class Work:
    work: Callable[[], Any]
    report: Callable[[Outcome[Any]], None]
    ahead: bool
    thread: threading.Thread | None = None
    outcome: Outcome[Any] | None = None

    def start(self) -> None:
        def run() -> None:
            try:
                self.outcome = Done(self.work())
            except BaseException as exc:
                self.outcome = Failed(exc)

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()


class Works:
    """``run`` and ``run_ahead`` for the reader: work waits in ``held`` until started."""

    def __init__(self) -> None:
        self.held: list[Work] = []
        self.running: list[Work] = []

    def run(self, work: Callable[[], Any], report: Callable[[Outcome[Any]], None]) -> None:
        self.held.append(Work(work, report, ahead=False))

    def run_ahead(self, work: Callable[[], Any], report: Callable[[Outcome[Any]], None]) -> None:
        self.held.append(Work(work, report, ahead=True))

    def start(self, *, ahead: bool | None = None) -> Work:
        """Start the first held work (of that kind): on its own thread, not reported."""
        chosen = next(w for w in self.held if ahead is None or w.ahead is ahead)
        self.held.remove(chosen)
        chosen.start()
        self.running.append(chosen)
        return chosen

    def finish(self, work: Work | None = None, timeout: float = 60) -> None:
        """Wait for ``work`` (the oldest running) to end, and report it."""
        chosen = work or self.running[0]
        assert chosen.thread is not None
        chosen.thread.join(timeout)
        assert not chosen.thread.is_alive(), "the work did not end"
        self.running.remove(chosen)
        assert chosen.outcome is not None
        chosen.report(chosen.outcome)

    def step(self, *, ahead: bool | None = None) -> None:
        """Run the first held work to its end and report it."""
        self.finish(self.start(ahead=ahead))

    def settle(self, frames: Callable[[], None] = lambda: None) -> None:
        """Run everything held, and what it leads to, drawing frames between."""
        frames()
        while self.held or self.running:
            while self.held:  # all at once, as threads would: a read may wait on another
                self.running.append(self.held[0])
                self.held.pop(0).start()
            self.finish()
            frames()


@dataclass
class Screen:
    """What the reader asks of a view, recorded; ``frame`` stands for a drawn frame (the
    view reads ahead once a page's frame is drawn)."""

    reader: ViewReader[Any] | None = None
    shown: list[int] = field(default_factory=list)  # page numbers drawn, in order
    waiting: list[ViewState[Any]] = field(default_factory=list)  # drawn, frame not yet
    notices: list[str | None] = field(default_factory=list)
    said: list[tuple[str, str, str]] = field(default_factory=list)  # words, title, severity
    began: list[int] = field(default_factory=list)  # pages whose read began
    promoted_to: list[ViewState[Any]] = field(default_factory=list)
    figures: int = 0
    costs: int = 0
    refused: list[tuple[Any, InputError]] = field(default_factory=list)

    def show(self, state: ViewState[Any], page: Page[Any]) -> None:
        self.shown.append(page.number)
        self.waiting.append(state)

    def frame(self) -> None:
        assert self.reader is not None
        waiting, self.waiting = self.waiting, []
        for state in waiting:
            self.reader.read_ahead(state)

    def status_changed(self, notice: str | None) -> None:
        self.notices.append(notice)

    def read_began(self, reading: Reading[Any]) -> None:
        self.began.append(reading.number)

    def promoted(self, old: ViewState[Any] | None, new: ViewState[Any]) -> None:
        self.promoted_to.append(new)

    def say(
        self, words: str, *, title: str = "", severity: str = "information", timeout: Any = None
    ) -> None:
        self.said.append((words, title, severity))

    def figures_changed(self) -> None:
        self.figures += 1

    def costs_changed(self) -> None:
        self.costs += 1

    def query_refused(self, query: Any, error: InputError) -> None:
        self.refused.append((query, error))


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Rig:
    reader: ViewReader[MemoryQuery]
    screen: Screen
    works: Works
    client: MemoryDynamoDB
    ledger: SessionLedger
    clock: Clock

    def query(self, table: str = "items", **spec: Any) -> MemoryQuery:
        schema = describe_table(self.client, table)
        spec.setdefault("partition_value", "p")
        return MemoryQuery(from_key(schema, **spec), schema)

    def open(self, query: MemoryQuery | None = None, **opening: Any) -> bool:
        return self.reader.start(Opening(query or self.query(), **opening))

    def settle(self) -> None:
        self.works.settle(self.screen.frame)

    def queries(self) -> int:
        return [operation for operation, _ in self.client.calls].count("Query")

    def gate(self) -> threading.Event:
        """Every request from now on waits here until the event is set."""
        gate = threading.Event()
        self.client.before = lambda operation, params: gate.wait() and None
        return gate

    @property
    def number(self) -> int:
        state = self.reader.state
        return state.pager.number if state is not None else 0


def table(client: MemoryDynamoDB, items: int, name: str = "items") -> None:
    """``items`` items in partition p, sort keys 00, 01, ..."""
    client.create_table(**table_definition(name, ("k", "S"), ("s", "S")))
    client.put(name, [{"k": "p", "s": f"{i:02d}", "n": i} for i in range(items)])


def rig(items: int = 40, *, read_ahead: int = 0, client: MemoryDynamoDB | None = None) -> Rig:
    """A reader on a table of ``items`` items (partition p), nothing open yet."""
    if client is None:
        client = MemoryDynamoDB()
        table(client, items)
    screen = Screen()
    works = Works()
    ledger = SessionLedger()
    clock = Clock()
    reader: ViewReader[MemoryQuery] = ViewReader(
        screen,
        works.run,
        lambda call: call(),
        ledger=ledger,
        client=client,
        read_ahead=read_ahead,
        run_ahead=works.run_ahead,
        clock=clock,
    )
    screen.reader = reader
    return Rig(reader, screen, works, client, ledger, clock)
