"""The TUI driven with Pilot against DynamoDB Local; every figure checked against the engine."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from textual.widgets import DataTable, Input, Label, Static, Switch

from dynotui.core.connection import ConnectionOptions, make_client
from dynotui.core.pager import Pager
from dynotui.core.query_form import QueryForm, build_spec
from dynotui.core.schema import describe_table
from dynotui.local import demo
from dynotui.ui.app import DynotuiApp
from dynotui.ui.cells import cell, columns
from dynotui.ui.item_screen import ItemScreen
from dynotui.ui.pilot import settle
from dynotui.ui.query_screen import QueryScreen
from dynotui.ui.sidebar import CostSidebar
from dynotui.ui.stack_screen import StackScreen

RARE_FORM = QueryForm(
    partition_value=demo.BIG_CUSTOMER,
    filter="status = :r",
    values='{":r": "RETURNED"}',
    page_size="25",
)


class FixedClock:
    """Every call lasts 2.5 ms: latency figures that snapshots can hold. Per thread, since
    the compare view's two sides read at the same time."""

    def __init__(self) -> None:
        self.local = threading.local()

    def __call__(self) -> float:
        self.local.now = getattr(self.local, "now", 0.0) + 0.0025
        return self.local.now


def rows(app: DynotuiApp) -> list[list[str]]:
    table = app.query_one("#results", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def expected_rows(page: Any, key_names: tuple[str, ...]) -> list[list[str]]:
    names = columns(page.items, key_names)
    return [[cell(item.get(name)) for name in names] for item in page.items]


def sidebar_text(app: DynotuiApp) -> str:
    return str(app.query_one("#page-cost", Static).render())


def make_app(client: Any, form: QueryForm = RARE_FORM) -> DynotuiApp:
    return DynotuiApp(
        client,
        connection_label="DynamoDB Local (tests)",
        table=demo.TABLE,
        form=form,
        clock=FixedClock(),
    )


async def test_next_three_back_two_matches_the_engine(client, demo_table) -> None:
    schema = describe_table(client, demo_table)
    engine = Pager(client, build_spec(schema, RARE_FORM), schema)
    truth = [engine.next() for _ in range(4)]
    app = make_app(client)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        assert app.pager is not None and app.pager.number == 1
        for _ in range(3):
            await pilot.press("n")
            await settle(pilot)
        assert app.pager.number == 4
        await pilot.press("p")
        await settle(pilot)
        await pilot.press("left")
        await settle(pilot)
        assert app.pager.number == 2
        page = truth[1]
        assert rows(app) == expected_rows(page, schema.cursor_key_names(None))
        text = sidebar_text(app)
        assert f"Scanned    {page.scanned_count:,}" in text
        assert f"Count      {page.count:,}" in text
        assert f"Capacity   {page.capacity.total:g} RCU" in text
        assert "cached" in text
        assert f"Page 2 · {len(page.items)} items" in str(
            app.query_one("#status-line", Static).render()
        )
        totals = str(app.query_one("#session-cost", Static).render())
        assert "Pages read 4  calls 4" in totals
        assert f"Capacity   {sum(p.capacity.total for p in truth):g} RCU" in totals


async def test_empty_page_with_a_key_says_so(client, demo_table) -> None:
    app = make_app(client, RARE_FORM.with_(page_size="5"))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        for _ in range(40):
            assert app.pager is not None and app.pager.current is not None
            if app.pager.current.empty_with_key:
                break
            await pilot.press("n")
            await settle(pilot)
        assert app.pager.current.empty_with_key
        status = str(app.query_one("#status-line", Static).render())
        assert "EMPTY PAGE WITH A KEY" in status and "not the end" in status
        assert "Empty page, but a key came back" in sidebar_text(app)
        assert app.query_one(CostSidebar).has_class("-wasteful")


async def test_invalid_filter_shows_an_error_and_keeps_the_page(client, demo_table) -> None:
    app = make_app(client)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        before = (rows(app), app.pager.number, app.pager.stack)
        old_pager = app.pager
        # caught by DynamoDB: contains() needs two arguments
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
        app.screen.query_one("#filter", Input).value = "contains(status)"
        app.screen.query_one("#values", Input).value = ""
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, QueryScreen)
        assert app.pager is old_pager
        assert (rows(app), app.pager.number, app.pager.stack) == before
        messages = [n.message for n in app._notifications]
        assert any("DynamoDB rejected the request" in m for m in messages)
        # caught before any call, at the field
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one("#filter", Input).value = "#nope = :r"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
        error = str(app.screen.query_one("#filter-error", Label).render())
        assert "#nope" in error
        await pilot.press("escape")
        await settle(pilot)
        assert (rows(app), app.pager.number) == before[:2]


async def test_connection_failure_keeps_stack_and_page(client, demo_table) -> None:
    app = make_app(client)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        before = (rows(app), app.pager.number, app.pager.stack, app.pager.cached_numbers())
        app.pager.client = make_client(
            ConnectionOptions(endpoint_url="http://127.0.0.1:9", region="us-east-1"),
            max_attempts=1,
        )
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        after = (rows(app), app.pager.number, app.pager.stack, app.pager.cached_numbers())
        assert after == before
        messages = [n.message for n in app._notifications]
        assert sum("cannot reach DynamoDB" in m for m in messages) == 2
        assert not app.query_one("#results", DataTable).loading


async def test_item_modal_toggles_plain_and_dynamodb_json(client, demo_table) -> None:
    app = make_app(client, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="5"))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.query_one("#results", DataTable).focus()
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ItemScreen)
        item = app.pager.current.items[1]
        assert app.screen.item == item
        plain = app.screen.shown_json
        assert f'"order_no": "{item["order_no"]["S"]}"' in plain
        await pilot.press("d")
        await pilot.pause()
        typed = app.screen.shown_json
        assert '"S": "acme"' in typed


async def test_stack_view_jumps_to_a_page(client, demo_table) -> None:
    app = make_app(client, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="10"))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        for _ in range(3):
            await pilot.press("n")
            await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, StackScreen)
        table = app.screen.query_one(DataTable)
        assert table.row_count == 5  # four pages read, the fifth's start key known
        await pilot.press("up", "up", "up", "enter")
        await settle(pilot)
        assert app.pager.number == 1


async def test_gsi_form_disables_consistent_read_and_mode_toggle(client, demo_table) -> None:
    form = QueryForm(order="by_status", partition_value="PLACED", page_size="10")
    app = make_app(client, form)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        assert app.pager.spec.index == "by_status"
        assert "eventually consistent" in str(app.query_one("#query-line", Static).render())
        await pilot.press("e")
        await settle(pilot)
        switch = app.screen.query_one("#consistent_read", Switch)
        assert switch.disabled and not switch.value
        assert "GSI" in str(app.screen.query_one("#consistent_read-error", Label).render())
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert app.pager.spec.mode == "fill"
        assert len(app.pager.current.items) == 10 and app.pager.number == 1


@pytest.mark.parametrize(
    ("keys", "name"),
    [([], "main"), (["down", "enter"], "item"), (["n", "n", "s"], "stack")],
)
def test_snapshots(snap_compare, client, demo_table, keys, name) -> None:
    app = make_app(client, RARE_FORM.with_(page_size="8", mode="fill"))

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        app.query_one("#results", DataTable).focus()
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    assert snap_compare(app, terminal_size=(150, 40), run_before=run_before)
