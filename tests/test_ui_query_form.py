"""The query form at 120x35 and 80x24: whole in view at 120x35 (one line per field), every
field reachable at 80x24, the filter two Tabs from the partition value (the second
BETWEEN value only for BETWEEN), and keys pressed before the form is drawn never typed
into it ("eSELECT")."""

from __future__ import annotations

from typing import Any

import pytest
from textual import events
from textual.containers import VerticalScroll
from textual.widgets import Input, TextArea
from uihelpers import make_app, messages

from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.ui.dynamodb.query_screen import QueryScreen
from dynotui.ui.testing import settle

FIELDS = (
    "mode",
    "scan",
    "descending",
    "consistent_read",
    "partition_value",
    "sort_operator",
    "sort_value",
    "filter",
    "values",
    "projection",
    "page_size",
    "max_rounds",
    "run",
)


@pytest.mark.parametrize("size", [(120, 35), (80, 24)])
async def test_the_form_fits_and_every_field_is_reachable(
    client: Any, demo_table: str, size: tuple[int, int]
) -> None:
    app = make_app(client, QueryForm(partition_value=demo.BIG_CUSTOMER))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueryScreen)
        fields = screen.query_one("#query-tab").query_one(VerticalScroll)
        if size == (120, 35):
            assert fields.max_scroll_y == 0, "the whole form in view, nothing to scroll"
        width, height = size
        for name in FIELDS:
            widget = screen.query_one(f"#{name}")
            widget.focus()
            await pilot.pause()
            region = widget.region
            assert region.width and region.height, name
            assert region.x >= 0 and region.right <= width, f"{name} runs off the edge"
            assert region.y >= 0 and region.bottom <= height, f"{name} out of view when focused"


async def _tabs_to_filter(pilot: Any, app: Any) -> int:
    screen = app.screen
    assert isinstance(screen, QueryScreen)
    screen.query_one("#partition_value", Input).focus()
    await pilot.pause()
    for presses in range(1, 8):
        await pilot.press("tab")
        if app.focused is screen.query_one("#filter", Input):
            return presses
    raise AssertionError("Tab never reached the filter")


async def test_the_filter_is_two_tabs_from_the_partition_value(
    client: Any, demo_table: str
) -> None:
    app = make_app(client, QueryForm(partition_value=demo.BIG_CUSTOMER))
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueryScreen)
        assert not screen.query_one("#sort_value2", Input).display
        assert await _tabs_to_filter(pilot, app) == 2, "the operator, then the filter"
        screen.query_one("#sort_operator").value = ">"  # type: ignore[attr-defined]
        await settle(pilot)
        assert await _tabs_to_filter(pilot, app) == 3, "with an operator, its value too"
        assert not screen.query_one("#sort_value2", Input).display
        screen.query_one("#sort_operator").value = "BETWEEN"  # type: ignore[attr-defined]
        await settle(pilot)
        assert screen.query_one("#sort_value2", Input).display, "BETWEEN takes two values"
        assert await _tabs_to_filter(pilot, app) == 4
        screen.query_one("#sort_value", Input).value = "1000"
        screen.query_one("#sort_value2", Input).value = "2000"
        await pilot.press("ctrl+s")
        await settle(pilot)
        spec = app.pager.source.spec
        assert "BETWEEN" in spec.key_condition and app.screen is app.main_screen


def _burst(app: Any, *keys: str) -> None:
    """Keys typed faster than the form is drawn: all sent before the app runs again."""
    for key in keys:
        app.post_message(events.Key(key, key))


@pytest.mark.parametrize("opener", ["e", "colon"])
async def test_keys_typed_before_the_form_is_drawn_are_not_typed_into_it(
    client: Any, demo_table: str, opener: str
) -> None:
    app = make_app(client, QueryForm(partition_value=demo.BIG_CUSTOMER))
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        _burst(app, opener, "x", "y")  # x copies the start key on the main screen
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueryScreen)
        if opener == "colon":
            field: Any = screen.query_one("#statement", TextArea)
            assert field.text.startswith("SELECT"), field.text
        else:
            field = screen.query_one("#partition_value", Input)
            assert field.value == demo.BIG_CUSTOMER
        assert not any("Copied" in m or "copied" in m for m in messages(app)), "nor acted on"
        assert app.focused is field, "the form is ready for keys once drawn"
        await pilot.press("z")
        typed = field.text if opener == "colon" else field.value
        assert "z" in typed, "keys typed once it is drawn go in"
