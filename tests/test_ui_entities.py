"""The grid on a single-table design (the demo's shop, on DynamoDB Local): each row's
entity in its own column, the columns of the highlighted row's entity, the column picker
per entity, the entity filter (client-side: nothing read), the page's read units split by
entity in the sidebar, and the entity view's table. The truth of each row's entity is the
test's own: the head of the item's sort key."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from export_layout import scan_all
from textual.widgets import SelectionList
from uihelpers import dynamodb_app, messages, screen_text, text_of, until

from dynotui.dynamodb.entities.words import HEADERS, row_cells, table_lines
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import shop
from dynotui.local.tables import table_definition
from dynotui.ui.testing import settle
from dynotui.ui.widgets.results import ENTITY
from dynotui.ui.widgets.safe_text import TextStatic

SCAN = QueryForm(scan=True, page_size="40")
KEYS = ("pk", "sk")


def head(item: dict[str, Any]) -> str:
    return str(item["sk"]["S"]).split("#")[0]


def app_on_shop(client: Any, form: QueryForm = SCAN) -> Any:
    return dynamodb_app(client, form, table=shop.TABLE)


def entity_cells(view: Any) -> list[str]:
    grid = view.results
    at = [c.key for c in grid.columns].index(ENTITY)
    return [grid.get_row_at(i)[at].strip() for i in range(grid.row_count)]


def own_columns(view: Any, items: list[dict[str, Any]], entity: str) -> list[str]:
    """The columns a row of ``entity`` must show: keys, then the session's columns that
    an item of ``entity`` on this page holds, in the session's order."""
    layout = view.column_layout
    held = {name for item in items if head(item) == entity for name in item}
    return [n for n in layout.visible() if n in layout.key_names or n in held]


def shown_columns(view: Any) -> list[str]:
    return [c.key for c in view.results.columns if not c.key.startswith("\0")]


async def test_each_row_shows_its_entity_and_its_own_columns(client: Any) -> None:
    app = app_on_shop(client)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        view = app.main_view
        items = view.pager.current.items
        assert view.results.labels[0] == "entity"
        assert entity_cells(view) == [head(item) for item in items]
        kinds = {head(item) for item in items}
        assert len(kinds) > 1, "page 1 of the Scan mixes entities"
        view.results.focus()
        for entity in sorted(kinds):
            row = next(i for i, item in enumerate(items) if head(item) == entity)
            view.results.cursor_row = row
            await settle(pilot)
            assert view.results.column_entity == entity
            assert shown_columns(view) == own_columns(view, items, entity), entity
        # An order's total is not an address's: each under its own entity alone.
        order = next(i for i, item in enumerate(items) if head(item) == "ORDER")
        address = next(i for i, item in enumerate(items) if head(item) == "ADDRESS")
        view.results.cursor_row = order
        await settle(pilot)
        assert "total" in shown_columns(view) and "city" not in shown_columns(view)
        view.results.cursor_row = address
        await settle(pilot)
        assert "city" in shown_columns(view) and "total" not in shown_columns(view)


async def test_the_column_picker_chooses_each_entitys_columns(client: Any) -> None:
    app = app_on_shop(client)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        view = app.main_view
        items = view.pager.current.items
        order = next(i for i, item in enumerate(items) if head(item) == "ORDER")
        address = next(i for i, item in enumerate(items) if head(item) == "ADDRESS")
        view.results.focus()
        view.results.cursor_row = order
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        listing = app.screen.query_one(SelectionList)
        listing.highlighted = view.column_layout.order.index("gsi1pk")
        await pilot.press("space", "a")
        await settle(pilot)
        assert "gsi1pk" not in shown_columns(view)  # hidden for orders
        view.results.cursor_row = address
        await settle(pilot)
        assert "gsi1pk" in shown_columns(view)  # an address's columns are its own
        view.results.cursor_row = order
        await settle(pilot)
        assert "gsi1pk" not in shown_columns(view)
        assert view.column_layout.hidden_by["ORDER"] == {"gsi1pk"}


async def test_the_entity_filter_keeps_one_entitys_rows_and_reads_nothing(client: Any) -> None:
    app = app_on_shop(client)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        view = app.main_view
        items = view.pager.current.items
        reads = view.pager.totals.pages_read
        view.results.focus()
        first = view.results.entities_seen[0]
        await pilot.press("l")
        await settle(pilot)
        assert view.results.only_entity == first
        assert entity_cells(view) == [head(i) for i in items if head(i) == first]
        status = text_of(view.query_one("#status-line"))
        assert f"{first} rows only" in status and "nothing read" in status
        assert view.pager.totals.pages_read == reads  # client-side: no read
        # The row under the cursor is the item opened and copied.
        view.results.cursor_row = 1
        await settle(pilot)
        assert view.selected_item() == [i for i in items if head(i) == first][1]
        # Every entity in turn, then every row again.
        for entity in view.results.entities_seen[1:]:
            await pilot.press("l")
            await settle(pilot)
            assert set(entity_cells(view)) <= {entity}
        await pilot.press("l")
        await settle(pilot)
        assert view.results.only_entity is None
        assert len(entity_cells(view)) == len(items)
        assert view.pager.totals.pages_read == reads
        # Kept on the next page read, until turned off.
        await pilot.press("l", "n")
        await settle(pilot)
        page_two = view.pager.current.items
        assert view.pager.number == 2
        assert entity_cells(view) == [head(i) for i in page_two if head(i) == first]


