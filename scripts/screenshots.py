"""Write the README's screenshots: the real app, driven by keys, on the seeded demo table.

    python scripts/screenshots.py [--out screenshots]

Starts DynamoDB Local on a copy of the seeded demo database (and an embedded PostgreSQL
with the PostgreSQL demo's orders, for the pg-* shots), runs the app headless and saves
SVGs. Latencies come from a fixed clock; PostgreSQL's own execution times and buffer
counts are what the server reports, so those shots vary a little from run to run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from textual.widgets import Input, TextArea

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))

from uihelpers import FixedClock, Recorder, dynamodb_app, until

from dynotui.core.cursor import CursorSigner
from dynotui.dynamodb.connection import ConnectionOptions, describe
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo_cache, shop
from dynotui.local.demo import BIG_CUSTOMER, RARE_STATUS, TABLE
from dynotui.local.locate import ensure_home
from dynotui.local.runner import DynamoDBLocal
from dynotui.ui.app import PagerApp
from dynotui.ui.testing import settle

DEMO = QueryForm(partition_value=BIG_CUSTOMER)  # what `dynotui demo` opens (cli/demo_cmd.py)
RARE = QueryForm(
    partition_value=BIG_CUSTOMER,
    filter="status = :r",
    values='{":r": "RETURNED"}',
    page_size="10",
    mode="fill",
)
Steps = Callable[[Any, PagerApp], Awaitable[None]]


def keys(*pressed: str) -> Steps:
    async def run(pilot: Any, app: PagerApp) -> None:
        app.main_view.results.focus()
        for key in pressed:
            await pilot.press(key)
            await settle(pilot)

    return run


async def compare(pilot: Any, app: PagerApp) -> None:
    for key in ("w", "tab", "o"):
        await pilot.press(key)
        await settle(pilot)
    app.screen.query_one(Input).value = "by_status"
    await pilot.press("enter")
    await settle(pilot)
    app.screen.query_one("#filter", Input).value = "customer = :c"
    app.screen.query_one("#values", Input).value = f'{{":c": "{BIG_CUSTOMER}"}}'
    await pilot.press("ctrl+s")
    await settle(pilot)
    for _ in range(2):
        await pilot.press("N")
        await settle(pilot)


async def count(pilot: Any, app: PagerApp) -> None:
    await pilot.press("n", "number_sign")
    await settle(pilot)
    await pilot.press("enter")
    await until(pilot, lambda: getattr(app.screen, "result", None) is not None)
    await settle(pilot)


async def partiql(pilot: Any, app: PagerApp) -> None:
    await pilot.press("colon")
    await settle(pilot)
    statement = (
        f'SELECT order_no, status, total FROM "{TABLE}"."by_status" WHERE status = ? AND total > ?'
    )
    app.screen.query_one("#statement", TextArea).text = statement
    app.screen.query_one("#parameters", Input).value = f'[{{"S": "{RARE_STATUS}"}}, {{"N": "500"}}]'
    await pilot.press("ctrl+s")
    await settle(pilot)
    await pilot.press("n")
    await settle(pilot)


async def plan(pilot: Any, app: PagerApp) -> None:
    await pilot.press("A")
    await until(
        pilot,
        lambda: "Done:" in " ".join(str(w.render()) for w in app.screen.query("Label, Static")),
    )
    await settle(pilot)


async def entities(pilot: Any, app: PagerApp) -> None:
    await pilot.press("L")
    await settle(pilot)
    await pilot.press("enter")
    await until(
        pilot,
        lambda: (
            "entities in table"
            in " ".join(str(w.render()) for w in app.screen.query("Label, Static"))
        ),
    )
    await settle(pilot)


SHOP = QueryForm(partition_value="CUSTOMER#c001")  # customers, addresses, orders

SHOTS: list[tuple[str, QueryForm, tuple[int, int], Steps]] = [
    ("main", DEMO, (160, 40), keys("n", "n")),
    ("main-80x24", DEMO, (80, 24), keys("n")),
    ("filter-waste", RARE, (160, 40), keys("n", "n", "n")),
    ("stack", DEMO, (160, 40), keys("n", "n", "n", "p", "s")),
    ("item", DEMO, (160, 40), keys("down", "down", "enter")),
    ("code", RARE, (160, 40), keys("n", "c")),
    (
        "gsi-order",
        QueryForm(order="by_status", partition_value="CANCELLED"),
        (160, 40),
        keys("n"),
    ),
    ("compare", RARE, (200, 45), compare),
    ("count", RARE, (160, 40), count),
    ("partiql", QueryForm(partition_value=BIG_CUSTOMER, page_size="8"), (160, 40), partiql),
    ("plan", RARE, (160, 40), plan),
    ("shop", SHOP, (160, 40), keys("down", "down", "down")),
    ("entities", SHOP, (160, 40), entities),
]
# The shots on the demo's single-table design; the rest are on the orders table.
ON_SHOP = {"shop", "entities"}


async def pg_compare(pilot: Any, app: Any) -> None:
    """OFFSET beside keyset, both at page 1,000."""
    await pilot.press("w")
    await settle(pilot)
    await pilot.press("J")
    await settle(pilot)
    app.screen.query_one(Input).value = "1000"
    await pilot.press("enter")
    await settle(pilot, timeout=300)


def pg_query(table: Any, order: str, **options: Any) -> Any:
    from dynotui.postgres.sql import PgQuery

    return PgQuery(table, table.order(order), **options)


PG_SHOTS: list[tuple[str, dict[str, Any], tuple[int, int], Steps]] = [
    ("pg-main", {"order": "orders_created_id", "page_size": 20}, (160, 40), keys("n", "n")),
    ("pg-compare", {"order": "orders_created_id", "page_size": 20}, (200, 45), pg_compare),
    (
        "pg-filter",
        {"order": "orders_status", "where": "total > $1", "params": (890,), "page_size": 20},
        (160, 40),
        keys("n"),
    ),
    (
        "pg-mixed",
        {"order": "orders_customer_created", "page_size": 20},
        (160, 40),
        keys(*"nnnnnnnnnnnnnnnnnnnnnn"),
    ),
]


async def shoot_postgres(uri: str, out: Path, only: Sequence[str]) -> None:
    from dynotui.postgres.connection import PgOptions, connect
    from dynotui.postgres.schema import describe_table
    from dynotui.ui.postgres.adapter import PostgresAdapter

    options = PgOptions(uri=uri)
    for name, spec, size, steps in PG_SHOTS:
        if only and name not in only:
            continue
        session = connect(options)
        table = describe_table(session, "orders")
        app = PagerApp(
            PostgresAdapter(session, options, query=pg_query(table, **spec)),
            clock=FixedClock(),
            signer=CursorSigner(b"screenshots-secret-0123456789"),
            system_copy=Recorder(),
        )
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await steps(pilot, app)
            print(app.save_screenshot(f"{name}.svg", str(out)))
        session.close()


async def shoot(client: Any, endpoint: str, out: Path, only: Sequence[str]) -> None:
    options = ConnectionOptions(endpoint_url=endpoint)
    for name, form, size, steps in SHOTS:
        if only and name not in only:
            continue
        app = dynamodb_app(
            client,
            form,
            table=shop.TABLE if name in ON_SHOP else TABLE,
            label=describe(client, options),  # the title bar the demo shows
            options=options,
            clock=FixedClock(),
            signer=CursorSigner(b"screenshots-secret-0123456789"),
            system_copy=Recorder(),
        )
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await steps(pilot, app)
            print(app.save_screenshot(f"{name}.svg", str(out)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent.parent / "screenshots")
    parser.add_argument("only", nargs="*", help="names of shots to take (default: all)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    wanted = set(args.only)
    if not wanted or wanted - {name for name, *_ in PG_SHOTS}:
        home = ensure_home()
        db, _ = demo_cache.ensure(home)
        with DynamoDBLocal(home=home, db_file=db) as server:
            asyncio.run(shoot(server.client(), server.endpoint_url, args.out, args.only))
    if not wanted or wanted & {name for name, *_ in PG_SHOTS}:
        from dynotui.local import pg_demo
        from dynotui.local.pg_runner import EmbeddedPostgres

        with EmbeddedPostgres() as pg:
            pg_demo.seed(pg.uri)
            asyncio.run(shoot_postgres(pg.uri, args.out, args.only))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
