"""A report's content, as plain data: built by database code, drawn by generic renderers.

Everything a renderer shows is here, already measured and worded; a renderer only
escapes and lays it out (HTML with inline SVG charts, or Markdown). Strings that come
from a table or a service (keys, names, values, findings quoting them) are data and are
escaped by every renderer; nothing here is markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from dynotui.core.advisor import Finding
from dynotui.core.figures_text import per_item_text
from dynotui.core.ledger import SessionFigures
from dynotui.core.measures import Measures
from dynotui.core.money import PriceList


@dataclass(frozen=True, slots=True)
class PageRow:
    """One page of the ledger: its latest fresh read."""

    number: int
    start_key: str  # JSON text of the boundary that opens it ("null": the start)
    shown: int
    count: int
    scanned: int | None  # None: not reported (PartiQL)
    capacity: float | None  # the cost's headline (None: not reported)
    parts: tuple[tuple[str, float], ...]  # capacity by table and index; buffers hit, read
    rounds: int
    latency_ms: float
    ended_by: str  # in words
    has_next: str  # yes, no, unknown
    empty_with_key: bool

    @property
    def waste(self) -> int | None:
        return None if self.scanned is None else max(self.scanned - self.count, 0)


@dataclass(frozen=True, slots=True)
class CodeBlock:
    title: str  # "Page 1 · boto3"
    language: str  # a fence's info string: python, sh, javascript, sql
    text: str


@dataclass(frozen=True, slots=True)
class Side:
    """One query (one order of a compare): its pages, measures, findings and code."""

    name: str  # "base table", "GSI by_status (keyset)"
    query: tuple[tuple[str, str], ...]  # (label, value) lines: the query and its scope
    scope: str
    unit: str  # RCU, buffers
    parts_label: str  # what PageRow.parts break the headline into
    pages: tuple[PageRow, ...]
    measures: Measures
    findings: tuple[Finding, ...] = ()
    code: tuple[CodeBlock, ...] = ()
    prices: PriceList | None = None
    per_item: float | None = None  # the pager's cost per item shown (``core.per_item``)

    @property
    def capacity(self) -> float | None:
        known = [p.capacity for p in self.pages if p.capacity is not None]
        return sum(known) if known else None

    @property
    def count(self) -> int:
        return sum(p.count for p in self.pages)

    @property
    def shown(self) -> int:
        return sum(p.shown for p in self.pages)

    @property
    def scanned(self) -> int | None:
        known = [p.scanned for p in self.pages if p.scanned is not None]
        return sum(known) if known else None

    @property
    def calls(self) -> int:
        return sum(p.rounds for p in self.pages)

    @property
    def latency_ms(self) -> float:
        return sum(p.latency_ms for p in self.pages)

    @property
    def per_match(self) -> float | None:
        """Cost per item shown over each page's latest fresh read, as the pager (and so
        the app's compare line and the advisor) worked it out: one figure per side."""
        return self.per_item

    @property
    def complete(self) -> bool:
        """The ledger runs from the start of the result to its end."""
        return bool(
            self.pages and self.pages[0].start_key == "null" and self.pages[-1].has_next == "no"
        )


@dataclass(frozen=True, slots=True)
class Estimated:
    """A what-if beside the measured query: an index that does not exist, estimated.

    Rows are plain text, worded by the database package; every what-if cell is already
    marked as an estimate."""

    title: str  # "What if: GSI status-customer-index (status S / customer S, projects ALL)"
    rows: tuple[tuple[str, str, str], ...]  # (figure, now, what-if)
    cost: tuple[tuple[str, str], ...]  # the index's own cost: (label, value)
    sample: str  # what the estimate read, and whether it was complete
    notes: tuple[str, ...] = ()
    footnote: str = ""
    code: tuple[CodeBlock, ...] = ()  # the code that would create the index, never run


@dataclass(frozen=True, slots=True)
class TableSection:
    """A table of figures beside the pages (an export's partition sizes): plain text
    cells, numbers already worded."""

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Report:
    title: str
    made_at: datetime
    source: str  # "DynamoDB", "PostgreSQL"
    connection: tuple[tuple[str, str], ...]  # endpoint, region, table, index: no secrets
    sides: tuple[Side, ...]  # one, or two for a compare
    session: SessionFigures | None = None  # the app's ledger, when made from the app
    notes: tuple[str, ...] = field(default_factory=tuple)
    what_if: Estimated | None = None
    tables: tuple[TableSection, ...] = ()

    def __post_init__(self) -> None:
        if not 1 <= len(self.sides) <= 2:
            raise ValueError("a report holds one query, or the two sides of a compare")


def side_names(sides: Sequence[Side]) -> list[str]:
    return [side.name for side in sides]


def comparison(sides: Sequence[Side]) -> list[tuple[str, str, str]]:
    """For a compare: (figure, left, right) rows, like with like: per item shown."""
    if len(sides) != 2:
        return []
    left, right = sides

    def num(value: Any) -> str:
        return "not reported" if value is None else f"{value:,.10g}"

    rows = [
        ("result set", _coverage(left), _coverage(right)),
        ("pages read", num(len(left.pages)), num(len(right.pages))),
        ("items shown", num(left.shown), num(right.shown)),
        (f"capacity ({left.unit})", num(left.capacity), num(right.capacity)),
        ("scanned", num(left.scanned), num(right.scanned)),
        (
            "per item shown",
            "not reported" if left.per_match is None else per_item_text(left.per_match),
            "not reported" if right.per_match is None else per_item_text(right.per_match),
        ),
    ]
    if left.per_match and right.per_match is not None and left.unit == right.unit:
        rows.append(("right / left per item", "1x", f"{right.per_match / left.per_match:.3g}x"))
    return rows


def _coverage(side: Side) -> str:
    return "complete (start to end)" if side.complete else "the pages read so far"
