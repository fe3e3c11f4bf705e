"""The plan in the app, with Pilot against DynamoDB Local: A on a query shows every path
costed, the cheapest starred and estimates marked; Enter opens a path as the current
order, and A again shows that row measured by its pages; two marked paths open side by
side in compare; the report carries the latest plan. Ground truths are plain boto3 loops
over the demo table."""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual.widgets import DataTable, Static
from uihelpers import FixedClock, dynamodb_app, screen_text, text_of, until

from dynotui.core.figure_rows import session_rows
from dynotui.dynamodb.plan.words import drain_seconds
from dynotui.dynamodb.plan.words import row as words_row
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.ui.app import PagerApp
from dynotui.ui.screens.plan import PlanScreen
from dynotui.ui.testing import settle

SMALL = "c184"  # 35 orders, 4 of them RETURNED (see demo_items)
FORM = QueryForm(
    partition_value=SMALL,
    filter="status = :r",
    values='{":r": "RETURNED"}',
    page_size="5",
)


def boto3_drain(client: Any, index: str | None, limit: int) -> tuple[int, float, int]:
    """The acme-free small customer's orders read by a plain boto3 loop on the table or
    an LSI, with the query's filter: pages, read units, matches."""
    params: dict[str, Any] = {
        "TableName": demo.TABLE,
        "KeyConditionExpression": "customer = :c",
        "FilterExpression": "#s = :r",
        "ExpressionAttributeNames": {"#s": "status"},
        "ExpressionAttributeValues": {":c": {"S": SMALL}, ":r": {"S": "RETURNED"}},
        "Limit": limit,
        "ReturnConsumedCapacity": "TOTAL",
    }
    if index:
        params["IndexName"] = index
    pages, units, matches = 0, 0.0, 0
    while True:
        answer = client.query(**params)
        pages += 1
        units += answer["ConsumedCapacity"]["CapacityUnits"]
        matches += answer["Count"]
        if "LastEvaluatedKey" not in answer:
            return pages, units, matches
        params["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


async def plan_screen(pilot: Any, app: PagerApp) -> PlanScreen:
    await settle(pilot)
    await pilot.press("A")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, PlanScreen)
    await until(pilot, lambda: screen.ended)
    await pilot.pause()
    return screen


def row_of(screen: PlanScreen, name: str) -> int:
    assert screen.plan is not None
    return [p.path.name for p in screen.plan.paths].index(name)


async def test_a_shows_every_path_the_cheapest_starred(client: Any, demo_table: str) -> None:
    app = dynamodb_app(client, FORM, clock=FixedClock())
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        before = app.session.ledger.figures().unit("RCU").total
        screen = await plan_screen(pilot, app)
        plan = screen.plan
        assert plan is not None
        names = [p.path.name for p in plan.paths]
        assert {"table", "by_total", "scan", "by_status", "flagged"} <= set(names)
        assert "status-customer-index (imagined)" in names
        # The cheapest named is the cheaper of the two live Query paths, drained by boto3.
        table = boto3_drain(client, None, 5)
        lsi = boto3_drain(client, "by_total", 5)
        truths = {"table": table[1], "by_total": lsi[1]}
        assert plan.cheapest in truths and truths[plan.cheapest] == min(truths.values())
        assert plan.path("table").figures.matches.point == table[2] == 4  # type: ignore[union-attr]
        shown = "\n".join(screen_text(app))
        assert f"*  {plan.cheapest}" in shown and "~" in shown
        assert "cannot serve" in shown
        # The refused path says why when highlighted.
        screen.query_one(DataTable).move_cursor(row=row_of(screen, "by_status"))
        await pilot.pause()
        assert "projects INCLUDE" in text_of(screen.query_one("#plan-detail", Static))
        # What the plan read is billed to the session.
        figures = app.session.ledger.figures()
        after = figures.unit("RCU").total
        assert after == pytest.approx(before + plan.cost.read_units)
        # ... and the sidebar's "This session" says where it went: its parts add up to
        # what it says was spent (the plan's read units were once in the total alone).
        rows = session_rows(figures)
        (spent,) = [r for r in rows if r.label == "Spent"]
        parts = {
            r.label: float(r.value.replace(",", "")) for r in rows if r.part and r.unit == "RCU"
        }
        assert parts["what-if"] == pytest.approx(plan.cost.read_units)
        assert sum(parts.values()) == pytest.approx(float(spent.value.replace(",", "")))


