"""Notifications carry data's words (a refused path's reason names a catalog identifier, a
service's message); whatever the caller, nothing in them acts on the terminal."""

from __future__ import annotations

from uihelpers import make_app

from dynotui.dynamodb.memory import MemoryDynamoDB
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo

HOSTILE = "index \x1b[2J\x1b]0;owned\x07 \u202e cannot serve"


async def test_a_plain_notification_shows_control_characters_as_text(
    memory_demo: MemoryDynamoDB,
) -> None:
    app = make_app(memory_demo, QueryForm(partition_value="acme"), table=demo.TABLE)
    async with app.run_test(size=(120, 35)) as pilot:
        app.notify(HOSTILE, title="\x1b[31mtitle", markup=False)
        app.screen.notify(HOSTILE, severity="warning", markup=False)  # as a dialog does
        await pilot.pause()
        shown = list(app._notifications)
        assert len(shown) == 2
        for note in shown:
            for text in (note.message, note.title):
                assert not any(c in text for c in "\x1b\x07\u202e"), repr(text)
            assert "cannot serve" in note.message
