"""The imagined index as pages: the rewritten query paged over the index entries a what-if
found, every figure marked estimated.

``Imagined`` is what an estimate leaves for a pager (the app's compare view): the
rewritten query (``spec``, on ``schema``: the table with the imagined GSI as one more
order), the entries in index order, and whether they are all the index would return for
that query. ``source()`` pages them with dynotui's own pager and reader through
``SimulatedIndex``, so raw and fill mode, Limit, the 1 MB cut and the start key of the
next page are the ones a real index would give. No call reaches DynamoDB: each page's
cost is marked estimated, which bills no session and is said wherever it is shown.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from dynotui.core.advisor import Advisor, Finding
from dynotui.core.cancel import CancelToken
from dynotui.core.page import Page
from dynotui.dynamodb.condition import Tree
from dynotui.dynamodb.cost import DynamoCost
from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import QuerySpec
from dynotui.dynamodb.what_if.rewrite import ImaginedIndex
from dynotui.dynamodb.what_if.simulate import Entry, SimulatedIndex


@dataclass(frozen=True)
class Imagined:
    index: ImaginedIndex
    spec: QuerySpec  # the rewritten query, on the imagined index
    schema: TableSchema  # the table with the imagined index as one more order
    entries: tuple[Entry, ...]  # the entries the rewritten query reads, in index order
    filter: Tree | None  # what stays a filter on the imagined index
    complete: bool  # the entries are all the index would return (else: those found)

    def client(self) -> SimulatedIndex:
        return SimulatedIndex(
            self.spec.table,
            self.index.index_name,
            self.entries,
            self.filter,
            self.schema.cursor_key_names(self.index.index_name),
            forward=self.spec.forward,
        )

    def source(self, clock: Callable[[], float] = time.perf_counter) -> EstimatedSource:
        return EstimatedSource(
            QuerySource(self.client(), self.spec, self.schema, clock=clock), self
        )

    def words(self) -> str:
        """What the pages are, in one sentence."""
        found = (
            "all the entries it would return"
            if self.complete
            else "the entries the what-if found (it read part of the data: the real index "
            "would return more)"
        )
        return (
            f"Estimated: GSI {self.index.index_name} does not exist; its pages are worked out "
            f"with DynamoDB's formulas from {len(self.entries):,} index entries, {found}. "
            "Nothing on this side was read from DynamoDB or billed."
        )


class ImaginedAdvisor:
    """The one thing to say of an imagined index's pages: what they are."""

    def __init__(self, imagined: Imagined) -> None:
        self.imagined = imagined

    def add(self, page: Any) -> None:
        pass

    def findings(self) -> list[Finding]:
        return [Finding("estimated", self.imagined.words())]


class EstimatedSource:
    """The rewritten query on the simulated index: a source whose pages were worked out,
    not read, each page's cost marked estimated."""

    def __init__(self, inner: QuerySource, imagined: Imagined) -> None:
        self.inner = inner
        self.imagined = imagined

    @property
    def spec(self) -> QuerySpec:
        return self.inner.spec

    @property
    def schema(self) -> TableSchema:
        return self.inner.schema

    def scope(self) -> str:
        return self.inner.scope()

    def read_page(
        self,
        start_key: Item | None,
        number: int,
        *,
        selectivity: float | None,
        cancel: CancelToken,
    ) -> Page[DynamoCost, Item, Item]:
        page = self.inner.read_page(start_key, number, selectivity=selectivity, cancel=cancel)
        return replace(page, cost=replace(page.cost, estimated=True))

    def key_to_json(self, key: Item) -> Any:
        return self.inner.key_to_json(key)

    def key_from_json(self, data: Any) -> Item:
        return self.inner.key_from_json(data)

    def advisor(self) -> Advisor:
        return ImaginedAdvisor(self.imagined)

    def with_client(self, client: Any) -> EstimatedSource:
        return self  # it reads no connection: another one changes nothing
