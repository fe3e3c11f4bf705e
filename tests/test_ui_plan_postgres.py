"""The plan in the app on PostgreSQL (Pilot, the embedded server): A on a filtered query
shows each order of the table costed by the planner, the cheapest starred; Enter opens
an order as the current query (its rows are the ground truth's, in that order); two
marked orders open side by side in compare; c copies the plan's JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest
from textual.widgets import DataTable, Static
from uihelpers import FixedClock, Recorder, recording, screen_text, text_of

from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.schema import describe_table
from dynotui.postgres.sql import PgQuery
from dynotui.ui.app import PagerApp
from dynotui.ui.postgres.adapter import PostgresAdapter
from dynotui.ui.screens.plan import PlanScreen as PgPlanScreen
from dynotui.ui.testing import settle

SIZE = (120, 35)
WHERE = "status = $1"
PARAMS = ("RETURNED",)


@pytest.fixture
def clipboard() -> Recorder:
    return Recorder()


@pytest.fixture
def app(pg_uri: str, clipboard: Recorder) -> Any:
    session = connect(PgOptions(uri=pg_uri))
    table = describe_table(session, "orders")
    query = PgQuery(table, table.order("orders_created_id"), WHERE, PARAMS, page_size=20)
    adapter = PostgresAdapter(session, PgOptions(uri=pg_uri), query=query)
    app = recording(PagerApp(adapter, clock=FixedClock(), system_copy=clipboard))
    yield app
    session.close()


def shown_ids(view: Any) -> list[str]:
    return [row["id"] for row in view.state.pager.current.items]


async def open_plan(app: PagerApp, pilot: Any) -> PgPlanScreen:
    await settle(pilot)
    await pilot.press("A")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, PgPlanScreen)
    await settle(pilot)
    while screen.plan is None:  # the planner answers in a daemon thread
        await pilot.pause(0.02)
    await pilot.pause()
    return screen


def row_of(screen: PgPlanScreen, name: str) -> list[str]:
    table = screen.query_one(DataTable)
    return [str(cell) for cell in table.get_row(name)]


async def test_a_shows_each_order_costed_and_enter_opens_one(
    app: PagerApp, pg: Any, pg_admin: Any, clipboard: Recorder
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(app, pilot)
        plan = screen.plan
        assert plan is not None and plan.cheapest is not None
        table = describe_table(pg, "orders")
        assert {p.name for p in plan.paths} == {o.name for o in table.orders}
        cheapest = row_of(screen, plan.cheapest)
        assert cheapest[0] == "*" and cheapest[3] == "cheapest" and cheapest[2].startswith("~")
        assert "status" in text_of(screen.query_one("#plan-for", Static))
        # c: the plan as JSON, as the command prints it.
        await pilot.press("c")
        await pilot.pause()
        copied = json.loads(clipboard.texts[-1])
        assert copied["cheapest"] == plan.cheapest and copied["unit"] == "buffers"
        # Enter on another order: it opens as the current query, the filter kept.
        other = next(p for p in plan.paths if p.name != "orders_created_id" and p.usable)
        screen.query_one(DataTable).move_cursor(row=plan.paths.index(other))
        await pilot.pause()
        assert other.name in text_of(screen.query_one("#plan-detail", Static))
        await pilot.press("enter")
        await settle(pilot)
        view = app.main_view
        assert view.state.query.order.name == other.name
        order_by = ", ".join(c.sql() for c in other.order.columns)
        expected = [
            str(r[0])
            for r in pg_admin.execute(
                f"SELECT id FROM orders WHERE status = 'RETURNED' ORDER BY {order_by}"
            )
        ]
        assert shown_ids(view) == expected[:20]


async def test_two_marked_orders_open_in_compare(app: PagerApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(app, pilot)
        plan = screen.plan
        assert plan is not None
        usable = [p for p in plan.paths if p.usable]
        assert len(usable) >= 2
        table = screen.query_one(DataTable)
        for path in usable[:2]:
            table.move_cursor(row=plan.paths.index(path))
            await pilot.press("space")
            await pilot.pause()
        assert row_of(screen, usable[1].name)[0].startswith("+")
        await pilot.press("w")
        await settle(pilot)
        main = app.main_screen
        assert main.comparing
        assert main.main_view.state.query.order.name == usable[0].name
        assert main.right_view.state.query.order.name == usable[1].name
        left, right = main.main_view.state.pager.current, main.right_view.state.pager.current
        assert {r["id"] for r in left.items} and {r["id"] for r in right.items}


async def test_the_report_carries_the_latest_plan(app: PagerApp) -> None:
    from dynotui.report.markdown import render_markdown

    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(app, pilot)
        plan = screen.plan
        assert plan is not None
        await pilot.press("escape")
        await settle(pilot)
        report = app.adapter.report([app.main_view.pager], app.session.ledger, 1)
        (section,) = [t for t in report.tables if t.title.startswith("Plan")]
        names = {row[0].removeprefix("* ") for row in section.rows}
        assert names == {p.name for p in plan.paths}
        assert any(row[0] == f"* {plan.cheapest}" for row in section.rows)
        assert "Plan: every order for this filter" in render_markdown(report)


async def test_at_80_columns_the_table_fits_and_no_figure_is_lost(app: PagerApp) -> None:
    """At 80x24 nothing scrolls sideways: the table is no wider than its room, and every
    figure the terminal's ``dynotui plan --postgres`` prints for the cheapest order is on
    the screen, in its row or, for a column that did not fit, below the table."""
    from dynotui.postgres.plan.words import row

    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_plan(app, pilot)
        plan = screen.plan
        assert plan is not None and plan.cheapest is not None
        table = screen.query_one(DataTable)
        table.move_cursor(row=[p.name for p in plan.paths].index(plan.cheapest))
        await pilot.pause()
        assert table.virtual_size.width <= table.scrollable_content_region.width
        (line,) = [text for text in screen_text(app) if f"*  {plan.cheapest}" in text]
        figures = row(plan.path(plan.cheapest), plan)[1:]
        assert figures[3].startswith("~") and figures[3] in line  # its buffers
        below = text_of(screen.query_one("#plan-detail", Static))
        assert [f for f in figures if f not in line and f not in below] == []


# A table analyzed whole (fewer rows than ANALYZE samples): its statistics, and so the
# planner's estimates, are the same every run. An index's name holds an escape sequence.
SNAP_SETUP = """
DROP TABLE IF EXISTS plan_snap;
SELECT setseed(0.5);
CREATE TABLE plan_snap (id integer PRIMARY KEY, kind text NOT NULL, made integer NOT NULL,
                        pad text);
