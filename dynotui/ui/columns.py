"""The grid's columns for a session: they only grow, and keep their place and width.

Key columns come first (index keys, then table keys), then attributes in the order
they were first seen. An attribute missing from a page is a blank cell there, not a
vanished column. A column's width is set when it first appears (its content so far,
up to a cap) and only grows, to fit content seen later, up to the cap: a number is never
cut. When the columns do not fit, long free-text columns are narrowed first, so short
ones stay in view; a narrowed column stays narrow until the user asks (``fit``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

CAP = 40  # the widest a column starts
FREE_TEXT = 28  # a column whose content is wider than this is free text, narrowed first
NARROW = 14  # how narrow free text may be made to let others fit
PADDING = 2  # the grid's cell padding, one space each side


@dataclass
class ColumnLayout:
    key_names: tuple[str, ...]
    order: list[str] = field(default_factory=list)  # every column, shown or not
    hidden: set[str] = field(default_factory=set)
    widths: dict[str, int] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)  # widest content seen so far
    narrowed: set[str] = field(default_factory=set)  # cut by ``fit``: they do not regrow

    grown: list[str] = field(default_factory=list)  # widened by the last ``observe``

    def __post_init__(self) -> None:
        for name in self.key_names:
            self.order.append(name)
            self.seen[name] = len(name)
        self._unsized = set(self.key_names)  # sized by the first page, like any column

    def _add(self, name: str, width: int) -> None:
        self.order.append(name)
        self.seen[name] = max(len(name), width)
        self.widths[name] = min(CAP, self.seen[name])

    def observe(self, rows: Iterable[Mapping[str, str]], extra: Sequence[str] = ()) -> list[str]:
        """Take in a page's cells; returns the columns that are new, in order. Columns seen
        before widen to fit (see ``grown``)."""
        new: dict[str, int] = {name: 0 for name in extra if name not in self.seen}
        for row in rows:
            for name, text in row.items():
                width = len(text)
                if name in self.seen:
                    if width > self.seen[name]:
                        self.seen[name] = width
                elif width > new.get(name, -1):
                    new[name] = width
        for name, width in new.items():
            self._add(name, width)
        for name in self._unsized:
            self.widths[name] = min(CAP, self.seen[name])
        self._unsized = set()
        self.grown = [
            name
            for name in self.order
            if name not in new
            and name not in self.narrowed
            and self.widths[name] < min(CAP, self.seen[name])
        ]
        for name in self.grown:
            self.widths[name] = min(CAP, self.seen[name])
        return list(new)

    def visible(self) -> list[str]:
        return [name for name in self.order if name not in self.hidden]

    def fit(self, available: int, *, to_content: bool = False) -> None:
        """Narrow long free-text columns (widest first) until the visible ones fit in
        ``available`` cells; with ``to_content``, first reset widths to what was seen."""
        if to_content:
            self.narrowed.clear()
            for name in self.order:
                self.widths[name] = min(CAP, self.seen[name])
        shown = self.visible()
        total = sum(self.widths[n] + PADDING for n in shown)
        free = sorted(
            (n for n in shown if n not in self.key_names and self.seen[n] > FREE_TEXT),
            key=lambda n: -self.widths[n],
        )
        for name in free:
            if total <= available:
                break
            cut = min(self.widths[name] - NARROW, total - available)
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
