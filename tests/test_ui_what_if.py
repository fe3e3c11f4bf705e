"""What-if in the app, with Pilot against DynamoDB Local: W on a query whose filter wastes
reads opens the form prefilled with the index the filter points at; the estimate runs off
the UI thread with its cap and Esc, is billed to the session, shows now beside what-if
and the code that would create the index; the imagined index pages beside the query in
compare, marked estimated; the report carries the what-if.

Ground truths are plain boto3 loops over the demo table, never dynotui's own reading."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Label, Static, TabbedContent
from uihelpers import (
    FixedClock,
    Recorder,
    dynamodb_app,
    make_app,
    messages,
    screen_text,
    text_of,
    until,
)

from dynotui.dynamodb.query_form import QueryForm
from dynotui.dynamodb.what_if.imagined import EstimatedSource
from dynotui.local import demo
from dynotui.ui.app import PagerApp
from dynotui.ui.dynamodb.query_screen import QueryScreen
from dynotui.ui.dynamodb.what_if_form import WhatIfForm
from dynotui.ui.dynamodb.what_if_screen import WhatIfScreen
from dynotui.ui.screens.picker import PickerScreen
from dynotui.ui.testing import settle

SMALL = "c184"  # 35 orders, 4 of them RETURNED (see demo_items)
FORM = QueryForm(
    partition_value=SMALL,
    filter="status = :r",
    values='{":r": "RETURNED"}',
    page_size="2",
)


def boto3_drain(client: Any, customer: str, limit: int) -> tuple[list[dict[str, Any]], float]:
    """The query as a plain boto3 loop: the matching items and the read units spent."""
    items: list[dict[str, Any]] = []
    units = 0.0
    params: dict[str, Any] = {
        "TableName": demo.TABLE,
        "KeyConditionExpression": "customer = :c",
        "FilterExpression": "#s = :r",
        "ExpressionAttributeNames": {"#s": "status"},
        "ExpressionAttributeValues": {":c": {"S": customer}, ":r": {"S": "RETURNED"}},
        "Limit": limit,
        "ReturnConsumedCapacity": "TOTAL",
    }
    while True:
        answer = client.query(**params)
        items += answer["Items"]
        units += answer["ConsumedCapacity"]["CapacityUnits"]
        if "LastEvaluatedKey" not in answer:
            return items, units
        params["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


async def estimate(pilot: Any, app: PagerApp, **fields: str) -> WhatIfScreen:
    """W, the form as prefilled (or with ``fields`` typed), ctrl+s, until it ends."""
    await settle(pilot)
    await pilot.press("W")
    await settle(pilot)
    assert isinstance(app.screen, WhatIfForm)
    for name, text in fields.items():
        app.screen.query_one(f"#{name}", Input).value = text
    await pilot.press("ctrl+s")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, WhatIfScreen)
    await until(pilot, lambda: screen.ended)
    await pilot.pause()
    return screen


async def test_w_estimates_the_index_the_filter_points_at(client, demo_table) -> None:
    truth, units = boto3_drain(client, SMALL, 2)
    assert len(truth) == 4
    copied = Recorder()
    app = make_app(client, FORM, system_copy=copied)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        spent_on_pages = app.session.ledger.figures().unit("RCU").total
        await pilot.press("W")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, WhatIfForm)
        # Prefilled from the filter's equality and the query's partition key.
        assert form.query_one("#partition_key", Input).value == "status"
        assert form.query_one("#sort_key", Input).value == "customer"
        await pilot.press("escape")
        await settle(pilot)
        screen = await estimate(pilot, app)
        made = screen.made
        assert made is not None and not made.stopped and made.complete
        data = made.data
        # now.* is what the query costs read as pages are read, against a boto3 loop.
        assert data["now"]["matches"] == len(truth)
        assert data["now"]["read_units"] == units
        assert data["what_if"]["matches"] == len(truth)
        assert data["what_if"]["key_condition"] == 'status = "RETURNED" AND customer = "c184"'
        assert data["what_if"]["filter"] is None
        shown = "\n".join(screen_text(app))
        assert "now (measured)" in shown and "what-if (estimated *)" in shown
        assert "Done:" in text_of(screen.query_one("#what-if-progress", Static))
        # Billed to the session, in its own part.
        figures = app.session.ledger.figures()
        assert figures.what_ifs == 1 and figures.partial_what_ifs == 0
        assert figures.unit("RCU").as_json()["what_if"] == units
        assert figures.unit("RCU").total == spent_on_pages + units
        # The code that would create the index: shown on its tab and copied, never run.
        screen.query_one(TabbedContent).active = "cli"
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert copied.texts, "the CLI tab was copied"
        cli = copied.texts[-1]
        assert "aws dynamodb update-table" in cli and "--global-secondary-index-updates" in cli
        assert '"IndexName":"status-customer-index"' in cli.replace(" ", "")
        screen.query_one(TabbedContent).active = "boto3"
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert "update_table(" in copied.texts[-1]
        # w: the imagined index pages beside the query, every page marked estimated.
        await pilot.press("w")
        await settle(pilot)
        main = app.main_screen
        assert app.screen is main and main.comparing
        right = main.right_view
        assert isinstance(right.pager.source, EstimatedSource)
        pages = [right.pager.current]
        await pilot.press("tab")  # the right side is the one n moves
        for _ in range(5):  # 4 matches, 2 a page: 2 or 3 pages
            if not right.pager.can_advance:
                break
            await pilot.press("n")
            await settle(pilot)
            pages.append(right.pager.current)
        assert not right.pager.can_advance
        assert [p.count for p in pages if p.count] == [2, 2]
        assert all(p.cost.estimated for p in pages)
        seen = sorted(i["order_no"]["S"] for p in pages for i in p.items)
        assert seen == sorted(i["order_no"]["S"] for i in truth)
        line = text_of(main.query_one("#compare-line", Static))
        assert "(imagined)" in line and "estimated" in line
        assert "right: estimated, nothing read" in line
        # Paging the imagined side read nothing and billed nothing.
        assert app.session.ledger.figures().unit("RCU").total == spent_on_pages + units


async def test_the_order_picker_opens_an_imagined_index(client, demo_table) -> None:
    truth, _ = boto3_drain(client, SMALL, 2)
    app = make_app(client, FORM.with_(page_size="10"))
    async with app.run_test(size=(120, 35)) as pilot:
        await estimate(pilot, app)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
        app.screen.query_one(Input).value = "imagined"
        await pilot.press("enter")
        await settle(pilot)
        view = app.main_view
        assert isinstance(view.pager.source, EstimatedSource)
        page = view.pager.current
        assert page.cost.estimated and page.count == len(truth)
        assert sorted(i["order_no"]["S"] for i in page.items) == sorted(
            i["order_no"]["S"] for i in truth
        )
        assert "ESTIMATED, nothing read" in text_of(view.query_one("#query-line", Static))
        pages_read = app.session.ledger.figures().pages_read
        # e and o start from the query the index was imagined for: never a dead end.
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
        assert app.screen.query_one("#partition_value", Input).value == SMALL
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("number_sign")
        await settle(pilot)
        assert any("nothing to count" in m for m in messages(app))
        assert app.session.ledger.figures().pages_read == pages_read, "nothing was read"


async def test_the_report_carries_the_what_if(client, demo_table, tmp_path: Path) -> None:
    app = make_app(client, FORM, report_folder=tmp_path)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await estimate(pilot, app)
        assert screen.made is not None
        await pilot.press("w")
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        await until(pilot, lambda: any("Report written" in m for m in messages(app)))
    markdown = next(tmp_path.glob("*.md")).read_text()
    assert "status-customer-index" in markdown
    assert "aws dynamodb update-table" in markdown
    assert "imagined index" in markdown  # the right side is not shown as a measured one


async def test_the_cap_stops_the_estimate_and_gives_ranges(client, demo_table) -> None:
    big = QueryForm(
        partition_value=demo.BIG_CUSTOMER,
        filter="status = :r",
        values='{":r": "RETURNED"}',
        page_size="25",
    )
    app = make_app(client, big)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await estimate(pilot, app, budget="20")
        made = screen.made
        assert made is not None and not made.complete
        sample = made.data["sample"]
        assert not sample["complete"]
        # A page is never cut: the cap is passed by less than one page's read.
        assert 20 <= sample["read_units"] < 20 + 25 * 2
        words = text_of(screen.query_one("#what-if-progress", Static))
        assert "Done:" in words
        figures = app.session.ledger.figures()
        assert figures.what_ifs == 1 and figures.partial_what_ifs == 1
        assert figures.unit("RCU").as_json()["what_if"] == sample["read_units"]
        # The imagined side pages the entries found: read to its end, it never says "all".
        await pilot.press("w")
        await settle(pilot)
        main = app.main_screen
        right = main.right_view
        await pilot.press("tab")
        for _ in range(20):
            if not right.pager.can_advance:
                break
            await pilot.press("n")
            await settle(pilot)
        assert right.pager.read_whole_result
        line = " ".join(text_of(main.query_one("#compare-line", Static)).split())
        side = line[line.index("▶") :].split(" result set")[0]  # before the comparison
        found = len(right.pager.source.imagined.entries)
        assert f"{found} matches of those found" in side and "all " not in side, side


async def test_esc_stops_a_running_estimate_and_bills_what_it_read(client, demo_table) -> None:
    big = QueryForm(
        partition_value=demo.BIG_CUSTOMER,
        filter="status = :r",
        values='{":r": "RETURNED"}',
        page_size="25",
    )
    app = make_app(client, big)
    # The estimate's second Query is held until Esc has been pressed: on an idle machine
    # the whole query (240 pages) was read before the test could press it.
    released = threading.Event()
    queries: list[str] = []

    def hold(**_: Any) -> None:
        queries.append("Query")
        if len(queries) > 1:
            released.wait(30)

    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        client.meta.events.register("before-call.dynamodb.Query", hold)
        try:
            await pilot.press("W")
            await settle(pilot)
            await pilot.press("ctrl+s")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, WhatIfScreen)
            # Esc once a page has been read and the next is on its way.
            await until(
                pilot,
                lambda: (
                    "Reading the query:" in text_of(screen.query_one("#what-if-progress", Static))
                ),
            )
            await until(pilot, lambda: len(queries) > 1)
            await pilot.press("escape")
        finally:
            released.set()
            client.meta.events.unregister("before-call.dynamodb.Query", hold)
        await until(pilot, lambda: screen.ended)
        await pilot.pause()
        made = screen.made
        assert made is not None and made.stopped and not made.complete
        assert isinstance(app.screen, WhatIfScreen), "Esc stopped the run, not the screen"
        assert "Stopped" in text_of(screen.query_one("#what-if-progress", Static))
        figures = app.session.ledger.figures()
        assert figures.partial_what_ifs == 1
        assert figures.unit("RCU").as_json()["what_if"] == made.cost.capacity.total > 0
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.main_screen


async def test_a_key_the_query_cannot_use_is_refused_in_the_form(client, demo_table) -> None:
    app = make_app(client, FORM)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("W")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, WhatIfForm)
        form.query_one("#partition_key", Input).value = "placed_on"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is form, "nothing was read: the form stays"
        error = str(form.query_one("#form-error", Label).render())
        assert "partition key" in error and "--partition-key" not in error
        form.query_one("#partition_key", Input).value = "status"
        form.query_one("#budget", Input).value = "nan"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "read units" in str(form.query_one("#form-error", Label).render())
        assert app.session.ledger.figures().what_ifs == 0


async def test_the_palette_names_the_index_of_the_finding(client, demo_table) -> None:
    app = make_app(client, FORM.with_(page_size="25"))
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "What if: an index on status, customer (W)" in titles
        advice = text_of(app.main_view.query_one("#advice", Static))
        assert "W estimates" in advice


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
def test_what_if_snapshot(snap_compare, client, demo_table, size) -> None:
    app = dynamodb_app(client, FORM, clock=FixedClock())

    async def run_before(pilot: Any) -> None:
        await estimate(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_what_if_form_snapshot(snap_compare, client, demo_table) -> None:
    app = dynamodb_app(client, FORM, clock=FixedClock())

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("W")
        await settle(pilot)
        for field in app.screen.query(Input):
            field.cursor_blink = False  # a blinking cursor would be caught on or off
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def boto3_returned(client: Any, customer: str) -> int:
    """The customer's RETURNED orders, counted by a plain boto3 loop over the table."""
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


