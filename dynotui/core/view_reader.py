"""The reading of one pager view, with no Textual in it: what to read, when, and what an
answer means.

A view (``ui/widgets/pager_view.py``) composes and draws; this controller owns its reading:
the stack shown and a new one until its first page arrives (``ViewState``), the state
machine (``read_state.py``), the reads in flight and whose they are, R's retry, walks to a
goal page (held ``n``) and jumps past the known pages, the billing of superseded and
cancelled reads, and when pages may be read ahead. It is driven by two callables and a
clock, so a test drives it with no app, no thread and no timer:

- ``run(work, report)`` runs ``work`` elsewhere (the UI: a daemon thread) and calls
  ``report(outcome)`` on the caller's thread with ``Done(page)`` or ``Failed(error)``;
  ``run_ahead`` is the same for reading ahead (the UI's threads of another name);
- ``post(call)`` calls ``call`` on the caller's thread, from any thread;
- ``clock``: the machine's, and the quiet walk's redraws.

What it asks of the view (``ViewScreen``) is drawing and words: show a page, the status
changed, say something, the figures changed, a new stack is shown, a query was refused.

Rules, each tested on this class over the in-memory DynamoDB (``tests/test_view_reader.py``):
presses of ``n`` while a page is read add up to a goal page, read in order; any other move
or Esc cancels the rest; a superseded read makes no further call, and its cost counts (a
page read ahead is billed as that, never again); a failure stays in the status line until
a read succeeds, and R retries the move that failed; a new query replaces what is shown
only once its first page has arrived, and a query refused as bad input goes back to its
form; nothing is read ahead while a read or a walk is under way, nor while a read
cancelled for that stack has not come back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Literal, Protocol, TypeVar

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import InputError, ReadCancelled, error_words
from dynotui.core.ledger import SessionLedger
from dynotui.core.outcome import Done, Outcome
from dynotui.core.page import Cost, Page
from dynotui.core.pager import Move, Pager, StalePageError, Target
from dynotui.core.read_state import Reading, ReadMachine, ReadStatus, TableOpening
from dynotui.core.view_state import Q, Segmented, StackOpening, ViewState

T = TypeVar("T")
Severity = Literal["information", "warning", "error"]
QUIET_REDRAW = 0.1  # a quiet walk redraws its status at most this often (seconds)
CANCELLED = "Cancelled; the page shown is unchanged."


class Run(Protocol):
    def __call__(self, work: Callable[[], T], report: Callable[[Outcome[T]], None]) -> None:
        """``work`` elsewhere; ``report`` with its outcome, on the caller's thread."""


class ViewScreen(Protocol[Q]):
    """What the controller asks of the view that draws it (on the UI's thread)."""

    def show(self, state: ViewState[Q], page: Page[Any]) -> None:
        """Draw ``page`` of ``state``; once drawn, call the controller's ``read_ahead``."""

    def status_changed(self, notice: str | None) -> None:
        """The machine moved: the status line again (``notice``: said instead, once)."""

    def read_began(self, reading: Reading[Any]) -> None:
        """A read began: the view may say so once it takes a moment."""

    def promoted(self, old: ViewState[Q] | None, new: ViewState[Q]) -> None:
        """A new stack is shown from now on (its first page follows)."""

    def say(
        self,
        words: str,
        *,
        title: str = "",
        severity: Severity = "information",
        timeout: float | None = None,
    ) -> None:
        """Words for the user, plain text."""

    def figures_changed(self) -> None:
        """This view's figures changed (an abandoned read): its sidebar again."""

    def costs_changed(self) -> None:
        """The session spent more outside a page shown: every sidebar's session figures."""

    def query_refused(self, query: Q, error: InputError) -> None:
        """A new query's first page was refused as bad input: back to its form."""


@dataclass(frozen=True, eq=False)
class ReadOrder(Generic[Q]):
    """What the controller keeps with a read in flight."""

    state: ViewState[Q]
    move: Move
    asked: Target = "next"  # the move the user asked for, for R to retry
    token: CancelToken = field(default_factory=CancelToken)


def now() -> datetime:
    return datetime.now().astimezone()


