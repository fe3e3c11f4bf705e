"""The screens a daily user reads at 120x35 and 80x24 (issue 40, item 11): the status line
on one line so the grid's header stays put from page to page, the history's page and cost
columns in view, every field of the connection dialog above its button, the title's parts
whole, and the grid's "more columns" mark on its header only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Button, DataTable, Input
from uihelpers import RARE_FORM, make_app, screen_text

from dynotui.core.history import HistoryStore
from dynotui.ui.dynamodb.connection_screen import ConnectionScreen
from dynotui.ui.screens.history import HistoryScreen
from dynotui.ui.testing import settle
from dynotui.ui.widgets.grid import MORE_RIGHT

LABEL = "http://127.0.0.1:45685 · us-east-1 · profile: default chain"


async def test_the_grid_stays_put_from_page_to_page(client: Any, demo_table: str) -> None:
    """Page 2 folds an empty column and says so: on one line, so the header row is where
    it was on page 1."""
    app = make_app(client, RARE_FORM.with_(mode="fill"))
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        view = app.main_view
        tops = [view.results.region.y]
        for _ in range(3):
            await pilot.press("n")
            await settle(pilot)
            tops.append(view.results.region.y)
        assert view.results.folded, "a page folded an empty column (the note that wrapped)"
        assert len(set(tops)) == 1, tops
        assert view.query_one("#status-line").region.height == 1


async def test_history_shows_page_and_cost_at_120(
    client: Any, demo_table: str, tmp_path: Path
) -> None:
    store = HistoryStore(tmp_path / "history.json")
    app = make_app(client, RARE_FORM, history=store)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, HistoryScreen) and screen.entries
        table = screen.query_one(DataTable)
        x = 0
        ends = {}
        for column in table.ordered_columns:
            x += column.get_render_width(table)
            ends[str(column.label)] = x
        room = table.scrollable_content_region.width
        assert ends["page"] <= room and ends["cost so far"] <= room, (ends, room)


async def test_every_connection_field_is_above_the_button(client: Any, demo_table: str) -> None:
    app = make_app(client, RARE_FORM)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        await pilot.press("E")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ConnectionScreen)
        button = screen.query_one("#connect", Button).region
        for field in screen.query(Input):
            region = field.region
            assert region.height and region.bottom <= button.y, (field.id, region, button)


async def test_80x24_title_whole_and_rows_without_marks(client: Any, demo_table: str) -> None:
    app = make_app(client, RARE_FORM.with_(mode="fill"), label=LABEL)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        parts = LABEL.split(" · ")
        shown = app.sub_title.split(" · ")
        assert shown == parts[: len(shown)] and len(shown) < len(parts), "whole parts"
        title = app.screen.query_one("HeaderTitle").region
        assert len(f"{app.title} — {app.sub_title}") <= title.width
        lines = screen_text(app)
        header = next(at for at, line in enumerate(lines) if line.startswith(" customer"))
        assert lines[header].endswith(MORE_RIGHT), "the header says more columns lie beyond"
        rows = [line for line in lines[header + 1 :] if line.startswith(" acme")]
        assert rows and not any(MORE_RIGHT in line for line in rows), "rows carry no mark"
    async with make_app(client, RARE_FORM, label=LABEL).run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        assert pilot.app.sub_title == LABEL, "whole where it fits"
