"""A query's items in the grid: the session's columns (``ColumnLayout``: keys first, they
only grow) and each item's cells as the query shows them. No paging here."""

from __future__ import annotations

from collections.abc import Sequence

from dynotui.core.text import visible
from dynotui.ui.query import Item, Query
from dynotui.ui.widgets import sideways
from dynotui.ui.widgets.column_layout import ColumnLayout
from dynotui.ui.widgets.grid import Grid, GridColumn

FOLD = "\0fold"  # the key of a marker column standing for a run of empty columns


class Results(Grid):
    """The grid of a query's items. Columns no item of the page shown has a value in are
    folded, each run of them into one narrow marker (``+3``): the order stays, and the
    screen goes to the columns that hold something. ``f`` unfolds them."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.column_layout: ColumnLayout | None = None
        self.folded: list[str] = []  # the columns folded on the page shown

    def forget_columns(self) -> None:
        """Another table or other keys: the next items size the columns afresh, from the
        first column."""
        self.column_layout = None
        self.first, self.keys = 0, sideways.BESIDE

    def show_items(self, query: Query, items: Sequence[Item], fallback_width: int) -> None:
        rows = [query.cells(item) for item in items]
        layout = self.column_layout
        if layout is None:
            layout = self.column_layout = ColumnLayout(query.key_columns())
            layout.observe(rows, query.known_columns())
            layout.fit(self._available(fallback_width))
        else:
            # New attributes join at the end; a value wider than its column widens it.
            layout.observe(rows, query.known_columns())
        self._show(rows)

    def refit(
        self, query: Query, items: Sequence[Item], fallback_width: int, to_content: bool
    ) -> None:
        """After the column picker (or a fit): the same rows in the new columns."""
        if self.column_layout is None:
            return
        self.column_layout.fit(self._available(fallback_width), to_content=to_content)
        self._show([query.cells(item) for item in items], keep_cursor=True)

    def _show(self, rows: list[dict[str, str]], keep_cursor: bool = False) -> None:
        layout = self.column_layout
        assert layout is not None
        columns, self.folded = self._columns(layout, rows)
        fixed = 0  # the keys at the start stay in place when the grid moves sideways
        while fixed < len(columns) and columns[fixed].key in layout.key_names:
            fixed += 1
        shape = [(c.key, c.label, c.width) for c in columns]
        if shape != [(c.key, c.label, c.width) for c in self.columns] or fixed != self.fixed:
            self.set_columns(columns, fixed)
        cells = [[row.get(column.key, "") for column in columns] for row in rows]
        self.set_rows(cells, keep_cursor=keep_cursor)

    @staticmethod
    def _columns(
        layout: ColumnLayout, rows: list[dict[str, str]]
    ) -> tuple[list[GridColumn], list[str]]:
        columns: list[GridColumn] = []
        folded: list[str] = []
        run: list[str] = []

        def close_run() -> None:
            if run:
                label = f"+{len(run)}"
                columns.append(GridColumn(f"{FOLD}{len(columns)}", label, len(label)))
                folded.extend(run)
                run.clear()

        for name in layout.visible():
            empty = (
                layout.fold_empty
                and name not in layout.key_names
                and not any(row.get(name) for row in rows)
            )
            if empty:
                run.append(name)
                continue
            close_run()
            columns.append(GridColumn(name, visible(name), layout.widths[name]))
        close_run()
        return columns, folded

    def _available(self, fallback_width: int) -> int:
        width = self.size.width or fallback_width or self.app.size.width
        return max(width - 2, 20)
