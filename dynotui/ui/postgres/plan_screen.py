"""A PostgreSQL plan on screen: the current filter's matches in each order of the table,
costed by the server's planner (EXPLAIN, never run), the cheapest starred, every figure
marked ``~`` (estimated); the highlighted order's plan below.

Enter opens the highlighted order as the current query (a new stack: its pages then
measured as any page is); space marks an order, and ``w`` opens the two marked side by
side in compare; ``c`` copies the plan as JSON (as ``dynotui plan --postgres --json``
prints it). The cells are ``plan.words``' (the terminal's ``dynotui plan`` says the
same); every string in them is data, shown as text.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Footer, Label, Static

from dynotui.core.errors import error_words
from dynotui.postgres.connection import PgSession
from dynotui.postgres.plan.planner import PgPlan, PgPlannedPath, make_plan
from dynotui.postgres.plan.words import detail_lines, row
from dynotui.ui.background import Done, Outcome, run_in_background
from dynotui.ui.postgres.query import PostgresQuery
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain, plain_lines

# What decides first, so 80 columns show it: the order, its buffers, against the cheapest.
COLUMNS = ("", "order", "buffers", "vs cheapest", "per page", "pages", "matches", "kind", "cost")
HINT = "* cheapest · ~ estimated by the planner · Enter opens · space marks · w compares two"

PlanAnswer = tuple[str, ...]  # ("open", name) or ("compare", left, right)


class PgPlanDone(Message):
    def __init__(self, outcome: Outcome[PgPlan]) -> None:
        super().__init__()
        self.outcome = outcome


def plan_for(
    session: PgSession, current: PostgresQuery, clock: Callable[[], float] = time.perf_counter
) -> PgPlan:
    """The plan of ``current``'s filter over its table's orders (its own order too)."""
    query = current.query
    return make_plan(
        session,
        query.table,
        where=query.where,
        params=query.params,
        projection=query.projection,
        page_size=query.page_size,
        asked=query.order,
        reverse=query.descending,
        clock=clock,
    )


class PgPlanScreen(Dialog[PlanAnswer | None]):
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("enter", "open", "Open order", priority=True),
        Binding("space", "mark", "Mark"),
        Binding("w", "compare", "Compare marked"),
        Binding("c", "copy", "Copy JSON"),
    ]

    DEFAULT_CSS = """
    #plan-progress, #plan-for, #plan-hint { width: 100%; height: auto; }
    #plan-table { height: 1fr; }
    #plan-detail { height: auto; max-height: 7; }
    """

    def __init__(
        self,
        session: PgSession,
        query: PostgresQuery,
        *,
        copy: Callable[[str, str], None],
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        """``clock``: the session's (what the plan's own seconds are timed by)."""
        super().__init__()
        self.session = session
        self.plan_query = query
        self.copy = copy
        self.clock = clock
        self.plan: PgPlan | None = None
        self.marked: list[str] = []

    def compose(self) -> ComposeResult:
        query = self.plan_query
        with Vertical(id="plan-box", classes="modal-box"):
            yield Label(plain("Plan: every order that reads this filter"), classes="modal-title")
            yield Label(plain_lines(f"{query.conditions_text()} on {query.table}"), id="plan-for")
            yield Static("Asking the planner (EXPLAIN, nothing is run)…", id="plan-progress")
            table: DataTable[object] = DataTable(id="plan-table", cursor_type="row")
            yield table
            yield Static("", id="plan-detail")
            yield Label(HINT, id="plan-hint")
        yield Footer()

    def on_mount(self) -> None:
        box = self.query_one("#plan-box")
        box.styles.width = box.styles.height = "100%"
        self.query_one(".modal-title").styles.padding = (0, 0)
        self.query_one(DataTable).add_columns(*COLUMNS)
        session, query, clock = self.session, self.plan_query, self.clock
        run_in_background(self, lambda: plan_for(session, query, clock), PgPlanDone)

    @on(PgPlanDone)
    def _done(self, message: PgPlanDone) -> None:
        outcome = message.outcome
        progress = self.query_one("#plan-progress", Static)
        if not isinstance(outcome, Done):
            progress.update(
                plain_lines(f"The plan failed: {error_words(outcome.error)}", style="bold red")
            )
            return
        plan = self.plan = outcome.value
        cost = plan.cost
        progress.update(
            plain(
                f"Done: {cost.calls:,} statements (catalog reads and EXPLAIN, nothing run), "
                f"{cost.seconds:,.2f} s; cheapest: {plan.cheapest or 'none'}"
                + (f" (as cheap, within 10%: {', '.join(plan.ties)})" if plan.ties else "")
            )
        )
        self._fill(plan)

    def _fill(self, plan: PgPlan) -> None:
        table = self.query_one(DataTable)
        at = table.cursor_row
        table.clear()
        for planned in plan.paths:
            name, kind, pages, matches, buffers, per_page, vs, cost = row(planned, plan)
            mark = "+" if planned.name in self.marked else ""
            if planned.name == plan.cheapest:
                mark += "*"
                name = name.removeprefix("* ")
            values = (mark, name, buffers, vs, per_page, pages, matches, kind, cost)
            style = "" if planned.usable else "dim"
            table.add_row(*(plain(v, style) for v in values), key=planned.name)
        if plan.paths:
            table.move_cursor(row=min(max(at, 0), len(plan.paths) - 1))
        self._describe()

    def _highlighted(self) -> PgPlannedPath | None:
        if self.plan is None or not self.plan.paths:
            return None
        table = self.query_one(DataTable)
        return self.plan.paths[min(table.cursor_row, len(self.plan.paths) - 1)]

    def _describe(self) -> None:
        planned = self._highlighted()
        if planned is None or self.plan is None:
            return
        if planned.usable:
            lines = [line.strip() for line in detail_lines(planned, self.plan)]
        else:
            lines = [f"{planned.name}: cannot be paged in this order", planned.why or ""]
        self.query_one("#plan-detail", Static).update(plain_lines("\n".join(lines)))

    @on(DataTable.RowHighlighted)
    def _highlight(self) -> None:
        self._describe()

    # -- keys --------------------------------------------------------------------------------

    def action_close(self) -> None:
        self.dismiss(None)

    def action_open(self) -> None:
        planned = self._highlighted()
        if planned is None:
            self.app.bell()
            return
        if not planned.usable:
            self.notify(
                f"{planned.name} cannot be paged: {planned.why}", severity="warning", markup=False
            )
            return
        self.dismiss(("open", planned.name))

    def action_mark(self) -> None:
        planned = self._highlighted()
        if planned is None or self.plan is None or not planned.usable:
            self.app.bell()
            return
        name = planned.name
        if name in self.marked:
            self.marked.remove(name)
        else:
            self.marked = [*self.marked[-1:], name]  # two at most: the latest two
        self._fill(self.plan)

    def action_compare(self) -> None:
        if len(self.marked) != 2:
            self.notify("Mark two orders with space first.", severity="warning", markup=False)
            return
        self.dismiss(("compare", *self.marked))

    def action_copy(self) -> None:
        if self.plan is None:
            self.app.bell()
            return
        self.copy(
            json.dumps(self.plan.as_json(), ensure_ascii=False),
            "the plan (JSON, as dynotui plan --postgres --json prints it)",
        )
