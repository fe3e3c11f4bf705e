"""A start that draws its first frame before the app's parts load (``ui/starting.py``,
issue 46): the header and what is opened first, then the main screen with the same rows
an app made on its adapter at once shows, the keys typed meanwhile pressed there, and a
failure to make the adapter said by the command. On the demo table in memory
(``memory_demo``): this is the UI, not paging."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App
from textual.widgets import Static
from uihelpers import dynamodb_app, grid_rows

from dynotui.core.errors import InputError
from dynotui.dynamodb.connection import ConnectionOptions
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.ui.adapter import Adapter
from dynotui.ui.app import PagerApp
from dynotui.ui.dynamodb.adapter import DynamoDBAdapter
from dynotui.ui.screens.help import HelpScreen
from dynotui.ui.screens.main import MainScreen
from dynotui.ui.starting import Starting, StartingScreen
from dynotui.ui.testing import settle

FORM = QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="9")
LABEL = "DynamoDB Local (tests)"
DOING = f"Reading page 1 of {demo.TABLE}…"


def starting_app(memory: Any, seen: list[dict[str, Any]], **app_options: Any) -> PagerApp:
    """An app given a start; its adapter's maker notes what was on screen when called."""
    app: PagerApp

    def adapter() -> Adapter:
        screen = app.screen
        words = [str(static.render()) for static in screen.query(Static)]
        seen.append({"screen": screen, "words": words, "sub_title": app.sub_title})
        return DynamoDBAdapter(
            memory, ConnectionOptions(), label=LABEL, table=demo.TABLE, form=FORM
        )

    app = PagerApp(starting=Starting(LABEL, DOING, adapter), **app_options)
    return app


async def test_the_first_frame_comes_before_the_adapter_then_the_same_rows(
    memory_demo: Any,
) -> None:
    at_once = dynamodb_app(memory_demo, FORM, label=LABEL)
    async with at_once.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        truth = grid_rows(at_once.main_view)
    assert len(truth) == 9

    seen: list[dict[str, Any]] = []
    app = starting_app(memory_demo, seen)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        assert len(seen) == 1  # made once, from the first frame
        first = seen[0]
        assert isinstance(first["screen"], StartingScreen)
        assert DOING in first["words"]
        assert first["sub_title"].startswith("DynamoDB Local")
        assert isinstance(app.screen, MainScreen) and app.screen is app.main_screen
        assert grid_rows(app.main_view) == truth
        assert app.sub_title.startswith("DynamoDB Local")
        await pilot.press("n")  # the keys are the app's
        await settle(pilot)
        assert app.pager is not None and app.pager.number == 2


async def test_keys_typed_on_the_first_frame_are_pressed_on_the_main_screen(
    memory_demo: Any,
) -> None:
    seen: list[dict[str, Any]] = []
    app = starting_app(memory_demo, seen)
    made = app.starting
    assert made is not None

    def adapter() -> Adapter:
        # Keys that reached the first frame before the parts were made: held there.
        screen = app.screen
        assert isinstance(screen, StartingScreen)
        screen.held.extend([events.Key("question_mark", "?")])
        return made.adapter()

    app.starting = Starting(made.label, made.doing, adapter)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)  # "?" was pressed on the main screen
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen) and grid_rows(app.main_view)


async def test_the_first_frame_holds_keys_and_shows_its_words_as_text() -> None:
    hostile = "Reading page 1 of [bold]t\x1b[2J…"

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(StartingScreen(hostile))

    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StartingScreen)
        words = str(screen.query_one("#starting", Static).render())
        assert "[bold]" in words and "\x1b" not in words  # no markup, no escape
        await pilot.press("n", "q")
        await pilot.pause()
        assert [key.key for key in screen.held] == ["n", "q"]
        assert app.is_running  # q held, not acted on


async def test_an_adapter_that_cannot_be_made_is_said_by_the_command(memory_demo: Any) -> None:
    def adapter() -> Adapter:
        raise InputError("the table is not there")

    app = PagerApp(starting=Starting(LABEL, DOING, adapter))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
    assert isinstance(app.start_error, InputError)
    assert app.return_code == 1


def test_an_app_takes_an_adapter_or_a_start() -> None:
    for given in ({}, {"adapter": object(), "starting": object()}):
        try:
            PagerApp(**given)  # type: ignore[arg-type]
        except TypeError:
            continue
        raise AssertionError(f"PagerApp took {given}")
