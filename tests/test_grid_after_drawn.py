"""The grid's ``after_drawn``: work waits for a frame that has drawn the rows given last,
whatever else the screen does meanwhile, and is neither run early nor lost.

The ground truth is the frames themselves: each frame handed to the terminal
(``App._display``) is written out as text, and a frame shows the rows when their text is
in it."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from dynotui.ui.widgets.grid import Grid, GridColumn

NEW_ROWS = [["new row one"], ["new row two"]]


class OneGrid(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.events: list[str] = []

    def compose(self) -> ComposeResult:
        yield Grid(id="grid")

    def on_mount(self) -> None:
        grid = self.query_one(Grid)
        grid.set_columns([GridColumn("a", "a", 20)])
        grid.set_rows([["old row"]])

    def _display(self, screen: Any, renderable: Any) -> None:
        if renderable is not None:
            console = Console(file=io.StringIO(), width=80, height=24, color_system=None)
            text = "".join(s.text for s in console.render(renderable) if not s.control)
            self.events.append("frame with the new rows" if "new row two" in text else "frame")
        super()._display(screen, renderable)


class Cover(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Static("covering the grid")


async def test_a_mouse_over_the_grid_is_not_the_frame_work_waits_for() -> None:
    """A mouse over the grid renders one of its lines for its style, outside any frame:
    the work still waits for the frame that draws the new rows."""
    app = OneGrid()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        grid = app.query_one(Grid)
        app.events.clear()
        grid.set_rows(NEW_ROWS)
        grid.after_drawn(lambda: app.events.append("work"))
        region = grid.region
        app.screen.get_style_at(region.x + 2, region.y + 2)  # as a mouse move does
        for _ in range(5):
            await pilot.pause()
    assert "work" in app.events
    assert "frame with the new rows" in app.events[: app.events.index("work")]


async def test_work_for_a_covered_grid_waits_until_the_grid_is_drawn_again() -> None:
    """Rows given while another screen covers the grid: nothing is drawn, so nothing runs
    (and nothing spins); once the grid is uncovered and drawn, the work runs, once."""
    app = OneGrid()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        grid = app.query_one(Grid)
        await app.push_screen(Cover())
        await pilot.pause()
        app.events.clear()
        grid.set_rows(NEW_ROWS)
        grid.after_drawn(lambda: app.events.append("work"))
        for _ in range(5):
            await pilot.pause()
        assert "work" not in app.events, "the rows are not on screen"
        app.pop_screen()
        for _ in range(5):
            await pilot.pause()
    assert app.events.count("work") == 1
    assert "frame with the new rows" in app.events[: app.events.index("work")]


async def test_work_asked_once_the_rows_are_drawn_runs_at_once() -> None:
    """Nothing new to draw: the rows held are already on screen, so the work runs without
    waiting for a frame that may never come."""
    app = OneGrid()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        grid = app.query_one(Grid)
        grid.set_rows(NEW_ROWS)
        for _ in range(3):
            await pilot.pause()
        assert "frame with the new rows" in app.events
        ran: list[str] = []
        grid.after_drawn(lambda: ran.append("work"))
        await pilot.pause()
        assert ran == ["work"]
