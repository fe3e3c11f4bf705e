"""Count a PostgreSQL query: the free estimate first (reltuples, the planner's guess for a
filter), then count(*) on request, with its buffers, time and plan; Esc cancels it."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Footer, Label, LoadingIndicator, Static

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import error_words
from dynotui.core.text import plural
from dynotui.postgres.connection import PgSession
from dynotui.postgres.count import PgCountResult, PgForecast, count, forecast
from dynotui.ui.background import Failed, Outcome, run_in_background
from dynotui.ui.postgres.query import PostgresQuery
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain, plain_lines

DRIFT = "A count is a snapshot: rows written since make it drift."


def forecast_text(result: PgForecast) -> Text:
    text = Text()
    text.append("Estimate (free: no row is read)\n", style="bold")
    table = "unknown (never analyzed)" if result.table_rows is None else f"~{result.table_rows:,}"
    text.append(f"Rows in the table: {table}\n")
    if result.matching_rows is not None and result.matching_rows != result.table_rows:
        text.append(f"Rows the filter keeps: ~{result.matching_rows:,}\n")
    text.append(plain_lines(result.basis + "\n", style="dim"))
    text.append(
        "count(*) reads every matching row (or index entry): the exact number, at a cost.\n"
    )
    return text


def result_text(result: PgCountResult) -> Text:
    text = Text()
    if not result.complete or result.count is None:
        text.append("Stopped: count(*) is one statement, so nothing is known.", style="bold yellow")
        return text
    text.append(plural(result.count, "row"), style="bold green")
    when = result.taken_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    text.append(f"\nTaken {when} · {result.seconds * 1000:,.1f} ms")
    cost = result.cost
    if cost is not None:
        text.append(
            f"\nBuffers {cost.shared_hit + cost.shared_read:,} (hit {cost.shared_hit:,}, "
            f"read {cost.shared_read:,}) · executed in {cost.execution_ms:,.1f} ms"
        )
        text.append(plain_lines(f"\nPlan: {cost.plan}"))
    estimate = result.forecast.items
    if estimate:
        ratio = result.count / estimate
        text.append(f"\nThe estimate was {estimate:,}: the count is {ratio:.2f}x that")
    text.append("\n" + DRIFT, style="dim")
    return text


class Estimated(Message):
    def __init__(self, outcome: Outcome[PgForecast]) -> None:
        super().__init__()
        self.outcome = outcome


class Counted(Message):
    def __init__(self, outcome: Outcome[PgCountResult]) -> None:
        super().__init__()
        self.outcome = outcome


class PgCountScreen(Dialog[PgCountResult | None]):
    BINDINGS = [
        Binding("escape", "stop_or_close", "Stop / close"),
        Binding("ctrl+s,enter", "run", "count(*)"),
    ]

    def __init__(
        self,
        connection: PgSession,
        query: PostgresQuery,
        finished: Callable[[PgCountResult], None] = lambda result: None,
    ) -> None:
        """``finished`` hears every count that ends, complete or cancelled."""
        super().__init__()
        self.finished = finished
        self.connection = connection
        self.count_query = query
        self.estimate: PgForecast | None = None
        self.token: CancelToken | None = None
        self.result: PgCountResult | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="count-box", classes="modal-box"):
            yield Label(
                plain(f"Count {self.count_query.conditions_text()} in {self.count_query.table}"),
                classes="modal-title",
            )
            yield Static("Estimating…", id="count-forecast")
            yield Label("Enter runs count(*); Esc stops it, or closes.", id="count-hint")
            yield LoadingIndicator(id="count-busy")
            yield Static("", id="count-details")
            yield Label("", id="count-error", classes="field-error")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#count-busy").display = False
        connection, query = self.connection, self.count_query.query
        run_in_background(self, lambda: forecast(connection, query), Estimated)

    @on(Estimated)
    def _estimated(self, message: Estimated) -> None:
        if isinstance(message.outcome, Failed):
            self._fail(message.outcome.error)
            return
        self.estimate = message.outcome.value
        self.query_one("#count-forecast", Static).update(forecast_text(self.estimate))

    def action_run(self) -> None:
        if self.token is not None:
            return
        token = self.token = CancelToken()
        connection, query = self.connection, self.count_query.query
        # count(*) needs no estimate: one that failed (or has not come) is said as such.
        estimate = self.estimate or PgForecast(None, None, "no estimate: it was not read")
        self.query_one("#count-busy").display = True
        self.query_one("#count-hint", Label).update("Counting… Esc cancels the statement.")
        run_in_background(self, lambda: count(connection, query, estimate, token), Counted)

    @on(Counted)
    def _counted(self, message: Counted) -> None:
        self.query_one("#count-busy").display = False
        if isinstance(message.outcome, Failed):
            self._fail(message.outcome.error)
            self.token = None
            return
        result = message.outcome.value
        self.finished(result)
        self.result = result if result.complete else None
        self.query_one("#count-details", Static).update(result_text(result))
        self.query_one("#count-hint", Label).update(
            "Esc closes; the count stays in the status line."
            if result.complete
            else "Enter counts again; Esc closes."
        )
        if not result.complete:
            self.token = None

    def _fail(self, error: BaseException) -> None:
        self.query_one("#count-error", Label).update(plain_lines(error_words(error)))

    def action_stop_or_close(self) -> None:
        if self.token is not None and self.result is None and not self.token.cancelled:
            self.token.cancel()  # the server cancels the statement; Counted follows
            return
        self.dismiss(self.result)
