"""Page 1's Query sent beside DescribeTable from the table's remembered shape (on DynamoDB
Local, through the fault proxy, which holds every request at its gate): it goes out
before DescribeTable has answered; the page equals a plain boto3 Query; a shape that no
longer holds is read again (and the boundary is the new table's); a file this code did
not write, or a folder others can write, is not trusted; the command keeps none with
history off."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faultproxy import FaultProxy
from helpers import responses, until
from terminal import Terminal

from dynotui.core.errors import ServiceError
from dynotui.core.ledger import SessionLedger
from dynotui.dynamodb.connection import ConnectionOptions
from dynotui.dynamodb.opening import Opening
from dynotui.dynamodb.query_form import QueryForm
from dynotui.dynamodb.schema import parse_schema
from dynotui.dynamodb.table_shapes import (
    MAX_BYTES,
    TableShapes,
    schema_from_shape,
    shape_of,
)
from dynotui.local.tables import Index, create_table, table_definition, write_items
from dynotui.process.forked import can_fork

needs_fork = pytest.mark.skipif(not can_fork(), reason="fork is used on Linux only")
MODES = [pytest.param(True, id="forked", marks=needs_fork), pytest.param(False, id="thread")]


def truth(client: Any, table: str, key: str, value: str, size: int, count: int) -> list[list]:
    found = responses(
        client.query,
        pages=count,
        TableName=table,
        KeyConditionExpression="#k = :v",
        ExpressionAttributeNames={"#k": key},
        ExpressionAttributeValues={":v": {"S": value}},
        Limit=size,
    )
    return [response["Items"] for response in found]


def open_through(
    proxy: FaultProxy,
    table: str,
    shapes: TableShapes,
    value: str = "acme",
    size: int = 7,
    fork: bool = False,
) -> Opening:
    """Page 1 of partition ``value``; in a thread of this process unless ``fork`` (where
    early_page is set in the child, and not seen here)."""
    options = ConnectionOptions(endpoint_url=proxy.endpoint_url, max_attempts=1)
    form = QueryForm(partition_value=value, page_size=str(size))
    return Opening(options, table, form, fork=fork, shapes=shapes).start()


def opened(opening: Opening) -> Any:
    """What the opening read; in this process, once it has kept the table's shape too."""
    assert opening.done.wait(60)
    if opening._child is None:
        assert opening.shape_settled.wait(60)
    return opening.opened


def make_table(client: Any, name: str, key: str, sort: str) -> None:
    """Twelve items in partition "p"."""
    create_table(client, table_definition(name, (key, "S"), (sort, "S")))
    write_items(client, name, [{key: "p", sort: f"{i:02d}", "n": i} for i in range(12)])


def drop(client: Any, name: str) -> None:
    client.delete_table(TableName=name)
    client.get_waiter("table_not_exists").wait(
        TableName=name, WaiterConfig={"Delay": 0.2, "MaxAttempts": 100}
    )


@pytest.mark.parametrize("fork", MODES)
def test_page_one_goes_out_beside_describe_table_once_the_shape_is_remembered(
    ddb: Any, client: Any, demo_table: str, tmp_path: Path, fork: bool
) -> None:
    shapes = TableShapes(tmp_path / "state")
    pages = responses(
        client.query,
        pages=2,
        TableName=demo_table,
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues={":c": {"S": "acme"}},
        Limit=7,
    )
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        options = ConnectionOptions(endpoint_url=proxy.endpoint_url)
        form = QueryForm(partition_value="acme", page_size="7")
        first = Opening(options, demo_table, form, fork=fork, shapes=shapes).start()
        assert opened(first).page.items == pages[0]["Items"]
        assert proxy.arrivals == ["DescribeTable", "Query"]  # in turn: nothing remembered
        assert until(shapes.path.exists)  # kept once page 1 has gone to the app
        first.close()

        proxy.arrivals.clear()
        proxy.gate = threading.Event()  # every request waits here, unanswered
        second = Opening(options, demo_table, form, fork=fork, shapes=shapes).start()
        both_out = until(lambda: sorted(proxy.arrivals) == ["DescribeTable", "Query"])
        proxy.gate.set()
        assert both_out, f"only {proxy.arrivals} went out before DescribeTable answered"
        result = opened(second)
        assert result.error is None
        assert result.page.items == pages[0]["Items"]
        assert proxy.arrivals.count("Query") == 1  # the early page was kept, not read again
        if not fork:
            assert second.early_page == "kept"
        pager = result.pager
        pager.accept(result.page)
        assert pager.next().items == pages[1]["Items"]  # its boundary is the table's
        second.close()


