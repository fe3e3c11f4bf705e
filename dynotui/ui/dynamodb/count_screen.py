"""Count a query's matches: the forecast first, then a progress bar with the running cost,
cancellable at any call; the result says when it was taken and what it cost."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Footer, Input, Label, ProgressBar, Static

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import error_words
from dynotui.core.numbers import is_whole
from dynotui.core.text import plural
from dynotui.dynamodb.count import CountProgress, CountResult, Forecast, count, forecast
from dynotui.ui.background import Failed, Outcome, run_in_background
from dynotui.ui.dynamodb.imagined_query import ImaginedQuery
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.dynamodb.segmented import whole
from dynotui.ui.dynamodb.stacks import DynamoShown
from dynotui.ui.host import Counted, Host
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain, plain_lines
from dynotui.ui.widgets.segment_map import SegmentMap

DRIFT = (
    "A count is a snapshot of a moving table: writes made while it ran, or since, make it drift."
)


def forecast_text(
    forecast: Forecast, scan: bool, before: CountResult | None = None, filtered: bool = True
) -> Text:
    """The forecast, and what an earlier count of this query found: a partial count is a
    floor no forecast may fall below."""
    text = Text()
    text.append("Forecast (known for free, before any read)\n", style="bold")
    items = "unknown" if forecast.items is None else f"~{forecast.items:,}"
    if before is not None and not before.complete:
        floor = f"at least {before.scanned:,}"
        items = floor if forecast.items is None or forecast.items < before.scanned else items
    units = "unknown" if forecast.read_units is None else f"~{forecast.read_units:,g} RCU"
    text.append(f"Items to read: {items}    Capacity: {units}\n")
    text.append(plain_lines(forecast.basis + "\n", style="dim"))
    if before is not None:
        when = before.taken_at.astimezone().strftime("%H:%M:%S")
        cost = f"{before.capacity.total:,.10g} RCU" if before.capacity else "cost not reported"
        if before.complete:
            text.append(
                f"Counted before, at {when}: {plural(before.count, 'match', 'matches')} of "
                f"{plural(before.scanned, 'item')} read ({cost}).\n"
            )
        else:
            text.append(
                f"A count stopped at {when} had found {plural(before.count, 'match', 'matches')} "
                f"in the {plural(before.scanned, 'item')} it read ({cost}): the whole is at least "
                "that.\n",
                style="yellow",
            )
    text.append(
        "Select: COUNT reads, and bills, every item the "
        + ("Scan covers" if scan else "key condition covers")
        + ", 1 MB per call"
        + (", then applies the filter.\n" if filtered else ".\n")
    )
    return text


def progress_text(step: CountProgress) -> Text:
    return Text(
        f"Count {step.count:,} · scanned {step.scanned:,} · {step.capacity:,.10g} RCU · "
        f"{plural(step.calls, 'call')} · {step.rate:,.0f} items/s · {step.seconds:.1f} s"
    )


def result_text(result: CountResult) -> Text:
    text = Text()
    if result.complete:
        text.append(plural(result.count, "match", "matches"), style="bold green")
    else:
        text.append(
            f"Stopped: at least {plural(result.count, 'match', 'matches')} (a partial count)",
            style="bold yellow",
        )
    when = result.taken_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    cost = f"{result.capacity.total:,.10g} RCU" if result.capacity else "not reported"
    text.append(
        f"\nTaken {when} · scanned {result.scanned:,} · cost {cost} · "
        f"{plural(result.calls, 'call')} · {result.seconds:.1f} s"
    )
    if result.retries:
        text.append(f" · {plural(result.retries, 'retry', 'retries')}")
    forecast = result.forecast
    if forecast.read_units is not None and result.capacity is not None:
        text.append(
            f"\nForecast {forecast.read_units:,g} RCU, measured {result.capacity.total:,.10g} RCU "
            f"({result.capacity.total / forecast.read_units:.2f}x)"
        )
    text.append("\n" + DRIFT, style="dim")
    return text


class CountStep(Message):
    def __init__(self, step: CountProgress) -> None:
        super().__init__()
        self.step = step


class CountDone(Message):
    def __init__(self, outcome: Outcome[CountResult]) -> None:
        super().__init__()
        self.outcome = outcome


class CountScreen(Dialog[CountResult | None]):
    BINDINGS = [
        Binding("escape", "stop_or_close", "Stop / close"),
        Binding("ctrl+s,enter", "run", "Count"),
    ]

    def __init__(
        self,
        client: object,
        query: DynamoQuery,
        forecast: Forecast,
        before: CountResult | None = None,
        finished: Callable[[CountResult], None] = lambda result: None,
        *,
        segments: int = 1,
    ) -> None:
        """``before``: this query's last count, if one was taken (it may be partial);
        ``finished`` hears every count that ends, complete or stopped (both are billed);
        ``segments``: the parallel segments offered (a segmented Scan's own)."""
        super().__init__()
        self.finished = finished
        self.client = client
        self.count_query = query
        self.forecast = forecast
        self.before = before
        self.segments = segments
        self.token: CancelToken | None = None
        self.result: CountResult | None = None

    def compose(self) -> ComposeResult:
        spec = self.count_query.spec
        with Vertical(id="count-box", classes="modal-box"):
            yield Label(
                plain(
                    f"Count {self.count_query.conditions_text()} on {self.count_query.table}"
                    f" · {self.count_query.order_name}"
                ),
                classes="modal-title",
            )
            yield Static(forecast_text(self.forecast, spec.scan, self.before), id="count-forecast")
            if spec.scan:
                with Horizontal(classes="switch-row"):
                    yield Label("Parallel segments (Scan):", classes="switch-label")
                    yield Input(value=str(self.segments), id="segments")
            yield Label(
                "Enter counts; Esc stops a count at its next call, or closes.", id="count-hint"
            )
            # A percentage only of a real total (a Scan's ItemCount, a range read whole): a
            # Query's size is unknown until counted, so it shows its running figures alone.
            bar = ProgressBar(total=self.forecast.items, show_eta=True, id="count-progress")
            bar.display = self.forecast.items is not None
            yield bar
            yield Static("", id="count-details")
            yield SegmentMap(id="count-map")  # each segment's progress, when there are several
            yield Label("", id="count-error", classes="field-error")
        yield Footer()

    def action_run(self) -> None:
        if self.token is not None:
            return
        segments = 1
        if self.count_query.spec.scan:
            text = self.query_one("#segments", Input).value.strip()
            if not is_whole(text) or not 1 <= int(text) <= 64:
                self.query_one("#count-error", Label).update("segments: a whole number, 1 to 64")
                return
            segments = int(text)
        token = self.token = CancelToken()
        query, client, forecast = self.count_query, self.client, self.forecast

        def report(step: CountProgress) -> None:
            self.post_message(CountStep(step))

        def work() -> CountResult:
            return count(
                client,
                query.spec,
                query.schema,
                segments=segments,
                cancel=token,
                progress=report,
                prediction=forecast,
            )

        self.query_one("#count-hint", Label).update("Counting… Esc stops at the next call.")
        run_in_background(self, work, CountDone)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_run()

    @on(CountStep)
    def _step(self, message: CountStep) -> None:
        bar = self.query_one(ProgressBar)
        if bar.total is not None:
            bar.update(progress=min(message.step.scanned, bar.total))
        self.query_one("#count-details", Static).update(progress_text(message.step))
        self.query_one(SegmentMap).show_segments(message.step.segments)

    @on(CountDone)
    def _done(self, message: CountDone) -> None:
        outcome = message.outcome
        if isinstance(outcome, Failed):
            self.query_one("#count-error", Label).update(plain_lines(error_words(outcome.error)))
            self.token = None
            return
        self.result = result = outcome.value
        self.finished(result)
        bar = self.query_one(ProgressBar)
        if result.complete:
            bar.update(total=max(result.scanned, 1), progress=result.scanned)
        self.query_one("#count-details", Static).update(result_text(result))
        self.query_one(SegmentMap).show_segments(result.segments)
        self.query_one("#count-hint", Label).update(
            "Esc closes; the count stays in the status line."
        )

    def action_stop_or_close(self) -> None:
        if self.token is not None and self.result is None:
            self.token.cancel()  # the partial result arrives as CountDone
            return
        self.dismiss(self.result)


def ask_count(
    host: Host, client: Any, shown: DynamoShown, counted: Callable[[Counted | None], None]
) -> None:
    """The count screen for ``shown``'s query (a segment's view counts the whole Scan, in
    as many segments), with its forecast and the count kept earlier for it, if any."""
    query, pager = shown.query, shown.pager
    if query is None or pager is None:
        return
    if isinstance(query, ImaginedQuery):
        host.say(
            "An imagined index has nothing to count: its matches are estimated in its what-if (W).",
            severity="warning",
        )
        return
    segments = 1
    if isinstance(query, DynamoQuery) and query.spec.segment is not None:
        # A segment's view counts the whole Scan, in as many segments.
        segments, query = query.spec.total_segments or 1, whole(query)
    if not isinstance(query, DynamoQuery):
        host.say(
            "Count works on a Query or Scan (Select: COUNT); a PartiQL statement has none.",
            severity="warning",
        )
        return
    prediction = forecast(query.schema, query.spec, pager.latest_reads(), pager.read_whole_result)
    before = host.count_of(pager.source.scope())
    earlier = before if isinstance(before, CountResult) else None
    host.ask(
        CountScreen(client, query, prediction, earlier, host.count_finished, segments=segments),
        counted,
    )
