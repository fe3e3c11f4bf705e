"""What one pager view shows: a query and its stack, swapped whole.

Everything a view draws comes from one ``ViewState`` (the query and its pager), replaced
whole when a new query's first page arrives, so the grid, the stack and the query line
always agree; a query that fails changes nothing. The query is the UI's (``ui/query.py``):
here it is only something that makes a ``Source``, so this module imports no UI.

``Segmented`` and ``StackOpening`` are what the read controller needs of the adapter's
answers (``ui/adapter.py``'s ``Segments`` and ``NewStack`` are them), read-only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from dynotui.core.cancel import CancelToken
from dynotui.core.page import Page
from dynotui.core.pager import Move, Pager
from dynotui.core.segments import SegmentedRead
from dynotui.core.source import Source

Clock = Callable[[], float]


class Readable(Protocol):
    """A query, as far as reading it goes."""

    def make_source(self, client: object, clock: Clock) -> Source[Any, Any, Any]:
        """The source that reads it through ``client``; raises InputError when the query
        cannot be read as it is."""


Q = TypeVar("Q", bound=Readable)
Q_co = TypeVar("Q_co", bound=Readable, covariant=True)


class Segmented(Protocol[Q_co]):
    """A read split into segments a view pages one at a time (a parallel Scan): the core's
    ``SegmentedRead`` and each segment's own query."""

    @property
    def read(self) -> SegmentedRead: ...

    @property
    def queries(self) -> tuple[Q_co, ...]: ...


class FirstRead(Protocol):
    """Page 1 of a new stack, read before the app was ready."""

    @property
    def pager(self) -> Pager: ...

    @property
    def page(self) -> Page[Any]: ...


class StackOpening(Protocol[Q_co]):
    """A new stack to open on a view (an adapter's ``NewStack``)."""

    @property
    def query(self) -> Q_co: ...

    @property
    def start_key(self) -> object: ...

    @property
    def note(self) -> str: ...

    @property
    def origin(self) -> str: ...

    @property
    def first_number(self) -> int: ...

    @property
    def key_json(self) -> object: ...

    @property
    def first_page(self) -> FirstRead | None: ...

    @property
    def segments(self) -> Segmented[Q_co] | None: ...


@dataclass(frozen=True)
class ViewState(Generic[Q]):
    """A query and its pager: everything a view draws, swapped as a whole."""

    query: Q
    pager: Pager
    note: str = ""  # said once, when this state's first page arrives
    origin: str = ""  # where page 1 came from, if not the query's start: on the query line
    segments: Segmented[Q] | None = None  # a read in segments: ``pager`` is segment ``segment``'s
    segment: int = 0

    def read(self, move: Move, cancel: CancelToken) -> Page[Any]:
        """The page ``move`` leads to; a segment's read backs off on its own when throttled."""
        if self.segments is None:
            return self.pager.read(move, cancel)
        return SegmentedRead.read(self.segments.read.segments[self.segment], move, cancel)

    def in_segment(self, index: int) -> ViewState[Q]:
        """The same segmented read on segment ``index``: its own query and stack."""
        assert self.segments is not None
        return ViewState(
            self.segments.queries[index],
            self.segments.read.segments[index].pager,
            origin=self.origin,
            segments=self.segments,
            segment=index,
        )
