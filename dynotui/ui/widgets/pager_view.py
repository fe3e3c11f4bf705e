"""One pager on screen: its query line, status, grid and cost sidebar.

The main screen shows one; in the compare view a second one stands beside it, each with
its own query, stack and costs. The view composes and draws; its reading (what is shown,
what is read, walks, retries, what a superseded read costs, when to read ahead) is a
``ViewReader`` (``core/view_reader.py``, no Textual in it), which the view drives with its
threads and asks to draw. Everything drawn comes from the reader's one ``ViewState`` (the
query and its pager), replaced whole when a new query's first page arrives, so the grid,
the stack and the query line always agree.

What the view is doing (idle, opening a table, reading, walking to a distant page,
failed) is the reader's ``ReadMachine`` (``core/read_state.py``); after each of its moves
its status is put in the ``read_status`` var (a reactive that repaints nothing itself),
whose watcher redraws the status line, as the ``page`` var's does when a page is shown;
the ``spent`` var's watcher redraws the sidebar and the strip when the figures they show
change.

Reads run in daemon threads (``background``) and come back as one message on this view's
queue, delivered to the reader on the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Protocol, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.timer import Timer

from dynotui.core import view_state
from dynotui.core.errors import InputError
from dynotui.core.outcome import Outcome
from dynotui.core.page import Page
from dynotui.core.pager import Pager, Target
from dynotui.core.read_state import Reading, ReadMachine, ReadStatus, TableOpening
from dynotui.core.text import visible
from dynotui.core.view_reader import ReadOrder, Severity, ViewReader
from dynotui.ui.adapter import NewStack
from dynotui.ui.background import CallReported, run_in_background
from dynotui.ui.host import Counted, Host
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
ViewState = view_state.ViewState[Query]  # what a view shows: a query of the UI's and its pager


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
    read_status: var[ReadStatus[ReadOrder[Query]]] = var(ReadStatus, always_update=True, init=False)
    page: var[Page[Any] | None] = var(None, always_update=True, init=False)
    spent: var[int] = var(0, always_update=True, init=False)  # figures changed

    def __init__(
        self,
        session: Session,
        client: object,
        events: ViewEvents | None = None,
        *,
        host: Host | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """``host``: what the item screen is shown through (the app)."""
        super().__init__(id=id, classes=classes)
        self.session = session
        self.events: ViewEvents = events or NoEvents()
        self.host = host
        self.reader: ViewReader[Query] = ViewReader(
            self,
            self._run,
            self._post,
            ledger=session.ledger,
            client=client,
            read_clock=session.clock,
            read_ahead=session.read_ahead,
            run_ahead=self._run_ahead,
        )
        self._ticker: Timer | None = None
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

    # -- what the reader holds, as the app and the screens read it ---------------------------

    @property
    def state(self) -> ViewState | None:
        return self.reader.state

    @property
    def pending(self) -> ViewState | None:
        """A new query until its first page arrives."""
        return self.reader.pending

    @property
    def machine(self) -> ReadMachine[ReadOrder[Query]]:
        return self.reader.machine

    @property
    def client(self) -> object:
        return self.reader.client

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

    # -- the reader's moves (each key's) -------------------------------------------------------

    def start(self, new: NewStack) -> bool:
        """A new stack for ``new.query``, shown once its first page arrives. False if
        refused."""
        return self.reader.start(new)

    def step_segment(self, delta: int) -> bool:
        """Segment ``delta`` away (``]``, ``[``). False: not a segmented read."""
        return self.reader.step_segment(delta)

    def navigate(self, target: Target, fresh: bool = False) -> None:
        self.reader.navigate(target, fresh)

    def jump(self, number: int) -> None:
        """Page ``number``: every page up to it read in order, drawing only the last."""
        self.reader.jump(number)

    def cancel(self) -> bool:
        """Esc: True if a read, a walk or a table opening was stopped."""
        return self.reader.cancel()

    def retry(self) -> None:
        self.reader.retry()

    def use_client(self, client: object) -> None:
        """After a reconnect: the same queries and stacks, read through the new client."""
        self.reader.use_client(client)

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
        opening = self.reader.open_table(name, work, done, failed)
        self.set_timer(SLOW_READ, lambda: self._slow_opening(opening))

    def show_hint(self, hint: str) -> None:
        """Words for the status line while this view has no query yet."""
        self._hint = Text(visible(hint))
        self._draw_status()

    # -- how the reader's work runs: daemon threads, answers on this view's queue -----------

    def _run(self, work: Callable[[], T], report: Callable[[Outcome[T]], None]) -> None:
        run_in_background(self, work, lambda outcome: CallReported(lambda: report(outcome)))

    def _run_ahead(self, work: Callable[[], T], report: Callable[[Outcome[T]], None]) -> None:
        run_in_background(self, work, lambda outcome: CallReported(lambda: report(outcome)), AHEAD)

    def _post(self, call: Callable[[], None]) -> None:
        """``call`` on the UI thread (from any thread)."""
        self.post_message(CallReported(call))

    @on(CallReported)
    def _call_reported(self, message: CallReported) -> None:
        message.stop()
        message.deliver()

    # -- what the reader asks of the view (``ViewScreen``) -------------------------------------

    def status_changed(self, notice: str | None) -> None:
        """After a move of the machine: its status into the reactive that draws it."""
        self._notice = Text(notice, style="yellow") if notice is not None else None
        self.read_status = self.machine.status

    def read_began(self, reading: Reading[Any]) -> None:
        self._stop_ticker()
        self.set_timer(SLOW_READ, lambda: self._slow(reading.id))

    def promoted(self, old: ViewState | None, new: ViewState) -> None:
        """A new stack is shown: its query line, and the columns of another table's."""
        self._hint = None
        self.query_one(CostSidebar).scroll_home(animate=False)  # a new query: its top
        if (
            old is None
            or old.query.key_columns() != new.query.key_columns()
            or (old.query.table != new.query.table)
        ):
            self.results.forget_columns()
        title = new.query.title() + (f" · {new.origin}" if new.origin else "")
        self.query_one("#query-line", TextStatic).show(plain(title))
        if new.note:
            notify(self, new.note)

    def say(
        self,
        words: str,
        *,
        title: str = "",
        severity: Severity = "information",
        timeout: float | None = None,
    ) -> None:
        notify(self, words, title=title, severity=severity, timeout=timeout)

    def figures_changed(self) -> None:
        self.spent += 1

    def costs_changed(self) -> None:
        self.events.costs_changed()

    def query_refused(self, query: Query, error: InputError) -> None:
        self.events.query_refused(self, query, error)

    # -- drawing ----------------------------------------------------------------------------

    def watch_read_status(self, status: ReadStatus[ReadOrder[Query]]) -> None:
        if status.phase in ("idle", "failed"):
            self._stop_ticker()
        self._draw_status()

    def watch_page(self, page: Page[Any] | None) -> None:
        self._draw_status()

    def watch_spent(self) -> None:
        """The figures the sidebar and the strip show changed: both are drawn again."""
        if self.state is not None and self.is_attached:  # its screen may have closed since
            self._draw_costs(self.state)

    def _slow_opening(self, opening: TableOpening) -> None:
        if self.machine.status.table_opening == opening and self._ticker is None:
            self._ticker = self.set_interval(0.1, self._draw_status)
            self._draw_status()

    def _slow(self, read_id: int) -> None:
        if self.machine.is_current(read_id) and self._ticker is None:
            self._ticker = self.set_interval(0.1, self._draw_status)
            self._draw_status()

    def _stop_ticker(self) -> None:
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

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
        self.after_page_drawn(partial(self.reader.read_ahead, state))

    def after_page_drawn(self, work: Callable[[], object]) -> None:
        """``work`` once a frame showing the page just shown has been drawn (the grid's
        ``after_drawn``)."""
        self.results.after_drawn(work)

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
            pager = state.pager
            first = pager.current is not None and pager.number == pager.first_number
            text = status_line(
                state.query, pager.current, self._counted(), (first and pager.not_held()) or ""
            )
            folded = len(self.results.folded)
            if folded and state.pager.current is not None:
                what = self.results.folded_words(folded)
                # Short: the status is one line at 120x35, so the grid does not move down a
                # line on the page that folds a column.
                text.append(f" · {what}", style="dim")
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
        """Enter on a row: the item screen, shown through the host (the view never reaches
        for the app)."""
        if event.grid is not self.results or self.state is None:
            return
        event.stop()
        page = self.state.pager.current
        if page is None or not page.items or self.host is None:
            return
        from dynotui.ui.screens.item import ItemScreen

        index = self.results.item_index(event.row)
        if index is None:
            return
        index = min(index, len(page.items) - 1)
        screen = ItemScreen(
            page.items[index], f"Page {page.number}, item {index + 1}", self.state.query
        )
        self.host.ask(screen, lambda _: None)
