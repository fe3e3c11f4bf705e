"""A plan on screen: its progress and cost so far (Esc stops it: the plan of what was
read), then a table of every path, the cheapest starred, every estimated figure marked
``~``; the highlighted path's query and what its figures rest on below.

Enter opens the highlighted path as the current order; space marks a path, and ``w``
opens the two marked side by side in compare; ``c`` copies the plan as JSON (as
``dynotui plan --json`` prints it). The cells are ``plan.words``' (the terminal's
``dynotui plan`` and the report say the same); every string in them is data, shown as text.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Footer, Label, Static

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import error_words
from dynotui.core.figures_text import number
from dynotui.core.money import PriceList
from dynotui.dynamodb.plan.figures import Plan, PlannedPath
from dynotui.dynamodb.plan.planner import Progress
from dynotui.dynamodb.plan.words import drain_seconds, kind_words, ratio_words, row
from dynotui.ui.background import Done, Outcome, run_in_background
from dynotui.ui.dynamodb.plan_run import PlanBroken, PlanMade, run
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain, plain_lines

# What decides first, so 80 columns show it: the path, its read units, against the cheapest.
COLUMNS = (
    "",
    "path",
    "read units",
    "vs cheapest",
    "matches",
    "pages",
    "p50/p99",
    "$/M views",
    "drain s",
    "kind",
)
HINT = "* cheapest · ~ estimated · Enter opens · space marks · w compares two marked"

PlanAnswer = tuple[str, ...]  # ("open", name) or ("compare", left, right)


class PlanStep(Message):
    def __init__(self, step: Progress) -> None:
        super().__init__()
        self.step = step


class PlanDone(Message):
    def __init__(self, outcome: Outcome[PlanMade | PlanBroken]) -> None:
        super().__init__()
        self.outcome = outcome


def detail(planned: PlannedPath, plan: Plan) -> str:
    """The highlighted path in words: its query, order, basis and reason."""
    path = planned.path
    lines = [f"{path.name} ({kind_words(planned)}): {ratio_words(planned, plan)}"]
    if not planned.usable:
        lines.append(f"cannot serve this query: {planned.why}")
        return "\n".join(lines)
    if path.kind != "export":
        lines.append(f"key condition: {planned.key_text() or 'none (a Scan)'}")
    lines.append(f"filter: {planned.filter_text() or 'none'} · order: {path.order_words()}")
    if planned.figures is not None:
        # The table's "drain s" column is past 80 columns and says its two figures nowhere.
        lines.append(
            f"drain: {drain_seconds(planned)} s, at the plan's measured latency / at 3,000 "
            "read units a second (a partition's ceiling)"
        )
        lines.append(f"rests on: {planned.figures.basis}")
    if planned.why:
        lines.append(f"note: {planned.why}")
    return "\n".join(lines)


class PlanScreen(Dialog[PlanAnswer | None]):
    BINDINGS = [
        Binding("escape", "stop_or_close", "Stop / close"),
        Binding("enter", "open", "Open path", priority=True),
        Binding("space", "mark", "Mark"),
        Binding("w", "compare", "Compare marked"),
        Binding("c", "copy", "Copy JSON"),
    ]

    DEFAULT_CSS = """
    #plan-progress, #plan-for, #plan-hint { width: 100%; height: auto; }
    #plan-table { height: 1fr; }
    #plan-detail { height: auto; max-height: 50%; }
    """

    def __init__(
        self,
        client: object,
        query: DynamoQuery,
        prices: PriceList | None,
        *,
        finished: Callable[[PlanMade | PlanBroken], None],
        copy: Callable[[str, str], None],
        clock: Callable[[], float],
        plan: Plan | None = None,
    ) -> None:
        """``plan``: one made before (shown at once, nothing read); else one is made.
        ``finished`` hears how every run ends (all are billed)."""
        super().__init__()
        self.client = client
        self.plan_query = query
        self.prices = prices
        self.finished = finished
        self.copy = copy
        self.clock = clock
        self.token = CancelToken()
        self.plan: Plan | None = plan
        self.ended = plan is not None
        self.marked: list[str] = []

    def compose(self) -> ComposeResult:
        query = self.plan_query
        with Vertical(id="plan-box", classes="modal-box"):
            yield Label(plain("Plan: every path that answers this query"), classes="modal-title")
            yield Label(plain_lines(f"{query.conditions_text()} on {query.table}"), id="plan-for")
            yield Static("Starting…", id="plan-progress")
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
        if self.plan is not None:
            self._show(self.plan, stopped=False)
            return
        client, spec, prices, token, clock = (
            self.client,
            self.plan_query.spec,
            self.prices,
            self.token,
            self.clock,
        )

        def report(step: Progress) -> None:
            self.post_message(PlanStep(step))

        run_in_background(self, lambda: run(client, spec, prices, token, report, clock), PlanDone)

    @on(PlanStep)
    def _step(self, message: PlanStep) -> None:
        if self.ended:
            return
        step = message.step
        self.query_one("#plan-progress", Static).update(
            plain(
                f"Reading {step.path or 'the paths'}: {step.calls} calls · "
                f"{number(step.read_units)} of {number(step.budget)} RCU so far · Esc stops"
            )
        )

    @on(PlanDone)
    def _done(self, message: PlanDone) -> None:
        self.ended = True
        outcome = message.outcome
        if not isinstance(outcome, Done):
            self._failed(error_words(outcome.error))
            return
        result = outcome.value
        self.finished(result)
        if isinstance(result, PlanBroken):
            self._failed(
                f"{error_words(result.error)} — the {number(result.cost.headline or 0.0)} "
                "RCU it had read are billed to the session."
            )
            return
        self.plan = result.plan
        self._show(result.plan, result.stopped)

    def _failed(self, words: str) -> None:
        self.query_one("#plan-progress", Static).update(
            plain_lines(f"The plan failed: {words}", style="bold red")
        )

    def _show(self, plan: Plan, stopped: bool) -> None:
        cost = plan.cost
        said = "Stopped by Esc" if stopped else "Done"
        self.query_one("#plan-progress", Static).update(
            plain(
                f"{said}: the plan read {cost.calls:,} calls, {number(cost.read_units)} RCU; "
                f"cheapest: {plan.cheapest or 'none'}",
                style="yellow" if stopped or plan.stopped_by else "",
            )
        )
        self._fill(plan)

    def _fill(self, plan: Plan) -> None:
        table = self.query_one(DataTable)
        at = table.cursor_row
        table.clear()
        for planned in plan.paths:
            cells = row(planned, plan)
            name = planned.path.name
            mark = "+" if name in self.marked else ""
            if name == plan.cheapest:
                mark += "*"
            vs = ratio_words(planned, plan) if planned.usable else "cannot serve"
            vs = vs.replace("x the cheapest's read units", "x").replace("the cheapest", "cheapest")
            _, kind, pages, matches, units, per_page, money, drain = cells
            values = (mark, name, units, vs, matches, pages, per_page, money, drain, kind)
            style = "" if planned.usable else "dim"
            table.add_row(*(plain(v, style) for v in values), key=name)
        if plan.paths:
            table.move_cursor(row=min(max(at, 0), len(plan.paths) - 1))
        self._describe()

    def _highlighted(self) -> PlannedPath | None:
        if self.plan is None or not self.plan.paths:
            return None
        table = self.query_one(DataTable)
        return self.plan.paths[min(table.cursor_row, len(self.plan.paths) - 1)]

    def _describe(self) -> None:
        planned = self._highlighted()
        if planned is not None and self.plan is not None:
            self.query_one("#plan-detail", Static).update(plain_lines(detail(planned, self.plan)))

    @on(DataTable.RowHighlighted)
    def _highlight(self) -> None:
        self._describe()

    # -- keys --------------------------------------------------------------------------------

    def action_stop_or_close(self) -> None:
        if not self.ended:
            self.token.cancel()  # the partial plan arrives as PlanDone
            self.query_one("#plan-progress", Static).update("Stopping at the next call…")
            return
        self.dismiss(None)

    def action_open(self) -> None:
        planned = self._highlighted()
        if planned is None:
            self.app.bell()
            return
        self.dismiss(("open", planned.path.name))

    def action_mark(self) -> None:
        planned = self._highlighted()
        if planned is None or self.plan is None:
            return
        name = planned.path.name
        if name in self.marked:
            self.marked.remove(name)
        else:
            self.marked = [*self.marked[-1:], name]  # two at most: the latest two
        self._fill(self.plan)

    def action_compare(self) -> None:
        if len(self.marked) != 2:
            self.notify("Mark two paths with space first.", severity="warning", markup=False)
            return
        self.dismiss(("compare", *self.marked))

    def action_copy(self) -> None:
        if self.plan is None:
            self.app.bell()
            return
        self.copy(
            json.dumps(self.plan.as_json(), ensure_ascii=False),
            "the plan (JSON, as dynotui plan --json prints it)",
        )
