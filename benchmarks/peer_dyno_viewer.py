"""dyno-viewer (PyPI) driven in tmux the way tui_latency drives dynotui, for its figures.

dyno-viewer has no endpoint or table option and shows no page number: it takes the
endpoint from AWS_ENDPOINT_URL_DYNAMODB, its page size from its config file, and is
opened on a query through its own screens (t: table, q: query form, r: run). A page
is on screen when the first row's order number changes. `]` past the pages it holds
reads the next page (fresh); `[` shows one it holds (cached).

Its start figure is process start to its first screen: its rows need those screens
and keys first, so no start-to-rows figure of it would compare.
"""

from __future__ import annotations

import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tmux_screen import TmuxApp

from dynotui.local.demo import BIG_CUSTOMER, TABLE

ROW = re.compile(rf"^\s*{BIG_CUSTOMER}\s+(\d+)\s", re.M)


def find(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidate = Path(name)
    return str(candidate) if candidate.is_file() else None


def first_row(text: str) -> str | None:
    match = ROW.search(text)
    return match.group(1) if match else None


class DynoViewer:
    def __init__(self, executable: str, endpoint: str) -> None:
        self.executable = executable
        self.endpoint = endpoint
        self.home = tempfile.mkdtemp(prefix="dyno-viewer-home-")

    def command(self, page_size: int) -> tuple[str, dict[str, str]]:
        config = Path(self.home, ".config", "dyno-viewer")
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.yaml").write_text(
            f"load_last_query_on_startup: false\npage_size: {page_size}\ntheme: textual-dark\n"
        )
        env = {
            "HOME": self.home,
            "AWS_ENDPOINT_URL_DYNAMODB": self.endpoint,
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "dynotui",
            "AWS_SECRET_ACCESS_KEY": "dynotui",
        }
        return self.executable, env

    def open(self, page_size: int) -> tuple[TmuxApp, float]:
        """The app on the demo query's page 1, and the seconds from its start to its
        first screen (rows need the keys below: no figure of it would compare)."""
        command, env = self.command(page_size)
        app = TmuxApp(command, env=env)
        seconds, _ = app.wait_for(lambda t: "Profile" in t and "Region" in t, timeout=60)
        app.keys("t")
        app.wait_for(lambda t: TABLE in t, timeout=30)
        app.keys(TABLE, "Enter")
        time.sleep(0.3)  # the table's key schema is read in a worker
        app.keys("q")
        app.wait_for(lambda t: "Run Query" in t, timeout=30)
        for key in ("Tab", "Tab", BIG_CUSTOMER, "Tab", "Tab", "Tab", "Tab", "r"):
            app.keys(key)  # one at a time: focus moves between them
            time.sleep(0.15)
        app.wait_for(lambda t: first_row(t) is not None, timeout=60)
        return app, seconds

    def timed_page(self, app: TmuxApp, key: str, pace: float) -> float:
        time.sleep(pace)
        before = first_row(app.screen())
        return app.timed_key(key, lambda t: first_row(t) not in (None, before))


def measure(executable: str, endpoint: str, n: int, pace: float) -> dict[str, Any]:
    """dyno-viewer's figures, keyed as tui_latency's FIGURES (those it can give)."""
    peer = DynoViewer(executable, endpoint)
    figures: dict[str, float] = {}
    starts = []
    for _ in range(n):
        app, seconds = peer.open(25)
        starts.append(seconds)
        app.close()
    figures["process start to first page of rows"] = statistics.median(starts)  # see above

    app, _ = peer.open(25)
    time.sleep(1.0)
    nexts = [peer.timed_page(app, "]", pace) for _ in range(n)]
    backs = [peer.timed_page(app, "[", pace) for _ in range(n)]
    app.close()
    figures["n, fresh 25-row page"] = statistics.median(nexts)
    figures["p, cached page"] = statistics.median(backs)

    app, _ = peer.open(5)
    time.sleep(1.0)
    figures["n at page 2 (page size 5)"] = statistics.median(
        [peer.timed_page(app, "]", pace) for _ in range(n)]
    )
    app.close()

    app, _ = peer.open(500)
    time.sleep(1.0)
    figures["n, fresh 500-row page"] = statistics.median(
        [peer.timed_page(app, "]", pace) for _ in range(5)]
    )
    downs = [app.timed_change(key, pace) for key in ["PageDown"] * 8 + ["PageUp"] * 8]
    app.close()
    figures["PageDown/Up in a 500-row page (p90)"] = statistics.quantiles(downs, n=10)[-1]
    return figures
