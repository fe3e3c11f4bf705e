"""The compare view gives the grids the room: below 190 columns each side's costs are its
two-line strip (two sidebars left each grid about 26 columns at 120x35); and its line on
top never contradicts itself (a PartiQL side said "no match yet" beside 950 matches)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static, TextArea
from uihelpers import make_app, text_of

from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.ui.dynamodb.partiql import PartiQLQuery
from dynotui.ui.dynamodb.query_screen import QueryScreen
from dynotui.ui.testing import settle

LEFT = QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="10")


@pytest.mark.parametrize(("size", "strips"), [((120, 35), True), ((200, 50), False)])
async def test_each_side_of_a_compare_has_room_for_its_grid(
    client: Any, demo_table: str, size: tuple[int, int], strips: bool
) -> None:
    app = make_app(client, LEFT)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        screen = app.main_screen
        assert screen.comparing
        for view in (screen.main_view, screen.right_view):
            assert view.has_class("-strip") is strips
            assert view.query_one("#sidebar").display is not strips
            assert view.query_one("#cost-strip").display is strips
            grid = view.results.size.width
            if strips:
                # Half the screen less borders and padding: not half less a sidebar.
                assert grid >= size[0] // 2 - 6, grid
        await pilot.press("escape")
        await settle(pilot)
        view = app.main_view
        assert not screen.comparing
        assert view.query_one("#sidebar").display, "one grid again: its sidebar is back"
        assert not view.has_class("-strip")


async def test_a_partiql_side_says_what_it_does_not_report(client: Any, demo_table: str) -> None:
    app = make_app(client, LEFT)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("colon")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
        app.screen.query_one(
            "#statement", TextArea
        ).text = f'SELECT * FROM "{demo.TABLE}" WHERE customer = ?'
        app.screen.query_one("#parameters").value = f'[{{"S": "{demo.BIG_CUSTOMER}"}}]'  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.main_view.state.query, PartiQLQuery)
        for _ in range(2):
            await pilot.press("n")
            await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        line = text_of(app.main_screen.query_one("#compare-line", Static))
        left = line.splitlines()[0]
        pager = app.main_view.pager
        matched = sum(
            pager.summary_of(n).count for n, _ in pager.stack if pager.summary_of(n) is not None
        )
        assert f"{matched:,} matches so far" in left
        assert "no match yet" not in left, "matches were counted: never 'no match yet'"
        assert "waste" not in left, "no ScannedCount, so no waste to tell (never 0%)"
        assert "ScannedCount not reported" in left
        if pager.per_item.value is None:  # DynamoDB Local reports no capacity for PartiQL
            assert "cost per item not reported" in left
        else:
            assert "RCU/item" in left
