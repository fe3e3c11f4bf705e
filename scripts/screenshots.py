"""Write the README's screenshots: the real app, driven by keys, on the seeded demo table.

    python scripts/screenshots.py [--out screenshots]

Starts DynamoDB Local, seeds the demo table, runs the app headless and saves SVGs.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dynotui.core.query_form import QueryForm
from textual.widgets import DataTable, Input

from dynotui.local.demo import BIG_CUSTOMER, TABLE, seed_demo
from dynotui.local.runner import DynamoDBLocal
from dynotui.ui.app import DynotuiApp
from dynotui.ui.pilot import settle

SIZE = (150, 40)
SHOTS: list[tuple[str, QueryForm, Sequence[str]]] = [
    ("main", QueryForm(partition_value=BIG_CUSTOMER, page_size="20"), ["n", "n"]),
    (
        "filter-waste",
        QueryForm(
            partition_value=BIG_CUSTOMER,
            filter="status = :r",
            values='{":r": "RETURNED"}',
            page_size="10",
            mode="fill",
        ),
        ["n", "n", "n"],
    ),
    ("stack", QueryForm(partition_value=BIG_CUSTOMER, page_size="20"), ["n", "n", "n", "p", "s"]),
    ("item", QueryForm(partition_value=BIG_CUSTOMER, page_size="20"), ["down", "down", "enter"]),
    ("code", QueryForm(partition_value=BIG_CUSTOMER, page_size="20"), ["n", "c"]),
    (
        "gsi-order",
        QueryForm(order="by_status", partition_value="CANCELLED", page_size="20"),
        ["n"],
    ),
]


async def shoot(client: Any, label: str, out: Path) -> None:
    for name, form, keys in SHOTS:
        app = DynotuiApp(client, connection_label=label, table=TABLE, form=form)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            app.query_one("#results", DataTable).focus()
            for key in keys:
                await pilot.press(key)
                await settle(pilot)
            path = app.save_screenshot(f"{name}.svg", str(out))
            print(path)
    await shoot_compare(client, label, out)


async def shoot_compare(client: Any, label: str, out: Path) -> None:
    """Base order on the left with a wasteful filter, the GSI that serves it on the right."""
    form = QueryForm(
        partition_value=BIG_CUSTOMER,
        filter="status = :r",
        values='{":r": "RETURNED"}',
        page_size="15",
    )
    app = DynotuiApp(client, connection_label=label, table=TABLE, form=form)
    async with app.run_test(size=(200, 45)) as pilot:
        await settle(pilot)
        for key in ("w", "tab", "o"):
            await pilot.press(key)
            await settle(pilot)
        app.screen.query_one(Input).value = "by_status"
        await pilot.press("enter")
        await settle(pilot)
        app.screen.query_one("#partition_value", Input).value = "RETURNED"
        await pilot.press("ctrl+s")
        await settle(pilot)
        for key in ("N", "N"):
            await pilot.press(key)
            await settle(pilot)
        print(app.save_screenshot("compare.svg", str(out)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent.parent / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with DynamoDBLocal() as server:
        client = server.client()
        seed_demo(client)
        asyncio.run(shoot(client, "DynamoDB Local (dynotui demo)", args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
