"""A parallel Scan in the app, against DynamoDB Local: every item exactly once over the
segments (against a plain boto3 Scan), each segment's stack going back to exactly the
pages a plain boto3 Scan of that segment gives from the same start keys; ``[`` and ``]``
move between segments and the map in the sidebar (or one line when narrow) says what
each segment read; a count of the segmented Scan shows the same map."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from faultproxy import FaultProxy
from textual.widgets import Input
from uihelpers import make_app, messages, text_of

from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local.tables import create_table, table_definition, write_items
from dynotui.ui.dynamodb.count_screen import CountScreen
from dynotui.ui.dynamodb.query_screen import QueryScreen
from dynotui.ui.testing import settle
from dynotui.ui.widgets.segment_map import SegmentMap

SEGMENTS = 3
PAGE = 40


@pytest.fixture(scope="module")
def small_table(client: Any) -> str:
    """300 items of uneven sizes: enough for several pages in each of three segments."""
    name = "segments-in-the-app"
    create_table(client, table_definition(name, ("pk", "S"), ("sk", "N")))
    write_items(
        client,
        name,
        [{"pk": f"p{i % 37}", "sk": i, "body": "x" * (i % 7) * 300} for i in range(300)],
    )
    return name


def keys(items: list[dict]) -> Counter[tuple[str, str]]:
    return Counter((i["pk"]["S"], i["sk"]["N"]) for i in items)


def segmented_app(ddb: Any, client: Any, table: str) -> Any:
    """The app on a three-segment Scan; each segment's client from the same options."""
    options = ConnectionOptions(endpoint_url=ddb.endpoint_url)
    return make_app(client, scan_form(), table=table, options=options)


def scan_form() -> QueryForm:
    return QueryForm(scan=True, page_size=str(PAGE), segments=str(SEGMENTS))


def boto3_page(client: Any, table: str, segment: int, start: dict | None) -> list[dict]:
    params: dict[str, Any] = {
        "TableName": table,
        "Segment": segment,
        "TotalSegments": SEGMENTS,
        "Limit": PAGE,
    }
    if start is not None:
        params["ExclusiveStartKey"] = to_wire(start)
    return client.scan(**params)["Items"]


async def test_every_item_once_and_each_stack_goes_back_exactly(ddb, client, small_table) -> None:
    truth = keys(client.scan(TableName=small_table)["Items"])
    assert sum(truth.values()) == 300 and max(truth.values()) == 1
    app = segmented_app(ddb, client, small_table)
    seen: list[dict] = []
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        view = app.main_view
        for segment in range(SEGMENTS):
            state = view.state
            assert state is not None and state.segment == segment
            pager = state.pager
            assert pager.number == 1
            seen += [to_wire(i) for i in pager.current.items]
            while pager.can_advance:
                await pilot.press("n")
                await settle(pilot)
                seen += [to_wire(i) for i in pager.current.items]
            assert pager.number > 1, "each segment takes several pages"
            await pilot.press("right_square_bracket")
            await settle(pilot)
        assert view.state.segment == 0, "] goes round the ring"
        assert keys(seen) == truth, "every item exactly once over the segments"

        segments = view.state.segments.read.segments
        assert all(s.done for s in segments)
        for segment in segments:
            assert segment.pager.stack[0] == (1, None)
            # Each page of each stack, re-read fresh from its stored start key, is the page
            # a plain boto3 Scan of that segment gives from the same key.
            for number, start in segment.pager.stack:
                page = segment.pager.read(segment.pager.plan(number, fresh=True))
                expected = boto3_page(client, small_table, segment.index, start)
                assert [to_wire(i) for i in page.items] == expected

        # Back within segment 2, then [ twice: segment 0, still on the page it was left on.
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert view.state.segment == 2
        last = view.state.pager.number
        await pilot.press("p")
        await settle(pilot)
        assert view.state.pager.number == last - 1 and view.state.segment == 2
        await pilot.press("left_square_bracket", "left_square_bracket")
        await settle(pilot)
        assert view.state.segment == 0
        assert view.state.pager.number == view.state.segments.read.segments[0].pager.last_known