@pytest.mark.parametrize("fork", MODES)
def test_a_shape_that_no_longer_holds_reads_page_one_again(
    ddb: Any, client: Any, table_name: Callable[[str], str], tmp_path: Path, fork: bool
) -> None:
    name = table_name()
    shapes = TableShapes(tmp_path / "state")
    make_table(client, name, "k", "s")
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0, operations=()) as proxy:
        first = open_through(proxy, name, shapes, "p", 5)
        assert opened(first).page.items == truth(client, name, "k", "p", 5, 1)[0]
        assert first.early_page is None and shapes.path.exists()

        # The same name, the same partition key, another sort key: the request is the
        # same, the boundary is not (it names the new sort key).
        drop(client, name)
        make_table(client, name, "k", "t")
        proxy.arrivals.clear()
        second = open_through(proxy, name, shapes, "p", 5, fork=fork)
        result = opened(second)
        expected = truth(client, name, "k", "p", 5, 2)
        assert result.error is None and result.page.items == expected[0]
        assert second.early_page == (None if fork else "read again")
        assert proxy.arrivals.count("Query") == 2
        # The page read in vain is billed all the same: counted as abandoned, in the
        # stack's totals and in the session's ledger once the app takes the stack.
        assert result.superseded is not None and result.superseded.capacity.total > 0
        assert result.pager.totals.abandoned == result.superseded
        ledger = SessionLedger()
        result.pager.attach(ledger)
        result.pager.attach(ledger)  # told once
        result.pager.accept(result.page)
        figures = ledger.figures()
        assert figures.abandoned_reads == 1 and figures.pages_read == 1
        assert figures.unit(result.superseded.unit).abandoned == result.superseded
        pager = result.pager
        assert pager.next().items == expected[1]
        assert result.page.next_start_key is not None and "t" in result.page.next_start_key
        second.close()  # a forked child is gone: it writes nothing after this

        # Another partition key: the early Query is refused by the service; read again.
        drop(client, name)
        make_table(client, name, "j", "s")
        third = open_through(proxy, name, shapes, "p", 5)
        result = opened(third)
        assert result.error is None
        assert result.page.items == truth(client, name, "j", "p", 5, 1)[0]
        assert third.early_page == "read again"

        fourth = open_through(proxy, name, shapes, "p", 5)  # the new shape was kept
        assert opened(fourth).page.items == truth(client, name, "j", "p", 5, 1)[0]
        assert fourth.early_page == "kept"


def test_an_early_query_that_fails_is_read_again_and_fails_as_a_read_does(
    ddb: Any, client: Any, demo_table: str, tmp_path: Path
) -> None:
    """Every Query refused (HTTP 500) with a remembered shape: the early read's failure is
    not the app's; page 1 is read again in turn and its failure is shown as any read's,
    in words; once the service answers, the next open keeps its early page."""
    shapes = TableShapes(tmp_path / "state")
    expected = truth(client, demo_table, "customer", "acme", 7, 1)[0]
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0, operations=("Query",)) as proxy:
        assert opened(open_through(proxy, demo_table, shapes)).page.items == expected
        proxy.fail_all = True
        proxy.arrivals.clear()
        failing = open_through(proxy, demo_table, shapes)
        result = opened(failing)
        assert result.page is None and isinstance(result.error, ServiceError)
        assert "InternalServerError" in str(result.error)  # a sentence, as any read's
        assert failing.early_page == "read again"
        assert proxy.arrivals.count("Query") == 2  # the early one, then the one in turn
        proxy.fail_all = False
        again = open_through(proxy, demo_table, shapes)
        assert opened(again).page.items == expected and again.early_page == "kept"


