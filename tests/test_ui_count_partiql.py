"""Count and PartiQL in the TUI, against DynamoDB Local and a plain boto3 ground truth."""

from __future__ import annotations

import json
from typing import Any

from faultproxy import FaultProxy
from helpers import drain
from textual.widgets import Label, ProgressBar, Static, TextArea
from uihelpers import grid_rows, make_app, text_of

from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.ui.dynamodb.count_screen import CountScreen
from dynotui.ui.dynamodb.partiql import PartiQLQuery
from dynotui.ui.dynamodb.query_screen import QueryScreen
from dynotui.ui.testing import settle

RARE = QueryForm(
    partition_value=demo.BIG_CUSTOMER,
    filter="status = :r",
    values='{":r": "RETURNED"}',
    page_size="25",
)


async def wait_for_count(pilot: Any, screen: CountScreen) -> None:
    for _ in range(600):
        await pilot.pause(0.05)
        if screen.result is not None:
            return
    raise TimeoutError("the count did not finish")


async def test_count_dialog_forecasts_counts_and_keeps_the_result(client, demo_table) -> None:
    truth = len(
        drain(
            client,
            TableName=demo.TABLE,
            KeyConditionExpression="customer = :c",
            FilterExpression="#s = :r",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":c": {"S": demo.BIG_CUSTOMER}, ":r": {"S": "RETURNED"}},
        )
    )
    app = make_app(client, RARE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("number_sign")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CountScreen)
        forecast = text_of(screen.query_one("#count-forecast", Static))
        assert "Forecast" in forecast and "estimate from the pages seen so far" in forecast
        assert not screen.query_one(ProgressBar).display, "no percentage of an unknown total"
        await pilot.press("enter")
        await wait_for_count(pilot, screen)
        result = screen.result
        assert result.complete and result.count == truth
        details = text_of(screen.query_one("#count-details", Static))
        assert f"{truth:,} matches" in details and "drift" in details
        assert f"cost {result.capacity.total:,.10g} RCU" in details
        await pilot.press("escape")
        await settle(pilot)
        status = text_of(app.main_view.query_one("#status-line", Static))
        assert f"{truth:,} matches, counted" in status and "RCU" in status


async def test_a_count_stops_at_escape_and_says_it_is_partial(ddb, demo_table) -> None:
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        slow = make_client(ConnectionOptions(endpoint_url=proxy.endpoint_url))
        app = make_app(slow, QueryForm(scan=True, page_size="10"))
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            proxy.delay = 0.3
            await pilot.press("number_sign")
            await settle(pilot)
            screen = app.screen
            assert "Items to read: ~" in text_of(screen.query_one("#count-forecast", Static))
            await pilot.press("enter")
            for _ in range(200):
                await pilot.pause(0.05)
                if proxy.forwarded["Scan"] >= 2:
                    break
            await pilot.press("escape")
            await wait_for_count(pilot, screen)
            calls_then = proxy.forwarded["Scan"]
            assert not screen.result.complete and screen.result.count > 0
            assert "partial count" in text_of(screen.query_one("#count-details", Static))
            await pilot.pause(1.0)
            assert proxy.forwarded["Scan"] == calls_then, "no call after the stop"
            await pilot.press("escape")
            await settle(pilot)
            assert "partial count" in text_of(app.main_view.query_one("#status-line", Static))
            partial = screen.result
            await pilot.press("number_sign")  # again: the forecast starts from that count
            await settle(pilot)
            again = text_of(app.screen.query_one("#count-forecast", Static))
            assert f"had found {partial.count:,} matches" in again
            assert f"{partial.scanned:,} items it read" in again


async def test_partiql_tab_pages_like_the_plain_loop(client, demo_table) -> None:
    statement = f'SELECT * FROM "{demo.TABLE}" WHERE customer = ?'
    truth: list[list[dict]] = []
    token = None
    while True:
        params: dict[str, Any] = {"Statement": statement, "Parameters": [{"S": "c007"}], "Limit": 6}
        if token:
            params["NextToken"] = token
        response = client.execute_statement(**params)
        truth.append(response["Items"])
        token = response.get("NextToken")
        if not token:
            break
    app = make_app(client, QueryForm(partition_value="c007", page_size="6"))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("colon")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
        area = app.screen.query_one("#statement", TextArea)
        assert area.text == f'SELECT * FROM "{demo.TABLE}" WHERE "customer" = ?'
        area.text = f'DELETE FROM "{demo.TABLE}" WHERE customer = ?'
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen), "refused before any call"
        assert "only SELECT" in str(app.screen.query_one("#statement-error", Label).render())
        area.text = statement
        app.screen.query_one("#parameters").value = json.dumps([{"S": "c007"}])
        await pilot.press("ctrl+s")
        await settle(pilot)
        view = app.main_view
        assert isinstance(view.state.query, PartiQLQuery)
        shown = [list(app.pager.current.items)]
        while app.pager.can_advance:
            await pilot.press("n")
            await settle(pilot)
            shown.append(list(app.pager.current.items))
        assert shown == truth
        await pilot.press("p")
        await settle(pilot)
        assert list(app.pager.current.items) == truth[-2] and app.pager.current.cached
        assert "not reported" in text_of(view.query_one("#page-cost", Static))
        assert grid_rows(view)[0][:2] == ["c007", truth[-2][0]["order_no"]["S"]]
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(view.state.query, PartiQLQuery)
        await pilot.press("c")
        await settle(pilot)
        assert "execute_statement" in app.screen.code["boto3"]
