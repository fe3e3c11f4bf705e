"""The imagined index of a what-if as a query the compare view can page: its pages are
worked out from the entries the estimate found, never read, and every line that shows
them says so.

It reads like the query on the index it would be (columns, cells, the rewritten key
condition), through ``Imagined.source`` (no call reaches DynamoDB). Its conditions are
the query's own, plus, for a sparse index, that an item holds the index's keys: the
compare line names both result sets, and they differ by exactly that.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from dynotui.core.errors import InputError
from dynotui.core.export import ItemShape
from dynotui.core.page import Page
from dynotui.core.text import visible
from dynotui.dynamodb.condition import conjuncts, tested_names
from dynotui.dynamodb.dynamo_json import Item
from dynotui.ui.dynamodb.query import DynamoItems, DynamoQuery
from dynotui.ui.query import Clock, CodeTab

if TYPE_CHECKING:
    # What-if loads when an index is first imagined, not with the app's start.
    from dynotui.dynamodb.what_if.imagined import EstimatedSource, Imagined

ESTIMATED_NOTE = "estimated: an imagined index, nothing read"
CREATE_TABS = {"cli": "Create it · AWS CLI", "boto3": "Create it · boto3"}


@dataclass(frozen=True)
class ImaginedQuery(DynamoItems):
    """``base``: the query the what-if was made for; ``imagined``: what it found;
    ``provisioned``: the table's (read, write) units if it is provisioned (the index
    needs its own)."""

    base: DynamoQuery
    imagined: Imagined
    provisioned: tuple[int, int] | None = None

    @cached_property
    def on_index(self) -> DynamoQuery:
        """The rewritten query as a query on the index, for its columns and words."""
        imagined = self.imagined
        form = self.base.form.with_(order=imagined.index.index_name)
        return DynamoQuery(imagined.schema, form, imagined.spec)

    @property
    def index_name(self) -> str:
        return self.imagined.index.index_name

    @property
    def table(self) -> str:
        return self.base.table

    @property
    def order_name(self) -> str:
        backwards = not self.imagined.spec.forward
        return f"{self.index_name} (imagined){' desc' if backwards else ''}"

    @property
    def mode(self) -> str:
        return self.imagined.spec.mode

    def make_source(self, client: object, clock: Clock) -> EstimatedSource:
        return self.imagined.source(clock)  # no client: nothing is read

    # -- words --------------------------------------------------------------------------

    def _sparse_key(self) -> str | None:
        """The sort key a sparse index requires that no condition tests (an item without
        it is not in the index, so the result set is the query's less those items)."""
        sort = self.imagined.index.sort_key
        if sort is None:
            return None
        key, _ = self.imagined.spec.trees()
        if any(sort in tested_names(c) for c in conjuncts(key)):
            return None
        return sort

    def conditions(self) -> frozenset[str]:
        sparse = self._sparse_key()
        extra = {f"holds the index's sort key {sparse}"} if sparse else set()
        return self.base.conditions() | extra

    def conditions_text(self) -> str:
        text = self.on_index.conditions_text()
        sparse = self._sparse_key()
        if sparse:
            text += visible(f" AND the item holds {sparse} (a sparse index)")
        return text

    def title(self) -> str:
        return visible(
            f"ESTIMATED, nothing read · {self.on_index.title()} · imagined by a what-if "
            f"({len(self.imagined.entries):,} entries"
            f"{'' if self.imagined.complete else ' found so far'})"
        ).replace(f"({self.on_index.order.kind})", "(GSI, imagined)", 1)

    def notes(self, page: Page[Any]) -> list[str]:
        return [ESTIMATED_NOTE, *self.on_index.notes(page)]

    # -- columns and cells --------------------------------------------------------------

    def key_columns(self) -> tuple[str, ...]:
        return self.on_index.key_columns()

    def known_columns(self) -> tuple[str, ...]:
        return self.on_index.known_columns()

    def cells(self, item: Item) -> dict[str, str]:
        return self.on_index.cells(item)

    def boundary_text(self, key: Item | None) -> str:
        return self.on_index.boundary_text(key)

    def key_json(self, key: Item) -> str:
        return self.on_index.key_json(key)

    def page_lines(self, items: Sequence[Item]) -> str:
        return self.on_index.page_lines(items)

    def export_shape(self) -> ItemShape:
        raise InputError(
            "an imagined index holds no items to export: export the query it was imagined "
            "for, or create the index first"
        )

    # -- code ---------------------------------------------------------------------------

    def create_params(self) -> dict[str, Any]:
        spec, index = self.imagined.spec, self.imagined.index
        order = self.imagined.schema.order(index.index_name)
        from dynotui.dynamodb.what_if.code import update_table_params

        sort_type = order.sort_key.type if order.sort_key else None
        return update_table_params(
            spec.table, index, order.partition_key.type, sort_type, self.provisioned
        )

    @property
    def partial_result(self) -> bool:
        return not self.imagined.complete

    def code_title(self, page: Page[Any]) -> str:
        return (
            f"Code to create the imagined index, then to read page {page.number} from it once "
            "it exists"
        )

    def code(self, page: Page[Any], target: object) -> dict[str, CodeTab]:
        """The code that would create the index (shown, never run), then the code that
        would read this page from it once it exists."""
        from dynotui.dynamodb.codegen import CodeTarget
        from dynotui.dynamodb.what_if.code import generate
        from dynotui.dynamodb.what_if.report_section import FENCES

        assert isinstance(target, CodeTarget)
        params = self.create_params()
        tabs = {
            f"create-{language}": CodeTab(
                title, FENCES[language], generate(language, params, target)
            )
            for language, title in CREATE_TABS.items()
        }
        for language, tab in self.on_index.code(page, target).items():
            tabs[language] = tab._replace(title=f"{tab.title}, once created")
        return tabs
