"""A query's items in the grid: the session's columns (``ColumnLayout``: keys first, they
only grow) and each item's cells as the query shows them. No paging here.

When the query's table holds several entities (a single-table design: the query is an
``EntityRows``), each row's entity is shown in a narrow first column, and the columns
follow the entity of the highlighted row: where a page mixes entities, the columns no row
of that entity on the page has a value in fold away as empty ones do, and the column
picker chooses that entity's columns. ``filter_entity`` keeps the rows of one entity in
view: client-side, on the pages already read, never a new filter sent.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.message import Message

from dynotui.core.text import visible
from dynotui.ui.query import Item, Query, entity_rows
from dynotui.ui.widgets import sideways
from dynotui.ui.widgets.column_layout import ColumnLayout
from dynotui.ui.widgets.grid import Grid, GridColumn

FOLD = "\0fold"  # the key of a marker column standing for a run of empty columns
ENTITY = "\0entity"  # the key of the entity column
ENTITY_LABEL = "entity"
ENTITY_WIDTH = 16  # the widest the entity column grows


class Results(Grid):
    """The grid of a query's items. Columns no item of the page shown has a value in are
    folded, each run of them into one narrow marker (``+3``): the order stays, and the
    screen goes to the columns that hold something. ``f`` unfolds them."""

    class ColumnsFollowed(Message):
        """The highlighted row's entity changed the columns shown (and those folded)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.column_layout: ColumnLayout | None = None
        self.folded: list[str] = []  # the columns folded on the page shown
        self.names: list[str | None] = []  # each item's entity, on the page shown
        self.entities_seen: list[str] = []  # every entity shown since the columns began
        self.only_entity: str | None = None  # the rows kept in view (client-side)
        self.rows_shown: list[int] = []  # the item of each row in view
        self.column_entity: str | None = None  # whose columns are shown
        self._rows: list[dict[str, str]] = []  # every item's cells, on the page shown
        self._entity_width = len(ENTITY_LABEL)

    def forget_columns(self) -> None:
        """Another table or other keys: the next items size the columns afresh, from the
        first column."""
        self.column_layout = None
        self.first, self.keys = 0, sideways.BESIDE
        self.entities_seen = []
        self.only_entity = None
        self._entity_width = len(ENTITY_LABEL)

    def show_items(self, query: Query, items: Sequence[Item], fallback_width: int) -> None:
        rows = [query.cells(item) for item in items]
        marks = entity_rows(query)
        self.names = marks.entity_names(items) if marks is not None else [None] * len(items)
        for name in self.names:
            if name is not None and name not in self.entities_seen:
                self.entities_seen.append(name)
                self._entity_width = min(ENTITY_WIDTH, max(self._entity_width, len(visible(name))))
        layout = self.column_layout
        if layout is None:
            layout = self.column_layout = ColumnLayout(query.key_columns())
            layout.observe(rows, query.known_columns())
            layout.fit(self._available(fallback_width))
        else:
            # New attributes join at the end; a value wider than its column widens it.
            layout.observe(rows, query.known_columns())
        self._rows = rows
        self._show()

    def refit(
        self, query: Query, items: Sequence[Item], fallback_width: int, to_content: bool
    ) -> None:
        """After the column picker (or a fit): the same rows in the new columns."""
        if self.column_layout is None:
            return
        self.column_layout.fit(self._available(fallback_width), to_content=to_content)
        self._rows = [query.cells(item) for item in items]
        self._show(keep_cursor=True)

    # -- entities ---------------------------------------------------------------------------

    def item_index(self, row: int) -> int | None:
        """The item (on the page shown) of grid row ``row``; None when no row is in view."""
        if not self.rows_shown:
            return None
        return self.rows_shown[min(max(row, 0), len(self.rows_shown) - 1)]

    def filter_entity(self) -> str | None:
        """Keep the rows of the next entity seen (then every row again): the entity kept,
        None for every row. Client-side: nothing is read."""
        if not self.entities_seen:
            return None
        cycle: list[str | None] = [None, *self.entities_seen]
        at = cycle.index(self.only_entity) if self.only_entity in cycle else 0
        self.only_entity = cycle[(at + 1) % len(cycle)]
        self._show()
        return self.only_entity

    def entity_words(self) -> str:
        """What the status line says of the entity filter ('' when there is none)."""
        if self.only_entity is None:
            return ""
        return (
            f"{visible(self.only_entity)} rows only: {len(self.rows_shown)} of "
            f"{len(self._rows)} on this page (filtered here, nothing read; l: next entity)"
        )

    def entity_split(self, weights: Sequence[int]) -> list[tuple[str, int, float]]:
        """The page's rows by entity: (entity, rows, share of the page's weight), the
        heaviest first; empty when the page has no entities."""
        if not any(self.names) or len(weights) != len(self.names):
            return []
        total = sum(weights) or 1
        rows: dict[str, list[int]] = {}
        for name, weight in zip(self.names, weights, strict=True):
            counted = rows.setdefault(name or "(none)", [0, 0])
            counted[0] += 1
            counted[1] += weight
        split = [(name, n, weight / total) for name, (n, weight) in rows.items()]
        return sorted(split, key=lambda part: (-part[2], part[0]))

    def watch_cursor_row(self, old: int, new: int) -> None:
        super().watch_cursor_row(old, new)
        # A page that mixes entities: the highlighted row's entity chooses the columns.
        index = self.item_index(new)
        if (
            index is not None
            and self.column_layout is not None
            and index < len(self.names)
            and self._mixed()
            and self.names[index] != self.column_entity
        ):
            self._show(keep_cursor=True)
            self.post_message(self.ColumnsFollowed())

    def folded_words(self, folded: int) -> str:
        """The columns folded, in words: empty ones, or also another entity's ("8 columns
        empty or not ADDRESS's folded" read as if ADDRESS's columns were the ones hidden)."""
        plural = "s" if folded > 1 else ""
        if self.column_entity is not None and self._mixed():
            entity = visible(self.column_entity)
            return f"{folded} column{plural} folded (empty or not {entity}'s; f shows)"
        return f"{folded} empty column{plural} folded (f shows)"

    def _mixed(self) -> bool:
        return len({self.names[i] for i in self.rows_shown}) > 1 if self.names else False

    # -- drawing ----------------------------------------------------------------------------

    def _show(self, keep_cursor: bool = False) -> None:
        layout = self.column_layout
        assert layout is not None
        names = self.names if len(self.names) == len(self._rows) else [None] * len(self._rows)
        only = self.only_entity
        kept = [i for i, name in enumerate(names) if only is None or name == only]
        self.rows_shown = kept
        rows = [self._rows[i] for i in kept]
        cursor = min(self.cursor_row, max(len(kept) - 1, 0)) if keep_cursor else 0
        entity = names[kept[cursor]] if kept else None
        self.column_entity = entity
        layout.entity = entity
        own = rows
        if entity is not None and self._mixed():
            own = [self._rows[i] for i in kept if names[i] == entity]
        columns, self.folded = self._columns(layout, own)
        fixed = 0  # the keys at the start stay in place when the grid moves sideways
        while fixed < len(columns) and columns[fixed].key in layout.key_names:
            fixed += 1
        if self.entities_seen:
            columns.insert(0, GridColumn(ENTITY, ENTITY_LABEL, self._entity_width))
            fixed += 1
        shape = [(c.key, c.label, c.width) for c in columns]
        if shape != [(c.key, c.label, c.width) for c in self.columns] or fixed != self.fixed:
            self.set_columns(columns, fixed)
        cells = [
            [
                visible(names[i] or "") if column.key == ENTITY else row.get(column.key, "")
                for column in columns
            ]
            for i, row in zip(kept, rows, strict=True)
        ]
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
