"""The compare view with Pilot against DynamoDB Local: two sides, each equal to the engine,
and a comparison (and an advisor) that compares like with like."""

from __future__ import annotations

import re
from typing import Any

from textual.widgets import Input, Static
from uihelpers import (
    FixedClock,
    dynamodb_app,
    expected_rows,
    grid_labels,
    grid_rows,
    make_app,
    text_of,
)

from dynotui.dynamodb.query_form import QueryForm, build_spec
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import query_pager
from dynotui.local import demo
from dynotui.ui.app import PagerApp
from dynotui.ui.dynamodb.query_screen import QueryScreen
from dynotui.ui.screens.main import MainScreen
from dynotui.ui.screens.picker import PickerScreen
from dynotui.ui.testing import settle

LEFT = QueryForm(
    partition_value=demo.BIG_CUSTOMER,
    filter="status = :r",
    values='{":r": "RETURNED"}',
    page_size="10",
)
RIGHT = QueryForm(order="by_status", partition_value=demo.RARE_STATUS, page_size="10")
SMALL = "c184"  # 35 orders, 4 of them RETURNED (see demo_items)


def engine_pages(client: Any, form: QueryForm, count: int) -> list[Any]:
    schema = describe_table(client, demo.TABLE)
    pager = query_pager(client, build_spec(schema, form), schema)
    return [pager.next() for _ in range(count)]


async def open_right(pilot: Any, app: PagerApp, order: str, value: str, **fields: str) -> None:
    await pilot.press("tab", "o")
    await settle(pilot)
    assert isinstance(app.screen, PickerScreen)
    app.screen.query_one(Input).value = order
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(app.screen, QueryScreen)
    app.screen.query_one("#partition_value", Input).value = value
    # The form carries the left query's partition key as a filter: say what this side reads.
    for name, text in {"filter": "", "values": "", **fields}.items():
        app.screen.query_one(f"#{name}", Input).value = text
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert app.screen is app.main_screen and app.main_screen.comparing


async def open_compare(pilot: Any, app: PagerApp) -> MainScreen:
    await settle(pilot)
    await pilot.press("w")
    await settle(pilot)
    assert app.main_screen.comparing
    await open_right(pilot, app, "by_status", demo.RARE_STATUS)
    return app.main_screen


async def test_both_sides_page_together_and_apart(client, demo_table) -> None:
    left_truth = engine_pages(client, LEFT, 4)
    right_truth = engine_pages(client, RIGHT, 4)
    app = make_app(client, LEFT)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_compare(pilot, app)
        left, right = screen.main_view, screen.right_view
        assert left is app.main_view, "the left side is the main view"
        assert right.pager.source.spec.index == "by_status"
        await pilot.press("N", "N")
        await settle(pilot)
        assert (left.pager.number, right.pager.number) == (3, 3)
        assert grid_rows(left) == expected_rows(left, left_truth[2])
        assert grid_rows(right) == expected_rows(right, right_truth[2])
        line = text_of(screen.query_one("#compare-line", Static))
        assert f"{left_truth[2].cost.capacity.total:g} RCU" in line
        assert f"scanned {right_truth[2].scanned_count:,}" in line
        assert "waste 0%" in line and "by_status" in line
        await pilot.press("n")  # the right side is active: only it moves
        await settle(pilot)
        assert (left.pager.number, right.pager.number) == (3, 4)
        assert grid_rows(right) == expected_rows(right, right_truth[3])
        await pilot.press("tab", "p")
        await settle(pilot)
        assert (left.pager.number, right.pager.number) == (2, 4)
        advice = text_of(left.query_one("#advice", Static))
        assert "`status` is the partition key of GSI `by_status`" in advice
        await pilot.press("escape")
        await settle(pilot)
        assert not screen.comparing and not right.display
        assert app.main_view.pager.number == 2, "the left side's moves are the main view's"
        assert grid_rows(app.main_view) == expected_rows(app.main_view, left_truth[1])
        await pilot.press("w")
        await settle(pilot)
        assert screen.comparing and right.pager.number == 4, "the right side was kept"
        assert right.pager.source.spec.index == "by_status"
        assert grid_rows(right) == expected_rows(right, right_truth[3])


