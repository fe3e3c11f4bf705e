"""``dynotui --resume`` after ``dynotui demo --postgres`` (issue 40, item 4): the demo's
server went with it (its socket too), so resume starts the PostgreSQL demo again, as it
does for the DynamoDB demo, and reopens the entry there at its page."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from terminal import Terminal

from dynotui.core.history import HistoryEntry, HistoryStore
from dynotui.postgres import history_entry as pg_history


def shown_ids(text: str) -> list[int]:
    """The id column of the grid's rows (each row starts with its created_at)."""
    return [int(line.split()[2]) for line in text.splitlines() if line.strip()[:5] == "2026-"]


def test_resume_after_the_postgres_demo_starts_it_again(pg_admin: Any, tmp_path: Path) -> None:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("DATABASE_URL", None)
    demo = Terminal(["demo", "--postgres"], env, size=(120, 36))
    try:
        demo.wait_for(lambda t: "Page 1 ·" in t, timeout=300)
        for page in (2, 3):
            demo.send(b"n")
            demo.wait_for(lambda t, page=page: f"Page {page} ·" in t, timeout=60)
        demo.send(b"q")
        assert demo.wait_exit(60) == 0
    finally:
        demo.close()
    store = HistoryStore(tmp_path / "data" / "dynotui" / "history.json")
    entry = store.last()
    assert isinstance(entry, HistoryEntry) and entry.page == 3
    assert pg_history.read_on_demo(entry), entry.connection
    assert "socket" not in json.dumps(entry.connection), "the demo's socket is not kept"
    # The demo seeds the same rows each time: the fixture's copy is the ground truth.
    truth = [
        row[0]
        for row in pg_admin.execute(
            "SELECT id FROM orders ORDER BY created_at, id LIMIT 25 OFFSET 50"
        ).fetchall()
    ]
    resumed = Terminal(["--resume"], env, size=(120, 36))
    try:
        text = resumed.wait_for(lambda t: "reopened from history at page 3" in t, timeout=300)
        text = resumed.wait_for(lambda t: len(shown_ids(t)) >= 10, timeout=60)
        ids = shown_ids(text)
        assert ids == truth[: len(ids)], "page 3 re-read from its stored boundary"
        resumed.send(b"q")
        assert resumed.wait_exit(60) == 0
    finally:
        resumed.close()
