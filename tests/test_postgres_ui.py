"""The app on PostgreSQL with Pilot, against the embedded server: the grid equals the
ground truth, the sidebar shows the page's buffers and plan, the compare view puts
OFFSET beside keyset and jumps both to page k, the keys that build a query build a
PostgreSQL one, and hostile values stay inert."""

from __future__ import annotations

import json
from typing import Any

import pytest
from textual.widgets import Input, Static
from uihelpers import (
    FixedClock,
    Recorder,
    expected_rows,
    grid_rows,
    messages,
    recording,
    sidebar_text,
    text_of,
    until,
)

from dynotui.core.errors import ReadCancelled
from dynotui.core.figures_text import times
from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.schema import describe_table
from dynotui.postgres.sql import PgQuery
from dynotui.ui.adapter import NewStack
from dynotui.ui.app import PagerApp
from dynotui.ui.postgres.adapter import PostgresAdapter
from dynotui.ui.postgres.count_screen import PgCountScreen
from dynotui.ui.postgres.query import PostgresQuery
from dynotui.ui.postgres.query_screen import PgQueryScreen
from dynotui.ui.screens.code import CodeScreen
from dynotui.ui.screens.jump import JumpScreen
from dynotui.ui.screens.picker import PickerScreen
from dynotui.ui.testing import settle

SIZE = (200, 50)


@pytest.fixture
def app(pg_uri: str) -> Any:
    session = connect(PgOptions(uri=pg_uri))
    table = describe_table(session, "orders")
    query = PgQuery(table, table.order("orders_created_id"), page_size=20)
    adapter = PostgresAdapter(session, PgOptions(uri=pg_uri), query=query)
    app = recording(PagerApp(adapter, clock=FixedClock(), system_copy=Recorder()))
    yield app
    session.close()


def truth_ids(admin: Any, order_by: str, where: str = "true") -> list[str]:
    return [
        str(r[0]) for r in admin.execute(f"SELECT id FROM orders WHERE {where} ORDER BY {order_by}")
    ]


def shown_ids(view: Any) -> list[str]:
    page = view.state.pager.current
    return [row["id"] for row in page.items]


async def test_pages_sidebar_and_hostile_values(app: PagerApp, pg_admin: Any) -> None:
    expected = truth_ids(pg_admin, "created_at, id")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.main_view
        assert shown_ids(view) == expected[:20]
        assert grid_rows(view) == expected_rows(view, view.state.pager.current)
        side = sidebar_text(view)
        words = " ".join(side.split())  # the plan wraps in the sidebar's width
        assert "Buffers" in side and "Index Scan using orders_created_id" in words
        await pilot.press("n", "n", "p")
        await settle(pilot)
        assert shown_ids(view) == expected[20:40]
        # Row 7's note holds an escape sequence and markup: shown, never acted on.
        await pilot.press("g")
        await settle(pilot)
        cells = [" ".join(r) for r in grid_rows(view)]
        hostile = next(c for c in cells if "hostile" in c)
        assert "␛[2J" in hostile and "\x1b" not in hostile and "[bold red]markup" in hostile


async def test_compare_puts_offset_beside_keyset_and_jumps_both(app: PagerApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        screen = app.main_screen
        assert screen.comparing
        left, right = screen.main_view.state, screen.right_view.state
        assert left.query.mode == "keyset" and right.query.mode == "offset"
        await pilot.press("J")
        await pilot.pause()
        assert isinstance(app.screen, JumpScreen)
        app.screen.query_one(Input).value = "60"
        await pilot.press("enter")
        await settle(pilot)
        left_page, right_page = left.pager.current, right.pager.current
        assert left_page.number == right_page.number == 60
        assert [r["id"] for r in left_page.items] == [r["id"] for r in right_page.items]
        assert right_page.cost.skipped == 59 * 20 and left_page.cost.skipped == 0
        assert right_page.cost.headline > 5 * left_page.cost.headline
        line = text_of(screen.query_one("#compare-line", Static))
        ratio = right_page.cost.headline / left_page.cost.headline
        assert f"Page 60, buffers: left (keyset) {left_page.cost.headline:,g}" in line
        assert f"right (offset) {right_page.cost.headline:,g}: {times(ratio)} left's" in line
        assert "Per matching item" not in line, "one ratio, one unit"
        # The two sides read on connections of their own.
        assert screen.right_view.client is not screen.main_view.client


async def test_form_order_mode_and_reverse(app: PagerApp, pg_admin: Any) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.main_view
        await pilot.press("e")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, PgQueryScreen)
        form.query_one("#where", Input).value = "status = $1"
        form.query_one("#params", Input).value = "RETURNED"  # not JSON: refused at its field
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PgQueryScreen)
        assert "not valid JSON" in str(form.query_one("#params-error").render())
        form.query_one("#params", Input).value = '["RETURNED"]'
        await pilot.press("ctrl+s")
        await settle(pilot)
        expected = truth_ids(pg_admin, "created_at, id", "status = 'RETURNED'")
        assert shown_ids(view) == expected[:20]
        # o: another order, the filter kept.
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen)
        app.screen.query_one(Input).value = "orders_customer_created"
        await pilot.press("enter")
        await settle(pilot)
        expected = truth_ids(pg_admin, "customer, created_at DESC, id DESC", "status = 'RETURNED'")
        assert shown_ids(view) == expected[:20]
        # d: reversed; m: OFFSET; the same rows either way.
        await pilot.press("d")
        await settle(pilot)
        backwards = truth_ids(pg_admin, "customer DESC, created_at, id", "status = 'RETURNED'")
        assert shown_ids(view) == backwards[:20]
        await pilot.press("m", "n")
        await settle(pilot)
        assert view.state.query.mode == "offset"
        assert shown_ids(view) == backwards[20:40]
        assert "OFFSET" in text_of(view.query_one("#query-line", Static))


