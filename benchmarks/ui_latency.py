"""Benchmark: key press to updated table, for a fresh next page and a cached back page.

    python benchmarks/ui_latency.py [--pages 30]

Runs the real app headless (Textual's Pilot) on the seeded demo table. The baseline,
measured in the same run, is the engine alone reading the same pages.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from dynotui.core.query_form import QueryForm, build_spec
from dynotui.core.schema import describe_table
from textual.widgets import DataTable

from dynotui.core.pager import Pager
from dynotui.local.demo import BIG_CUSTOMER, TABLE, seed_demo
from dynotui.local.runner import DynamoDBLocal
from dynotui.ui.app import DynotuiApp

FORM = QueryForm(partition_value=BIG_CUSTOMER, page_size="25")


def table_loading(app: DynotuiApp) -> bool:
    return app.query_one("#results", DataTable).loading


async def until(app: DynotuiApp, number: int) -> None:
    table = app.query_one("#results", DataTable)
    while app.pager is None or app.pager.number != number or table.loading:
        await asyncio.sleep(0.0005)


async def measure(client: Any, pages: int) -> dict[str, list[float]]:
    app = DynotuiApp(client, table=TABLE, form=FORM)
    fresh: list[float] = []
    cached: list[float] = []
    noop: list[float] = []
    direct: list[float] = []
    refresh: list[float] = []
    async with app.run_test(size=(150, 40)) as pilot:
        await until(app, 1)
        for _ in range(pages):  # what Pilot itself costs per key: a key bound to nothing
            began = time.perf_counter()
            await pilot.press("x")
            noop.append((time.perf_counter() - began) * 1000)
        for number in range(2, pages + 2):
            began = time.perf_counter()
            await pilot.press("n")
            await until(app, number)
            fresh.append((time.perf_counter() - began) * 1000)
        for number in range(pages, 0, -1):
            began = time.perf_counter()
            await pilot.press("p")
            await until(app, number)
            cached.append((time.perf_counter() - began) * 1000)
        for number in range(2, pages + 2):  # the action alone: accept, redraw table
            began = time.perf_counter()
            app.action_next()
            await until(app, number)
            direct.append((time.perf_counter() - began) * 1000)
        for _ in range(pages):  # the action alone, fresh: worker, read, accept, redraw
            assert app.pager is not None
            read_before = app.pager.totals.pages_read
            began = time.perf_counter()
            app.action_refresh()
            while app.pager.totals.pages_read == read_before or table_loading(app):
                await asyncio.sleep(0.0005)
            refresh.append((time.perf_counter() - began) * 1000)
    return {
        "UI key: next": fresh,
        "UI key: back cached": cached,
        "UI key: no-op": noop,
        "UI action: next, cached": direct,
        "UI action: refresh": refresh,
    }


def engine_only(client: Any, pages: int) -> list[float]:
    schema = describe_table(client, TABLE)
    pager = Pager(client, build_spec(schema, FORM), schema)
    pager.next()
    times = []
    for _ in range(pages):
        began = time.perf_counter()
        pager.next()
        times.append((time.perf_counter() - began) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=30)
    args = parser.parse_args()
    with DynamoDBLocal() as server:
        client = server.client()
        seed_demo(client)
        engine_only(client, 5)  # warm the JVM's code paths before measuring anything
        baseline = engine_only(client, args.pages)
        results = {"engine: next": baseline, **asyncio.run(measure(client, args.pages))}
    base = statistics.median(baseline)
    for name, values in results.items():
        median = statistics.median(values)
        p90 = sorted(values)[int(len(values) * 0.9)]
        print(f"{name:<20} median {median:7.1f} ms  p90 {p90:7.1f} ms  ratio {median / base:5.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
