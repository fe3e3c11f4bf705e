"""Benchmark: how much memory a long session holds.

    python benchmarks/memory.py [--pages 10000] [--app-pages 1000]

1. The core Pager after --pages pages of 5 items (tracemalloc of everything the pager
   holds), beside the cursor stack alone (the start keys). Pages are DynamoDB pages of
   the demo's acme orders, read once from DynamoDB Local and replayed with fresh keys,
   so 10,000 pages take seconds, not the emulator's minutes of deep-page walks.
2. The app's resident memory (VmRSS) after --app-pages pages in a real terminal
   (tmux), beside its RSS at page 1.
"""

from __future__ import annotations

import argparse
import gc
import re
import sys
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from tmux_screen import TmuxApp

from dynotui.core.cancel import NEVER, CancelToken
from dynotui.core.page import Page
from dynotui.core.pager import Pager
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import QuerySource, query_pager
from dynotui.dynamodb.spec import from_key
from dynotui.local import demo_cache
from dynotui.local.demo import BIG_CUSTOMER, TABLE
from dynotui.local.locate import ensure_home
from dynotui.local.runner import DynamoDBLocal


def fresh_cost(cost: Any) -> Any:
    """A copy of a page's cost, as a real read makes one: nothing shared between pages."""
    calls = tuple(
        replace(call, capacity=replace(call.capacity, indexes=dict(call.capacity.indexes)))
        for call in cost.calls
    )
    return replace(cost, calls=calls, capacity=replace(cost.capacity, indexes={}))


class Replay(QuerySource):
    """Real pages of acme, replayed with a fresh start key per page."""

    def __init__(self, real: list[Page[Any]], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.real = real

    def read_page(
        self, start_key: Any, number: int, *, selectivity: float | None, cancel: CancelToken
    ) -> Page[Any]:
        model = self.real[(number - 1) % len(self.real)]
        items = [
            dict(item, order_no={"S": f"{number:06d}-{i}"}) for i, item in enumerate(model.items)
        ]
        last = items[-1]
        next_key = {"customer": last["customer"], "order_no": dict(last["order_no"])}
        return Page(
            number=number,
            mode=model.mode,
            start_key=start_key,
            items=items,
            shown=len(items),
            next_start_key=next_key,
            has_next=model.has_next,
            ended_by=model.ended_by,
            cost=model.cost,
            extra={"last_evaluated_key": next_key},
        )


def session_memory(client: Any, pages: int) -> tuple[float, float, float]:
    schema = describe_table(client, TABLE)
    spec = from_key(schema, partition_value=BIG_CUSTOMER, page_size=5)
    sample = query_pager(client, spec, schema)
    real = [sample.next() for _ in range(50)]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    pager = Pager(Replay(real, client, spec, schema))
    began = time.perf_counter()
    for _ in range(pages):
        pager.accept(pager.read(pager.plan("next"), NEVER))
        pager.advisor.findings()
    seconds = time.perf_counter() - began
    gc.collect()
    total = tracemalloc.get_traced_memory()[0] - before
    stack_only = [key for _, key in pager.stack]
    tracemalloc.stop()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    copy = [dict(k) if k else None for k in stack_only]
    for key in copy:
        if key:
            for name in key:
                key[name] = dict(key[name])
    stack = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return total / 1e6, stack / 1e6, seconds


def rss_kb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(match.group(1)) if match else 0


def app_pid(app: TmuxApp) -> int:
    import subprocess

    pane = subprocess.run(
        ["tmux", "display", "-p", "-t", app.name, "#{pane_pid}"], capture_output=True, text=True
    ).stdout.strip()
    children = subprocess.run(["pgrep", "-P", pane], capture_output=True, text=True).stdout
    return int(children.split()[0])


def app_memory(endpoint: str, pages: int) -> tuple[int, int]:
    command = (
        f"{sys.executable} -m dynotui --endpoint-url {endpoint} --table-name {TABLE} "
        f"--partition-value {BIG_CUSTOMER} --page-size 5"
    )
    with TmuxApp(command, env={"DYNOTUI_CURSOR_SECRET": "benchmark-secret-0123456789"}) as app:
        app.wait_for(lambda t: "Page 1 ·" in t)
        pid = app_pid(app)
        first = rss_kb(pid)
        app.keys(*["n"] * (pages - 1))
        app.wait_for(lambda t: f"Page {pages} ·" in t, timeout=900)
        last = rss_kb(pid)
        app.keys("q")
    return first, last


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--app-pages", type=int, default=1_000)
    args = parser.parse_args()
    home = ensure_home()
    db, _ = demo_cache.ensure(home)
    with DynamoDBLocal(home=home, db_file=db) as server:
        total, stack, seconds = session_memory(server.client(), args.pages)
        print(
            f"core Pager after {args.pages:,} pages of 5: {total:.1f} MB "
            f"(the cursor stack alone: {stack:.1f} MB; {seconds:.1f} s)"
        )
        first, last = app_memory(server.endpoint_url, args.app_pages)
        print(
            f"app RSS: {first / 1024:.0f} MB at page 1, {last / 1024:.0f} MB at page "
            f"{args.app_pages:,} ({last / first:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