async def test_copy_code_count_and_cursor(app: PagerApp, pg_admin: Any) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.main_view
        await pilot.press("n")
        await settle(pilot)  # y copies the row highlighted when pressed: page 2's, once shown
        await pilot.press("y")
        await settle(pilot)
        copied = json.loads(app.share.system_copy.texts[-1])  # type: ignore[attr-defined]
        assert copied == dict(view.state.pager.current.items[0])
        await pilot.press("K")
        await settle(pilot)
        token = app.share.system_copy.texts[-1]  # type: ignore[attr-defined]
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, CodeScreen)
        assert set(app.screen.code) == {"sql", "psycopg"}
        sql = app.screen.code["sql"]
        assert [str(r[0]) for r in pg_admin.execute(sql)] == shown_ids(view)
        await pilot.press("escape", "#")
        await pilot.pause()
        assert isinstance(app.screen, PgCountScreen)
        await until(pilot, lambda: app.screen.estimate is not None)
        await pilot.press("enter")
        await until(pilot, lambda: app.screen.result is not None)
        assert app.screen.result.count == 200_000
        await pilot.press("escape")
        await settle(pilot)
        assert "200,000 rows" in text_of(view.query_one("#status-line", Static))
        # v: the copied cursor opens page 2 as a new stack that keeps its number.
        await pilot.press("v")
        await pilot.pause()
        app.screen.query_one(Input).value = token
        await pilot.press("enter")
        await settle(pilot)
        assert view.state.pager.number == 2 and not view.state.pager.has_prev
        assert shown_ids(view) == truth_ids(pg_admin, "created_at, id")[20:40]
        assert not [m for m in messages(app) if "Refused" in m]


async def test_a_bad_filter_keeps_the_page(app: PagerApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.main_view
        before = shown_ids(view)
        bad = view.state.query.with_(where="nope = 1")
        assert isinstance(bad, PostgresQuery)
        view.start(NewStack(bad))
        await settle(pilot)
        assert shown_ids(view) == before and view.state.query.query.where is None
        assert any('column "nope" does not exist' in m for m in messages(app))
        # The form again, with what was typed, and why beside the field: nothing lost.
        assert isinstance(app.screen, PgQueryScreen)
        assert app.screen.query_one("#where", Input).value == "nope = 1"
        error = str(app.screen.query_one("#where-error").render())
        assert 'column "nope" does not exist' in error and "R retries" not in error
        assert "✗" not in text_of(view.query_one("#status-line", Static)), "nothing failed here"


async def test_q_cancels_the_statement_on_the_server(pg_uri: str, pg_admin: Any) -> None:
    """A page that would read 10^10 rows is running when q is pressed: the server stops
    it (it would otherwise run on until statement_timeout), and the session takes no
    statement after."""
    # Ten minutes of statement timeout: without the cancel it would run on long after the
    # minute this test waits for it to be gone.
    session = connect(PgOptions(uri=pg_uri, statement_timeout=600))
    table = describe_table(session, "orders")
    marker = "dynotui_q_test"
    slow = f"'{marker}' <> '' AND length(repeat(id::text, 1000000)) < 0"
    query = PgQuery(table, table.order("orders_created_id"), page_size=20)
    app = PagerApp(PostgresAdapter(session, PgOptions(uri=pg_uri), query=query))

    def running() -> list[Any]:
        return pg_admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE %s "
            "AND pid <> pg_backend_pid()",
            (f"%{marker}%",),
        ).fetchall()

    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            app.main_view.start(NewStack(app.main_view.state.query.with_(where=slow)))
            await until(pilot, lambda: bool(running()))
            await pilot.press("q")
        await until_gone(running)
        with pytest.raises(ReadCancelled):
            session.query("SELECT 1")
    finally:
        session.close()


async def until_gone(running: Any, timeout: float = 60.0) -> None:
    import asyncio
    import time

    deadline = time.monotonic() + timeout
    while running():
        assert time.monotonic() < deadline, "the statement ran on after q"
        await asyncio.sleep(0.05)