async def test_a_paths_detail_is_whole_at_80x24(client: Any, demo_table: str) -> None:
    # The Scan's detail takes seven lines at 80 columns (what its figures rest on is long);
    # six were shown and the end of "rests on" was cut with no way to see it.
    app = dynamodb_app(client, FORM, clock=FixedClock())
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await plan_screen(pilot, app)
        assert screen.plan is not None
        screen.query_one(DataTable).move_cursor(row=row_of(screen, "scan"))
        await pilot.pause()
        words = " ".join(text_of(screen.query_one("#plan-detail", Static)).split())
        assert words.endswith("the plan read"), words
        # The drain's two figures, whose column is past 80 columns, are said in words.
        drain = drain_seconds(screen.plan.path("scan"))
        assert f"drain: {drain} s, at the plan's measured latency / at 3,000" in words
        # ... once: the line of the figures the table left out does not say it again.
        assert words.count(drain) == 1, words
        shown = " ".join(" ".join(line.strip("█ ") for line in screen_text(app)).split())
        assert words in shown, (words, shown)


async def test_enter_opens_a_path_and_its_row_is_then_measured(
    client: Any, demo_table: str
) -> None:
    pages, units, matches = boto3_drain(client, "by_total", 5)
    app = dynamodb_app(client, FORM, clock=FixedClock())
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await plan_screen(pilot, app)
        screen.query_one(DataTable).move_cursor(row=row_of(screen, "by_total"))
        await pilot.press("enter")
        await settle(pilot)
        view = app.main_view
        await until(
            pilot, lambda: view.pager is not None and view.pager.source.spec.index == "by_total"
        )
        while view.pager.can_advance:
            await pilot.press("n")
            await settle(pilot)
        assert view.pager.read_whole_result
        screen = await plan_screen(pilot, app)  # the same plan, the row measured
        plan = screen.plan
        assert plan is not None
        row = plan.path("by_total").figures
        assert row is not None and not row.estimated
        assert row.read_units.point == units
        assert row.pages.point == pages
        assert row.matches.point == matches
        assert "paged from its start to its end" in row.basis


async def test_two_marked_paths_open_side_by_side(client: Any, demo_table: str) -> None:
    app = dynamodb_app(client, FORM, clock=FixedClock())
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await plan_screen(pilot, app)
        table = screen.query_one(DataTable)
        table.move_cursor(row=row_of(screen, "scan"))
        await pilot.press("space")
        table.move_cursor(row=row_of(screen, "by_total"))
        await pilot.press("space")
        await pilot.press("w")
        await settle(pilot)
        main = app.main_screen
        await until(pilot, lambda: main.comparing and main.right_view.pager is not None)
        await until(pilot, lambda: app.main_view.pager.source.spec.scan)
        assert app.main_view.pager.source.spec.index is None
        assert main.right_view.pager.source.spec.index == "by_total"
        line = text_of(main.query_one("#compare-line", Static))
        assert "Same result set" in line


async def test_the_report_carries_the_latest_plan(client: Any, demo_table: str) -> None:
    app = dynamodb_app(client, FORM, clock=FixedClock())
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await plan_screen(pilot, app)
        assert screen.plan is not None
        await pilot.press("escape")
        await settle(pilot)
        report = app.adapter.report([app.main_view.pager], app.session.ledger, 1)
        (section,) = [t for t in report.tables if t.title.startswith("Plan")]
        assert {row[0].lstrip("* ") for row in section.rows} >= {"table", "by_total", "scan"}
        assert any(row[-1].startswith("cannot serve") for row in section.rows)


async def test_at_80_columns_the_table_fits_and_no_figure_is_lost(
    client: Any, demo_table: str
) -> None:
    """At 80x24 nothing scrolls sideways: the table is no wider than its room, the
    cheapest path's read units stand in its row, and every figure the terminal's
    ``dynotui plan`` prints for the highlighted path is on the screen (in its row or,
    for a column that did not fit, below the table)."""
    app = dynamodb_app(client, FORM, clock=FixedClock())
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await plan_screen(pilot, app)
        plan = screen.plan
        assert plan is not None and plan.cheapest is not None
        table = screen.query_one(DataTable)
        table.move_cursor(row=row_of(screen, plan.cheapest))
        await pilot.pause()
        assert table.virtual_size.width <= table.scrollable_content_region.width
        shown = screen_text(app)
        (line,) = [text for text in shown if f"*  {plan.cheapest}" in text]
        figures = words_row(plan.path(plan.cheapest), plan)[1:]
        units = figures[3]
        assert units.startswith("~") and units in line
        below = text_of(screen.query_one("#plan-detail", Static))
        # Each figure a whole cell of the row (a short one, "-" or "query", would match
        # anywhere in it as a substring), or said in the detail below.
        cells = re.split(r"\s{2,}", line.strip("█ "))
        assert [f for f in figures if f not in cells and f not in below] == [], (cells, below)


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=["80x24", "120x35"])
def test_plan_snapshot(snap_compare: Any, client: Any, demo_table: str, size: Any) -> None:
    app = dynamodb_app(client, FORM, clock=FixedClock())

    async def run_before(pilot: Any) -> None:
        await plan_screen(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
