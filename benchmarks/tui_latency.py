"""Benchmark: key press to screen in the real app, in a real terminal (tmux), not Pilot.

    python benchmarks/tui_latency.py [--samples 5]

Starts DynamoDB Local on a copy of the seeded demo database, and for each figure runs
the app in tmux on customer acme, presses keys with `tmux send-keys` and polls
`capture-pane` until the screen shows the result. Beside each figure: a raw boto3
Query of the same pages (a plain client: botocore parses the response), measured in the
same run. Figures are medians (PageDown: p90).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from tmux_screen import TmuxApp

from dynotui.local import demo_cache
from dynotui.local.demo import BIG_CUSTOMER, TABLE
from dynotui.local.locate import ensure_home
from dynotui.local.runner import DynamoDBLocal

ENV = {"DYNOTUI_CURSOR_SECRET": "benchmark-secret-0123456789"}


def app_command(endpoint: str, page_size: int) -> str:
    return (
        f"{sys.executable} -m dynotui --endpoint-url {endpoint} --table-name {TABLE} "
        f"--partition-value {BIG_CUSTOMER} --page-size {page_size}"
    )


def on_page(number: int) -> Any:
    marker = f"Page {number} ·"
    return lambda text: marker in text


def query_params(page_size: int) -> dict[str, Any]:
    return {
        "TableName": TABLE,
        "KeyConditionExpression": "customer = :c",
        "ExpressionAttributeValues": {":c": {"S": BIG_CUSTOMER}},
        "Limit": page_size,
    }


def start_key_of_page(client: Any, page_size: int, number: int) -> Any:
    """Where page ``number`` starts, found by a keys-only walk (not timed)."""
    key = None
    params = {**query_params(page_size), "ProjectionExpression": "customer, order_no"}
    for _ in range(number - 1):
        response = client.query(**params, **({"ExclusiveStartKey": key} if key else {}))
        key = response["LastEvaluatedKey"]
    return key


def raw_pages(client: Any, page_size: int, first: int, count: int, repeats: int = 3) -> float:
    """A plain boto3 Query of the very pages the app was timed on (``first`` and the
    ``count - 1`` after it): the median over pages of each page's best of ``repeats``."""
    key = start_key_of_page(client, page_size, first)
    times = []
    for _ in range(count):
        params = {**query_params(page_size), **({"ExclusiveStartKey": key} if key else {})}
        best = float("inf")
        for _ in range(repeats):
            began = time.perf_counter()
            response = client.query(**params)
            best = min(best, time.perf_counter() - began)
        times.append(best)
        key = response.get("LastEvaluatedKey")
    return statistics.median(times)


def fresh_next(app: TmuxApp, first: int, samples: int) -> list[float]:
    return [app.timed_key("n", on_page(first + i + 1)) for i in range(samples)]


def first_row_visible(text: str) -> bool:
    return re.search(r"^\s*acme\s+\d+\s", text, re.M) is not None and "Page 1 ·" in text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=5)
    args = parser.parse_args()
    n = args.samples
    home = ensure_home()
    db, _ = demo_cache.ensure(home)
    rows: list[tuple[str, float, float]] = []
    with DynamoDBLocal(home=home, db_file=db) as server:
        client = server.client()
        endpoint = server.endpoint_url

        starts = []
        for _ in range(n):
            with TmuxApp(app_command(endpoint, 25), env=ENV) as app:
                seconds, _ = app.wait_for(first_row_visible, timeout=60)
                starts.append(seconds)
                app.keys("q")
        rows.append(
            (
                "process start to first page of rows",
                statistics.median(starts),
                raw_pages(client, 25, 1, 1),
            )
        )

        with TmuxApp(app_command(endpoint, 25), env=ENV) as app:
            app.wait_for(on_page(1))
            nexts = fresh_next(app, 1, n)
            backs = [app.timed_key("p", on_page(n - i)) for i in range(n)]
            app.keys("q")
        rows.append(("n, fresh 25-row page", statistics.median(nexts), raw_pages(client, 25, 2, n)))
        rows.append(("p, cached page", statistics.median(backs), raw_pages(client, 25, 1, n)))

        with TmuxApp(app_command(endpoint, 5), env=ENV) as app:
            app.wait_for(on_page(1))
            early = fresh_next(app, 1, n)
            app.keys(*["n"] * (999 - n - 1))
            app.wait_for(on_page(999), timeout=600)
            deep = fresh_next(app, 999, n)
            app.keys("q")
        rows.append(
            ("n at page 2 (page size 5)", statistics.median(early), raw_pages(client, 5, 2, n))
        )
        rows.append(
            (
                "n at page 1,000 (page size 5)",
                statistics.median(deep),
                raw_pages(client, 5, 1000, n),
            )
        )

        with TmuxApp(app_command(endpoint, 500), env=ENV) as app:
            app.wait_for(on_page(1), timeout=60)
            big = fresh_next(app, 1, min(n, 8))
            downs = []
            for key in ["PageDown"] * 8 + ["PageUp"] * 8:  # 500 rows are ~11 screens
                before = app.screen()
                downs.append(app.timed_key(key, lambda t, b=before: t != b))
            app.keys("q")
        rows.append(
            ("n, fresh 500-row page", statistics.median(big), raw_pages(client, 500, 2, len(big)))
        )
        p90 = statistics.quantiles(downs, n=10)[-1]
        rows.append(("PageDown/Up in a 500-row page (p90)", p90, 0.0))

    print(f"{'figure':<40} {'dynotui':>10} {'raw query':>10} {'difference':>11}")
    for name, ours, raw in rows:
        print(
            f"{name:<40} {ours * 1000:8.1f} ms {raw * 1000:7.1f} ms {(ours - raw) * 1000:8.1f} ms"
        )
    flat = rows[4][1] / rows[3][1]
    print(f"page 1,000 / page 2: {flat:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
