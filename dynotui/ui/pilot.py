"""Waiting for the app to be still: for tests, the screenshot script and benchmarks."""

from __future__ import annotations

from typing import Any

from dynotui.ui.pager_view import PagerView


async def settle(pilot: Any) -> None:
    """Until every worker (the app's and each pager view's) is done and the screen redrawn."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    for screen in pilot.app.screen_stack:
        for view in screen.query(PagerView):
            await view.workers.wait_for_complete()
    await pilot.pause()
