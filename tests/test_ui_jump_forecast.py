"""A walk to a distant page is forecast before it starts: pages to read, time and cost at
what this stack measured a page (j on DynamoDB; J on both sides of a PostgreSQL compare,
which read 200 pages unannounced), and Esc stops it (both sides) with the pages read
kept."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input, Label
from uihelpers import FixedClock, Recorder, make_app, until

from dynotui.core.walk import seconds_text
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.schema import describe_table
from dynotui.postgres.sql import PgQuery
from dynotui.ui.app import PagerApp
from dynotui.ui.postgres.adapter import PostgresAdapter
from dynotui.ui.screens.jump import JumpScreen
from dynotui.ui.testing import settle


def measured(pager: Any) -> tuple[float, float | None, int]:
    """Mean seconds and cost a page over the stack's own ledger of reads."""
    read = [pager.summary_of(n) for n, _ in pager.stack if pager.summary_of(n) is not None]
    seconds = sum(s.cost.latency_ms for s in read) / 1000 / len(read)
    costs = [s.cost.headline for s in read]
    cost = sum(costs) / len(costs) if all(c is not None for c in costs) else None
    return seconds, cost, len(read)


def forecast_of(app: Any) -> str:
    return str(app.screen.query_one("#jump-forecast", Label).render())


async def test_j_forecasts_the_walk_and_esc_stops_it(client: Any, demo_table: str) -> None:
    app = make_app(client, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="10"))
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        pager = app.pager
        seconds, cost, reads = measured(pager)
        assert pager.last_known == 3 and reads == 2
        await pilot.press("j")
        await settle(pilot)
        assert isinstance(app.screen, JumpScreen)
        field = app.screen.query_one(Input)
        field.value = "2"
        await settle(pilot)
        assert forecast_of(app) == "", "a page on the stack needs no forecast"
        field.value = "40"
        await settle(pilot)
        said = forecast_of(app)
        pages = 40 - 3 + 1  # page 3's key is known, the page not read yet
        assert said.startswith(f"Up to {pages} pages to read (pages 3 to 40)"), said
        assert f"about {seconds_text(seconds * pages)} ({seconds * 1000:,.0f} ms a page)" in said
        assert cost is not None
        assert f"about {round(cost * pages, 1):,.10g} RCU" in said
        assert "as measured over the 2 pages read so far" in said
        assert "Esc stops the walk" in said
        field.value = "500"  # acme's 6,000 orders: 600 pages, far enough that Esc comes first
        await pilot.press("enter")
        await until(pilot, lambda: app.pager.last_known > 4)
        await pilot.press("escape")  # stops the walk part way
        await settle(pilot)
        assert not app.main_view.busy
        assert 2 <= app.pager.number < 500, "stopped on the way, at a page it read"
        assert app.pager.last_known >= app.pager.number


async def test_j_on_both_postgresql_sides_forecasts_each(pg_uri: str) -> None:
    session = connect(PgOptions(uri=pg_uri))
    try:
        table = describe_table(session, "orders")
        query = PgQuery(table, table.order("orders_created_id"), page_size=20)
        adapter = PostgresAdapter(session, PgOptions(uri=pg_uri), query=query)
        app = PagerApp(adapter, clock=FixedClock(), system_copy=Recorder())
        async with app.run_test(size=(200, 50)) as pilot:
            await settle(pilot)
            await pilot.press("w")
            await settle(pilot)
            screen = app.main_screen
            assert screen.comparing and screen.right_view.pager is not None
            await pilot.press("J")
            await settle(pilot)
            assert isinstance(app.screen, JumpScreen)
            app.screen.query_one(Input).value = "100"
            await settle(pilot)
            said = forecast_of(app)
            lines = said.splitlines()
            for name, view in (("Left", screen.main_view), ("Right", screen.right_view)):
                pager = view.pager
                seconds, cost, _ = measured(pager)
                first = pager.last_known + (0 if pager.summary_of(pager.last_known) is None else 1)
                pages = 100 - first + 1
                line = next(line for line in lines if line.startswith(f"{name}: "))
                assert f"up to {pages} pages to read (pages {first} to 100)" in line
                assert f"about {seconds_text(seconds * pages)}" in line
                assert cost is not None and f"about {round(cost * pages, 1):,.10g} buffers" in line
                offset = pager.current.mode == "offset"
                assert ("at least that: OFFSET reads every row it skips" in line) is offset
            assert "Both sides walk at once" in said and "Esc stops the walk" in said
            app.screen.query_one(Input).value = "5000"  # far enough that Esc comes first
            await pilot.press("enter")
            views = (screen.main_view, screen.right_view)
            await until(pilot, lambda: all(v.pager.last_known > 3 for v in views))
            await pilot.press("escape")  # stops the walk on both sides, not the active one
            await settle(pilot)
            for view in views:
                assert not view.busy
                assert 1 < view.pager.number < 5000, "stopped on the way, pages kept"
    finally:
        session.close()
