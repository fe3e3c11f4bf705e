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
    from textual.keys import key_to_character

    for key in keys:
        app.post_message(events.Key(key, key_to_character(key)))


@pytest.mark.parametrize("opener", ["e", "colon"])
async def test_keys_typed_before_the_form_is_drawn_are_typed_into_it(
    client: Any, demo_table: str, opener: str
) -> None:
    """Typed while the form opens: into its field once it is drawn, never acted on by the
    main screen (x copies the start key there); the opening key pressed again is not
    typed ("eSELECT")."""
    app = make_app(client, QueryForm(partition_value=demo.BIG_CUSTOMER))
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        _burst(app, opener, opener, "x", "y")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueryScreen)
        if opener == "colon":
            field: Any = screen.query_one("#statement", TextArea)
            assert field.text.startswith("xySELECT"), field.text
        else:
            field = screen.query_one("#partition_value", Input)
            assert field.value == "xy", "typed over the value, selected as the field is focused"
        assert not any("Copied" in m or "copied" in m for m in messages(app)), "nor acted on"
        assert app.focused is field, "the form is ready for keys once drawn"
        await pilot.press("z")
        typed = field.text if opener == "colon" else field.value
        assert "xyz" in typed, "keys typed once it is drawn go in after them"


async def test_keys_typed_while_the_table_opens_go_into_its_form(
    client: Any, demo_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app opened on a table and no query: the form comes after DescribeTable, seconds
    on a busy machine. A word typed meanwhile is not acted on by the main screen (a copies
    the page, c opens the code view) but typed into the form once it is up."""
    import threading

    from dynotui.ui.dynamodb import adapter

    answered = threading.Event()
    real = adapter.describe_table

    def slow_describe(*args: Any) -> Any:
        answered.wait(10)  # the test says when DescribeTable answers
        return real(*args)

    monkeypatch.setattr(adapter, "describe_table", slow_describe)
    app = make_app(client, QueryForm(), open_form=True)
    async with app.run_test(size=(120, 35)) as pilot:
        await pilot.pause()
        assert app.main_view.machine.status.table_opening is not None, "still opening"
        _burst(app, "a", "c", "m", "e")
        await pilot.pause()
        answered.set()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueryScreen)
        assert screen.query_one("#partition_value", Input).value == "acme"
        assert not any("opied" in m for m in messages(app)), "nothing acted on beneath"


async def test_the_placeholders_come_from_the_table(client: Any, table_name: Any) -> None:
    """On a table with no `status`, the form's examples are its own attributes, typed:
    never the demo's `status = :r` and `RETURNED`."""
    from dynotui.local.tables import Index, create_table, table_definition

    name = table_name("readings")
    create_table(
        client,
        table_definition(
            name,
            ("device", "S"),
            ("at", "N"),
            global_indexes=(Index("by_level", ("level", "N"), ("at", "N")),),
        ),
    )
    app = make_app(client, QueryForm(), table=name, open_form=True)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueryScreen)
        hints = {
            field: screen.query_one(f"#{field}", Input).placeholder
            for field in ("partition_value", "filter", "values")
        }
        assert hints["partition_value"].startswith("device (S)")
        assert hints["filter"].startswith("level = :v")
        assert hints["values"] == '{":v": 42}', "level is a number"
        hint = str(screen.query_one("#values-hint").render())
        every = " ".join([*hints.values(), hint])
        assert "status" not in every and "RETURNED" not in every
        assert screen.query_one("#parameters", Input).placeholder.endswith('[{"S": "text"}]')
