"""One pager on screen: its query line, status, grid and cost sidebar.

The main screen shows one; in the compare view a second one stands beside it, each with
its own query, stack and costs. Everything the view draws comes from one ``ViewState``
(the query and its pager), replaced whole when a new query's first page arrives, so the
grid, the stack and the query line always agree; a query that fails changes nothing.

Reads run in daemon threads (``background``) and come back as one message with a
``Done`` or ``Failed`` outcome. Presses of ``n`` while a page is read add up to a target
page, read in order; any other move or Esc cancels the rest. A superseded read makes no
further call, and its cost counts. A failure stays in the status line, with what failed
and when, until a read succeeds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import InputError, ReadCancelled, error_words
from dynotui.core.page import Cost, Page
from dynotui.core.pager import Move, Pager, StalePageError, Target
from dynotui.core.text import visible
from dynotui.ui.background import Done, Outcome, run_in_background
from dynotui.ui.query import Boundary, Counted, Item, Query
from dynotui.ui.session import Session
from dynotui.ui.widgets.column_layout import ColumnLayout
from dynotui.ui.widgets.grid import Grid
from dynotui.ui.widgets.results import Results
from dynotui.ui.widgets.safe_text import TextStatic, notify, plain
from dynotui.ui.widgets.sidebar import CostSidebar, strip_text
from dynotui.ui.widgets.status_line import busy, status_line, walking

SLOW_READ = 0.15  # show that a read is under way only past this many seconds


@dataclass(frozen=True)
class ViewState:
    """A query and its pager: everything a view draws, swapped as a whole."""

    query: Query
    pager: Pager
    note: str = ""  # said once, when this state's first page arrives
    origin: str = ""  # where page 1 came from, if not the query's start: on the query line
    page_offset: int = 0  # page 1 of this stack is page 1 + page_offset of the one it reopens


@dataclass(frozen=True)
class Failure:
    """The move that failed, kept in the status line until a read succeeds."""

    page: int
    words: str
    at: datetime


@dataclass
class _Read:
    id: int
    state: ViewState
    move: Move
    target: Target = "next"  # what the user asked for, for R to retry
    token: CancelToken = field(default_factory=CancelToken)
    began: float = field(default_factory=time.monotonic)


class PagerView(Horizontal):
    """A pager with its own query, stack and costs."""

    class ReadReported(Message):
        def __init__(self, read_id: int, outcome: Outcome[Page[Any]]) -> None:
            super().__init__()
            self.read_id = read_id
            self.outcome = outcome

    class QueryRefused(Message):
        """A new query's first page was refused as bad input (a filter the server does not
        accept): the query goes back to its form, with what was typed and why."""

        def __init__(self, view: PagerView, query: Query, error: InputError) -> None:
            super().__init__()
            self.view = view
            self.query = query
            self.error = error

    class CostsChanged(Message):
        """Spent outside a page shown (an abandoned read): every sidebar's session figures."""

    class PageShown(Message):
        def __init__(self, view: PagerView, page: Page[Any]) -> None:
            super().__init__()
            self.view = view
            self.page = page

    def __init__(
        self,
        session: Session,
        client: object,
        *,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.session = session
        self.client = client
        self.state: ViewState | None = None
        self.pending: ViewState | None = None  # a new query until its first page arrives
        self.target: int | None = None  # the page that held n presses are heading for
        self.failed: tuple[ViewState, Target] | None = None  # the move R retries
        self.failure: Failure | None = None  # shown until a read succeeds
        self._read: _Read | None = None
        self._owners: dict[int, ViewState] = {}  # reads in flight, current or not
        self._reads = 0
        self._ticker: Timer | None = None
        self.quiet = False  # walking to a distant page: pages between are not drawn
        self._quiet_drawn = 0.0
        self.opening: tuple[str, float] | None = None  # a table being described, since when
        self._costs_due = False  # the sidebar waits for the frame that shows the rows
        self._hint: Text | None = None  # said in the status line while there is no query

    def compose(self) -> ComposeResult:
        with Vertical(classes="results-pane"):
            yield TextStatic("", id="query-line")
            yield TextStatic("", id="status-line")
            yield Results(id="results")
            yield TextStatic("", id="cost-strip")
        yield CostSidebar(id="sidebar")

    @property
    def grid(self) -> Results:
        return self.query_one("#results", Results)

    @property
    def column_layout(self) -> ColumnLayout | None:
        return self.grid.column_layout

    @property
    def pager(self) -> Pager | None:
        return self.state.pager if self.state else None

    @property
    def reading(self) -> bool:
        return self._read is not None

    @property
    def query_shown(self) -> Query | None:
        return self.state.query if self.state is not None else None

    # -- new queries --------------------------------------------------------------------------

    def start(
        self,
        query: Query,
        start_key: Boundary = None,
        note: str = "",
        *,
        origin: str = "",
        page_offset: int = 0,
    ) -> bool:
        """A new stack for ``query``. It replaces the current one only once its first page
        has been read, so a query that fails keeps what is on screen. False if refused.
        ``origin`` says, on the query line, where page 1 came from (a foreign cursor, a
        history entry re-read from its stored key)."""
        try:
            source = query.make_source(self.client, self.session.clock)
        except InputError as exc:
            notify(self, str(exc), title="Query", severity="error")
            return False
        self._end_quiet()  # what is on screen is the current page until the new one comes
        pager = Pager(source, start_key=start_key, ledger=self.session.ledger)
        self.pending = ViewState(query, pager, note, origin, page_offset)
        self.target = None
        self._begin(self.pending, pager.plan("next"))
        return True

    def adopt(self, query: Query, pager: Pager, page: Page[Any]) -> None:
        """A query whose first page was read before the app was ready (``dynotui -t T``)."""
        pager.ledger = self.session.ledger
        self.pending = ViewState(query, pager)
        self._accept(self.pending, page)

    def show_hint(self, hint: str) -> None:
        """Words for the status line while this view has no query yet."""
        self._hint = Text(visible(hint))
        self._show_status()

    # -- moves ------------------------------------------------------------------------------

    def navigate(self, target: Target, fresh: bool = False) -> None:
        state = self.state
        if state is None:
            return
        read = self._read
        if (
            target == "next"
            and read is not None
            and read.state is state
            and (self.target is not None or read.move.number == state.pager.number + 1)
        ):
            # Held or repeated n while a page is read: each press is one more page.
            self.target = (self.target or read.move.number) + 1
            self._show_status()
            return
        try:
            move = state.pager.plan(target, fresh=fresh)
        except InputError as exc:  # an impossible move changes nothing, a read included
            notify(self, str(exc), severity="warning")
            self._show_status()
            return
        self.target = None
        self._cancel_read()
        self._end_quiet()
        if self.pending is not None:
            self.pending = None  # moving in the current query abandons a pending one
            notify(self, "The new query was dropped: a move in the one shown came after it.")
        if move.cached is not None:
            self._accept(state, move.cached)
            return
        self._begin(state, move, target)

    def jump(self, number: int) -> None:
        """Page ``number``: from the stack if known, else every page up to it read in order
        (as held n does), drawing only the last."""
        state = self.state
        if state is None:
            return
        known = state.pager.known_pages
        if number <= known:
            self.navigate(number)
            return
        self.navigate(known)
        if self.state is not state:
            return
        self.target = number
        self.quiet = True
        if self._read is None:
            self._continue()
        else:
            self._show_status()

    def _end_quiet(self) -> None:
        """Draw the page the walk stopped on: what is on screen must be the current page."""
        if not self.quiet:
            return
        self.quiet = False
        state = self.state
        if state is not None and state.pager.current is not None:
            self.show(state, state.pager.current)

    def begin_opening(self, name: str) -> None:
        """A table is being described: say so once it takes a moment; Esc abandons it."""
        began = time.monotonic()
        self.opening = (name, began)
        self.set_timer(SLOW_READ, lambda: self._slow_opening(began))

    def end_opening(self, name: str) -> bool:
        """True if that table is still wanted (not abandoned with Esc since)."""
        wanted = self.opening is not None and self.opening[0] == name
        if wanted:  # another table asked for since stays asked for
            self.opening = None
        if self._read is None:
            self._stop_ticker()
        self._show_status()
        return wanted

    def _slow_opening(self, began: float) -> None:
        if self.opening is not None and self.opening[1] == began and self._ticker is None:
            self._ticker = self.set_interval(0.1, self._show_status)
            self._show_status()

    def cancel(self) -> bool:
        """Esc: stop the read in flight and forget held presses. True if there was one."""
        busy = self._read is not None or self.target is not None or self.opening is not None
        self.opening = None
        self.target = None
        self.pending = None
        self._cancel_read()
        self._end_quiet()
        if busy:
            self._show_status(Text("Cancelled; the page shown is unchanged.", style="yellow"))
        return busy

    def retry(self) -> None:
        if self.failed is None:
            notify(self, "No failed move to retry.", severity="warning")
            return
        state, target = self.failed
        self.failed = None
        if state is self.state:
            self.navigate(target, fresh=True)
        else:  # the first page of a new query failed: try that query again
            self.start(
                state.query,
                state.pager.start_key_of(1),
                state.note,
                origin=state.origin,
                page_offset=state.page_offset,
            )

    def use_client(self, client: object) -> None:
        """After a reconnect: the same queries and stacks, read through the new client."""
        self.client = client
        for state in (self.state, self.pending):
            if state is not None:
                state.pager.source = state.pager.source.with_client(client)

    # -- reading ----------------------------------------------------------------------------

    def _begin(self, state: ViewState, move: Move, target: Target = "next") -> None:
        self._cancel_read()
        self._reads += 1
        read = _Read(self._reads, state, move, target)
        self._read = read
        self._owners[read.id] = state
        run_in_background(
            self,
            lambda: state.pager.read(move, read.token),
            lambda outcome: self.ReadReported(read.id, outcome),
        )
        self.set_timer(SLOW_READ, lambda: self._slow(read.id))

    def _cancel_read(self) -> None:
        read, self._read = self._read, None
        if read is not None:
            read.token.cancel()  # the thread makes no further call; its cost comes back
        self._stop_ticker()

    def _slow(self, read_id: int) -> None:
        if self._read is not None and self._read.id == read_id and self._ticker is None:
            self._ticker = self.set_interval(0.1, self._show_status)
            self._show_status()

    def _stop_ticker(self) -> None:
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def _abandoned(self, state: ViewState, cost: Cost | None) -> None:
        if cost is None:
            return
        state.pager.abandon(cost)
        if state is self.state:
            self._draw_costs(state)
        self.post_message(self.CostsChanged())

    @on(ReadReported)
    def _read_reported(self, message: ReadReported) -> None:
        message.stop()
        owner = self._owners.pop(message.read_id, None)
        outcome = message.outcome
        read = self._read
        current = read is not None and read.id == message.read_id
        if isinstance(outcome, Done):
            page = outcome.value
            if not current:
                # Superseded or cancelled: not shown, but the database billed it all the same.
                if owner is not None and not page.cached:
                    self._abandoned(owner, page.cost)
                return
            assert read is not None
            self._read = None
            self._stop_ticker()
            self._accept(read.state, page)
            self._continue()
            return
        error = outcome.error
        if isinstance(error, ReadCancelled) and owner is not None:
            self._abandoned(owner, error.cost)
        if not current:
            return
        assert read is not None
        self._read = None
        self._stop_ticker()
        self.target = None
        self._end_quiet()
        if isinstance(error, ReadCancelled):
            self._show_status()
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
                self.post_message(self.QueryRefused(self, read.state.query, error))
                self._show_status()
                return
        self.failed = (read.state, read.target)
        words = error_words(error)
        self.failure = Failure(read.move.number, words, datetime.now().astimezone())
        kept = "the pages read so far are kept" if self.state else "nothing was changed"
        notify(
            self,
            f"{words} — {kept}. R retries; E changes the connection.",
            title=f"Page {read.move.number}",
            severity="error",
            timeout=10,
        )
        self._show_status()

    def _continue(self) -> None:
        """After a page arrives: go on towards the target of held n presses."""
        state = self.state
        while state is not None and self.target is not None:
            pager = state.pager
            if self.target <= pager.number or not pager.can_advance:
                self.target = None
                self._end_quiet()
                break
            move = pager.plan("next")
            if move.cached is None:
                self._begin(state, move)
                self._show_status()
                return
            self._accept(state, move.cached)
        self._show_status()

    def _accept(self, state: ViewState, page: Page[Any]) -> None:
        promoted = state is self.pending
        if promoted:
            self.pending = None
            old = self.state
            self.state = state
            self._hint = None
            if (
                old is None
                or old.query.key_columns() != state.query.key_columns()
                or (old.query.table != state.query.table)
            ):
                self.grid.forget_columns()
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
        self.failed = None
        self.failure = None
        if self.quiet and self.target is not None and shown.number < self.target:
            # On the way to a distant page: only the status moves, ten times a second.
            now = time.monotonic()
            if now - self._quiet_drawn >= 0.1:
                self._quiet_drawn = now
                self._show_status()
            return
        self.quiet = False
        self.show(state, shown)

    # -- drawing ----------------------------------------------------------------------------

    def show(self, state: ViewState, page: Page[Any]) -> None:
        self.grid.show_items(state.query, page.items, self.size.width)
        self._show_status()
        # The page first, its costs one frame later: the sidebar is half of a frame's
        # drawing, and the rows and the page number are what the key asked for.
        if not self._costs_due:
            self._costs_due = True
            self.call_after_refresh(self._draw_due_costs)
        self.post_message(self.PageShown(self, page))

    def _draw_due_costs(self) -> None:
        self._costs_due = False
        if self.state is not None and self.is_attached:  # its screen may have closed since
            self._draw_costs(self.state)

    def redraw_columns(self, to_content: bool = False) -> None:
        """After the column picker (or a fit): the same rows in the new columns."""
        state = self.state
        if state is None or state.pager.current is None:
            return
        self.grid.refit(state.query, state.pager.current.items, self.size.width, to_content)
        self._show_status()  # the count of folded columns may have changed

    def _counted(self) -> Counted | None:
        if self.state is None:
            return None
        return self.session.counts.get(self.state.pager.source.scope())

    def refresh_status(self) -> None:
        self._show_status()

    def refresh_costs(self) -> None:
        """Redraw the sidebar: another view's reads may have changed what the advisor knows."""
        if self.state is not None:
            self._draw_costs(self.state)

    def _draw_costs(self, state: ViewState) -> None:
        pager = state.pager
        summary = pager.summary_of(pager.number) if pager.current else None
        if summary is not None and pager.current is not None and pager.current.cached:
            summary = pager.current.summary()
        findings = pager.advisor.findings()
        measures = pager.measures.snapshot()
        session = self.session.ledger.figures()
        prices = self.session.prices
        self.query_one(CostSidebar).show(
            summary, pager.totals, pager.series(), findings, measures, session, prices
        )
        self.query_one("#cost-strip", TextStatic).show(
            strip_text(summary, pager.totals, measures, session, len(findings))
        )

    def _failure_text(self) -> Text:
        failure = self.failure
        assert failure is not None
        when = failure.at.strftime("%H:%M:%S")
        return Text(
            visible(f"✗ Page {failure.page} failed at {when}: {failure.words} — R retries. "),
            style="bold red",
        )

    def _show_status(self, override: Text | None = None) -> None:
        line = self.query_one("#status-line", TextStatic)
        if override is not None:
            line.show(override)
            return
        state = self.state
        if state is not None:
            text = status_line(state.query, state.pager.current, self._counted())
            folded = len(self.grid.folded)
            if folded and state.pager.current is not None:
                text.append(
                    f" · {folded} empty column{'s' if folded > 1 else ''} folded "
                    "(f, then e, shows them)",
                    style="dim",
                )
        else:
            text = self._hint.copy() if self._hint is not None else Text("")
        if self.failure is not None:
            text = self._failure_text() + text
        read = self._read
        if read is not None and self._ticker is not None:
            what = (
                "the new query's first page"
                if read.state is self.pending
                else f"page {read.move.number}"
            )
            text = busy(f"Reading {what}", read.began, "cancels") + Text("  ") + text
        elif self.opening is not None and self._ticker is not None:
            name, began = self.opening
            text = busy(f"Opening table {visible(name)}", began, "cancels")
        if self.target is not None and read is not None:
            text = walking(self.target, read.move.number) + text
        line.show(text)

    # -- the item under the cursor ----------------------------------------------------------

    def selected_item(self) -> Item | None:
        state = self.state
        if state is None or state.pager.current is None or not state.pager.current.items:
            return None
        items = state.pager.current.items
        return items[min(max(self.grid.cursor_row, 0), len(items) - 1)]

    @on(Grid.RowSelected)
    def _row_selected(self, event: Grid.RowSelected) -> None:
        if event.grid is not self.grid or self.state is None:
            return
        event.stop()
        page = self.state.pager.current
        if page is None or not page.items:
            return
        from dynotui.ui.screens.item import ItemScreen

        index = min(max(event.row, 0), len(page.items) - 1)
        self.app.push_screen(
            ItemScreen(
                page.items[index],
                f"Page {page.number}, item {index + 1}",
                self.state.query,
            )
        )