async def test_the_sidebar_splits_the_pages_units_by_entity(client: Any) -> None:
    app = app_on_shop(client)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        view = app.main_view
        items = view.pager.current.items
        text = text_of(view.query_one("#entity-cost", TextStatic))
        assert "share · rows" in " ".join(text.split())  # what "60% · 12" are, said
        truth = Counter(head(item) for item in items)
        found: dict[str, tuple[float, int]] = {}
        for line in text.splitlines():
            row = re.fullmatch(r"(\S+) +([0-9.e-]+) RCU +[0-9]+% · ([0-9,]+)", line.strip())
            if row:
                found[row[1]] = (float(row[2]), int(row[3].replace(",", "")))
        assert {name: rows for name, (_, rows) in found.items()} == dict(truth)
        total = view.pager.current.cost.headline
        assert abs(sum(units for units, _ in found.values()) - total) <= 0.02 * len(found)
        shares = [units for units, _ in found.values()]
        assert shares == sorted(shares, reverse=True)  # the heaviest first


async def read_entities(pilot: Any, app: Any) -> Any:
    """``L`` then Enter: the entity view, once its read has ended."""
    await pilot.press("L")
    await settle(pilot)
    await pilot.press("enter")
    screen = app.screen
    await until(pilot, lambda: getattr(screen, "found", None) is not None)
    return screen


async def test_the_entity_view_counts_the_table(client: Any) -> None:
    truth = Counter(head(item) for item in scan_all(client, shop.TABLE))
    app = app_on_shop(client)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        before = app.session.ledger.figures()
        screen = await read_entities(pilot, app)
        found = screen.found
        assert found.sample.complete  # the shop fits the budget: counts are exact
        assert {e.name: e.count.items for e in found.entities} == dict(truth)
        table = text_of(screen.query_one("#entities-table", TextStatic))
        for name, count in truth.items():
            assert any(line.split()[:2] == [name, f"{count:,}"] for line in table.splitlines())
        await pilot.press("escape")
        await settle(pilot)
        after = app.session.ledger.figures()
        assert after.counts == before.counts + 1  # billed to the session as a count
        spent = after.unit("RCU").total - (before.unit("RCU").total or 0)
        assert abs(spent - found.sample.read_units) < 1e-9


LONG = "A_VERY_LONG_ENTITY_NAME_PAST_THIRTY_TWO_CELLS"


@pytest.fixture
def long_names(memory_demo: Any) -> str:
    """In memory: 4,000 items of two entities with long names, about 1 KB each, so the
    entity view's 50 read units read a part of them and each count is a range."""
    name = "entities-long-names"
    if name not in memory_demo.tables:
        memory_demo.create_table(**table_definition(name, ("pk", "S"), ("sk", "S")))
        memory_demo.put(
            name,
            [
                {"pk": f"P#{i // 4}", "sk": f"{(LONG, 'B')[i % 4 == 0]}#{i}", "pad": "x" * 1000}
                for i in range(4000)
            ],
        )
    return name


async def test_the_entity_table_is_not_cut_at_80x24(memory_demo: Any, long_names: str) -> None:
    # Sampled in part, each count a range beside a name cut at its widest: the widest rows
    # there are. In a box of 90% of 80 columns the last column (RCU) went to a line of its
    # own. (The demo's orders, one group, have no range since their count is the table's.)
    form = QueryForm(partition_value="P#1", page_size="10")
    app = dynamodb_app(memory_demo, form, table=long_names)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await read_entities(pilot, app)
        await settle(pilot)
        found = screen.found
        assert not found.sample.complete and len(found.entities) == 2
        assert all(e.count.low < e.count.high for e in found.entities)
        assert max(len(line) for line in table_lines(found)) > 76  # wider than the room
        shown = [line.strip("█ ") for line in screen_text(app)]
        assert list(HEADERS) in [line.split() for line in shown], shown
        for entity in found.entities:
            name, *figures = row_cells(entity)
            # Each row on one line: its name's start (cut, marked …), then every figure.
            assert any(
                line.startswith(name[:8])
                and line.split()[-5:] == figures[-5:]
                and f" {figures[0]} " in line
                for line in shown
            ), (entity.name, shown)


async def test_a_table_with_no_entities_has_no_entity_column(client: Any, demo_table: str) -> None:
    app = dynamodb_app(client, QueryForm(partition_value="acme", page_size="10"))
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        view = app.main_view
        assert ENTITY not in [c.key for c in view.results.columns]
        view.results.focus()
        await pilot.press("l")
        await settle(pilot)
        assert any("no entities" in m for m in messages(app))
        # The costs by entity are mounted when first shown: none here, or hidden.
        assert not any(block.display for block in view.query("#entity-cost"))


async def test_the_report_includes_the_entity_table(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    truth = Counter(head(item) for item in scan_all(client, shop.TABLE))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    app = app_on_shop(client)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        await read_entities(pilot, app)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("S")
        await until(pilot, lambda: any("Report written" in m for m in messages(app)))
    markdown = next((tmp_path / "dynotui" / "reports").glob("*.md")).read_text()
    assert f"Entities of {shop.TABLE}" in markdown
    for name, count in truth.items():
        assert re.search(rf"\| {name} \| {count:,} \|", markdown), name
    assert "counts are exact" in markdown


async def test_the_status_line_says_whose_columns_are_folded(client: Any) -> None:
    app = app_on_shop(client)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        view = app.main_view
        items = view.pager.current.items
        view.results.focus()
        for entity in ("ORDER", "ADDRESS"):
            view.results.cursor_row = next(i for i, it in enumerate(items) if head(it) == entity)
            await settle(pilot)
            status = text_of(view.query_one("#status-line"))
            folded = len(view.results.folded)
            assert f"{folded} columns folded (empty or not {entity}'s; f shows)" in status, status