@pytest.mark.parametrize(
    "form",
    [
        # On by_status (INCLUDE): the query's items cannot show every item the new index
        # holds, so a table sample is read too; the imagined side paged only the sample's
        # 28 matches and called them "all".
        QueryForm(
            order="by_status",
            partition_value=demo.RARE_STATUS,
            filter="customer = :c",
            values=f'{{":c": "{demo.BIG_CUSTOMER}"}}',
            page_size="25",
        ),
        # On the base table in fill mode: each page's look-ahead match was counted twice.
        QueryForm(
            partition_value=demo.BIG_CUSTOMER,
            filter="status = :r",
            values='{":r": "RETURNED"}',
            page_size="25",
            mode="fill",
        ),
    ],
    ids=["from-by_status", "from-the-table-in-fill-mode"],
)
async def test_the_imagined_side_pages_the_matches_the_estimate_counts(
    client, demo_table, form: QueryForm
) -> None:
    truth = boto3_returned(client, demo.BIG_CUSTOMER)
    app = make_app(client, form)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await estimate(pilot, app)
        assert screen.made is not None
        assert screen.made.data["what_if"]["matches"] == truth
        await pilot.press("w")
        await settle(pilot)
        main = app.main_screen
        right = main.right_view
        await pilot.press("tab")
        for _ in range(40):
            if not right.pager.can_advance:
                break
            await pilot.press("n")
            await settle(pilot)
        assert not right.pager.can_advance
        shown = [
            item
            for number, _ in right.pager.stack
            for item in right.pager.plan(number).cached.items  # every page still cached
        ]
        assert len(shown) == truth
        line = text_of(main.query_one("#compare-line", Static)).split("\n")
        assert f"all {truth} matches" in line[1], line[1]
