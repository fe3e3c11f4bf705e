"""`dynotui demo` the first time, from an empty cache: the demo's own DynamoDB Local seeds
its database (one JVM, not one to seed and another to serve), and that database is kept
in the cache (SQLite's online backup, while the server runs) for later runs to copy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from dynotui.local import demo_cache, shop
from dynotui.local.demo import TABLE, demo_items
from dynotui.local.locate import ensure_home
from dynotui.local.runner import DynamoDBLocal


def demo(env: dict[str, str]) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "dynotui", "demo", "--no-tui"],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def count(client: Any, table: str) -> int:
    pages = client.get_paginator("scan").paginate(TableName=table, Select="COUNT")
    return sum(page["Count"] for page in pages)


def test_the_first_run_seeds_its_own_server_and_keeps_the_database(tmp_path: Path) -> None:
    home = ensure_home()
    cache = tmp_path / "cache"
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(cache),
        "DYNOTUI_DYNAMODB_LOCAL": str(home),
        "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789",
    }
    first = demo(env)
    assert first.returncode == 0, first.stderr
    started = [line for line in first.stderr.splitlines() if "Starting" in line]
    assert len(started) == 1, first.stderr  # the server that serves is the one seeded
    assert "Building the demo database once" in first.stderr
    assert "Seeded" in first.stderr and "Kept the demo database in" in first.stderr
    kept = demo_cache.cached_db(home, cache / "dynotui" / "demo-db")
    assert kept.is_file() and not list(kept.parent.glob(f".{kept.name}.*"))
    with DynamoDBLocal(home=home, db_file=kept) as server:  # what was kept, read back
        client = server.client()
        assert count(client, TABLE) == len(list(demo_items()))
        assert count(client, shop.TABLE) == len(list(shop.shop_items()))
    later = demo(env)
    assert later.returncode == 0, later.stderr
    assert "Building" not in later.stderr and "Seeding" not in later.stderr
    assert len([line for line in later.stderr.splitlines() if "Starting" in line]) == 1
    assert later.stdout == first.stdout  # the tables' orders and exact item counts
