"""Waiting for the app to be still: for tests, the screenshot script and benchmarks."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from dynotui.ui import background
from dynotui.ui.pager_view import PagerView


def _busy(app: Any) -> bool:
    for screen in app.screen_stack:
        for view in screen.query(PagerView):
            if view.reading or view.target is not None or view.opening is not None:
                return True
    return False


async def settle(pilot: Any, timeout: float = 60.0) -> None:
    """Until no view is reading (reads run in daemon threads) and the screen is redrawn."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    deadline = time.monotonic() + timeout
    while _busy(pilot.app) or background.in_flight():
        if time.monotonic() > deadline:
            raise TimeoutError("the app kept reading")
        await asyncio.sleep(0.01)
        await pilot.pause()
    await pilot.pause()
