"""A DynamoDB Query or Scan as the UI sees it: how it is titled, which columns come
first, how an item looks in a cell and in the item view. No paging logic here."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from dynotui.core.exact_json import dumps as exact_dumps
from dynotui.core.export import ItemShape
from dynotui.core.page import Page
from dynotui.core.text import visible
from dynotui.dynamodb.advice import Measurements, tied_rows
from dynotui.dynamodb.dynamo_json import Item, plain_item, to_wire
from dynotui.dynamodb.expressions import substitute
from dynotui.dynamodb.item_shape import dynamo_shape
from dynotui.dynamodb.query_form import QueryForm
from dynotui.dynamodb.schema import SortOrder, TableSchema
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import QuerySpec
from dynotui.ui.dynamodb.cells import NOT_PROJECTED, cell, key_text
from dynotui.ui.query import Clock, CodeTab

if TYPE_CHECKING:
    # The entity marks load with the first page that shows them, not before the first
    # frame (issue 46).
    from dynotui.dynamodb.entities.marker import EntityMarker


def _resolved(expression: str, spec: QuerySpec) -> str:
    values = {}
    for name, value in spec.values.items():
        ((kind, inner),) = value.items()
        values[name] = repr(inner) if kind == "S" else str(inner)
    return substitute(expression, spec.names, values)


# Each language of the generated code: its tab's title and the lexer that colours it.
CODE_TABS = {
    "boto3": ("Python (boto3)", "python"),
    "aws-cli": ("AWS CLI", "bash"),
    "javascript": ("JavaScript (SDK v3)", "javascript"),
}


class DynamoItems:
    """Whole DynamoDB items as text: plain JSON with exact numbers, or DynamoDB JSON."""

    def key_columns(self) -> tuple[str, ...]:
        return ()

    def _keys_first(self, item: Item) -> Item:
        keys = [name for name in self.key_columns() if name in item]
        return {**{name: item[name] for name in keys}, **item}

    def item_json(self, item: Item, typed: bool) -> str:
        """The whole item, its key attributes first (as in the grid), then the rest."""
        item = self._keys_first(item)
        if typed:
            return json.dumps(to_wire(item), indent=2, ensure_ascii=False)
        return exact_dumps(plain_item(item), indent=2)

    def item_formats(self) -> tuple[str, str]:
        return "plain JSON", "DynamoDB JSON"

    def page_lines(self, items: Sequence[Item]) -> str:
        return "".join(json.dumps(to_wire(i), ensure_ascii=False) + "\n" for i in items)

    @property
    def partial_result(self) -> bool:
        return False

    def code_title(self, page: Page[Any]) -> str:
        return f"Code for page {page.number}, from its start key"

    def export_shape(self) -> ItemShape:
        """As ``pages --format`` writes them: DynamoDB JSON lines, CSV of exact text."""
        return dynamo_shape(self.key_columns(), plain=False)


@dataclass(frozen=True)
class DynamoQuery(DynamoItems):
    """A Query or Scan. ``measurements`` is what every order of this app has measured, so
    that one order's advisor can quote another's cost."""

    schema: TableSchema
    form: QueryForm
    spec: QuerySpec
    measurements: Measurements | None = field(default=None, compare=False)

    @property
    def order(self) -> SortOrder:
        return self.schema.order(self.spec.index)

    @property
    def order_name(self) -> str:
        """The order read, its direction too: the same index read backwards is another
        order, and two sides of a compare must be told apart."""
        backwards = not self.spec.scan and not self.spec.forward
        return f"{self.order.name} desc" if backwards else self.order.name

    @property
    def mode(self) -> str:
        return self.spec.mode

    @property
    def table(self) -> str:
        return self.schema.name

    def make_source(self, client: object, clock: Clock) -> QuerySource:
        return QuerySource(
            client, self.spec, self.schema, measurements=self.measurements, clock=clock
        )

    # -- words ------------------------------------------------------------------------------

    def conditions_text(self) -> str:
        parts = [
            _resolved(text, self.spec)
            for text in (self.spec.key_condition, self.spec.filter)
            if text
        ]
        return visible(" AND ".join(parts)) if parts else "every item"

    def title(self) -> str:
        spec, order = self.spec, self.order
        if spec.scan:
            what = (
                "Scan (reads the whole table)"
                if order.kind == "table"
                else (f"Scan (reads the whole index {order.name})")
            )
        else:
            what = "Query"
        kind = "base table" if order.kind == "table" else order.kind
        parts = [f"{what} {self.schema.name} · {order.name} ({kind})"]
        if spec.segment is not None and spec.total_segments is not None:
            parts.append(f"segment {spec.segment} (0-{spec.total_segments - 1})")
        if spec.key_condition:
            parts.append(_resolved(spec.key_condition, spec))
        if spec.filter:
            parts.append("filter " + _resolved(spec.filter, spec))
        if not spec.scan:
            parts.append("desc" if not spec.forward else "asc")
        parts.append(f"{spec.mode} · {spec.page_size}/page")
        if order.kind == "gsi":
            parts.append("eventually consistent")
        elif spec.consistent_read:
            parts.append("strongly consistent")
        if order.projection != "ALL":
            parts.append(f"projects {order.projection}")
        return visible(" · ".join(parts))

    def notes(self, page: Page[Any]) -> list[str]:
        ties = tied_rows(page.items, self.order)
        if ties:
            return [f"{ties} rows tie on the index key: no defined order among them"]
        return []

    def conditions(self) -> frozenset[str]:
        return self.spec.conditions()

    # -- columns and cells -----------------------------------------------------------------

    def key_columns(self) -> tuple[str, ...]:
        return self.schema.cursor_key_names(self.spec.index)

    def known_columns(self) -> tuple[str, ...]:
        """Attributes to show even when absent: what the projection asked for, or what the
        table defines that this order does not carry (shown as not projected)."""
        return self._known

    @cached_property
    def _known(self) -> tuple[str, ...]:
        return self.spec.projected_names() or self.schema.not_projected(self.spec.index)

    @cached_property
    def _not_projected(self) -> tuple[str, ...]:
        order, keys = self.order, self.schema.table_key_names
        return tuple(name for name in self._known if not order.projects(name, keys))

    def cells(self, item: Item) -> dict[str, str]:
        row = {name: cell(value) for name, value in item.items()}
        for name in self._not_projected:
            if name not in row:
                row[name] = NOT_PROJECTED
        return row

    def boundary_text(self, key: Item | None) -> str:
        return key_text(key, self.key_columns())

    # -- entities (a single-table design): ui.query.EntityRows ------------------------------

    @cached_property
    def entity_marker(self) -> EntityMarker:
        from dynotui.dynamodb.entities.marker import EntityMarker

        order = self.order
        return EntityMarker(
            order.partition_key.name, order.sort_key.name if order.sort_key else None
        )

    def entity_names(self, items: Sequence[Item]) -> list[str | None]:
        return self.entity_marker.names(items)

    def item_weights(self, items: Sequence[Item]) -> list[int]:
        from dynotui.dynamodb.entities.marker import weights

        return weights(items)

    # -- whole items -----------------------------------------------------------------------

    def key_json(self, key: Item) -> str:
        return json.dumps(to_wire(key), ensure_ascii=False)

    # -- code -----------------------------------------------------------------------------

    def code(self, page: Page[Any], target: object) -> dict[str, CodeTab]:
        from dynotui.dynamodb.codegen import LANGUAGES, CodeTarget, generate  # when asked for

        assert isinstance(target, CodeTarget)
        return {
            language: CodeTab(
                *CODE_TABS[language],
                generate(
                    language, self.spec, self.schema, page.start_key, page.number, target, page
                ),
            )
            for language in LANGUAGES
        }