def _entries(shapes: TableShapes) -> list[Any]:
    return json.loads(shapes.path.read_bytes())["tables"]


def _spoil_type(shapes: TableShapes) -> None:
    document = json.loads(shapes.path.read_bytes())
    document["tables"][0][1]["orders"][0][3] = "X"  # a key type DynamoDB has not
    shapes.path.write_text(json.dumps(document))


def _spoil_name(shapes: TableShapes) -> None:
    document = json.loads(shapes.path.read_bytes())
    document["tables"][0][1]["orders"][0][2] = ["not", "a", "name"]
    shapes.path.write_text(json.dumps(document))


def _garbage(shapes: TableShapes) -> None:
    shapes.path.write_bytes(b"\x00\xff\x1b[2J not json")


def _huge(shapes: TableShapes) -> None:
    document = shapes.path.read_text()
    shapes.path.write_text(document + " " * MAX_BYTES)


SPOILERS = {"type": _spoil_type, "name": _spoil_name, "garbage": _garbage, "huge": _huge}


@pytest.mark.parametrize("spoil", sorted(SPOILERS))
def test_a_file_this_did_not_write_is_not_trusted_and_is_written_anew(
    ddb: Any, client: Any, demo_table: str, tmp_path: Path, spoil: str
) -> None:
    shapes = TableShapes(tmp_path / "state")
    expected = truth(client, demo_table, "customer", "acme", 7, 1)[0]
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0, operations=()) as proxy:
        first = open_through(proxy, demo_table, shapes)
        assert opened(first).page.items == expected
        SPOILERS[spoil](shapes)
        proxy.arrivals.clear()
        second = open_through(proxy, demo_table, shapes)
        assert opened(second).page.items == expected
        assert second.early_page is None  # nothing was recalled
        assert proxy.arrivals == ["DescribeTable", "Query"]
        third = open_through(proxy, demo_table, shapes)  # kept anew, and used
        assert opened(third).page.items == expected
        assert third.early_page == "kept"
    assert len(_entries(shapes)) == 1


def test_a_link_a_fifo_or_a_folder_others_can_write_is_neither_read_nor_written(
    ddb: Any, client: Any, demo_table: str, tmp_path: Path
) -> None:
    shapes = TableShapes(tmp_path / "state")
    expected = truth(client, demo_table, "customer", "acme", 7, 1)[0]
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0, operations=()) as proxy:
        assert opened(open_through(proxy, demo_table, shapes)).page.items == expected
        kept = shapes.path.read_bytes()

        elsewhere = tmp_path / "elsewhere.json"
        elsewhere.write_bytes(kept)
        shapes.path.unlink()
        shapes.path.symlink_to(elsewhere)
        second = open_through(proxy, demo_table, shapes)
        assert opened(second).page.items == expected
        assert second.early_page is None  # not read through the link
        assert not shapes.path.is_symlink()  # replaced by a file of its own
        assert stat.S_IMODE(shapes.path.stat().st_mode) == 0o600  # owner-only, as ever
        assert elsewhere.read_bytes() == kept  # the link's target is untouched

        shapes.path.unlink()
        os.mkfifo(shapes.path)  # a read would wait for a writer that never comes
        third = open_through(proxy, demo_table, shapes)
        assert opened(third).page.items == expected
        assert third.early_page is None and shapes.path.is_file()  # a file of its own now

        os.chmod(shapes.path.parent, 0o777)
        before = shapes.path.read_bytes()
        fourth = open_through(proxy, demo_table, shapes)
        assert opened(fourth).page.items == expected
        assert fourth.early_page is None  # a folder anyone could plant a file in
        assert shapes.path.read_bytes() == before  # and nothing written there
        os.chmod(shapes.path.parent, 0o700)


