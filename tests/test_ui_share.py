"""Copying, cursors and code from the TUI, against DynamoDB Local."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pyperclip
from textual.widgets import Input, Label, Static, TabbedContent
from uihelpers import Recorder, dynamodb_app, said, text_of

from dynotui.core.cursor import CursorSigner
from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.ui import clipboard
from dynotui.ui.app import PagerApp
from dynotui.ui.screens.code import CodeScreen
from dynotui.ui.screens.cursor import InspectCursorScreen, PasteCursorScreen
from dynotui.ui.testing import settle

SIGNER = CursorSigner(b"ui-test-secret-0123456789")
FORM = QueryForm(
    partition_value=demo.BIG_CUSTOMER,
    filter="status = :r",
    values='{":r": "RETURNED"}',
    page_size="6",
    mode="fill",
)


def no_system_clipboard(text: str) -> None:
    raise pyperclip.PyperclipException("no xclip, xsel or wl-copy")


def make_app(client: Any, system_copy: Any, form: QueryForm = FORM) -> PagerApp:
    return dynamodb_app(client, form, label="", signer=SIGNER, system_copy=system_copy)


def last_message(app: PagerApp) -> str:
    return said(app)[-1].message


async def test_copy_routes_system_then_terminal(client, demo_table) -> None:
    recorder = Recorder()
    app = make_app(client, recorder)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.main_view.results.focus()
        await pilot.press("down", "y")
        await settle(pilot)
        item = app.pager.current.items[1]
        assert json.loads(recorder.texts[-1])["order_no"] == item["order_no"]["S"]
        assert "system clipboard" in last_message(app)
        await pilot.press("Y")
        assert json.loads(recorder.texts[-1]) == to_wire(item)
        await pilot.press("a")
        lines = [json.loads(line) for line in recorder.texts[-1].splitlines()]
        assert lines == [to_wire(i) for i in app.pager.current.items]
        copied = len(recorder.texts)
        await pilot.press("x")
        assert len(recorder.texts) == copied, "page 1 has no start key: nothing is copied"
        assert "Page 1 has no start key" in last_message(app)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("x")
        assert json.loads(recorder.texts[-1]) == to_wire(app.pager.current.start_key)
        assert "start key of page 2" in last_message(app)

    app = make_app(client, no_system_clipboard)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        lines = [json.loads(line) for line in app.clipboard.splitlines()]
        assert lines == [to_wire(i) for i in app.pager.current.items]
        assert clipboard.TERMINAL in last_message(app)


async def test_next_token_pasted_in_a_new_session_lands_on_that_page(client, demo_table) -> None:
    recorder = Recorder()
    first = make_app(client, recorder)
    async with first.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("k")  # the cursor of page 3
        await settle(pilot)
        token = recorder.texts[-1]
        await pilot.press("n")
        await settle(pilot)
        page3 = first.pager.current.items
    assert first.pager.number == 3

    second = make_app(client, Recorder())  # quit, reopen the same query
    async with second.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(second.screen, PasteCursorScreen)
        second.screen.query_one("#token", Input).value = "tampered" + token
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(second.screen, PasteCursorScreen), "a bad token changes nothing"
        assert "Refused (malformed)" in str(
            second.screen.query_one("#cursor-error", Label).render()
        )
        second.screen.query_one("#token", Input).value = token
        await pilot.press("enter")
        await settle(pilot)
        # Page 3 keeps its number (the signed token says which page it opens), and it is
        # the first page of the new stack: nothing before it to go back to.
        assert second.pager.number == 3 and not second.pager.has_prev
        assert list(second.pager.current.items) == list(page3)
        assert "Page 3 ·" in text_of(second.main_view.query_one("#status-line", Static))
        await pilot.press("n")
        await settle(pilot)
        assert second.pager.number == 4


async def test_a_cursor_of_another_query_is_refused(client, demo_table) -> None:
    recorder = Recorder()
    app = make_app(client, recorder)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("k")
        await settle(pilot)
        token = recorder.texts[-1]
    other = make_app(client, Recorder(), FORM.with_(descending=True))
    async with other.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        before = (other.pager, other.pager.stack)
        await pilot.press("v")
        await settle(pilot)
        other.screen.query_one("#token", Input).value = token
        await pilot.press("enter")
        await settle(pilot)
        assert "Refused (scope)" in str(other.screen.query_one("#cursor-error", Label).render())
        await pilot.press("escape")
        await settle(pilot)
        assert (other.pager, other.pager.stack) == before
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(other.screen, InspectCursorScreen)
        other.screen.query_one("#token", Input).value = token
        await pilot.press("enter")
        await settle(pilot)
        details = str(other.screen.query_one("#cursor-details", Static).render())
        assert "does NOT verify" in details and "signed, not encrypted" in details
        assert '"customer"' in details


async def test_code_modal_copies_runnable_boto3(client, demo_table, ddb) -> None:
    recorder = Recorder()
    app = make_app(client, recorder)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        shown = [to_wire(i) for i in app.pager.current.items]
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CodeScreen)
        assert app.screen.query_one(TabbedContent).active == "boto3"
        await pilot.press("c")
        await settle(pilot)
        code = recorder.texts[-1]
    assert ddb.endpoint_url in code
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "y", "PATH": ""},
    )
    assert result.returncode == 0, result.stderr
    assert [json.loads(line) for line in result.stdout.splitlines()] == shown


async def test_palette_lists_the_actions(client, demo_table) -> None:
    app = make_app(client, Recorder())
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for title in (
            "Next (n)",
            "Copy next cursor (k)",
            "Paste cursor (v)",
            "Code (c)",
            "Stack (s)",
            "Order (o)",
        ):
            assert title in titles
