"""A pattern's reads against its budget: the figures measured, and each one over.

The figures are those of ``dynotui pages``'s summary (``core/measures.py``): the largest
page's read units, the read units over the items returned, and the share of items read
that the filter dropped (1 - Count / ScannedCount). A figure the endpoint did not report
(DynamoDB Local reports no capacity for PartiQL) cannot be shown to hold, so a budget on it
fails, saying so: never a pass on a number nobody measured.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dynotui.core.figures_text import number
from dynotui.core.text import visible
from dynotui.patterns.model import Budget, Pattern

PER_PAGE = "read_units_per_page"
PER_ITEM = "read_units_per_item"
WASTE = "waste"
SCAN = "scan"
GROWN = "grown"  # read units per page past an earlier receipt's, beyond the tolerance
CUT = "cut"  # the read stopped at a cap before the pattern's pages were read

WORDS = {
    PER_PAGE: "read units per page",
    PER_ITEM: "read units per item",
    WASTE: "waste",
    SCAN: "scan",
    GROWN: "read units per page grew",
    CUT: "not read whole",
}


@dataclass(frozen=True)
class Figures:
    """What one read of a pattern (one value tried) measured."""

    label: str | None  # the values tried (None: the pattern's own)
    pages: int
    items: int  # Count, summed
    scanned: int | None  # ScannedCount, summed (None: not reported, as for PartiQL)
    read_units: float | None  # summed (None: not reported)
    read_units_per_page: float | None  # the largest page's
    scan: bool  # a Scan, or a statement DynamoDB runs as one
    calls: int
    complete: bool = True  # False: a cap stopped the read before its pages

    @property
    def read_units_per_item(self) -> float | None:
        """Read units over items returned; infinite when units bought no item at all."""
        if self.read_units is None:
            return None
        if self.items == 0:
            return math.inf if self.read_units > 0 else 0.0
        return self.read_units / self.items

    @property
    def waste(self) -> float | None:
        """The share of the items read that the filter dropped (None: nothing read, or
        ScannedCount not reported)."""
        if not self.scanned:
            return None
        return max(0.0, 1.0 - self.items / self.scanned)

    def as_json(self) -> dict[str, Any]:
        per_item = self.read_units_per_item
        return {
            "values": self.label,
            "pages": self.pages,
            "items": self.items,
            "scanned_count": self.scanned,
            "read_units": self.read_units,
            PER_PAGE: self.read_units_per_page,
            PER_ITEM: None if per_item is None or math.isinf(per_item) else per_item,
            WASTE: self.waste,
            SCAN: self.scan,
            "calls": self.calls,
            "complete": self.complete,
        }


@dataclass(frozen=True)
class Over:
    """One figure past its budget (``measured`` None: not reported, so not shown to hold)."""

    figure: str
    measured: float | bool | None
    budget: float | bool | None
    label: str | None = None  # the values tried that went over
    note: str = ""

    def words(self) -> str:
        values = f" [{visible(self.label)}]" if self.label is not None else ""
        if self.figure == SCAN:
            return f"a Scan, not allowed (budget.scan = true allows it){values}"
        if self.figure == CUT:
            return f"{self.note}{values}"
        if self.figure == GROWN:
            return f"{WORDS[GROWN]} {self.note}"
        name = WORDS[self.figure]
        if self.measured is None:
            budget = _figure(self.figure, self.budget)
            return f"{name} not reported by the endpoint, budget {budget}{values}"
        return (
            f"{name} {_figure(self.figure, self.measured)} over "
            f"{_figure(self.figure, self.budget)}{values}"
        )

    def as_json(self) -> dict[str, Any]:
        measured = self.measured
        if isinstance(measured, float) and math.isinf(measured):
            measured = None  # no JSON for infinity: the words say "no item"
        return {
            "figure": self.figure,
            "measured": measured,
            "budget": self.budget,
            "values": self.label,
            "words": self.words(),
        }


def _figure(name: str, value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return str(value)
    if name == WASTE:
        return f"{value * 100:.4g}%"
    if math.isinf(value):
        return "infinite (no item returned)"
    return number(float(f"{value:.4g}"))  # four digits say it; the JSON keeps them all


def judge(budget: Budget, figures: Figures) -> list[Over]:
    """Each figure of one read past the budget."""
    label = figures.label
    if not figures.complete and figures.pages == 0:
        return [Over(CUT, None, None, label, "not read: the run's read units cap was spent")]
    over: list[Over] = []
    if figures.scan and not budget.scan:
        over.append(Over(SCAN, True, False, label))
    limits = (
        (PER_PAGE, budget.read_units_per_page, figures.read_units_per_page),
        (PER_ITEM, budget.read_units_per_item, figures.read_units_per_item),
        (WASTE, budget.waste, figures.waste),
    )
    for name, limit, measured in limits:
        if limit is None:
            continue
        if name == WASTE and measured is None and figures.scanned == 0:
            continue  # nothing read: nothing thrown away
        if measured is None or measured > limit:
            over.append(Over(name, measured, limit, label))
    if not figures.complete:
        note = f"stopped at the read units cap after {figures.pages} page(s)"
        over.append(Over(CUT, None, None, label, note))
    return over


@dataclass
class Verdict:
    """A pattern's reads, each value tried, and what went over."""

    pattern: Pattern
    reads: list[Figures] = field(default_factory=list)
    over: list[Over] = field(default_factory=list)

    def add(self, figures: Figures) -> None:
        self.reads.append(figures)
        self.over.extend(judge(self.pattern.budget, figures))

    @property
    def within(self) -> bool:
        return not self.over

    def worst(self) -> dict[str, Any]:
        """Each figure at its worst over the values tried: what the receipt keeps."""
        return worst_of(self.reads)

    def line(self) -> str:
        """One line: within or over, by which figures, with the numbers."""
        name = visible(self.pattern.name)
        if self.over:
            return f"over    {name}: " + "; ".join(o.words() for o in self.over)
        return f"within  {name}: {summary_words(self.pattern.budget, self.reads)}"

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.pattern.name,
            "verdict": "within" if self.within else "over",
            "over": [o.as_json() for o in self.over],
            "figures": self.worst(),
            "budget": self.pattern.budget.as_json(),
            "reads": [r.as_json() for r in self.reads],
        }


