"""The entity view: the table of entities of the table (or index) a query reads, as
``dynotui entities`` prints it.

A live table is read by a bounded parallel Scan, started by Enter (a costed action, as a
count is: the budget is said before anything is read; Esc stops it at its next call, and
what was read is still counted and billed). An export is read whole, with no read units.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Label

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import error_words
from dynotui.dynamodb.cost import Call, DynamoCost
from dynotui.dynamodb.entities.figures import Entities
from dynotui.dynamodb.entities.sample import (
    DEFAULT_MAX_READ_UNITS,
    DEFAULT_SEGMENTS,
    sample_entities,
)
from dynotui.dynamodb.entities.words import entities_text
from dynotui.ui.background import Failed, Outcome, run_in_background
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import TextStatic, plain, plain_lines


@dataclass(frozen=True)
class EntitiesRead:
    """What a read for the entity view found, and what it cost (billed however it ended)."""

    entities: Entities | None
    cost: DynamoCost | None
    complete: bool


class EntitiesStep(Message):
    def __init__(self, items: int, units: float) -> None:
        super().__init__()
        self.items = items
        self.units = units


class EntitiesDone(Message):
    def __init__(self, outcome: Outcome[EntitiesRead], spent: list[Call]) -> None:
        super().__init__()
        self.outcome = outcome
        self.spent = spent


Reader = Callable[[CancelToken, Callable[[int, float], None], list[Call]], EntitiesRead]


def live_reader(client: object, query: DynamoQuery) -> Reader:
    """A bounded parallel Scan of the live table (or index) ``query`` reads."""

    def read(
        cancel: CancelToken, report: Callable[[int, float], None], spent: list[Call]
    ) -> EntitiesRead:
        found = sample_entities(
            [client] * DEFAULT_SEGMENTS,
            query.schema,
            index=query.spec.index,
            max_read_units=DEFAULT_MAX_READ_UNITS,
            cancel=cancel,
            progress=report,
            spent=spent,
        )
        return EntitiesRead(found, DynamoCost.of(tuple(spent)), found.sample.complete)

    return read


LIVE_HINT = (
    f"Enter reads a parallel Scan sample of at most {DEFAULT_MAX_READ_UNITS} read units (the "
    "whole table if that is enough: counts are then exact); Esc stops it at its next call, "
    "or closes. Entities: by an entity attribute a library writes, else by key prefixes."
)


class EntitiesScreen(Dialog[None]):
    BINDINGS = [
        Binding("escape", "stop_or_close", "Stop / close"),
        Binding("ctrl+s,enter", "run", "Read"),
    ]

    def __init__(
        self,
        query: DynamoQuery,
        read: Reader,
        hint: str = LIVE_HINT,
        finished: Callable[[EntitiesRead], None] = lambda read: None,
    ) -> None:
        """``read`` reads the entities (a live sample, or an export whole); ``finished``
        hears every read that ends, complete, stopped or failed: what it read is billed
        either way."""
        super().__init__()
        self.read = read
        self.hint = hint
        self.entity_query = query
        self.finished = finished
        self.token: CancelToken | None = None
        self.found: Entities | None = None

    def _what(self) -> str:
        query = self.entity_query
        order = query.order
        where = query.table + ("" if order.kind == "table" else f" · {order.name}")
        return f"Entities of {where}"

    def compose(self) -> ComposeResult:
        with Vertical(id="entities-box", classes="modal-box"):
            yield Label(plain(self._what()), classes="modal-title")
            yield TextStatic(plain(self.hint), id="entities-hint")
            with VerticalScroll(id="entities-scroll"):
                yield TextStatic("", id="entities-table")
            yield Label("", id="entities-error", classes="field-error")
        yield Footer()

    def on_mount(self) -> None:
        # The whole screen, as the plan's: the entity table's rows are as wide as an 80
        # column terminal allows, and at 90% its last column wrapped onto a line of its own.
        box = self.query_one("#entities-box")
        box.styles.width = box.styles.height = "100%"

    def action_run(self) -> None:
        if self.token is not None:
            return
        token = self.token = CancelToken()
        read = self.read
        spent: list[Call] = []

        def report(items: int, units: float) -> None:
            self.post_message(EntitiesStep(items, units))

        def work() -> EntitiesRead:
            return read(token, report, spent)

        self.query_one("#entities-hint", TextStatic).show(
            Text("Reading… Esc stops at the next call.")
        )
        run_in_background(self, work, lambda outcome: EntitiesDone(outcome, spent), "entities")

    @on(EntitiesStep)
    def _step(self, message: EntitiesStep) -> None:
        self.query_one("#entities-hint", TextStatic).show(
            Text(f"Reading… {message.items:,} items, {message.units:,.1f} read units. Esc stops.")
        )

    @on(EntitiesDone)
    def _done(self, message: EntitiesDone) -> None:
        self.token = None
        outcome = message.outcome
        if isinstance(outcome, Failed):
            read = EntitiesRead(None, DynamoCost.of(tuple(message.spent)), False)
            self.finished(read)
            self.query_one("#entities-error", Label).update(plain_lines(error_words(outcome.error)))
            self.query_one("#entities-hint", TextStatic).show(
                Text("Enter reads again; Esc closes.")
            )
            return
        read = outcome.value
        self.finished(read)
        self.found = read.entities
        if read.entities is not None:
            self._show_table()
        self.query_one("#entities-hint", TextStatic).show(
            Text("Enter reads again; Esc closes.", style="dim")
        )

    def _show_table(self) -> None:
        if self.found is None:
            return
        # The table's rows within the scroll's width (less its scrollbar), so none wraps.
        room = max(self.query_one("#entities-scroll").content_size.width - 2, 40)
        self.query_one("#entities-table", TextStatic).show(
            plain_lines(entities_text(self.found, room))
        )

    def on_resize(self) -> None:
        self._show_table()

    def action_stop_or_close(self) -> None:
        if self.token is not None:
            self.token.cancel()
            return
        self.dismiss(None)

    def on_unmount(self) -> None:
        if self.token is not None:
            self.token.cancel()
