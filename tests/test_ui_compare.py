"""The compare view with Pilot against DynamoDB Local: two sides, each equal to the engine."""

from __future__ import annotations

from typing import Any

from textual.widgets import DataTable, Input, Static

from dynotui.core.pager import Pager
from dynotui.core.query_form import QueryForm, build_spec
from dynotui.core.schema import describe_table
from dynotui.local import demo
from dynotui.ui.app import DynotuiApp
from dynotui.ui.cells import cell, columns
from dynotui.ui.compare_screen import CompareScreen
from dynotui.ui.pager_view import PagerView
from dynotui.ui.picker_screen import PickerScreen
from dynotui.ui.pilot import settle
from dynotui.ui.query_screen import QueryScreen

LEFT = QueryForm(
    partition_value=demo.BIG_CUSTOMER,
    filter="status = :r",
    values='{":r": "RETURNED"}',
    page_size="10",
)
RIGHT = QueryForm(order="by_status", partition_value=demo.RARE_STATUS, page_size="10")


def rows(view: PagerView) -> list[list[str]]:
    table = view.query_one(DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def engine_pages(client: Any, form: QueryForm, count: int) -> tuple[Any, list[Any]]:
    schema = describe_table(client, demo.TABLE)
    pager = Pager(client, build_spec(schema, form), schema)
    return schema, [pager.next() for _ in range(count)]


def expected_rows(schema: Any, index: str | None, page: Any) -> list[list[str]]:
    order = schema.order(index)
    names = columns(page.items, schema.cursor_key_names(index))
    return [
        [cell(item.get(n), order.projects(n, schema.table_key_names)) for n in names]
        for item in page.items
    ]


async def open_compare(pilot: Any, app: DynotuiApp) -> CompareScreen:
    await settle(pilot)
    await pilot.press("w")
    await settle(pilot)
    assert isinstance(app.screen, CompareScreen)
    await pilot.press("tab", "o")
    await settle(pilot)
    assert isinstance(app.screen, PickerScreen)
    app.screen.query_one(Input).value = "by_status"
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(app.screen, QueryScreen)
    app.screen.query_one("#partition_value", Input).value = demo.RARE_STATUS
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert isinstance(app.screen, CompareScreen)
    return app.screen


async def test_both_sides_page_together_and_apart(client, demo_table) -> None:
    schema, left_truth = engine_pages(client, LEFT, 4)
    _, right_truth = engine_pages(client, RIGHT, 4)
    app = DynotuiApp(client, table=demo.TABLE, form=LEFT)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_compare(pilot, app)
        left = screen.query_one("#left", PagerView)
        right = screen.query_one("#right", PagerView)
        assert left.pager.spec.scope() == app.main_view.pager.spec.scope(), "left = main query"
        assert right.pager.spec.index == "by_status"
        await pilot.press("N", "N")
        await settle(pilot)
        assert (left.pager.number, right.pager.number) == (3, 3)
        assert rows(left) == expected_rows(schema, None, left_truth[2])
        assert rows(right) == expected_rows(schema, "by_status", right_truth[2])
        line = str(screen.query_one("#compare-line", Static).render())
        assert f"{left_truth[2].capacity.total:g} RCU" in line
        assert f"scanned {right_truth[2].scanned_count:,}" in line
        assert "waste 0%" in line and "by_status" in line
        await pilot.press("n")  # the right side is active: only it moves
        await settle(pilot)
        assert (left.pager.number, right.pager.number) == (3, 4)
        assert rows(right) == expected_rows(schema, "by_status", right_truth[3])
        await pilot.press("tab", "p")
        await settle(pilot)
        assert (left.pager.number, right.pager.number) == (2, 4)
        advice = str(left.query_one("#advice", Static).render())
        assert "`status` is the partition key of GSI `by_status`" in advice
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, CompareScreen)
        assert app.main_view.pager.number == 1, "the main view kept its own stack"


def test_compare_snapshot(snap_compare, client, demo_table) -> None:
    from test_ui import FixedClock

    app = DynotuiApp(
        client,
        connection_label="DynamoDB Local (tests)",
        table=demo.TABLE,
        form=LEFT,
        clock=FixedClock(),
    )

    async def run_before(pilot: Any) -> None:
        await open_compare(pilot, app)
        await pilot.press("N")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(200, 45), run_before=run_before)


async def test_keys_only_index_marks_attributes_not_projected(client, demo_table) -> None:
    form = QueryForm(order="flagged", partition_value="fraud-review", page_size="10")
    app = DynotuiApp(client, table=demo.TABLE, form=form)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        view = app.main_view
        table = view.query_one(DataTable)
        labels = [str(c.label) for c in table.ordered_columns]
        assert labels[:4] == ["flag", "total", "customer", "order_no"]
        assert {"status", "placed_on"} <= set(labels)
        status = labels.index("status")
        assert all(row[status] == "· not projected" for row in rows(view))
        assert "projects KEYS_ONLY" in str(view.query_one("#query-line", Static).render())
