"""One pager on screen: its query line, status, grid and cost sidebar.

The main screen shows one; in the compare view a second one stands beside it, each with
its own query, stack and costs. Everything the view draws comes from one ``ViewState``
(the query and its pager), replaced whole when a new query's first page arrives, so the
grid, the stack and the query line always agree; a query that fails changes nothing.

What the view is doing (idle, opening a table, reading, walking to a distant page,
failed) is a ``ReadMachine`` (``core/read_state.py``, no Textual in it); after each of its
moves its status is put in the ``read_status`` var (a reactive that repaints nothing
itself), whose watcher redraws the status line, as the ``page`` var's does when a page is
shown; the ``spent`` var's watcher redraws the sidebar and the strip when the figures they
show change.

Reads run in daemon threads (``background``) and come back as one message with a
``Done`` or ``Failed`` outcome. Presses of ``n`` while a page is read add up to a goal
page, read in order; any other move or Esc cancels the rest. A superseded read makes no
further call, and its cost counts. A failure stays in the status line, with what failed
and when, until a read succeeds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import var
from textual.timer import Timer

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import InputError, ReadCancelled, error_words
from dynotui.core.page import Cost, Page
from dynotui.core.pager import Move, Pager, StalePageError, Target
from dynotui.core.read_state import ReadMachine, ReadStatus, TableOpening
from dynotui.core.segments import SegmentedRead
from dynotui.core.text import visible
from dynotui.ui.adapter import NewStack, Segments
from dynotui.ui.background import CallReported, Done, Outcome, call_in_background, run_in_background
from dynotui.ui.host import Counted
from dynotui.ui.query import Item, Query, entity_rows
from dynotui.ui.session import Session
from dynotui.ui.widgets.column_layout import ColumnLayout
from dynotui.ui.widgets.grid import Grid
from dynotui.ui.widgets.results import Results
from dynotui.ui.widgets.safe_text import TextStatic, notify, plain
from dynotui.ui.widgets.segment_map import SegmentMap
from dynotui.ui.widgets.sidebar import CostSidebar, CostStrip
from dynotui.ui.widgets.status_line import StatusLine, status_line, walking
from dynotui.ui.widgets.status_line import busy as busy_text

SLOW_READ = 0.15  # show that a read is under way only past this many seconds
AHEAD = "dynotui-read-ahead"  # the threads that read ahead
T = TypeVar("T")


@dataclass(frozen=True)
class ViewState:
    """A query and its pager: everything a view draws, swapped as a whole."""

    query: Query
    pager: Pager
    note: str = ""  # said once, when this state's first page arrives
    origin: str = ""  # where page 1 came from, if not the query's start: on the query line
    segments: Segments | None = None  # a read in segments: ``pager`` is segment ``segment``'s
    segment: int = 0

    def read(self, move: Move, cancel: CancelToken) -> Page[Any]:
        """The page ``move`` leads to; a segment's read backs off on its own when throttled."""
        if self.segments is None:
            return self.pager.read(move, cancel)
        return SegmentedRead.read(self.segments.read.segments[self.segment], move, cancel)

    def in_segment(self, index: int) -> ViewState:
        """The same segmented read on segment ``index``: its own query and stack."""
        assert self.segments is not None
        return ViewState(
            self.segments.queries[index],
            self.segments.read.segments[index].pager,
            origin=self.origin,
            segments=self.segments,
            segment=index,
        )


@dataclass(frozen=True, eq=False)
class _Read:
    """What the view keeps with a read in flight."""

    state: ViewState
    move: Move
    asked: Target = "next"  # the move the user asked for, for R to retry
    token: CancelToken = field(default_factory=CancelToken)


class ViewEvents(Protocol):
    """What a view tells whoever holds it (the app), by direct call: a message would be
    lost when posted from an ancestor's handler (it stops bubbling at its sender)."""

    def page_shown(self, view: PagerView, state: ViewState, page: Page[Any]) -> None:
        """A page is on screen (a new stack's first page included): history records it."""

    def costs_changed(self) -> None:
        """Spent outside a page shown (an abandoned read): every sidebar's session figures."""

    def query_refused(self, view: PagerView, query: Query, error: InputError) -> None:
        """A new query's first page was refused as bad input (a filter the server does not
        accept): the query goes back to its form, with what was typed and why."""


class NoEvents:
    def page_shown(self, view: PagerView, state: ViewState, page: Page[Any]) -> None:
        pass

    def costs_changed(self) -> None:
        pass

    def query_refused(self, view: PagerView, query: Query, error: InputError) -> None:
        pass