@pytest.mark.parametrize("history", ["on", "--no-history", "history = false"])
def test_the_command_keeps_a_shape_only_with_history_on(
    ddb: Any, demo_table: str, tmp_path: Path, history: str
) -> None:
    """``dynotui`` itself, in a terminal: the shape is kept once page 1 is up, unless
    history is off for the run or in the settings."""
    settings = tmp_path / "config.toml"
    settings.write_text("history = false\n" if history == "history = false" else "")
    env = {
        **os.environ,
        "DYNOTUI_CONFIG": str(settings),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    args = ["--endpoint-url", ddb.endpoint_url, "--table-name", demo_table]
    args += ["--partition-value", "acme", *(["--no-history"] if history == "--no-history" else [])]
    shapes = TableShapes(tmp_path / "state" / "dynotui")
    terminal = Terminal(args, env)
    try:
        terminal.wait_for(lambda text: "Page 1 ·" in text, timeout=120)
        if history == "on":
            assert until(shapes.path.exists), "kept once page 1 was up"
        else:  # page 2 read and shown: the opening's child has long sent its page 1
            terminal.send(b"n")
            terminal.wait_for(lambda text: "Page 2 ·" in text, timeout=120)
        terminal.send(b"q")
        assert terminal.wait_exit(60) == 0  # the child is gone: nothing is written later
    finally:
        terminal.close()
    kept = shapes.path.exists()
    assert kept is (history == "on")
    if kept:
        assert len(_entries(shapes)) == 1


def test_a_shape_keeps_what_a_request_and_a_cursor_depend_on(
    client: Any, table_name: Callable[[str], str]
) -> None:
    name = table_name()
    create_table(
        client,
        table_definition(
            name,
            ("pk", "S"),
            ("sk", "N"),
            local_indexes=(Index("by-b", ("pk", "S"), ("b", "B"), "KEYS_ONLY"),),
            global_indexes=(Index("by-g", ("g", "S"), None, "INCLUDE", ("x", "y")),),
        ),
    )
    schema = parse_schema(client.describe_table(TableName=name)["Table"])
    back = schema_from_shape(json.loads(json.dumps(shape_of(schema))))
    assert [
        (o.name, o.kind, o.partition_key, o.sort_key, o.projection, o.projected)
        for o in back.orders
    ] == [
        (o.name, o.kind, o.partition_key, o.sort_key, o.projection, o.projected)
        for o in schema.orders
    ]
    assert back.attributes == schema.attributes and back.counts_live == schema.counts_live
    for order in schema.orders:
        assert back.cursor_key_names(order.index_name) == schema.cursor_key_names(order.index_name)
    assert back.item_count is None  # counts are not kept: they change as items are written


async def test_the_app_bills_a_page_one_read_in_vain_to_the_session(
    ddb: Any, client: Any, table_name: Callable[[str], str], tmp_path: Path
) -> None:
    """A stale shape's page 1 (read, then read again) reaches the app's session ledger as
    an abandoned read: the session's spend holds both reads."""
    from dynotui.ui.app import PagerApp
    from dynotui.ui.dynamodb.adapter import DynamoDBAdapter
    from dynotui.ui.testing import settle

    name = table_name()
    shapes = TableShapes(tmp_path / "state")
    make_table(client, name, "k", "s")
    options = ConnectionOptions(endpoint_url=ddb.endpoint_url)
    form = QueryForm(partition_value="p", page_size="5")
    assert opened(Opening(options, name, form, fork=False, shapes=shapes).start()).page
    drop(client, name)
    make_table(client, name, "k", "t")
    opening = Opening(options, name, form, fork=False, shapes=shapes).start()
    result = opened(opening)
    assert opening.early_page == "read again" and result.superseded is not None
    adapter = DynamoDBAdapter(
        opening.client, options, label="tests", table=name, form=form, preread=opening
    )
    app = PagerApp(adapter)
    try:
        async with app.run_test(size=(120, 35)) as pilot:
            await settle(pilot)
            deadline = time.monotonic() + 60
            while app.pager is None and time.monotonic() < deadline:
                await pilot.pause(0.05)
            assert app.pager is not None
            assert app.pager.current.items == truth(client, name, "k", "p", 5, 1)[0]
            figures = app.session.ledger.figures()
    finally:
        opening.close()
    assert figures.abandoned_reads == 1 and figures.pages_read == 1
    spent = figures.unit("RCU")
    assert spent is not None and spent.abandoned == result.superseded
    assert spent.pages == result.page.cost