def _max(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None


def worst_of(reads: Sequence[Figures]) -> dict[str, Any]:
    per_item = _max([r.read_units_per_item for r in reads])
    units = [r.read_units for r in reads]
    return {
        PER_PAGE: _max([r.read_units_per_page for r in reads]),
        PER_ITEM: None if per_item is None or math.isinf(per_item) else per_item,
        WASTE: _max([r.waste for r in reads]),
        SCAN: any(r.scan for r in reads),
        "read_units": None if any(u is None for u in units) else sum(u or 0.0 for u in units),
        "items": sum(r.items for r in reads),
        "pages": sum(r.pages for r in reads),
        "calls": sum(r.calls for r in reads),
    }


def summary_words(budget: Budget, reads: Sequence[Figures]) -> str:
    """The figures a within line shows, each beside its budget when it has one."""
    worst = worst_of(reads)
    parts = []
    tried = f"{len(reads)} values tried, " if len(reads) > 1 else ""
    for name, limit in (
        (PER_PAGE, budget.read_units_per_page),
        (PER_ITEM, budget.read_units_per_item),
        (WASTE, budget.waste),
    ):
        measured = worst[name]
        if measured is None and limit is None:
            if name == PER_PAGE:
                parts.append("read units not reported by the endpoint")
            continue
        shown = "not measured" if measured is None else _figure(name, measured)
        text = f"{WORDS[name]} {shown}"
        if limit is not None:
            text += f" (budget {_figure(name, limit)})"
        parts.append(text)
    if worst[SCAN]:
        parts.append("a Scan (allowed)")
    items = f"{worst['items']:,} item(s) in {worst['pages']:,} page(s)"
    return tried + ", ".join([*parts, items])
