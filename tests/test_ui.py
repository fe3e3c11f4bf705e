"""The TUI driven with Pilot against DynamoDB Local; every figure checked against the engine.
Three tests of forms and the item screen, with no figure of the engine's in them, read the
demo table in memory (``memory_demo``)."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import responses
from textual.widgets import Checkbox, DataTable, Input, Label, Static
from uihelpers import (
    RARE_FORM,
    column_names,
    expected_rows,
    figure,
    first_seen,
    folded_labels,
    grid_labels,
    grid_rows,
    make_app,
    messages,
    sidebar_text,
    text_of,
)

from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.query_form import QueryForm, build_spec
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import query_pager
from dynotui.local import demo
from dynotui.ui.dynamodb.query_screen import QueryScreen
from dynotui.ui.screens.item import ItemScreen
from dynotui.ui.screens.stack import StackScreen
from dynotui.ui.testing import settle
from dynotui.ui.widgets.sidebar import CostSidebar


async def test_next_three_back_two_matches_the_engine(client, demo_table) -> None:
    schema = describe_table(client, demo_table)
    engine = query_pager(client, build_spec(schema, RARE_FORM), schema)
    truth = [engine.next() for _ in range(4)]
    app = make_app(client)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        view = app.main_view
        assert app.pager is not None and app.pager.number == 1
        for _ in range(3):
            await pilot.press("n")
            await settle(pilot)
        assert app.pager.number == 4
        await pilot.press("p")
        await settle(pilot)
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert app.pager.number == 2
        page = truth[1]
        keys = schema.cursor_key_names(None)
        names = first_seen(truth, keys)
        assert column_names(view) == names, "the session's columns, in first-seen order"
        assert grid_labels(view) == folded_labels(names, keys, page.items)
        assert grid_rows(view) == expected_rows(view, page)
        assert [row[1] for row in grid_rows(view)] == [i["order_no"]["S"] for i in page.items]
        text = sidebar_text(view)
        assert figure(text, "Scanned") == (f"{page.scanned_count:,}", "items")
        assert figure(text, "Count")[0] == f"{page.count:,}"
        assert figure(text, "Capacity") == (f"{page.cost.capacity.total:g}", "RCU")
        assert "cached" in text
        status = text_of(view.query_one("#status-line", Static))
        assert f"Page 2 · {page.shown} item" in status
        totals = text_of(view.query_one("#query-cost", Static))
        assert "4 pages read, re-reads included" in totals and figure(totals, "Calls")[0] == "4"
        assert figure(totals, "Cost") == (f"{sum(p.cost.capacity.total for p in truth):g}", "RCU")


async def test_empty_page_with_a_key_says_so(client, demo_table) -> None:
    app = make_app(client, RARE_FORM.with_(page_size="5"))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        view = app.main_view
        for _ in range(40):
            assert app.pager is not None and app.pager.current is not None
            if app.pager.current.empty_with_key:
                break
            await pilot.press("n")
            await settle(pilot)
        assert app.pager.current.empty_with_key
        status = text_of(view.query_one("#status-line", Static))
        assert "EMPTY PAGE WITH A KEY" in status and "not the end" in status
        assert "0 items" in status
        assert "Empty page, but a key came back" in sidebar_text(view)
        assert view.query_one(CostSidebar).has_class("-wasteful")


async def test_invalid_filter_shows_an_error_and_keeps_the_page(client, demo_table) -> None:
    app = make_app(client)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        view = app.main_view
        await pilot.press("n")
        await settle(pilot)
        before = (grid_rows(view), app.pager.number, app.pager.stack, view.state)
        # caught by DynamoDB: RETURNED is not an attribute type
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
        app.screen.query_one("#filter", Input).value = "attribute_type(status, :r)"
        await pilot.press("ctrl+s")
        await settle(pilot)
        # Refused by DynamoDB: the form again, with what was typed and why; nothing changed.
        assert isinstance(app.screen, QueryScreen)
        assert app.screen.query_one("#filter", Input).value == "attribute_type(status, :r)"
        assert "DynamoDB refused this query" in str(
            app.screen.query_one("#query-note", Label).render()
        )
        assert (grid_rows(view), app.pager.number, app.pager.stack, view.state) == before
        assert any("DynamoDB rejected the request" in m for m in messages(app))
        # caught before any call, at the field; fixing the field clears its error
        app.screen.query_one("#filter", Input).value = "#nope = :r"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
        error = app.screen.query_one("#filter-error", Label)
        assert "#nope" in str(error.render())
        app.screen.query_one("#filter", Input).value = "status = :r"
        await settle(pilot)
        assert str(error.render()) == ""
        await pilot.press("escape")
        await settle(pilot)
        assert (grid_rows(view), app.pager.number, view.state) == (before[0], before[1], before[3])


async def test_values_error_clears_once_fixed(memory_demo) -> None:
    app = make_app(memory_demo)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        values = app.screen.query_one("#values", Input)
        values.value = '{":r": "RETURNED"'
        await pilot.press("ctrl+s")
        await settle(pilot)
        error = app.screen.query_one("#values-error", Label)
        assert "not valid JSON" in str(error.render())
        values.value = '{":r": "RETURNED"}'
        await settle(pilot)
        assert "not valid JSON" not in str(error.render())


async def test_connection_failure_keeps_stack_and_page(client, demo_table) -> None:
    app = make_app(client)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        view = app.main_view
        await pilot.press("n")
        await settle(pilot)
        before = (grid_rows(view), app.pager.number, app.pager.stack, app.pager.cached_numbers())
        view.use_client(
            make_client(
                ConnectionOptions(
                    endpoint_url="http://127.0.0.1:9", region="us-east-1", max_attempts=1
                )
            )
        )
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        after = (grid_rows(view), app.pager.number, app.pager.stack, app.pager.cached_numbers())
        assert after == before
        assert sum("cannot reach DynamoDB" in m for m in messages(app)) == 2
        assert all("R retries" in m for m in messages(app) if "cannot reach" in m)
        assert not view.reading


async def test_item_modal_toggles_plain_and_dynamodb_json(memory_demo) -> None:
    app = make_app(memory_demo, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="5"))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.main_view.results.focus()
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ItemScreen)
        item = app.pager.current.items[1]
        assert app.screen.item == item
        plain = app.screen.shown_json
        assert f'"order_no": "{item["order_no"]["S"]}"' in plain
        assert f'"total": {item["total"]["N"]}' in plain, "numbers as numbers, every digit"
        await pilot.press("d")
        await settle(pilot)
        typed = app.screen.shown_json
        assert '"S": "acme"' in typed


async def test_stack_view_is_a_ledger_and_jumps(client, demo_table) -> None:
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
        labels = [str(c.label) for c in table.ordered_columns]
        assert labels == [
            "page",
            "Count",
            "Scanned",
            "cost",
            "of which",
            "calls",
            "ended",
            "",
            "start key (where the page opens)",
        ]
        second = [str(c) for c in table.get_row_at(1)]
        # Page 2 as a plain boto3 loop reads it: the second call of Limit 10.
        truth = responses(
            client.query,
            pages=2,
            TableName=demo_table,
            KeyConditionExpression="customer = :c",
            ExpressionAttributeValues={":c": {"S": demo.BIG_CUSTOMER}},
            Limit=10,
            ReturnConsumedCapacity="INDEXES",
        )[1]
        used = truth["ConsumedCapacity"]
        assert second[0] == "2" and second[1] == f"{truth['Count']:,}"
        assert second[2] == f"{truth['ScannedCount']:,}"
        assert second[3] == f"{used['CapacityUnits']:,.10g} RCU"
        assert second[4] == f"table {used['Table']['CapacityUnits']:,.10g}"
        assert second[5] == "1" and second[6] == "Limit reached" and "cached" in second[7]
        assert "not read yet" in str(table.get_row_at(4)[7])
        await pilot.press("up", "up", "up", "enter")
        await settle(pilot)
        assert app.pager.number == 1


async def test_gsi_form_disables_consistent_read_and_mode_toggle(memory_demo) -> None:
    form = QueryForm(order="by_status", partition_value="PLACED", page_size="10")
    app = make_app(memory_demo, form)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        view = app.main_view
        assert app.pager.source.spec.index == "by_status"
        assert "eventually consistent" in text_of(view.query_one("#query-line", Static))
        await pilot.press("e")
        await settle(pilot)
        switch = app.screen.query_one("#consistent_read", Checkbox)
        assert switch.disabled and not switch.value
        assert "GSI" in str(app.screen.query_one("#consistent_read-error", Label).render())
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert app.pager.source.spec.mode == "fill"
        assert len(app.pager.current.items) == 10 and app.pager.number == 1
        assert any("fill mode: a new cursor stack" in m for m in messages(app))


@pytest.mark.parametrize(
    ("keys", "name"),
    [([], "main"), (["down", "enter"], "item"), (["n", "n", "s"], "stack")],
)
def test_snapshots(snap_compare, client, demo_table, keys, name) -> None:
    app = make_app(client, RARE_FORM.with_(page_size="8", mode="fill"))

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        app.main_view.results.focus()
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    assert snap_compare(app, terminal_size=(150, 40), run_before=run_before)
