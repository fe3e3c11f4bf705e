"""The grid's columns for a session: they only grow, and keep their place and width.

Key columns come first (index keys, then table keys), then attributes in the order
they were first seen. An attribute missing from a page is a blank cell there, not a
vanished column. A column's width is set when it first appears (its content so far,
up to a cap) and only grows, to fit content seen later, up to the cap. A number is never
cut: a column grows past the cap to fit every number it holds, and is never narrowed
below them. When the columns do not fit, long free-text columns are narrowed first, so
short ones stay in view; a narrowed column stays narrow until the user asks (``fit``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from rich.cells import cell_len

from dynotui.core.text import visible

CAP = 40  # the widest a column starts
FREE_TEXT = 28  # a column whose content is wider than this is free text, narrowed first
NARROW = 14  # how narrow free text may be made to let others fit
PADDING = 2  # the grid's cell padding, one space each side
# A cell that reads as a number (DynamoDB's digits, PostgreSQL's numeric text, or an exact
# exponent form such as 1E125): cutting it would show another number.
NUMBER = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:E[+-]?[0-9]+)?")


def label_cells(name: str) -> int:
    """The cells a column's header takes: its name as shown (made visible), in cells."""
    return cell_len(visible(name))


@dataclass
class ColumnLayout:
    key_names: tuple[str, ...]
    order: list[str] = field(default_factory=list)  # every column, shown or not
    # The columns hidden, by the entity of the rows they were hidden for (None: a table
    # with no entities): the picker chooses each entity's columns apart (``entity``).
    hidden_by: dict[str | None, set[str]] = field(default_factory=dict)
    entity: str | None = None  # whose hidden columns ``hidden`` and ``visible`` use
    widths: dict[str, int] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)  # widest content seen so far
    narrowed: set[str] = field(default_factory=set)  # cut by ``fit``: they do not regrow
    exact: dict[str, int] = field(default_factory=dict)  # widest number seen: never cut
    fold_empty: bool = True  # columns empty on the page shown fold into narrow markers

    grown: list[str] = field(default_factory=list)  # widened by the last ``observe``

    def __post_init__(self) -> None:
        for name in self.key_names:
            self.order.append(name)
            self.seen[name] = label_cells(name)
        self._unsized = set(self.key_names)  # sized by the first page, like any column

    def _add(self, name: str, width: int) -> None:
        self.order.append(name)
        self.seen[name] = max(label_cells(name), width)
        self.widths[name] = self._natural(name)

    def _natural(self, name: str) -> int:
        """The width a column takes by itself: its content up to the cap, and every number
        it holds whole."""
        return max(min(CAP, self.seen[name]), self.exact.get(name, 0))

    def _wanted(self, name: str) -> int:
        """What a column grows to when wider content arrives: its natural width, or, once
        the user's fit narrowed it, only as far as its numbers need."""
        return self.exact.get(name, 0) if name in self.narrowed else self._natural(name)

    def observe(self, rows: Iterable[Mapping[str, str]], extra: Sequence[str] = ()) -> list[str]:
        """Take in a page's cells; returns the columns that are new, in order. Columns seen
        before widen to fit (see ``grown``)."""
        new: dict[str, int] = {name: 0 for name in extra if name not in self.seen}
        for row in rows:
            for name, text in row.items():
                # Cells, not characters: a CJK character takes two.
                width = len(text) if text.isascii() else cell_len(text)
                if width > self.exact.get(name, 0) and NUMBER.fullmatch(text):
                    self.exact[name] = width
                if name in self.seen:
                    if width > self.seen[name]:
                        self.seen[name] = width
                elif width > new.get(name, -1):
                    new[name] = width
        for name, width in new.items():
            self._add(name, width)
        for name in self._unsized:
            self.widths[name] = self._natural(name)
        self._unsized = set()
        self.grown = [n for n in self.order if n not in new and self.widths[n] < self._wanted(n)]
        for name in self.grown:
            self.widths[name] = self._wanted(name)
        return list(new)

    @property
    def hidden(self) -> set[str]:
        return self.hidden_by.setdefault(self.entity, set())

    @hidden.setter
    def hidden(self, names: set[str]) -> None:
        self.hidden_by[self.entity] = set(names)

    def visible(self) -> list[str]:
        return [name for name in self.order if name not in self.hidden]

    def fit(self, available: int, *, to_content: bool = False) -> None:
        """Narrow long free-text columns (widest first) until the visible ones fit in
        ``available`` cells; with ``to_content``, first reset widths to what was seen."""
        if to_content:
            self.narrowed.clear()
            for name in self.order:
                self.widths[name] = self._natural(name)
        shown = self.visible()
        total = sum(self.widths[n] + PADDING for n in shown)
        free = sorted(
            (n for n in shown if n not in self.key_names and self.seen[n] > FREE_TEXT),
            key=lambda n: -self.widths[n],
        )
        for name in free:
            if total <= available:
                break
            floor = max(NARROW, self.exact.get(name, 0))
            cut = min(self.widths[name] - floor, total - available)
            if cut > 0:
                self.widths[name] -= cut
                self.narrowed.add(name)
                total -= cut

    def move(self, name: str, step: int) -> None:
        """Move a column left (-1) or right (+1) among all columns."""
        at = self.order.index(name)
        to = max(0, min(len(self.order) - 1, at + step))
        self.order.insert(to, self.order.pop(at))

    def toggle(self, name: str) -> None:
        self.hidden.symmetric_difference_update({name})