class PagerView(Horizontal):
    """A pager with its own query, stack and costs."""

    # ``var``, not ``reactive``: each watcher redraws the one widget it feeds. A reactive
    # also repaints the whole view (the grid and the sidebar included) at every set, three
    # times a key press, which doubled what a press cost to draw.
    read_status: var[ReadStatus[_Read]] = var(ReadStatus, always_update=True, init=False)
    page: var[Page[Any] | None] = var(None, always_update=True, init=False)
    spent: var[int] = var(0, always_update=True, init=False)  # figures changed

    class ReadReported(Message):
        def __init__(self, read_id: int, outcome: Outcome[Page[Any]]) -> None:
            super().__init__()
            self.read_id = read_id
            self.outcome = outcome

    def __init__(
        self,
        session: Session,
        client: object,
        events: ViewEvents | None = None,
        *,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.session = session
        self.client = client
        self.events: ViewEvents = events or NoEvents()
        self.state: ViewState | None = None
        self.pending: ViewState | None = None  # a new query until its first page arrives
        self.machine: ReadMachine[_Read] = ReadMachine()
        self.retry_move: tuple[ViewState, Target] | None = None  # the move R retries
        self._owners: dict[int, ViewState] = {}  # reads in flight, current or not
        self._ticker: Timer | None = None
        self._quiet_drawn = 0.0
        self._costs_due = False  # the sidebar waits for the frame that shows the rows
        self._hint: Text | None = None  # said in the status line while there is no query
        self._notice: Text | None = None  # said instead, until the next move

    def compose(self) -> ComposeResult:
        with Vertical(classes="results-pane"):
            yield TextStatic("", id="query-line")
            yield StatusLine(id="status-line")
            yield Results(id="results")
            yield CostStrip("", id="cost-strip")  # a Scan's segment line, when one is shown
        yield CostSidebar(id="sidebar")

    @property
    def results(self) -> Results:
        return self.query_one("#results", Results)

    @property
    def column_layout(self) -> ColumnLayout | None:
        return self.results.column_layout

    @property
    def pager(self) -> Pager | None:
        return self.state.pager if self.state else None

    @property
    def reading(self) -> bool:
        return self.machine.status.reading is not None

    @property
    def busy(self) -> bool:
        """Reading, walking or opening a table: what Esc would stop."""
        return self.machine.status.busy

    @property
    def goal_page(self) -> int | None:
        return self.machine.status.goal_page

    @property
    def query_shown(self) -> Query | None:
        return self.state.query if self.state is not None else None

    # -- the machine's moves, and what the view draws from them -----------------------------

    def _sync(self, notice: Text | None = None) -> None:
        """After a move of the machine: its status into the reactive that draws it."""
        self._notice = notice
        self.read_status = self.machine.status

    def watch_read_status(self, status: ReadStatus[_Read]) -> None:
        if status.phase in ("idle", "failed"):
            self._stop_ticker()
        self._draw_status()

    def watch_page(self, page: Page[Any] | None) -> None:
        self._draw_status()

    def watch_spent(self) -> None:
        """The figures the sidebar and the strip show changed: both are drawn again."""
        if self.state is not None and self.is_attached:  # its screen may have closed since
            self._draw_costs(self.state)

    # -- new queries --------------------------------------------------------------------------

    def start(self, new: NewStack) -> bool:
        """A new stack for ``new.query``. It replaces the current one only once its first
        page has been read, so a query that fails keeps what is on screen. False if
        refused."""
        query = new.query
        if new.segments is not None:
            return self._start_segments(new.segments, new.note, new.origin)
        if new.first_page is not None:  # read before the app was ready
            pager = new.first_page.pager
            pager.attach(self.session.ledger)
            self.pending = ViewState(query, pager, new.note, new.origin)
            self._accept(self.pending, new.first_page.page)
            return True
        try:
            source = query.make_source(self.client, self.session.clock)
            start_key = new.start_key
            if new.key_json is not None:  # a stored boundary, checked as any other
                start_key = source.key_from_json(new.key_json)
        except InputError as exc:
            notify(self, str(exc), title="Query", severity="error")
            return False
        self._end_walk()  # what is on screen is the current page until the new one comes
        pager = Pager(
            source,
            start_key=start_key,
            first_number=new.first_number,
            ledger=self.session.ledger,
        )
        self.pending = ViewState(query, pager, new.note, new.origin)
        self._begin(self.pending, pager.plan("next"))
        return True

    def _start_segments(self, segments: Segments, note: str, origin: str) -> bool:
        """A segmented read: segment 0's first page; the others as ``[`` and ``]`` reach them."""
        for segment in segments.read.segments:
            segment.pager.ledger = self.session.ledger
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
        self._cancel(self.machine.drop_read())
        pager = target.pager
        move = pager.plan(pager.number) if pager.current is not None else pager.plan("next")
        self.pending = target
        if move.ready is not None:
            self._accept(target, move.ready)
            self._sync()
        else:
            self._begin(target, move)
        return True

    def show_hint(self, hint: str) -> None:
        """Words for the status line while this view has no query yet."""
        self._hint = Text(visible(hint))
        self._draw_status()

    # -- opening a table ------------------------------------------------------------------

    def open_table(
        self,
        name: str,
        work: Callable[[], T],
        done: Callable[[T], None],
        failed: Callable[[BaseException], None],
    ) -> None:
        """Describe table ``name`` (``work``, off the UI thread) while the status line says
        so once it takes a moment; ``done`` or ``failed`` runs only if that table is still
        wanted: Esc, or another table asked for since, abandons it."""
        opening = self.machine.open_table(name)
        self._sync()
        self.set_timer(SLOW_READ, lambda: self._slow_opening(opening))

        def answered(value: T) -> None:
            if self.machine.table_opened(opening):
                self._sync()
                done(value)

        def broke(error: BaseException) -> None:
            if self.machine.table_opened(opening):
                self._sync()
                failed(error)

        call_in_background(self, work, answered, broke)

    @on(CallReported)
    def _call_reported(self, message: CallReported) -> None:
        message.stop()
        message.deliver()

    def _slow_opening(self, opening: TableOpening) -> None:
        if self.machine.status.table_opening == opening and self._ticker is None:
            self._ticker = self.set_interval(0.1, self._draw_status)
            self._draw_status()

    # -- moves ------------------------------------------------------------------------------

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
            notify(self, str(exc), severity="warning")
            return
        self._end_walk()
        self._cancel(self.machine.drop_read())
        if self.pending is not None:
            self.pending = None  # moving in the current query abandons a pending one
            notify(self, "The new query was dropped: a move in the one shown came after it.")
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
            self.show(state, state.pager.current)

    def cancel(self) -> bool:
        """Esc: stop the read in flight, forget held presses, abandon a table being
        opened. True if there was any."""
        was_busy = self.machine.status.busy
        self._end_walk()
        self.pending = None
        self._cancel(self.machine.cancel())
        said = Text("Cancelled; the page shown is unchanged.", style="yellow")
        self._sync(said if was_busy else None)
        return was_busy

    def retry(self) -> None:
        if self.retry_move is None:
            notify(self, "No failed move to retry.", severity="warning")
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
                NewStack(
                    state.query,
                    state.pager.start_key_of(first),
                    state.note,
                    origin=state.origin,
                    first_number=first,
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

    # -- reading ----------------------------------------------------------------------------

    def _begin(self, state: ViewState, move: Move, asked: Target = "next") -> None:
        self._cancel(self.machine.status.reading)
        self._stop_ticker()
        read = _Read(state, move, asked)
        reading = self.machine.begin(move.number, read, first_page=state is self.pending)
        self._owners[reading.id] = state
        run_in_background(
            self,
            lambda: state.read(move, read.token),
            lambda outcome: self.ReadReported(reading.id, outcome),
        )
        self.set_timer(SLOW_READ, lambda: self._slow(reading.id))
        self._sync()

    @staticmethod
    def _cancel(reading: Any) -> None:
        if reading is not None:
            reading.payload.token.cancel()  # the thread makes no further call; its cost comes back

    def _slow(self, read_id: int) -> None:
        if self.machine.is_current(read_id) and self._ticker is None:
            self._ticker = self.set_interval(0.1, self._draw_status)
            self._draw_status()

    def _stop_ticker(self) -> None:
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def _abandoned(self, state: ViewState, cost: Cost | None) -> None:
        if cost is None:
            return
        state.pager.abandon(cost)
        if state is self.state:
            self.spent += 1
        self.events.costs_changed()

    @on(ReadReported)
    def _read_reported(self, message: ReadReported) -> None:
        message.stop()
        owner = self._owners.pop(message.read_id, None)
        outcome = message.outcome
        if isinstance(outcome, Done):
            page = outcome.value
            reading = self.machine.arrived(message.read_id)
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
        if current is None or current.id != message.read_id:
            return
        read = current.payload
        quiet = self.machine.status.quiet
        refused = read.state is self.pending and isinstance(error, InputError)
        if isinstance(error, ReadCancelled) or refused:
            self.machine.stopped(message.read_id)
        else:
            self.machine.failed(message.read_id, error_words(error), datetime.now().astimezone())
        if quiet and self.state is not None and self.state.pager.current is not None:
            self.show(self.state, self.state.pager.current)  # where the walk stopped
        if isinstance(error, ReadCancelled):
            self._sync()
            return
        if read.state is self.pending:
            self.pending = None
            if isinstance(error, InputError):
                # The user's to fix, in the form: nothing here changed, nothing to retry.
                notify(
                    self,
                    f"{error_words(error)} — nothing was changed; the form is open again.",
                    title="Query refused",
                    severity="error",
                    timeout=10,
                )
                self._sync()
                self.events.query_refused(self, read.state.query, error)
                return
        self.retry_move = (read.state, read.asked)
        kept = "the pages read so far are kept" if self.state else "nothing was changed"
        notify(
            self,
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
                # reads ahead once this frame is drawn, the walk over by then.
                self._end_walk()
                break
            move = pager.plan("next")
            if move.ready is None:
                self._begin(state, move)
                return
            self._accept(state, move.ready)
        self._sync()

    def _accept(self, state: ViewState, page: Page[Any]) -> None:
        promoted = state is self.pending
        if promoted:
            self.pending = None
            old = self.state
            self.state = state
            if old is not None:
                old.pager.stop_reading_ahead()  # no longer shown: read no further ahead
            if state.segments is not None:
                state.segments.read.select(state.segment)
            self._hint = None
            if (
                old is None
                or old.query.key_columns() != state.query.key_columns()
                or (old.query.table != state.query.table)
            ):
                self.results.forget_columns()
            title = state.query.title() + (f" · {state.origin}" if state.origin else "")
            self.query_one("#query-line", TextStatic).show(plain(title))
            if state.note:
                notify(self, state.note)
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
                now = time.monotonic()
                if now - self._quiet_drawn >= 0.1:
                    self._quiet_drawn = now
                    self._sync()
                return
            self.machine.end_walk()  # there: this page is drawn
        self.show(state, shown)

    # -- drawing ----------------------------------------------------------------------------

    def show(self, state: ViewState, page: Page[Any]) -> None:
        self.results.show_items(state.query, page.items, self.size.width)
        self.page = page  # its watcher draws the status line
        # The page first, its costs one frame later: the sidebar is half of a frame's
        # drawing, and the rows and the page number are what the key asked for.
        if not self._costs_due:
            self._costs_due = True
            self.call_after_refresh(self._draw_due_costs)
        self.events.page_shown(self, state, page)
        # Once the page is on screen: reading ahead parses its answer on another thread,
        # which drawing this frame would share the interpreter with.
        self.call_after_refresh(self._read_ahead, state)

    def _read_ahead(self, state: ViewState) -> None:
        """With ``--read-ahead N``: the next N pages, read while this one is read (none
        while a page is read or n is held: the walk reads them itself, and a read being
        cancelled is not to be read again; none for a read in segments, which backs off
        on its own). Each is billed as read ahead; ``n`` shows it without a call."""
        pages = self.session.read_ahead
        status = self.machine.status
        if (
            not pages
            or state is not self.state
            or state.segments is not None
            or status.reading is not None
            or status.goal_page is not None
            or any(owner is state for owner in self._owners.values())  # cancelled, not back
        ):
            return
        work = state.pager.start_reading_ahead(pages, each=self._post_ahead_read)
        if work is None:
            return
        try:
            run_in_background(self, work, lambda _: CallReported(lambda: None), AHEAD)
        except RuntimeError:  # no thread to be had: the page claimed is not waited for
            state.pager.stop_reading_ahead()

    def _post_ahead_read(self) -> None:
        """From the thread reading ahead, after each page: the session spent more."""
        self.post_message(CallReported(self.events.costs_changed))

    def _draw_due_costs(self) -> None:
        self._costs_due = False
        self.spent += 1

    def redraw_columns(self, to_content: bool = False) -> None:
        """After the column picker (or a fit): the same rows in the new columns."""
        state = self.state
        if state is None or state.pager.current is None:
            return
        self.results.refit(state.query, state.pager.current.items, self.size.width, to_content)
        self._draw_status()  # the count of folded columns may have changed

    def _counted(self) -> Counted | None:
        if self.state is None:
            return None
        return self.session.counts.get(self.state.pager.source.scope())

    def refresh_status(self) -> None:
        """Something the status line quotes changed outside a read (a count kept)."""
        self._draw_status()

    def refresh_costs(self) -> None:
        """Redraw the sidebar: another view's reads may have changed what the advisor knows."""
        self.spent += 1

    def _draw_costs(self, state: ViewState) -> None:
        pager = state.pager
        summary = pager.summary_of(pager.number) if pager.current else None
        if summary is not None and pager.current is not None and pager.current.cached:
            summary = pager.current.summary()
        findings = pager.advisor.findings()
        measures = pager.measures.snapshot()
        session = self.session.ledger.figures()
        prices = self.session.prices
        per_item = pager.per_item.value
        self.query_one(CostSidebar).show(
            summary, pager.totals, pager.series(), findings, measures, session, prices, per_item
        )
        self.query_one("#cost-strip", CostStrip).show_figures(
            summary, pager.totals, measures, session, len(findings), per_item
        )
        self._draw_entity_costs(state, summary)
        figures = state.segments.read.figures() if state.segments is not None else None
        lines = list(self.query("#segment-line").results(SegmentMap))
        if not lines and figures:
            lines = [SegmentMap(compact=True, id="segment-line")]
            self.query_one(".results-pane", Vertical).mount(lines[0], before="#cost-strip")
        for segment_map in lines:
            segment_map.show_segments(figures, state.segment)
        self.query_one(CostSidebar).show_segments(figures, state.segment)

    def _draw_entity_costs(self, state: ViewState, summary: Any) -> None:
        """The page's read units split by entity, by what each row weighs (its bytes)."""
        marks = entity_rows(state.query)
        page = state.pager.current
        split = []
        if marks is not None and page is not None and summary is not None:
            split = self.results.entity_split(marks.item_weights(page.items))
        self.query_one(CostSidebar).show_entities(split, summary.cost if summary else None)

    def filter_entity(self) -> None:
        """Keep the rows of one entity in view (the next, then all): client-side."""
        if self.state is None or self.state.pager.current is None:
            return
        if not self.results.entities_seen:
            notify(self, "These rows have no entities to tell apart.", severity="warning")
            return
        kept = self.results.filter_entity()
        self._draw_status()
        if kept is None:
            notify(self, "Every row again: the entity filter is off.")

    def _draw_status(self) -> None:
        if not self.is_mounted:
            return
        line = self.query_one("#status-line", StatusLine)
        if self._notice is not None:
            line.show(self._notice)
            return
        state = self.state
        if state is not None:
            text = status_line(state.query, state.pager.current, self._counted())
            folded = len(self.results.folded)
            if folded and state.pager.current is not None:
                what = self.results.folded_words(folded)
                text.append(f" · {what} folded (f, then e, shows them)", style="dim")
            entity_words = self.results.entity_words()
            if entity_words:
                text.append(" · " + entity_words, style="bold")
            line.hold_for(state.pager, text)
        else:
            text = self._hint.copy() if self._hint is not None else Text("")
        status = self.machine.status
        failure = status.failure
        if failure is not None:
            when = failure.at.strftime("%H:%M:%S")
            text = (
                Text(
                    visible(
                        f"✗ Page {failure.page} failed at {when}: {failure.words} — R retries. "
                    ),
                    style="bold red",
                )
                + text
            )
        reading = status.reading
        if reading is not None and self._ticker is not None:
            what = "the new query's first page" if reading.first_page else f"page {reading.number}"
            text = busy_text(f"Reading {what}", reading.began, "cancels") + Text("  ") + text
        elif status.table_opening is not None and self._ticker is not None:
            opening = status.table_opening
            text = busy_text(f"Opening table {visible(opening.name)}", opening.began, "cancels")
        if status.goal_page is not None and reading is not None:
            text = walking(status.goal_page, reading.number) + text
        line.show(text)

    # -- the item under the cursor ----------------------------------------------------------

    def selected_item(self) -> Item | None:
        state = self.state
        if state is None or state.pager.current is None or not state.pager.current.items:
            return None
        items: Sequence[Item] = state.pager.current.items
        index = self.results.item_index(self.results.cursor_row)  # the entity filter's rows
        return items[min(index, len(items) - 1)] if index is not None else None

    @on(Results.ColumnsFollowed)
    def _columns_followed(self, event: Results.ColumnsFollowed) -> None:
        event.stop()
        self._draw_status()  # the columns folded are another entity's now

    @on(Grid.RowSelected)
    def _row_selected(self, event: Grid.RowSelected) -> None:
        if event.grid is not self.results or self.state is None:
            return
        event.stop()
        page = self.state.pager.current
        if page is None or not page.items:
            return
        from dynotui.ui.screens.item import ItemScreen

        index = self.results.item_index(event.row)
        if index is None:
            return
        index = min(index, len(page.items) - 1)
        self.app.push_screen(
            ItemScreen(
                page.items[index],
                f"Page {page.number}, item {index + 1}",
                self.state.query,
            )
        )
