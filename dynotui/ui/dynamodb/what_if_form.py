"""The index to imagine: its keys, projection and name, and how much the estimate may read.

Prefilled from the advisor's finding (the filter's ``=`` attribute as the partition key,
the query's partition key as the sort key) or from the last what-if of this query; checked
as ``dynotui what-if`` checks its flags, before anything is read: a refusal stays beside
the form, in the form's words.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Footer, Input, Label, Select, Switch

from dynotui.core.errors import InputError
from dynotui.core.numbers import decimal_number
from dynotui.core.text import visible
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.spec import QuerySpec
from dynotui.dynamodb.what_if.estimate import DEFAULT_MAX_READ_UNITS
from dynotui.dynamodb.what_if.rewrite import PROJECTIONS, ImaginedIndex, rewrite
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain, plain_lines

# The estimator's refusals name the command's flags; the form names its fields.
FIELD_WORDS = {
    "--partition-key": "partition key",
    "--sort-key": "sort key",
    "--projection": "projection",
    "--include a,b": "include",
    "--include": "include",
    "--new-index-name": "index name",
}
_FLAGS = re.compile("|".join(re.escape(flag) for flag in FIELD_WORDS))


@dataclass(frozen=True)
class WhatIfAsk:
    """What the form asks for: the index, and the estimate's read budget."""

    index: ImaginedIndex
    max_read_units: float = DEFAULT_MAX_READ_UNITS
    table_sample: bool = False


def form_words(message: str) -> str:
    return _FLAGS.sub(lambda m: FIELD_WORDS[m.group(0)], message)


def _shown(name: str | None) -> str:
    """A name to prefill: only one that shows as itself (a control character in an
    attribute name would be typed by nobody, and an input shows what it holds)."""
    return name if name and visible(name) == name else ""


class WhatIfForm(Dialog[WhatIfAsk | None]):
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("ctrl+s", "run", "Estimate"),
    ]

    # One row per field (compact inputs), so the whole form and its buttons fit 80x24.
    DEFAULT_CSS = """
    #what-if-form-box { height: auto; max-height: 100%; }
    #what-if-form-box VerticalScroll { height: auto; max-height: 1fr; }
    #what-if-form-box .what-if-field { height: 1; }
    #what-if-form-box .what-if-field Label { width: 24; }
    #what-if-form-box .what-if-field Input { width: 1fr; }
    #what-if-form-box .what-if-field Select { width: 24; }
    #what-if-form-box #what-if-note { color: $text-muted; width: 100%; height: auto; }
    #what-if-form-box .switch-label { padding: 0 1; }
    #what-if-form-buttons { height: auto; margin-top: 1; }
    """

    def __init__(
        self, schema: TableSchema, spec: QuerySpec, conditions: str, start: WhatIfAsk | None
    ) -> None:
        """``conditions``: the query in words; ``start``: what to prefill (None: blank)."""
        super().__init__()
        self.schema = schema
        self.spec = spec
        self.conditions = conditions
        self.start = start or WhatIfAsk(ImaginedIndex(""))

    def compose(self) -> ComposeResult:
        index = self.start.index
        with Vertical(id="what-if-form-box", classes="modal-box"):
            yield Label(
                plain(f"What if: an index that does not exist, for {self.conditions}"),
                classes="modal-title",
            )
            yield Label(
                "Estimated from the items this query reads (and a table sample where the "
                "index reaches other items), with DynamoDB's published formulas. Nothing is "
                "created or written.",
                id="what-if-note",
            )
            yield Label("", id="form-error", classes="field-error")
            with VerticalScroll():
                yield from self._field(
                    "Partition key",
                    Input(
                        value=_shown(index.partition_key),
                        placeholder="an attribute the query tests with =",
                        id="partition_key",
                        compact=True,
                    ),
                )
                yield from self._field(
                    "Sort key",
                    Input(
                        value=_shown(index.sort_key),
                        placeholder="optional",
                        id="sort_key",
                        compact=True,
                    ),
                )
                yield from self._field(
                    "Projection",
                    Select(
                        [(p, p) for p in PROJECTIONS],
                        value=index.projection,
                        allow_blank=False,
                        id="projection",
                        compact=True,
                    ),
                )
                yield from self._field(
                    "Include (INCLUDE)",
                    Input(
                        value=", ".join(_shown(a) for a in index.include),
                        placeholder="the attributes to copy: a, b",
                        id="include",
                        compact=True,
                    ),
                )
                yield from self._field(
                    "Index name",
                    Input(
                        value=_shown(index.name),
                        placeholder="empty: the keys joined, -index",
                        id="name",
                        compact=True,
                    ),
                )
                yield from self._field(
                    "Read at most (RCU)",
                    Input(
                        value=f"{self.start.max_read_units:g}",
                        placeholder="read units; a page is never cut",
                        id="budget",
                        compact=True,
                    ),
                )
                with Horizontal(classes="switch-row"):
                    yield Switch(value=self.start.table_sample, id="table_sample")
                    yield Label(
                        "Table sample: the index's size over the whole table",
                        classes="switch-label",
                    )
            with Horizontal(id="what-if-form-buttons"):
                yield Button("Estimate (ctrl+s)", variant="primary", id="run", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
        yield Footer()

    def _field(self, label: str, widget: Input | Select[str]) -> ComposeResult:
        with Horizontal(classes="what-if-field"):
            yield Label(label)
            yield widget

    def on_mount(self) -> None:
        self.query_one("#partition_key", Input).focus()

    def _value(self, name: str) -> str:
        return self.query_one(f"#{name}", Input).value.strip()

    def read(self) -> WhatIfAsk:
        """The form as a checked ask; an InputError in the form's words otherwise."""
        include = tuple(a.strip() for a in self._value("include").split(",") if a.strip())
        index = ImaginedIndex(
            partition_key=self._value("partition_key"),
            sort_key=self._value("sort_key") or None,
            projection=str(self.query_one("#projection", Select).value),
            include=include,
            name=self._value("name") or None,
        )
        if not index.partition_key:
            raise InputError("name the imagined index's partition key")
        index.check(self.schema)
        rewrite(self.spec, index, self.schema)  # the query can use it, or why not
        text = self._value("budget")
        try:
            budget = float(decimal_number(text, "read units"))
        except InputError:
            budget = math.nan
        if not math.isfinite(budget) or budget <= 0:
            raise InputError(f"read units: a number above 0, not {text!r}")
        return WhatIfAsk(index, budget, self.query_one("#table_sample", Switch).value)

    def action_run(self) -> None:
        try:
            ask = self.read()
        except InputError as exc:
            self.query_one("#form-error", Label).update(plain_lines(form_words(str(exc))))
            return
        self.dismiss(ask)

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#form-error", Label).update("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_run()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "run":
            self.action_run()
        else:
            self.dismiss(None)
