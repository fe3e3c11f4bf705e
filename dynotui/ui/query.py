"""What a view needs from a query, whichever database it reads: its words, columns,
cells, whole items and code. Each adapter implements it (``ui/dynamodb``: a Query or
Scan, a PartiQL SELECT; ``ui/postgres``: a table in one order).

Items and boundaries are the source's own (a DynamoDB item, a PostgreSQL row of text; an
ExclusiveStartKey, a NextToken, sort values): a ``Query`` is generic over its boundary
``K``, item ``I`` and cost ``C``, as its ``Source`` is, and only the query that made them
looks inside. The generic UI holds them as ``Item`` and ``Boundary``: objects it passes
back to their query, never reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

from dynotui.core.export import ItemShape
from dynotui.core.page import C, I, K, Page
from dynotui.core.source import Source

Item = object  # a source's own item, as the generic UI holds it: only its query reads it
Boundary = object  # a source's own start key, likewise
Clock = Callable[[], float]


class CodeTab(NamedTuple):
    """One language of the code that reproduces a page: its tab's title, the lexer that
    colours it, the code."""

    title: str
    lexer: str
    text: str


class Query(Protocol[K, I, C]):
    @property
    def table(self) -> str:
        """The table read, as the user names it."""

    @property
    def order_name(self) -> str:
        """The order read: two queries with equal ``order_name`` read in the same order."""

    @property
    def mode(self) -> str:
        """How pages are cut: raw or fill, keyset or offset; a PartiQL page is one call."""

    def make_source(self, client: object, clock: Clock) -> Source[K, I, C]:
        """The source that reads this query's pages through ``client``; raises InputError
        when the query cannot be read as it is."""

    def title(self) -> str:
        """The query line: what is read, from where, in which order and mode."""

    def notes(self, page: Page[C, K, I]) -> list[str]:
        """Facts about a page for the status line (rows tied on an index key)."""

    def conditions(self) -> frozenset[str]:
        """The result set's identity: two queries with equal conditions read the same rows."""

    def conditions_text(self) -> str:
        """The conditions in words: ``customer = 'acme' AND status = 'RETURNED'``."""

    def key_columns(self) -> tuple[str, ...]:
        """The columns that come first: index keys, then table keys."""

    def known_columns(self) -> tuple[str, ...]:
        """Columns to show even when no item of a page has them."""

    def cells(self, item: I) -> dict[str, str]:
        """An item's cells by column, as plain visible text."""

    def boundary_text(self, key: K | None) -> str:
        """A page boundary in one line."""

    def item_json(self, item: I, typed: bool) -> str:
        """A whole item: plain JSON, or the database's own typed JSON."""

    def item_formats(self) -> tuple[str, str]:
        """The names of the two formats of ``item_json``."""

    def page_lines(self, items: Sequence[I]) -> str:
        """A page as JSON lines."""

    def export_shape(self) -> ItemShape:
        """How items are written to an export file (``pages --format``'s own shape);
        raises InputError when this query's items are not ones to export."""

    def key_json(self, key: K) -> str:
        """A boundary as JSON, to copy."""

    def code(self, page: Page[C, K, I], target: object) -> dict[str, CodeTab]:
        """Code that reproduces ``page`` from its boundary, by language; ``target`` is what
        the adapter's ``code_target`` gives (endpoint, credentials, URI)."""


@runtime_checkable
class EntityRows(Protocol):
    """What a query whose table holds several entities (a single-table design) tells the
    grid about its rows, as data: each row's entity and what each row weighs in what its
    page cost. A query without these members has no entities; the grid shows none."""

    def entity_names(self, items: Sequence[Any]) -> list[str | None]:
        """Each item's entity (None for each when the table tells none apart)."""

    def item_weights(self, items: Sequence[Any]) -> list[int]:
        """What each item weighs in its page's cost (DynamoDB: its size in bytes)."""


def entity_rows(query: object) -> EntityRows | None:
    return query if isinstance(query, EntityRows) else None
