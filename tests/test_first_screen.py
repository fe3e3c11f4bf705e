"""The first screen composes what the first rows need: the compare side, a parallel
Scan's segment maps and the costs by entity are mounted when first shown, and then work
as before. On the demo table in memory (``memory_demo``): this is the UI, not paging."""

from __future__ import annotations

from typing import Any

from textual.widgets._footer import FooterKey
from uihelpers import dynamodb_app, grid_rows

from dynotui.dynamodb.connection import ConnectionOptions
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.ui.testing import settle
from dynotui.ui.widgets.pager_view import PagerView
from dynotui.ui.widgets.segment_map import SegmentMap


async def test_the_first_rows_come_with_no_compare_side(memory_demo: Any) -> None:
    app = dynamodb_app(memory_demo, QueryForm(partition_value=demo.BIG_CUSTOMER))
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        assert grid_rows(screen.main_view)  # the first rows are on screen
        assert [view.id for view in screen.query(PagerView)] == ["main-view"]
        assert not list(screen.query(SegmentMap)) and not list(screen.query("#entity-cost"))
        nodes = list(screen.walk_children(with_self=True))
        keys = [node for node in nodes if isinstance(node, FooterKey)]
        assert len(nodes) - len(keys) <= 21, [type(n).__name__ for n in nodes]
        await pilot.press("w")
        await settle(pilot)
        assert screen.comparing and screen.right_mounted
        assert [view.id for view in screen.query(PagerView)] == ["main-view", "right"]
        assert screen.right_view.results.is_mounted and screen.right_view.display
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("w")  # the side kept, not mounted twice
        await settle(pilot)
        assert [view.id for view in screen.query(PagerView)] == ["main-view", "right"]


async def test_a_parallel_scan_mounts_its_segment_maps(ddb: Any, client: Any, demo_table: str):
    """Each segment's client is made from the connection: on DynamoDB Local."""
    form = QueryForm(scan=True, segments="4", page_size="10")
    options = ConnectionOptions(endpoint_url=ddb.endpoint_url)
    app = dynamodb_app(client, form, table=demo_table, options=options)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        view = app.main_view
        maps = list(view.query(SegmentMap))
        assert {m.id for m in maps} == {"segment-line", "segment-map"}
        assert all(not m.has_class("-none") for m in maps)
        assert view.state is not None and view.state.segments is not None