class ViewReader(Generic[Q]):
    """The reading of one view. ``state`` is what it shows; ``pending`` a new query until
    its first page arrives; ``machine.status`` what it is doing."""

    def __init__(
        self,
        screen: ViewScreen[Q],
        run: Run,
        post: Callable[[Callable[[], None]], None],
        *,
        ledger: SessionLedger,
        client: object = None,
        read_clock: Callable[[], float] = time.perf_counter,
        read_ahead: int = 0,
        run_ahead: Run | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], datetime] = now,
    ) -> None:
        """``read_clock``: what sources time their calls by; ``read_ahead``: pages read
        ahead of the one shown (``--read-ahead``; 0: none); ``wall``: when a read failed."""
        self.screen = screen
        self.run = run
        self.run_ahead = run_ahead or run
        self.post = post
        self.ledger = ledger
        self.client = client
        self.read_clock = read_clock
        self.read_ahead_pages = read_ahead
        self.clock = clock
        self.wall = wall
        self.state: ViewState[Q] | None = None
        self.pending: ViewState[Q] | None = None  # a new query until its first page arrives
        self.machine: ReadMachine[ReadOrder[Q]] = ReadMachine(clock)
        self.retry_move: tuple[ViewState[Q], Target] | None = None  # the move R retries
        self.owners: dict[int, ViewState[Q]] = {}  # reads in flight, current or not
        self._quiet_drawn: float | None = None

    @property
    def status(self) -> ReadStatus[ReadOrder[Q]]:
        return self.machine.status

    def _sync(self, notice: str | None = None) -> None:
        self.screen.status_changed(notice)

    # -- new queries ---------------------------------------------------------------------

    def start(self, new: StackOpening[Q]) -> bool:
        """A new stack for ``new.query``. It replaces the current one only once its first
        page has been read, so a query that fails keeps what is on screen. False if
        refused."""
        query = new.query
        if new.segments is not None:
            return self._start_segments(new.segments, new.note, new.origin)
        if new.first_page is not None:  # read before the app was ready
            pager = new.first_page.pager
            pager.attach(self.ledger)
            self.pending = ViewState(query, pager, new.note, new.origin)
            self._accept(self.pending, new.first_page.page)
            return True
        try:
            source = query.make_source(self.client, self.read_clock)
            start_key = new.start_key
            if new.key_json is not None:  # a stored boundary, checked as any other
                start_key = source.key_from_json(new.key_json)
        except InputError as exc:
            self.screen.say(str(exc), title="Query", severity="error")
            return False
        self._end_walk()  # what is on screen is the current page until the new one comes
        pager = Pager(
            source,
            start_key=start_key,
            first_number=new.first_number,
            ledger=self.ledger,
        )
        self.pending = ViewState(query, pager, new.note, new.origin)
        self._begin(self.pending, pager.plan("next"))
        return True

    def _start_segments(self, segments: Segmented[Q], note: str, origin: str) -> bool:
        """A segmented read: segment 0's first page; the others as ``[`` and ``]`` reach them."""
        for segment in segments.read.segments:
            segment.pager.ledger = self.ledger
        self._end_walk()
        self.pending = ViewState(
            segments.queries[0], segments.read.segments[0].pager, note, origin, segments
        )
        self._begin(self.pending, self.pending.pager.plan("next"))
        return True

    def step_segment(self, delta: int) -> bool:
        """Segment ``delta`` away (``]``: 1, ``[``: -1, round the ring), on the page its own
        stack was left on (page 1 read when it has none yet). False: not a segmented read."""
        state = self.state
        if state is None or state.segments is None:
            return False
        going = self.pending if self.pending is not None else state
        if going.segments is not state.segments:
            going = state
        target = state.in_segment((going.segment + delta) % len(state.segments.queries))
        self._end_walk()
        _cancel(self.machine.drop_read())
        pager = target.pager
        move = pager.plan(pager.number) if pager.current is not None else pager.plan("next")
        self.pending = target
        if move.ready is not None:
            self._accept(target, move.ready)
            self._sync()
        else:
            self._begin(target, move)
        return True

    # -- opening a table -------------------------------------------------------------------

    def open_table(
        self,
        name: str,
        work: Callable[[], T],
        done: Callable[[T], None],
        failed: Callable[[BaseException], None],
    ) -> TableOpening:
        """Describe table ``name`` (``work``, run elsewhere); ``done`` or ``failed`` runs
        only if that table is still wanted: Esc, or another table asked for since,
        abandons it."""
        opening = self.machine.open_table(name)
        self._sync()

        def report(outcome: Outcome[T]) -> None:
            if self.machine.table_opened(opening):
                self._sync()
                if isinstance(outcome, Done):
                    done(outcome.value)
                else:
                    failed(outcome.error)

        self.run(work, report)
        return opening

    # -- moves -----------------------------------------------------------------------------

    def navigate(self, target: Target, fresh: bool = False) -> None:
        state = self.state
        if state is None:
            return
        status = self.machine.status
        reading = status.reading
        if (
            target == "next"
            and reading is not None
            and reading.payload.state is state
            and (status.goal_page is not None or reading.number == state.pager.number + 1)
        ):
            # Held or repeated n while a page is read: each press is one more page.
            self.machine.walk_to((status.goal_page or reading.number) + 1, quiet=status.quiet)
            self._sync()
            return
        try:
            move = state.pager.plan(target, fresh=fresh)
        except InputError as exc:  # an impossible move changes nothing, a read included
            self.screen.say(str(exc), severity="warning")
            return
        self._end_walk()
        _cancel(self.machine.drop_read())
        if self.pending is not None:
            self.pending = None  # moving in the current query abandons a pending one
            self.screen.say("The new query was dropped: a move in the one shown came after it.")
        if move.ready is not None:  # cached, or read ahead: no call
            self._accept(state, move.ready)
            self._sync()
            return
        self._begin(state, move, target)

    def jump(self, number: int) -> None:
        """Page ``number``: from the stack if known, else every page up to it read in order
        (as held n does), drawing only the last."""
        state = self.state
        if state is None:
            return
        last = state.pager.last_known
        if number <= last:
            self.navigate(number)
            return
        self.navigate(last)
        if self.state is not state:
            return
        self.machine.walk_to(number, quiet=True)
        if self.machine.status.reading is None:
            self._continue()
        else:
            self._sync()

    def _end_walk(self) -> None:
        """No walk any more; a quiet one draws the page it stopped on: what is on screen
        must be the current page."""
        quiet = self.machine.status.quiet
        self.machine.end_walk()
        state = self.state
        if quiet and state is not None and state.pager.current is not None:
            self.screen.show(state, state.pager.current)

    def cancel(self) -> bool:
        """Esc: stop the read in flight, forget held presses, abandon a table being
        opened. True if there was any."""
        was_busy = self.machine.status.busy
        self._end_walk()
        self.pending = None
        _cancel(self.machine.cancel())
        self._sync(CANCELLED if was_busy else None)
        return was_busy

    def retry(self) -> None:
        if self.retry_move is None:
            self.screen.say("No failed move to retry.", severity="warning")
            return
        state, target = self.retry_move
        self.retry_move = None
        if state is self.state:
            self.navigate(target, fresh=True)
        elif state.segments is not None:  # a segment's first page: that segment again
            self.pending = state
            self._begin(state, state.pager.plan("next"))
        else:  # the first page of a new query failed: try that query again
            first = state.pager.first_number
            self.start(
                _Again(
                    state.query,
                    state.pager.start_key_of(first),
                    state.note,
                    state.origin,
                    first,
                )
            )

    def use_client(self, client: object) -> None:
        """After a reconnect: the same queries and stacks, read through the new client."""
        self.client = client
        for state in (self.state, self.pending):
            if state is not None and state.segments is not None:
                for segment in state.segments.read.segments:
                    segment.pager.source = segment.pager.source.with_client(client)
            elif state is not None:
                state.pager.source = state.pager.source.with_client(client)

    # -- reading -----------------------------------------------------------------------------

    def _begin(self, state: ViewState[Q], move: Move, asked: Target = "next") -> None:
        _cancel(self.machine.status.reading)
        read = ReadOrder(state, move, asked)
        reading = self.machine.begin(move.number, read, first_page=state is self.pending)
        self.owners[reading.id] = state
        self.screen.read_began(reading)
        self.run(
            lambda: state.read(move, read.token),
            lambda outcome: self.reported(reading.id, outcome),
        )
        self._sync()

    def _abandoned(self, state: ViewState[Q], cost: Cost | None) -> None:
        if cost is None:
            return
        state.pager.abandon(cost)
        if state is self.state:
            self.screen.figures_changed()
        self.screen.costs_changed()

    def reported(self, read_id: int, outcome: Outcome[Page[Any]]) -> None:
        """Read ``read_id`` ended: show its page if it is still wanted, bill it if not,
        say what failed."""
        owner = self.owners.pop(read_id, None)
        if isinstance(outcome, Done):
            page = outcome.value
            reading = self.machine.arrived(read_id)
            if reading is None:
                # Superseded or cancelled: not shown, but the database billed it all the same.
                if owner is not None and not page.cached and not page.read_ahead:
                    self._abandoned(owner, page.cost)  # (read ahead: billed as that)
                return
            self._accept(reading.payload.state, page)
            self._continue()
            return
        error = outcome.error
        if isinstance(error, ReadCancelled) and owner is not None:
            self._abandoned(owner, error.cost)
        current = self.machine.status.reading
        if current is None or current.id != read_id:
            return
        read = current.payload
        quiet = self.machine.status.quiet
        refused = read.state is self.pending and isinstance(error, InputError)
        if isinstance(error, ReadCancelled) or refused:
            self.machine.stopped(read_id)
        else:
            self.machine.failed(read_id, error_words(error), self.wall())
        if quiet and self.state is not None and self.state.pager.current is not None:
            self.screen.show(self.state, self.state.pager.current)  # where the walk stopped
        if isinstance(error, ReadCancelled):
            self._sync()
            return
        if read.state is self.pending:
            self.pending = None
            if isinstance(error, InputError):
                # The user's to fix, in the form: nothing here changed, nothing to retry.
                self.screen.say(
                    f"{error_words(error)} — nothing was changed; the form is open again.",
                    title="Query refused",
                    severity="error",
                    timeout=10,
                )
                self._sync()
                self.screen.query_refused(read.state.query, error)
                return
        self.retry_move = (read.state, read.asked)
        kept = "the pages read so far are kept" if self.state else "nothing was changed"
        self.screen.say(
            f"{error_words(error)} — {kept}. R retries; E changes the connection.",
            title=f"Page {read.move.number}",
            severity="error",
            timeout=10,
        )
        self._sync()

    def _continue(self) -> None:
        """After a page arrives: go on towards the goal page of held n presses."""
        state = self.state
        while state is not None and (goal := self.machine.status.goal_page) is not None:
            pager = state.pager
            if goal <= pager.number or not pager.can_advance:
                # The page it stopped on was shown (now, if the walk was quiet): that show
                # reads ahead once its frame is drawn, the walk over by then.
                self._end_walk()
                break
            move = pager.plan("next")
            if move.ready is None:
                self._begin(state, move)
                return
            self._accept(state, move.ready)
        self._sync()

    def _accept(self, state: ViewState[Q], page: Page[Any]) -> None:
        promoted = state is self.pending
        if promoted:
            self.pending = None
            old = self.state
            self.state = state
            if old is not None:
                old.pager.stop_reading_ahead()  # no longer shown: read no further ahead
            if state.segments is not None:
                state.segments.read.select(state.segment)
            self.screen.promoted(old, state)
        elif state is not self.state:
            return  # a page of a stack that has been replaced since
        try:
            shown = state.pager.accept(page)
        except StalePageError:
            return
        self.machine.shown()
        self.retry_move = None
        status = self.machine.status
        if status.quiet and status.goal_page is not None:
            if shown.number < status.goal_page:
                # On the way to a distant page: only the status moves, ten times a second.
                now = self.clock()
                if self._quiet_drawn is None or now - self._quiet_drawn >= QUIET_REDRAW:
                    self._quiet_drawn = now
                    self._sync()
                return
            self.machine.end_walk()  # there: this page is drawn
        self.screen.show(state, shown)

    # -- reading ahead -------------------------------------------------------------------

    def read_ahead(self, state: ViewState[Q]) -> None:
        """With ``--read-ahead N``, once ``state``'s page is drawn: the next N pages, read
        while this one is read (none while a page is read or n is held: the walk reads
        them itself, and a read being cancelled is not to be read again; none for a read
        in segments, which backs off on its own). Each is billed as read ahead; ``n``
        shows it without a call."""
        pages = self.read_ahead_pages
        status = self.machine.status
        if (
            not pages
            or state is not self.state
            or state.segments is not None
            or status.reading is not None
            or status.goal_page is not None
            or any(owner is state for owner in self.owners.values())  # cancelled, not back
        ):
            return
        work = state.pager.start_reading_ahead(pages, each=self._ahead_read)
        if work is None:
            return
        try:
            self.run_ahead(work, _ignore)
        except RuntimeError:  # no thread to be had: the page claimed is not waited for
            state.pager.stop_reading_ahead()

    def _ahead_read(self) -> None:
        """From the thread reading ahead, after each page: the session spent more."""
        self.post(self.screen.costs_changed)


def _cancel(reading: Reading[ReadOrder[Any]] | None) -> None:
    if reading is not None:
        reading.payload.token.cancel()  # the thread makes no further call; its cost comes back


def _ignore(outcome: Outcome[Any]) -> None:
    """A chain read ahead reports through its pages (and its pager), not its end."""


@dataclass(frozen=True)
class _Again(Generic[Q]):
    """A new query's first page failed: the same query again, from where it began."""

    query: Q
    start_key: object
    note: str
    origin: str
    first_number: int
    key_json: object = None
    first_page: None = None
    segments: None = None