def _ratio(line: str) -> float:
    match = re.search(r"right costs ([0-9.e+-]+)x what left costs", line)
    assert match, line
    return float(match.group(1))


async def test_different_result_sets_are_named_and_compared_per_match(client, demo_table) -> None:
    app = make_app(client, LEFT.with_(mode="fill"))
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_compare(pilot, app)
        await pilot.press("N", "N")
        await settle(pilot)
        line = text_of(screen.query_one("#compare-line", Static))
        assert "Different result sets" in line
        assert "left reads customer = 'acme' AND status = 'RETURNED'" in line
        assert "right reads status = 'RETURNED'" in line
        expected = _per_item_shown(screen.right_view.pager) / _per_item_shown(
            screen.main_view.pager
        )
        assert "Per item shown" in line
        assert _ratio(line) == float(f"{expected:.2g}")


def _per_item_shown(pager: Any) -> float:
    """Each page's latest read over the items it showed, from the stack's own ledger."""
    summaries = [pager.summary_of(number) for number, _ in pager.stack]
    read = [s for s in summaries if s is not None]
    return sum(s.cost.headline for s in read) / sum(s.shown for s in read)


def _measured(advice: str) -> tuple[float, float, float]:
    match = re.search(
        r"it cost ([0-9.e+-]+) RCU per item shown.*against ([0-9.e+-]+) here: ([0-9.e+-]+)x",
        advice.replace("\n", " "),
    )
    assert match, advice
    there, here, ratio = (float(g) for g in match.groups())
    return there, here, ratio


async def test_advisor_agrees_with_itself_from_both_sides(client, demo_table) -> None:
    """Same conditions, two orders: each side quotes the other's measured cost per match,
    and the two findings and the compare line tell one story."""
    left_form = QueryForm(
        partition_value=SMALL,
        filter="status = :r",
        values='{":r": "RETURNED"}',
        page_size="10",
        mode="fill",
    )
    app = make_app(client, left_form)
    async with app.run_test(size=(220, 60)) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        await open_right(
            pilot,
            app,
            "by_status",
            demo.RARE_STATUS,
            filter="customer = :c",
            values=f'{{":c": "{SMALL}"}}',
        )
        screen = app.main_screen
        for _ in range(40):  # both sides to their end
            left, right = screen.main_view, screen.right_view
            if not left.pager.can_advance and not right.pager.can_advance:
                break
            await pilot.press("N")
            await settle(pilot)
        line = text_of(screen.query_one("#compare-line", Static))
        assert "Same result set" in line and "Different" not in line
        left_advice = text_of(left.query_one("#advice", Static))
        right_advice = text_of(right.query_one("#advice", Static))
        assert "GSI `by_status`" in left_advice
        assert "the base table" in right_advice
        there_l, here_l, ratio_l = _measured(left_advice)
        there_r, here_r, ratio_r = _measured(right_advice)
        assert (there_l, here_l) == (here_r, there_r), "both quote the same two numbers"
        assert abs(ratio_l * ratio_r - 1) < 0.1, (ratio_l, ratio_r)
        assert _ratio(line) == ratio_l or abs(_ratio(line) - ratio_l) / ratio_l < 0.1
        assert "under 1%" not in left_advice + right_advice


async def test_no_match_yet_claims_no_share(client, demo_table) -> None:
    form = QueryForm(
        partition_value=demo.BIG_CUSTOMER,
        filter="status = :r",
        values='{":r": "NO-SUCH"}',
        page_size="50",
    )
    app = make_app(client, form)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        advice = text_of(app.main_view.query_one("#advice", Static))
        assert "no match among the 50 items read here yet" in advice
        assert "under 1%" not in advice and "none matched yet" in advice


def test_compare_snapshot(snap_compare, client, demo_table) -> None:
    app = dynamodb_app(client, LEFT, clock=FixedClock())

    async def run_before(pilot: Any) -> None:
        await open_compare(pilot, app)
        await pilot.press("N")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(200, 45), run_before=run_before)