INSERT INTO plan_snap SELECT g, 'k' || (g % 4), floor(random() * 100000)::integer,
       repeat('p', 120) FROM generate_series(1, 3000) g;
CREATE INDEX plan_snap_kind ON plan_snap (kind);
CREATE INDEX "plan_snap_made_\x1b[31mred" ON plan_snap (made);
"""


@pytest.fixture(scope="module")
def snap_table(pg_uri: str) -> Any:
    import psycopg

    with psycopg.connect(pg_uri, autocommit=True) as conn:
        conn.execute(SNAP_SETUP)  # type: ignore[arg-type]
        conn.execute("VACUUM ANALYZE plan_snap")
    yield pg_uri
    with psycopg.connect(pg_uri, autocommit=True) as conn:
        conn.execute("DROP TABLE plan_snap")


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=["80x24", "120x35"])
def test_plan_snapshot(snap_compare: Any, snap_table: str, size: Any) -> None:
    session = connect(PgOptions(uri=snap_table))
    try:
        table = describe_table(session, "plan_snap")
        query = PgQuery(table, table.order("primary key"), "made < 5000", page_size=20)
        adapter = PostgresAdapter(session, PgOptions(uri=snap_table), query=query)
        app = PagerApp(adapter, clock=FixedClock(), system_copy=Recorder())

        async def run_before(pilot: Any) -> None:
            await open_plan(app, pilot)

        assert snap_compare(app, terminal_size=size, run_before=run_before)
    finally:
        session.close()
