"""A what-if estimate on screen: its progress and cost so far (Esc stops it: a partial
read gives ranges), then the query now beside the same query on the imagined index, every
estimated figure marked, the index's own cost, the notes, and the code that would create
the index (AWS CLI and boto3 tabs, copyable, never run).

The rows are ``what_if.words``' (the terminal's ``dynotui what-if`` and the report say the
same); every string in them is data and is shown as text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Label, ProgressBar, Static, TabbedContent, TabPane

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import error_words
from dynotui.core.figures_text import number
from dynotui.core.money import PriceList
from dynotui.core.text import plural, visible_lines
from dynotui.dynamodb.codegen import CodeTarget
from dynotui.dynamodb.what_if import words
from dynotui.dynamodb.what_if.estimate import Progress
from dynotui.dynamodb.what_if.report_section import section
from dynotui.ui.background import Done, Outcome, run_in_background
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.dynamodb.what_if_form import WhatIfAsk
from dynotui.ui.dynamodb.what_if_run import WhatIfBroken, WhatIfMade, run
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain, plain_lines

CODE_TABS = {"cli": ("Create it · AWS CLI", "bash"), "boto3": ("Create it · boto3", "python")}
STOPPED = (
    "Stopped by Esc: a partial read. Every figure resting on it is a range, and what "
    "was read is billed to the session."
)


def progress_text(step: Progress) -> Text:
    what = "the query" if step.phase == "query" else "a table sample"
    return Text(
        f"Reading {what}: {plural(step.pages, 'page')} · {plural(step.items, 'item')} · "
        f"{number(step.read_units)} of {number(step.budget)} RCU spent so far · Esc stops"
    )


def _cell(text: object, style: str = "") -> Text:
    return Text(visible_lines(text), style=style)


def estimate_view(data: Mapping[str, Any], stopped: bool = False) -> RenderableType:
    """The estimate as the screen shows it: now beside what-if, the index's cost, the
    sample, the notes."""
    side = Table(expand=True, show_edge=False, pad_edge=False)
    side.add_column("", ratio=2, style="bold")
    side.add_column("now (measured)", ratio=3)
    side.add_column("what-if (estimated *)", ratio=3, style="yellow")
    for label, now, what_if in words.comparison_rows(data):
        side.add_row(_cell(label), _cell(now), _cell(what_if))
    cost = Table(expand=True, show_edge=False, pad_edge=False, show_header=True)
    cost.add_column("the index's own cost (estimated *)", ratio=2, style="bold")
    cost.add_column("", ratio=5, style="yellow")
    for label, value in words.cost_rows(data):
        cost.add_row(_cell(label), _cell(value))
    parts: list[RenderableType] = []
    if stopped:
        parts.append(Text(STOPPED, style="bold yellow"))
    parts += [side, Text(""), cost, Text(""), _cell(words.sample_words(data), "dim")]
    notes = words.notes(data)
    if notes:
        parts.append(Text("\nNotes", style="bold"))
        parts += [_cell(f"• {note}") for note in notes]
    parts.append(_cell("\n" + words.FOOTNOTE, "dim"))
    return Group(*parts)


class WhatIfStep(Message):
    def __init__(self, step: Progress) -> None:
        super().__init__()
        self.step = step


class WhatIfDone(Message):
    def __init__(self, outcome: Outcome[WhatIfMade | WhatIfBroken]) -> None:
        super().__init__()
        self.outcome = outcome


class WhatIfScreen(Dialog[str | None]):
    """Dismissed with "compare" (page the imagined index beside the query), "again"
    (another index), or None."""

    BINDINGS = [
        Binding("escape", "stop_or_close", "Stop / close"),
        Binding("c", "copy", "Copy"),
        Binding("w", "compare", "Page it beside (compare)"),
        Binding("e", "again", "Another index"),
    ]

    DEFAULT_CSS = """
    #what-if-progress, #what-if-for, #what-if-hint { width: 100%; height: auto; }
    #what-if-tabs { height: 1fr; }
    """

    def __init__(
        self,
        client: object,
        query: DynamoQuery,
        ask: WhatIfAsk,
        prices: PriceList | None,
        target: CodeTarget,
        *,
        finished: Callable[[WhatIfMade | WhatIfBroken], None],
        copy: Callable[[str, str], None],
        clock: Callable[[], float],
    ) -> None:
        """``finished`` hears how every run ends (all are billed); ``copy(text, what)``
        puts text on the clipboard."""
        super().__init__()
        self.client = client
        self.estimate_query = query
        self.ask = ask
        self.prices = prices
        self.target = target
        self.finished = finished
        self.copy = copy
        self.clock = clock
        self.token = CancelToken()
        self.made: WhatIfMade | None = None
        self.ended = False
        self.code: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        index = self.ask.index
        query = self.estimate_query
        with Vertical(id="what-if-box", classes="modal-box"):
            yield Label(plain(f"What if: {index.describe()}"), classes="modal-title")
            yield Label(
                plain_lines(f"for {query.conditions_text()} on {query.table} · {query.order_name}"),
                id="what-if-for",
            )
            yield ProgressBar(total=self.ask.max_read_units, show_eta=False, id="what-if-bar")
            yield Static("Starting…", id="what-if-progress")
            with TabbedContent(id="what-if-tabs"):
                with TabPane("Estimate", id="estimate"), VerticalScroll():
                    yield Static("", id="what-if-result")
                for language, (title, _) in CODE_TABS.items():
                    with TabPane(title, id=language), VerticalScroll():
                        yield Static("", id=f"what-if-code-{language}")
            yield Label("", id="what-if-hint")
        yield Footer()

    def on_mount(self) -> None:
        # The whole terminal (set here: the app's stylesheet sizes every modal box and
        # outranks a screen's default CSS): at 80x24 the estimate needs every row.
        box = self.query_one("#what-if-box")
        box.styles.width = box.styles.height = "100%"
        self.query_one(".modal-title").styles.padding = (0, 0)
        client, query, ask, prices, token, clock = (
            self.client,
            self.estimate_query,
            self.ask,
            self.prices,
            self.token,
            self.clock,
        )

        def report(step: Progress) -> None:
            self.post_message(WhatIfStep(step))

        def work() -> WhatIfMade | WhatIfBroken:
            return run(client, query.spec, query.schema, ask, prices, token, report, clock)

        run_in_background(self, work, WhatIfDone)

    @on(WhatIfStep)
    def _step(self, message: WhatIfStep) -> None:
        if self.ended:
            return
        step = message.step
        self.query_one(ProgressBar).update(progress=min(step.read_units, step.budget))
        self.query_one("#what-if-progress", Static).update(progress_text(step))

    @on(WhatIfDone)
    def _done(self, message: WhatIfDone) -> None:
        self.ended = True
        outcome = message.outcome
        if not isinstance(outcome, Done):  # the worker itself broke: nothing to bill
            self._failed(error_words(outcome.error))
            return
        result = outcome.value
        self.finished(result)
        if isinstance(result, WhatIfBroken):
            spent = result.cost.headline or 0.0
            self._failed(
                f"{error_words(result.error)} — the {number(spent)} RCU it had read are "
                "billed to the session."
            )
            return
        self.made = result
        self._show(result)

    def _failed(self, words_: str) -> None:
        self.query_one("#what-if-progress", Static).update(
            plain_lines(f"The estimate failed: {words_}", style="bold red")
        )
        self.query_one("#what-if-hint", Label).update("Esc closes; e tries another index.")

    def _show(self, made: WhatIfMade) -> None:
        data = made.data
        self.query_one(ProgressBar).display = False  # the line below says what was read
        self.query_one("#what-if-progress", Static).update(
            plain_lines(
                f"{'Stopped' if made.stopped else 'Done'}: {words.sample_words(data)}",
                style="yellow" if not made.complete else "",
            )
        )
        self.query_one("#what-if-result", Static).update(estimate_view(data, made.stopped))
        block = section(data, self.target, made.provisioned)
        for language, code in zip(CODE_TABS, block.code, strict=True):
            self.code[language] = code.text
            lexer = CODE_TABS[language][1]
            self.query_one(f"#what-if-code-{language}", Static).update(
                Syntax(visible_lines(code.text), lexer, word_wrap=True)
            )
        self.query_one("#what-if-hint", Label).update(
            "w pages the imagined index beside the query (compare) · c copies the tab shown "
            "· e another index · Esc closes"
        )

    # -- keys --------------------------------------------------------------------------------

    def action_stop_or_close(self) -> None:
        if not self.ended:
            self.token.cancel()  # the partial estimate arrives as WhatIfDone
            self.query_one("#what-if-progress", Static).update("Stopping at the next call…")
            return
        self.dismiss(None)

    def action_copy(self) -> None:
        if self.made is None:
            self.app.bell()
            return
        tab = str(self.query_one(TabbedContent).active)
        if tab in self.code:
            self.copy(self.code[tab], f"the code that would create the index ({tab})")
        else:
            self.copy(
                json.dumps(self.made.data, ensure_ascii=False),
                "the estimate (JSON, as dynotui what-if --json prints it)",
            )

    def action_compare(self) -> None:
        if self.made is not None:
            self.dismiss("compare")

    def action_again(self) -> None:
        if self.ended:
            self.dismiss("again")
