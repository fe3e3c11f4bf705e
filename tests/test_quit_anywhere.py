"""``q`` quits dynotui at once from every screen and dialog (issue 40, item 3): the help
and the README say so. A text field that has the focus takes ``q`` as a letter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, TextArea

from dynotui.core.history import HistoryStore
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.ui.app import PagerApp
from dynotui.ui.testing import settle
from tests.uihelpers import make_app

FORM = QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="5")

# The key that opens each dialog, and the dialog's class name.
DIALOGS = [
    ("question_mark", "HelpScreen"),
    ("s", "StackScreen"),
    ("h", "HistoryScreen"),
    ("enter", "ItemScreen"),
    ("c", "CodeScreen"),
    ("o", "PickerScreen"),
    ("t", "PickerScreen"),
    ("f", "ColumnsScreen"),
    ("number_sign", "CountScreen"),
    ("j", "JumpScreen"),
    ("X", "ExportItemsScreen"),
    ("E", "ConnectionScreen"),
    ("e", "QueryScreen"),
    ("colon", "QueryScreen"),
    ("i", "InspectCursorScreen"),
    ("v", "PasteCursorScreen"),
    ("W", "WhatIfForm"),
    ("A", "PlanScreen"),
    ("L", "EntitiesScreen"),
]


def typing(app: PagerApp) -> bool:
    """A field the user types in has the focus (a read-only text area takes no letter)."""
    field = app.focused
    return isinstance(field, Input) or (isinstance(field, TextArea) and not field.read_only)


async def open_dialog(pilot: Any, app: PagerApp, key: str, name: str) -> None:
    await settle(pilot)
    if key == "enter":
        app.main_view.results.focus()
        await pilot.pause()
        await pilot.press("down")
    await pilot.press(key)
    await settle(pilot)
    assert type(app.screen).__name__ == name and app.screen.is_modal


@pytest.mark.parametrize(("key", "name"), DIALOGS, ids=[k for k, _ in DIALOGS])
async def test_q_quits_from_every_dialog(
    client: Any, demo_table: str, tmp_path: Path, key: str, name: str
) -> None:
    app = make_app(client, FORM, history=HistoryStore(tmp_path / "history.json"))
    async with app.run_test(size=(120, 35)) as pilot:
        await open_dialog(pilot, app, key, name)
        if typing(app):  # a letter for the field: typed, nothing quits
            field = app.focused
            await pilot.press("q")
            await pilot.pause()
            assert app.is_running and app.screen.is_modal
            assert "q" in (field.value if isinstance(field, Input) else field.text)
            app.screen.set_focus(None)
            await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running, f"q left the app running on {name}"


async def test_escape_still_closes_the_help(client: Any, demo_table: str) -> None:
    app = make_app(client, FORM)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_dialog(pilot, app, "question_mark", "HelpScreen")
        await pilot.press("escape")
        await settle(pilot)
        assert app.is_running and app.screen is app.main_screen
