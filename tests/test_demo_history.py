"""A demo's history: every demo listens on a new port, so its entries name the demo, and
the next demo (h, or ``dynotui --resume``, which starts one) reopens them on its own."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from faultproxy import FaultProxy
from terminal import Terminal
from textual.widgets import Static
from uihelpers import Recorder, dynamodb_app, said, text_of

from dynotui.core.history import HistoryError, HistoryStore
from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.history_entry import connection_record, query_entry, read_on_demo, reopen
from dynotui.dynamodb.query_form import QueryForm
from dynotui.dynamodb.spec import from_expressions
from dynotui.local import demo
from dynotui.ui.screens.history import HistoryScreen
from dynotui.ui.testing import settle

ACME = QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="25")


def demo_options(endpoint: str) -> ConnectionOptions:
    """What ``dynotui demo`` connects with when it started this DynamoDB Local itself."""
    return ConnectionOptions(endpoint_url=endpoint, demo_endpoint=endpoint)


def acme_spec() -> Any:
    return from_expressions(
        demo.TABLE, key_condition="customer = :c", values={":c": {"S": demo.BIG_CUSTOMER}}
    )


def test_a_demo_entry_names_the_demo_and_no_port(tmp_path: Path) -> None:
    first, second = demo_options("http://127.0.0.1:8101"), demo_options("http://127.0.0.1:8202")
    assert connection_record(first) == connection_record(second)
    assert connection_record(first)["demo"] is True
    assert connection_record(first)["endpoint_url"] is None
    store = HistoryStore(tmp_path / "history.json")
    store.record_open(query_entry(acme_spec(), first))
    store.record_open(query_entry(acme_spec(), second))
    assert len(store.entries()) == 1, "the same query on the demo is one entry"
    # Moved elsewhere with E, or the user's own DynamoDB Local given to the demo: an endpoint.
    moved = replace(first, endpoint_url="http://127.0.0.1:9000")
    for options in (moved, ConnectionOptions(endpoint_url="http://127.0.0.1:8101")):
        assert "demo" not in connection_record(options)
        assert connection_record(options)["endpoint_url"] == options.endpoint_url


def test_a_demo_entry_reopens_on_a_demo_and_nowhere_else(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "history.json")
    store.record_open(query_entry(acme_spec(), demo_options("http://127.0.0.1:8101")))
    entry = store.last()
    assert entry is not None and read_on_demo(entry)
    now = demo_options("http://127.0.0.1:8303")
    assert reopen(entry, now).connection == now
    for elsewhere in (None, ConnectionOptions(), ConnectionOptions(endpoint_url=now.endpoint_url)):
        with pytest.raises(HistoryError, match="read on the demo's DynamoDB Local"):
            reopen(entry, elsewhere)


async def test_h_in_the_next_demo_reopens_the_last_demos_entry(
    ddb: Any, demo_table: str, tmp_path: Path
) -> None:
    """The first demo's endpoint (a proxy here) is gone when the second demo runs on
    another port; its entry opens there at the page it was left on, the same items."""
    store = HistoryStore(tmp_path / "history.json")
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        first = demo_options(proxy.endpoint_url)
        app = dynamodb_app(
            make_client(first), ACME, options=first, history=store, system_copy=Recorder()
        )
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            await pilot.press("n", "n")
            await settle(pilot)
            left_on = (app.pager.number, list(app.pager.current.items))
            await pilot.press("q")
    assert left_on[0] == 3
    second = demo_options(ddb.endpoint_url)
    # Another customer first: opening acme again would make a new entry of it at page 1.
    other = QueryForm(partition_value="c001", page_size="25")
    again = dynamodb_app(
        make_client(second), other, options=second, history=store, system_copy=Recorder()
    )
    async with again.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        assert isinstance(again.screen, HistoryScreen)
        assert [e.page for e in again.screen.entries] == [1, 3]
        await pilot.press("down", "enter")
        await settle(pilot)
        assert list(again.pager.current.items) == left_on[1], "the same items"
        line = text_of(again.main_view.query_one("#query-line", Static))
        assert "reopened from history at page 3" in line
        assert not [s for s in said(again) if s.title == "History"], said(again)
        await pilot.press("q")


@pytest.mark.jvm
def test_resume_after_a_demo_starts_a_demo_and_reopens_there(
    ddb: Any, demo_table: str, tmp_path: Path
) -> None:
    """The demo that wrote the entry is gone (its port with it): ``dynotui --resume``
    starts the demo's DynamoDB Local again and opens the entry at its page."""
    client = make_client(ConnectionOptions(endpoint_url=ddb.endpoint_url))
    boundary = client.query(
        TableName=demo.TABLE,
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues={":c": {"S": demo.BIG_CUSTOMER}},
        Limit=50,
    )["LastEvaluatedKey"]
    data = tmp_path / "data"
    store = HistoryStore(data / "dynotui" / "history.json")
    gone = demo_options("http://127.0.0.1:1")
    entry = store.record_open(query_entry(acme_spec(), gone, ACME))
    store.viewed(entry, page=3, boundary=boundary, cost={})
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["XDG_DATA_HOME"] = str(data)
    terminal = Terminal(["--resume"], env, size=(120, 36))
    try:
        text = terminal.wait_for(lambda t: "reopened from history at page 3" in t, timeout=600)
        first_order = client.query(
            TableName=demo.TABLE,
            KeyConditionExpression="customer = :c",
            ExpressionAttributeValues={":c": {"S": demo.BIG_CUSTOMER}},
            ExclusiveStartKey=boundary,
            Limit=1,
        )["Items"][0]["order_no"]["S"]
        assert first_order in text, "page 3 re-read from its stored start key"
        terminal.send(b"q")
        assert terminal.wait_exit(60) == 0
    finally:
        terminal.close()
