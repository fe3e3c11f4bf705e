"""A PostgreSQL table in one order as the UI sees it: its title, columns and cells, its
code. No paging logic here."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from dynotui.core.export import ItemShape, text_shape
from dynotui.core.text import visible
from dynotui.postgres.codegen import LANGUAGES, generate_pg
from dynotui.postgres.connection import PgSession
from dynotui.postgres.schema import PgOrder, PgTable
from dynotui.postgres.source import PgBoundary, PgPage, PgRow, PgSource
from dynotui.postgres.sql import Mode, PgQuery, param_text
from dynotui.ui.query import Clock, CodeTab

# Each language of the generated code: its tab's title and the lexer that colours it.
CODE_TABS = {"sql": ("SQL", "sql"), "psycopg": ("Python (psycopg)", "python")}
NULL = "∅ null"
EMPTY = "''"  # an empty string, which is a value: not NULL, and not nothing


Row = PgRow  # a row as PostgreSQL's own text, NULL as None
Boundary = PgBoundary | None  # keyset: sort values; OFFSET: rows to skip; None: the start


@dataclass(frozen=True)
class PostgresQuery:
    """A table read in one order, keyset or OFFSET, as the UI shows it."""

    query: PgQuery

    @property
    def schema(self) -> PgTable:
        return self.query.table

    @property
    def order(self) -> PgOrder:
        return self.query.order

    @property
    def table(self) -> str:
        return self.query.table.label

    @property
    def order_name(self) -> str:
        return self.query.order.name

    @property
    def mode(self) -> Mode:
        return self.query.mode

    def make_source(self, client: object, clock: Clock) -> PgSource:
        assert isinstance(client, PgSession), "PostgreSQL pages are read on a PgSession"
        return PgSource(client, self.query, clock=clock)

    def with_(self, **changes: Any) -> PostgresQuery:
        return PostgresQuery(replace(self.query, **changes))

    # -- words ------------------------------------------------------------------------------

    def _filter_text(self) -> str:
        query = self.query
        if not query.where or not query.where.strip():
            return ""
        parsed = query.filter
        text = parsed.deparsed if parsed is not None else " ".join(query.where.split())
        if query.params:
            text += " with " + ", ".join(
                f"${i + 1} = {json.dumps(p, ensure_ascii=False)}"
                for i, p in enumerate(query.params)
            )
        return text

    def conditions_text(self) -> str:
        return visible(self._filter_text() or "every row")

    def title(self) -> str:
        query, order = self.query, self.query.order
        terms = ", ".join(c.words() for c in order.columns)
        how = f"index {order.index}" if order.index else "NO INDEX: sorts per page"
        parts = [f"{query.table.label} · order by {terms} ({how})"]
        if order.tie_breaker:
            parts.append(f"tie-broken by {', '.join(order.tie_breaker)}")
        if not order.unique:
            parts.append("NOT UNIQUE: rows tied at a page boundary are lost or repeated")
        if order.cost_note:
            parts.append(order.cost_note)
        filter_text = self._filter_text()
        if filter_text:
            parts.append("where " + filter_text)
        if query.descending:
            parts.append("reversed")
        mode = (
            "keyset (seeks past the last row)"
            if query.mode == "keyset"
            else "OFFSET (reads and skips every row before the page)"
        )
        parts.append(f"{mode} · {query.page_size}/page")
        if query.projection:
            parts.append("columns " + ", ".join(query.projection))
        return visible(" · ".join(parts))

    def notes(self, page: PgPage) -> list[str]:
        return []

    def conditions(self) -> frozenset[str]:
        """The result set's identity (not its order, not the paging mode)."""
        query = self.query
        return frozenset(
            {
                json.dumps(
                    [
                        query.table.qualified,
                        query.filter.deparsed if query.filter is not None else "",
                        [param_text(p) for p in query.params],
                    ]
                )
            }
        )

    # -- columns and cells -----------------------------------------------------------------

    def key_columns(self) -> tuple[str, ...]:
        shown = self.query.shown_columns
        return tuple(c.label for c in self.query.order.columns if c.label in shown)

    def known_columns(self) -> tuple[str, ...]:
        return self.query.shown_columns

    def cells(self, row: Row) -> dict[str, str]:
        return {
            name: NULL if value is None else visible(value) if value else EMPTY
            for name, value in row.items()
        }

    def boundary_text(self, key: Boundary) -> str:
        if key is None:
            return "(start of the result)"
        if isinstance(key, int):
            return f"OFFSET {key:,}"
        labels = [c.label for c in self.query.order.columns]
        return ", ".join(
            f"{visible(label)}={'NULL' if value is None else visible(value)}"
            for label, value in zip(labels, key, strict=False)
        )

    # -- whole rows -------------------------------------------------------------------------

    def item_json(self, row: Row, typed: bool) -> str:
        if typed:
            types = {c.name: c.type for c in self.query.table.columns}
            typed_row = {
                name: {"type": types.get(name, "?"), "text": value} for name, value in row.items()
            }
            return json.dumps(typed_row, indent=2, ensure_ascii=False)
        return json.dumps(row, indent=2, ensure_ascii=False)

    def item_formats(self) -> tuple[str, str]:
        return "JSON, values as PostgreSQL text", "JSON with column types"

    def page_lines(self, rows: Sequence[Row]) -> str:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)

    def export_shape(self) -> ItemShape:
        """As ``pages --format`` writes rows: PostgreSQL's text, NULL an empty cell."""
        return text_shape(self.key_columns())

    def key_json(self, key: Boundary) -> str:
        return json.dumps(key, ensure_ascii=False)

    # -- code -----------------------------------------------------------------------------

    @property
    def partial_result(self) -> bool:
        return False

    def code_title(self, page: PgPage) -> str:
        return f"Code for page {page.number}, from its start key"

    def code(self, page: PgPage, target: object) -> dict[str, CodeTab]:
        uri = target if isinstance(target, str) else None
        return {
            language: CodeTab(
                *CODE_TABS[language],
                generate_pg(language, self.query, page.start_key, page.number, uri),
            )
            for language in LANGUAGES
        }
