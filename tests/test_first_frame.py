"""A start that draws its first frame before the app's parts load (``ui/starting.py``,
issue 46): the header and what is opened first, then the main screen with the same rows
an app made on its adapter at once shows, the keys typed meanwhile pressed there, and a
failure to make the adapter said by the command. On the demo table in memory
(``memory_demo``): this is the UI, not paging."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App
from textual.widgets import Static
from uihelpers import dynamodb_app, grid_rows

from dynotui.core.errors import InputError
from dynotui.core.history import HistoryStore
from dynotui.dynamodb.connection import ConnectionOptions
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.process.forked import can_fork
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
    allowed: list[tuple[str, bool | None]] = []
    shown: list[str] = []  # the screens current, in turn, from the first frame's on

    def adapter() -> Adapter:
        screen = app.screen
        assert isinstance(screen, StartingScreen)
        # A key the first frame held before the parts were made, and one handed to it
        # while they are made (it reaches the first frame after they are): in that order.
        screen.held.append(events.Key("question_mark", "?"))
        screen.post_message(events.Key("escape", None))
        # Nothing of the app's but quit runs on the first frame (ctrl+p's palette would
        # open beneath the main screen): its keys are held for the main screen.
        allowed.extend((name, app.check_action(name, ())) for name in ("command_palette", "quit"))
        app.screen_change_signal.subscribe(app, lambda now: shown.append(type(now).__name__))
        return made.adapter()

    app.starting = Starting(made.label, made.doing, adapter)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        # "?" opened the help on the main screen, then Esc closed it: the other order
        # would leave the help open.
        assert shown == ["MainScreen", "HelpScreen", "MainScreen"]
        assert isinstance(app.screen, MainScreen) and grid_rows(app.main_view)
        assert allowed == [("command_palette", False), ("quit", True)]
        assert app.check_action("command_palette", ()) is True
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)


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


@pytest.mark.skipif(not can_fork(), reason="fork is used on Linux only")
def test_a_setting_refused_before_the_first_frame_stops_the_child_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dynotui.cli import early_open
    from dynotui.cli.app_launch import open_app_first

    settings = tmp_path / "config.toml"
    settings.write_text('[ui]\ntheme = "no-such-theme"\n')
    settings.chmod(0o600)
    monkeypatch.setenv("DYNOTUI_CONFIG", str(settings))
    monkeypatch.setenv("TEXTUAL_FPS", "120")  # open_app_first sets it if unset
    options = ConnectionOptions(endpoint_url="http://127.0.0.1:9")
    form = QueryForm(partition_value="x")
    early_open.start(["--table-name", "t"])
    child = early_open.ask(options, "t", form, None)
    assert child is not None and child.pid is not None
    pid = child.pid
    with pytest.raises(InputError, match="no-such-theme"):
        open_app_first(child, options, "t", form, None, history=HistoryStore(enabled=False))
    assert child.pid is None  # stopped and reaped
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
