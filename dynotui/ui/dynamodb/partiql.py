"""A PartiQL SELECT as the UI sees it: its title, columns and cells, and its code."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dynotui.core.page import Page
from dynotui.core.text import visible
from dynotui.dynamodb.dynamo_json import Item, to_wire
from dynotui.dynamodb.query_form import QueryForm
from dynotui.dynamodb.schema import SortOrder, TableSchema
from dynotui.ui.dynamodb.cells import cell
from dynotui.ui.dynamodb.query import CODE_TABS, DynamoItems
from dynotui.ui.query import Clock, CodeTab

if TYPE_CHECKING:
    # A statement is parsed, and its source made, only once one is typed: the grammar
    # loads then, not before the first frame (issue 46).
    from dynotui.dynamodb.partiql import PartiQLSource, Statement


@dataclass(frozen=True)
class PartiQLQuery(DynamoItems):
    schema: TableSchema  # the table the form was opened on (for keys, and to go back)
    form: QueryForm
    statement: Statement

    @property
    def table(self) -> str:
        return self.statement.target()[0]

    @property
    def order(self) -> SortOrder:
        table, index = self.statement.target()
        if table == self.schema.name:
            for order in self.schema.orders:
                if order.index_name == index:
                    return order
        return self.schema.base

    def _reads_this_table(self) -> bool:
        return self.table == self.schema.name

    @property
    def order_name(self) -> str:
        return self.order.name

    @property
    def mode(self) -> str:
        return "one call a page"

    def make_source(self, client: object, clock: Clock) -> PartiQLSource:
        from dynotui.dynamodb.partiql import PartiQLSource

        schema = self.schema if self._reads_this_table() else None
        return PartiQLSource(client, self.statement, schema, clock=clock)

    def _parameters_text(self) -> str:
        shown = [
            json.dumps(to_wire({"v": p})["v"], ensure_ascii=False)
            for p in self.statement.parameters
        ]
        return f" with ? = {', '.join(shown)}" if shown else ""

    def conditions_text(self) -> str:
        return visible(" ".join(self.statement.text.split()) + self._parameters_text())

    def title(self) -> str:
        consistent = " · strongly consistent" if self.statement.consistent_read else ""
        if self._reads_this_table() and self.order.kind == "gsi":
            consistent = " · eventually consistent (a GSI)"  # a strong read of one is refused
        return visible(
            f"PartiQL · {' '.join(self.statement.text.split())}{self._parameters_text()} · "
            f"{self.statement.page_size}/page (ExecuteStatement, Limit = page size){consistent}"
        )

    def notes(self, page: Page[Any]) -> list[str]:
        return []

    def conditions(self) -> frozenset[str]:
        return frozenset({self.statement.scope()})

    def key_columns(self) -> tuple[str, ...]:
        if not self._reads_this_table():
            return ()
        _, index = self.statement.target()
        try:
            keys = self.schema.cursor_key_names(index)
        except Exception:  # an index this table does not have: DynamoDB will say so
            keys = self.schema.table_key_names
        selected = self.statement.selected()
        return keys if selected is None else tuple(k for k in keys if k in selected)

    def known_columns(self) -> tuple[str, ...]:
        return ()

    def cells(self, item: Item) -> dict[str, str]:
        return {name: cell(value) for name, value in item.items()}

    def boundary_text(self, key: str | None) -> str:
        if not key:
            return "(start of the result)"
        text = visible(key)
        return f"NextToken {text[:40]}…" if len(text) > 40 else f"NextToken {text}"

    def key_json(self, key: str) -> str:
        return json.dumps({"NextToken": key})

    def code(self, page: Page[Any], target: object) -> dict[str, CodeTab]:
        from dynotui.dynamodb.codegen import LANGUAGES, CodeTarget  # when asked for
        from dynotui.dynamodb.partiql_codegen import generate_partiql

        assert isinstance(target, CodeTarget)
        return {
            language: CodeTab(
                *CODE_TABS[language],
                generate_partiql(language, self.statement, page.start_key, page.number, target),
            )
            for language in LANGUAGES
        }