async def test_throttled_segments_back_off_alone_and_the_map_says_so(ddb, small_table) -> None:
    """Throttles only, more in a row than the clients' two attempts: a segment waits on its
    own and reads the same page again; nothing is lost or repeated, and the map counts
    every throttle the proxy sent, on the segment that got it."""
    truth = keys(
        make_client(ConnectionOptions(endpoint_url=ddb.endpoint_url)).scan(TableName=small_table)[
            "Items"
        ]
    )
    with FaultProxy(
        ddb.endpoint_url, seed=11, fault_rate=0.5, max_in_a_row=3, faults=("throttle",)
    ) as proxy:
        options = ConnectionOptions(endpoint_url=proxy.endpoint_url, max_attempts=2)
        app = make_app(make_client(options), scan_form(), table=small_table, options=options)
        seen: list[dict] = []
        async with app.run_test(size=(160, 50)) as pilot:
            await settle(pilot)
            view = app.main_view
            assert view.state is not None, messages(app)
            for _ in range(SEGMENTS):
                pager = view.state.pager
                seen += [to_wire(i) for i in pager.current.items]
                while pager.can_advance:
                    await pilot.press("n")
                    await settle(pilot)
                    seen += [to_wire(i) for i in pager.current.items]
                await pilot.press("right_square_bracket")
                await settle(pilot)
            figures = view.state.segments.read.figures()
            rows = text_of(view.query_one("#segment-map", SegmentMap)).splitlines()
    assert keys(seen) == truth, "every item once, throttled or not"
    assert sum(f.throttles for f in figures) == proxy.injected >= 3
    assert sum(f.backoffs for f in figures) >= 1, "past two attempts, the segment waited"
    for cell, row in zip(figures, rows[1:], strict=False):
        warned = cell.throttles + cell.backoffs
        assert (f"⚠{warned}" in row) == bool(warned)
    assert "throttled" in rows[-1]


async def test_the_map_and_the_query_line_name_the_segment(ddb, client, small_table) -> None:
    app = segmented_app(ddb, client, small_table)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        view = app.main_view
        line = text_of(view.query_one("#query-line"))
        assert "segment 0 (0-2)" in line
        text = text_of(view.query_one("#segment-map", SegmentMap))
        rows = text.splitlines()
        assert rows[0].startswith("Segments (3)")
        first = view.state.pager.current
        assert rows[1].startswith("▸0 ") and f"{first.count:>7,}" in rows[1]
        assert rows[2].rstrip().endswith("·") and rows[3].rstrip().endswith("·"), "not read"
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert "segment 1 (0-2)" in text_of(view.query_one("#query-line"))
        rows = text_of(view.query_one("#segment-map", SegmentMap)).splitlines()
        assert rows[2].startswith("▸1 ") and not rows[1].startswith("▸")
        await pilot.press("s")  # the stack view shows this segment's own stack
        await settle(pilot)
        assert app.screen.pager is view.state.segments.read.segments[1].pager
        await pilot.press("escape")
        # Narrow: the map is one line under the grid.
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        strip = view.query_one("#segment-line", SegmentMap)
        assert strip.display and strip.region.height == 1
        assert text_of(strip).startswith("seg ") and " segment 1: " in text_of(strip)


async def test_the_form_takes_segments_and_refuses_them_on_a_query(client, small_table) -> None:
    app = make_app(client, QueryForm(partition_value="p1"), table=small_table)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
        app.screen.query_one("#segments", Input).value = "2"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen), "a Query is not split"
        error = text_of(app.screen.query_one("#segments-error"))
        assert "segments split a Scan" in error
        app.screen.query_one("#segments", Input).value = "65"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "segments must be 1 to 64" in text_of(app.screen.query_one("#segments-error"))


async def test_a_count_of_a_segmented_scan_maps_its_segments(ddb, client, small_table) -> None:
    app = segmented_app(ddb, client, small_table)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("number_sign")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CountScreen)
        assert screen.query_one("#segments", Input).value == str(SEGMENTS)
        await pilot.press("enter")
        await settle(pilot)
        for _ in range(200):
            if screen.result is not None:
                break
            await pilot.pause(0.05)
        result = screen.result
        assert result is not None and result.complete and result.count == 300
        rows = text_of(screen.query_one("#count-map", SegmentMap)).splitlines()
        assert rows[0].startswith("Segments (3)")
        for figures, row in zip(result.segments, rows[1:4], strict=True):
            assert f"{figures.items:>7,}" in row and row.rstrip().endswith("✓")
        assert sum(f.items for f in result.segments) == 300
        assert "all 300 items" in rows[4]


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=["80x24", "120x35"])
def test_segment_map_snapshots(snap_compare, ddb, client, small_table, size) -> None:
    app = segmented_app(ddb, client, small_table)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        app.main_view.results.focus()
        for key in ("n", "right_square_bracket", "right_square_bracket", "n", "n"):
            await pilot.press(key)
            await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
