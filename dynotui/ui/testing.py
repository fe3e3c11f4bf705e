"""Waiting for the app to be still: for the tests, the screenshot script and benchmarks."""

from __future__ import annotations

import asyncio
import threading
import time

from textual.app import App
from textual.pilot import Pilot

from dynotui.ui import background
from dynotui.ui.widgets.pager_view import PagerView


def calls_in_flight() -> int:
    """Calls whose thread is still running: each reports back before its thread ends."""
    return sum(t.name == background.THREAD_NAME for t in threading.enumerate())


def busy(app: App[None]) -> bool:
    for screen in app.screen_stack:
        for view in screen.query(PagerView):
            if view.busy:
                return True
    return False


async def settle(pilot: Pilot[None], timeout: float = 60.0) -> None:
    """Until no view is reading (reads run in daemon threads) and the screen is redrawn."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    deadline = time.monotonic() + timeout
    while busy(pilot.app) or calls_in_flight():
        if time.monotonic() > deadline:
            raise TimeoutError("the app kept reading")
        await asyncio.sleep(0.01)
        await pilot.pause()
    await pilot.pause()
