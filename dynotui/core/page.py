"""What one page is and what it cost, for any source: the figures the sidebar shows.

A ``Page`` holds its items; a ``PageSummary`` is the same page without them, small
enough to keep one per page for a session of 10,000 pages. The cost is the
source's own (capacity units on DynamoDB, buffers on PostgreSQL) behind one
protocol, so the stack, the sidebar and the totals need not know which it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Generic, Protocol

from typing_extensions import TypeVar


class HasNext(Enum):
    YES = "yes"  # the extra match exists
    NO = "no"  # the data ended
    UNKNOWN = "unknown"  # a key came back, which promises nothing

    def as_json(self) -> bool | None:
        return {HasNext.YES: True, HasNext.NO: False, HasNext.UNKNOWN: None}[self]


class EndedBy(Enum):
    END = "end"  # DynamoDB: no LastEvaluatedKey; SQL: fewer rows than asked
    LIMIT = "limit"  # Limit items were evaluated
    SIZE = "size"  # the 1 MB limit cut the call short of Limit
    PAGE_SIZE = "page_size"  # page size + 1 matches collected
    ROUNDS = "rounds"  # fill mode: the round cap stopped it

    @property
    def words(self) -> str:
        return {
            EndedBy.END: "the data ended",
            EndedBy.LIMIT: "Limit reached",
            EndedBy.SIZE: "cut by the 1 MB limit",
            EndedBy.PAGE_SIZE: "page filled",
            EndedBy.ROUNDS: "round cap reached",
        }[self]


class Cost(Protocol):
    """What reading one page (or a whole session, summed) cost, in the source's terms."""

    @property
    def read(self) -> int | None:
        """Items or rows the database read, and billed or worked for (None: not reported)."""

    @property
    def matched(self) -> int:
        """Those that passed the filter."""

    @property
    def requests(self) -> int: ...

    @property
    def latency_ms(self) -> float: ...

    @property
    def retries(self) -> int: ...

    @property
    def headline(self) -> float | None:
        """The one number the sparkline plots, in ``unit`` (None: not reported)."""

    @property
    def unit(self) -> str: ...

    @property
    def estimated(self) -> bool:
        """Worked out from a model (an index that does not exist), not read: shown marked
        as an estimate wherever it appears, and billed to no session."""

    @property
    def server_ms(self) -> float | None:
        """Time the database reports it spent executing (None: it reports none, and only
        the round trip, ``latency_ms``, is known)."""

    def fields(self) -> list[tuple[str, str]]:
        """The source's own lines for the sidebar: (label, value), plain text."""

    def warnings(self) -> list[str]:
        """What about these calls deserves a warning beside the figures, in words."""

    def as_json(self) -> dict[str, Any]: ...

    def __add__(self, other: Any) -> Any: ...


# A page is generic over its source's cost, boundary and item (PEP 696 defaults: ``Page``
# alone, or ``Page[SomeCost]``, leaves the others open).
C = TypeVar("C", bound=Cost, default=Any)
K = TypeVar("K", default=Any)  # a boundary: an ExclusiveStartKey, a NextToken, sort values
I = TypeVar("I", default=Any)  # noqa: E741 (an item: a DynamoDB item, a PostgreSQL row)


@dataclass(frozen=True, kw_only=True, slots=True)
class PageSummary(Generic[C, K]):
    """One page without its items: what the stack view and the charts need."""

    number: int
    mode: str
    start_key: K | None  # the boundary that opens the page (None: the start of the result)
    next_start_key: K | None  # the boundary of the next page (None: there is none)
    has_next: HasNext
    ended_by: EndedBy
    cost: C
    shown: int
    cached: bool = False
    # Read ahead (--read-ahead) before it was asked for, and billed then as read ahead: a
    # fresh read of its boundary all the same, shown as it was when read.
    read_ahead: bool = False

    @property
    def count(self) -> int:
        """Matches over all calls (fill mode may hold one more than shown)."""
        return self.cost.matched

    @property
    def scanned_count(self) -> int | None:
        return self.cost.read

    @property
    def waste(self) -> int:
        """Items read and paid for that the filter discarded."""
        read = self.cost.read
        return max(read - self.cost.matched, 0) if read is not None else 0

    @property
    def waste_ratio(self) -> float:
        read = self.cost.read
        return self.waste / read if read else 0.0

    @property
    def empty_with_key(self) -> bool:
        """The page people stop on by mistake: nothing shown, yet more may follow."""
        return not self.shown and self.next_start_key is not None


@dataclass(frozen=True, kw_only=True, slots=True)
class Page(PageSummary[C, K], Generic[C, K, I]):
    items: Sequence[I]
    # Source facts for ``dynotui pages`` that the summary drops (e.g. the LastEvaluatedKey).
    extra: Mapping[str, Any] = field(default_factory=dict)

    def summary(self) -> PageSummary[C, K]:
        return PageSummary(
            number=self.number,
            mode=self.mode,
            start_key=self.start_key,
            next_start_key=self.next_start_key,
            has_next=self.has_next,
            ended_by=self.ended_by,
            cost=self.cost,
            shown=self.shown,
            cached=self.cached,
            read_ahead=self.read_ahead,
        )

    def as_cached(self) -> Page[C, K, I]:
        return replace(self, cached=True)

    def as_read_ahead(self) -> Page[C, K, I]:
        return replace(self, read_ahead=True)


def make_page(items: Sequence[Any], **fields: Any) -> Page[Any]:
    return Page(items=items, shown=len(items), **fields)


@dataclass(frozen=True, slots=True)
class Totals(Generic[C]):
    """Everything a session spent, re-reads and abandoned reads included: all are billed."""

    pages_read: int = 0
    cost: C | None = None
    abandoned: C | None = None  # spent on reads cancelled or superseded before they finished

    def add(self, cost: C) -> Totals[C]:
        return Totals(self.pages_read + 1, _plus(self.cost, cost), self.abandoned)

    def add_abandoned(self, cost: C) -> Totals[C]:
        return Totals(self.pages_read, self.cost, _plus(self.abandoned, cost))

    @property
    def scanned(self) -> int:
        return (self.cost.read or 0) if self.cost is not None else 0

    @property
    def count(self) -> int:
        return self.cost.matched if self.cost is not None else 0

    @property
    def calls(self) -> int:
        return self.cost.requests if self.cost is not None else 0


def _plus(total: Any, cost: Any) -> Any:
    return cost if total is None else total + cost


def summaries_of(pages: Sequence[PageSummary[Any]]) -> list[PageSummary[Any]]:
    return [p.summary() if isinstance(p, Page) else p for p in pages]