async def test_keys_only_index_marks_attributes_not_projected(client, demo_table) -> None:
    form = QueryForm(order="flagged", partition_value="fraud-review", page_size="10")
    app = make_app(client, form)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        view = app.main_view
        labels = grid_labels(view)
        assert labels[:4] == ["flag", "total", "customer", "order_no"]
        assert {"status", "placed_on"} <= set(labels)
        status = labels.index("status")
        assert all(row[status] == "· not projected" for row in grid_rows(view))
        assert "projects KEYS_ONLY" in text_of(view.query_one("#query-line", Static))


def boto3_matches(client: Any, customer: str) -> int:
    """The customer's RETURNED orders, counted by a plain boto3 loop."""
    count = 0
    params: dict[str, Any] = {
        "TableName": demo.TABLE,
        "KeyConditionExpression": "customer = :c",
        "FilterExpression": "#s = :r",
        "ExpressionAttributeNames": {"#s": "status"},
        "ExpressionAttributeValues": {":c": {"S": customer}, ":r": {"S": demo.RARE_STATUS}},
    }
    while True:
        answer = client.query(**params)
        count += answer["Count"]
        if "LastEvaluatedKey" not in answer:
            return count
        params["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


async def test_each_side_counts_the_matches_it_showed(client, demo_table) -> None:
    """Fill mode reads one match past each page to know a next one exists: that match is
    the next page's first, so a side counts it once, as the raw side does."""
    truth = boto3_matches(client, SMALL)
    form = QueryForm(
        partition_value=SMALL,
        filter="status = :r",
        values='{":r": "RETURNED"}',
        page_size="2",
        mode="fill",
    )
    app = make_app(client, form)
    async with app.run_test(size=(220, 60)) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        await open_right(
            pilot,
            app,
            "by_status",
            demo.RARE_STATUS,
            filter="customer = :c",
            values=f'{{":c": "{SMALL}"}}',
        )
        screen = app.main_screen
        left, right = screen.main_view, screen.right_view
        for _ in range(40):  # both sides to their end
            if not left.pager.can_advance and not right.pager.can_advance:
                break
            await pilot.press("N")
            await settle(pilot)
        assert left.pager.totals.count > truth, "the left side read a look-ahead match"
        line = text_of(screen.query_one("#compare-line", Static))
        sides = line.split("\n")[:2]
        assert all(f"all {truth} matches" in side for side in sides), line


def _bars(view: Any) -> str:
    """The chart of a side as the terminal shows it."""
    from rich.console import Console

    spark = view.query_one("#capacity-spark")
    console = Console(width=spark.size.width, record=True, color_system=None)
    console.print(spark.render(), end="")
    return console.export_text()


async def test_both_sides_chart_on_one_scale(client, demo_table) -> None:
    """A bar of one height costs the same on either side: both charts span the lowest to
    the highest page cost of the two, so the cheaper side's bars stay low."""
    app = make_app(client, LEFT.with_(partition_value="archive", filter="", values=""))
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_compare(pilot, app)
        for _ in range(3):
            await pilot.press("N")
            await settle(pilot)
        left, right = screen.main_view, screen.right_view
        costs = {
            side: [s.cost.headline for n, _ in view.pager.stack if (s := view.pager.summary_of(n))]
            for side, view in (("left", left), ("right", right))
        }
        assert min(costs["left"]) > max(costs["right"]), costs  # the archive's attachments
        every = costs["left"] + costs["right"]
        for view in (left, right):
            assert view.query_one("#capacity-spark").scale == (min(every), max(every))
            assert "on one scale with the other side" in text_of(
                view.query_one("#spark-label", Static)
            )
        assert set(_bars(right)) - set(" \n") == {"▁"}, "the cheap side's bars at the bottom"
        assert "█" in _bars(left)
        await pilot.press("escape")
        await settle(pilot)
        assert not screen.comparing
        assert left.query_one("#capacity-spark").scale is None, "alone: its own scale"
