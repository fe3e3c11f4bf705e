"""A query's items in the grid: the session's columns (``ColumnLayout``: keys first, they
only grow) and each item's cells as the query shows them. No paging here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dynotui.core.text import visible
from dynotui.ui.columns import ColumnLayout
from dynotui.ui.grid import Grid, GridColumn
from dynotui.ui.query_view import QueryView


class Results(Grid):
    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.column_layout: ColumnLayout | None = None

    def forget_columns(self) -> None:
        """Another table or other keys: the next items size the columns afresh."""
        self.column_layout = None

    def show_items(self, query: QueryView, items: Sequence[Any], fallback_width: int) -> None:
        rows = [query.cells(item) for item in items]
        layout = self.column_layout
        if layout is None:
            layout = self.column_layout = ColumnLayout(query.key_columns())
            layout.observe(rows, query.known_columns())
            layout.fit(self._available(fallback_width))
            self._set_columns()
        elif layout.observe(rows, query.known_columns()) or layout.grown:
            # New attributes join at the end; a value wider than its column widens it.
            self._set_columns()
        self._fill(rows)

    def refit(
        self, query: QueryView, items: Sequence[Any], fallback_width: int, to_content: bool
    ) -> None:
        """After the column picker (or a fit): the same rows in the new columns."""
        if self.column_layout is None:
            return
        self.column_layout.fit(self._available(fallback_width), to_content=to_content)
        self._set_columns()
        self._fill([query.cells(item) for item in items])

    def _set_columns(self) -> None:
        layout = self.column_layout
        assert layout is not None
        self.set_columns(
            [GridColumn(name, visible(name), layout.widths[name]) for name in layout.visible()]
        )

    def _fill(self, rows: list[dict[str, str]]) -> None:
        layout = self.column_layout
        assert layout is not None
        names = layout.visible()
        self.set_rows([[row.get(name, "") for name in names] for row in rows])

    def _available(self, fallback_width: int) -> int:
        width = self.size.width or fallback_width or self.app.size.width
        return max(width - 2, 20)
