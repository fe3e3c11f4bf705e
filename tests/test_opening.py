"""Opening a table at start-up: page 1 read by a forked child process (or a thread) equals
a plain boto3 Query; the pager goes on from it; failures fall back or are shown; the
start-up objects are frozen once; ``visible`` keeps its word."""

from __future__ import annotations

import gc
import os
import random
import threading
import time
from typing import Any

import pytest
from faultproxy import FaultProxy
from helpers import responses

from dynotui.core.errors import ReadCancelled
from dynotui.core.text import _ONE_LINE, visible
from dynotui.dynamodb.connection import ConnectionOptions, ConnectionSetupError
from dynotui.dynamodb.lazy_client import LazyClient
from dynotui.dynamodb.opening import Opening
from dynotui.dynamodb.query_form import QueryForm
from dynotui.process import heap
from dynotui.process.forked import can_fork

needs_fork = pytest.mark.skipif(not can_fork(), reason="fork is used on Linux only")
MODES = [pytest.param(True, id="forked", marks=needs_fork), pytest.param(False, id="thread")]


QUERY = {
    "KeyConditionExpression": "customer = :c",
    "ExpressionAttributeValues": {":c": {"S": "acme"}},
    "Limit": 5,
}


def plain_pages(client: Any, table: str, size: int, count: int) -> list[list[dict]]:
    found = responses(
        client.query,
        pages=count,
        TableName=table,
        KeyConditionExpression="customer = :c",
        ExpressionAttributeValues={":c": {"S": "acme"}},
        Limit=size,
    )
    return [response["Items"] for response in found]


def opened(opening: Opening) -> Any:
    assert opening.done.wait(60)
    return opening.opened


@pytest.mark.parametrize("fork", MODES)
def test_page_one_equals_a_plain_query_and_the_pager_goes_on(
    ddb: Any, client: Any, demo_table: str, fork: bool
) -> None:
    options = ConnectionOptions(endpoint_url=ddb.endpoint_url)
    form = QueryForm(partition_value="acme", page_size="7")
    opening = Opening(options, demo_table, form, fork=fork).start()
    result = opened(opening)
    assert result.error is None
    truth = plain_pages(client, demo_table, 7, 3)
    assert result.page.items == truth[0]
    assert opening.forked_page is fork
    assert isinstance(opening.wait_for_client(), LazyClient) is fork
    assert opening.label.startswith(ddb.endpoint_url) and "us-east-1" in opening.label
    pager = result.pager
    pager.accept(result.page)
    assert pager.next().items == truth[1]
    lazy = opening.client
    if fork:  # page 2 was read by the child's client: the app's own is not made yet
        assert lazy._client is None and opening._child.pid is not None
        lazy.resolve()  # ... and once it is, the child goes
        assert lazy.stand_in is None
        assert gone(opening)
    assert pager.next().items == truth[2]
    assert pager.totals.cost.capacity.total > 0  # page 1's cost came over with it
    opening.close()


@pytest.mark.parametrize("fork", MODES)
def test_with_no_table_the_table_names_are_read_while_the_app_loads(
    ddb: Any, client: Any, demo_table: str, fork: bool
) -> None:
    options = ConnectionOptions(endpoint_url=ddb.endpoint_url)
    opening = Opening(options, None, QueryForm(), fork=fork).start()
    result = opened(opening)
    truth: list[str] = []
    for page in client.get_paginator("list_tables").paginate():
        truth.extend(page["TableNames"])
    assert demo_table in truth
    assert result.error is None and result.schema is None and result.page is None
    assert result.tables == truth
    assert isinstance(opening.wait_for_client(), LazyClient) is fork
    assert opening.label.startswith(ddb.endpoint_url)
    if fork:
        assert gone(opening)  # nothing more to read for the app: the child has gone
    opening.close()


@pytest.mark.parametrize("fork", MODES)
def test_table_names_that_cannot_be_read_at_open_are_left_to_the_app(fork: bool) -> None:
    with FaultProxy("http://127.0.0.1:9", fault_rate=0.0) as proxy:
        proxy.fail_all = True
        proxy.operations = ("ListTables",)
        options = ConnectionOptions(endpoint_url=proxy.endpoint_url, max_attempts=1)
        opening = Opening(options, None, QueryForm(), fork=fork).start()
        result = opened(opening)
        assert proxy.arrived >= 1  # it was asked, and refused
    assert result.tables is None and result.error is None  # the app lists and says why
    opening.close()


def gone(opening: Opening, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if opening._child is None or opening._child.pid is None:
            return True
        time.sleep(0.01)
    return False


@needs_fork
def test_a_call_the_child_is_answering_does_not_hold_up_the_own_client(
    ddb: Any, client: Any, demo_table: str
) -> None:
    options = ConnectionOptions(endpoint_url=ddb.endpoint_url)
    opening = Opening(options, demo_table, QueryForm(partition_value="acme")).start()
    assert opened(opening).page is not None
    lazy = opening.client
    with opening._stand_in_lock:  # as while the child answers a slow call
        answered: list[Any] = []

        def own_call() -> None:
            lazy.resolve()
            answered.append(lazy.describe_table(TableName=demo_table))

        caller = threading.Thread(target=own_call, daemon=True)
        caller.start()
        caller.join(60)  # a call that waited on the held lock would not end while we hold it
        assert answered and answered[0]["Table"]["TableName"] == demo_table
        assert lazy.stand_in is None, "the own client answered, not the child"
        assert opening._child.pid is not None  # waits for that call to return
    assert gone(opening)
    opening.close()


@needs_fork
def test_a_child_that_dies_leaves_the_work_to_the_thread(
    ddb: Any, client: Any, demo_table: str
) -> None:

    class Dying(Opening):
        def in_child(self, send: Any, receive: Any) -> None:
            os._exit(3)

    options = ConnectionOptions(endpoint_url=ddb.endpoint_url)
    opening = Dying(options, demo_table, QueryForm(partition_value="acme", page_size="5"))
    result = opened(opening.start())
    assert result.error is None and not opening.forked_page
    assert result.page.items == plain_pages(client, demo_table, 5, 1)[0]


@pytest.mark.parametrize("fork", MODES)
def test_options_that_give_no_client_are_said_not_raised_in_the_app(fork: bool) -> None:
    options = ConnectionOptions(profile="dynotui-no-such-profile")
    opening = Opening(options, "t", QueryForm(partition_value="x"), fork=fork).start()
    if fork:  # the app has started: the error comes as the table's error
        result = opened(opening)
        assert isinstance(result.error, ConnectionSetupError)
        assert "dynotui-no-such-profile" in str(result.error)
        assert result.schema is None and result.page is None
    else:  # the command line says it before any UI
        with pytest.raises(ConnectionSetupError, match="dynotui-no-such-profile"):
            opening.wait_for_client()


@needs_fork
def test_errors_of_reads_the_child_makes_are_the_errors_of_the_service(
    ddb: Any, demo_table: str
) -> None:
    options = ConnectionOptions(endpoint_url=ddb.endpoint_url)
    opening = Opening(options, demo_table, QueryForm(partition_value="acme")).start()
    assert opened(opening).page is not None
    lazy = opening.client
    with pytest.raises(Exception) as raised:
        lazy.query(
            TableName="no-such-table",
            KeyConditionExpression="k = :k",
            ExpressionAttributeValues={":k": {"S": "x"}},
        )
    # A ClientError, as the app's own client raises (the modeled subclass does not pickle);
    # the pager reads its code, as errors.translate does.
    assert raised.value.response["Error"]["Code"] == "ResourceNotFoundException"
    assert lazy._client is None  # the child answered, error and all
    opening.close()
    # The child is gone: the next call is made by the app's own client.
    assert demo_table in lazy.describe_table(TableName=demo_table)["Table"]["TableName"]
    assert lazy._client is not None


@needs_fork
def test_a_call_the_child_is_making_when_closed_is_not_made_again(
    ddb: Any, demo_table: str
) -> None:
    """The app leaves while a page read ahead goes through the child: that Query may have
    been sent and billed already, so it is cancelled, not sent again on a new client."""
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        options = ConnectionOptions(endpoint_url=proxy.endpoint_url)
        opening = Opening(options, demo_table, QueryForm(partition_value="acme")).start()
        assert opened(opening).page is not None
        queries = proxy.arrivals.count("Query")  # page 1's
        proxy.gate = threading.Event()  # the next request waits at the proxy
        lazy = opening.client
        outcome: list[Any] = []

        def read_ahead() -> None:
            try:
                outcome.append(lazy.query(**QUERY, TableName=demo_table))
            except Exception as exc:
                outcome.append(exc)

        reader = threading.Thread(target=read_ahead, daemon=True)
        reader.start()
        deadline = time.monotonic() + 60
        while proxy.arrivals.count("Query") == queries and time.monotonic() < deadline:
            time.sleep(0.01)  # until the child's Query waits at the proxy
        assert proxy.arrivals.count("Query") == queries + 1
        opening.close()
        reader.join(60)
        proxy.gate.set()
        assert len(outcome) == 1 and isinstance(outcome[0], ReadCancelled)
        assert lazy._client is None  # no client was made to send it again
        assert proxy.arrivals.count("Query") == queries + 1


@needs_fork
def test_closing_stops_a_child_that_waits_on_a_silent_endpoint(ddb: Any) -> None:
    with FaultProxy(ddb.endpoint_url) as proxy:
        proxy.silent = True
        options = ConnectionOptions(endpoint_url=proxy.endpoint_url, read_timeout=120)
        opening = Opening(options, "anything", QueryForm(partition_value="p")).start()
        deadline = time.monotonic() + 60
        while not proxy.arrived and time.monotonic() < deadline:
            time.sleep(0.01)  # until the child's DescribeTable waits on the silent endpoint
        assert proxy.arrived and not opening.done.is_set()
        child = opening._child
        assert child is not None and child.pid is not None
        pid = child.pid
        opening.close()
        # Closed means gone at once: the child is reaped before close returns (it would
        # otherwise wait the 120 s read timeout), and the parent's thread ends.
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped already: no zombie left behind
        assert opening.done.wait(60)


def test_a_lazy_client_is_made_once_on_first_use(ddb: Any, demo_table: str) -> None:
    lazy = LazyClient(ConnectionOptions(endpoint_url=ddb.endpoint_url))
    assert lazy._client is None
    lazy.warm()
    names = lazy.list_tables()["TableNames"]
    assert demo_table in names
    assert lazy.resolve() is lazy.resolve()


def test_a_stand_in_comes_too_late_for_a_client_already_made() -> None:
    lazy = LazyClient(ConnectionOptions(endpoint_url="http://127.0.0.1:9"))
    lazy.resolve()  # no network call: only botocore's setup
    released: list[bool] = []
    lazy.stand_in_until_made(lambda name, params: None, lambda: released.append(True))
    assert released == [True] and lazy.stand_in is None


def test_start_up_objects_are_frozen_once_and_only_when_armed() -> None:
    frozen = gc.get_freeze_count()
    heap.settle()  # not armed: nothing happens (tests, in-process callers)
    assert gc.get_freeze_count() == frozen
    heap.arm()
    try:
        assert heap.armed()
        heap.settle()
        assert not heap.armed() and gc.get_freeze_count() > frozen
        again = gc.get_freeze_count()
        heap.settle()
        assert gc.get_freeze_count() == again
    finally:
        gc.unfreeze()


def test_visible_takes_its_shortcut_only_where_nothing_would_change() -> None:
    rng = random.Random(7)
    samples = [chr(c) for c in range(0x110000) if c < 0x3000 or c % 97 == 0]
    for text in samples:
        assert visible(text) == text.translate(_ONE_LINE)
    for _ in range(20_000):
        text = "".join(rng.choice(samples) for _ in range(rng.randrange(6)))
        assert visible(text) == text.translate(_ONE_LINE)


def test_the_label_before_the_client_says_what_the_client_will(monkeypatch: Any) -> None:
    from dynotui.dynamodb.connection import describe, make_client, provisional_label

    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    for options in (
        ConnectionOptions(endpoint_url="http://localhost:8000"),
        ConnectionOptions(endpoint_url="http://127.0.0.1:9", region="eu-west-1"),
    ):
        assert provisional_label(options) == describe(make_client(options), options)


@pytest.mark.parametrize("read_before_mount", [True, False], ids=["read-first", "racing"])
async def test_the_app_shows_page_one_however_early_the_opening_finished(
    ddb: Any, client: Any, demo_table: str, read_before_mount: bool
) -> None:
    # Page 1 read before the app mounted is shown as one still read after it is: the
    # terminal only sees whichever a busy machine makes happen.
    from dynotui.ui.app import PagerApp
    from dynotui.ui.dynamodb.adapter import DynamoDBAdapter
    from dynotui.ui.testing import settle

    options = ConnectionOptions(endpoint_url=ddb.endpoint_url)
    form = QueryForm(partition_value="acme", page_size="7")
    opening = Opening(options, demo_table, form, fork=False).start()
    if read_before_mount:
        assert opening.done.wait(60)
    adapter = DynamoDBAdapter(
        opening.client, options, label="tests", table=demo_table, form=form, preread=opening
    )
    app = PagerApp(adapter)
    truth = plain_pages(client, demo_table, 7, 1)[0]
    try:
        async with app.run_test(size=(160, 50)) as pilot:
            await settle(pilot)
            assert opening.done.wait(60)
            deadline = time.monotonic() + 60
            while app.pager is None and time.monotonic() < deadline:
                await pilot.pause(0.05)
            assert app.pager is not None and app.pager.number == 1
            assert app.pager.current is not None and app.pager.current.items == truth
    finally:
        opening.close()


REPEATS = 6  # each way: the read-first way lost the entry every time, racing about 2 in 3


@pytest.mark.parametrize("fork", MODES)
@pytest.mark.parametrize("read_before_mount", [True, False], ids=["read-first", "racing"])
async def test_a_query_opened_from_the_command_line_is_in_history_however_early_it_was_read(
    ddb: Any, client: Any, demo_table: str, tmp_path: Any, read_before_mount: bool, fork: bool
) -> None:
    # `dynotui -t T --partition-value V`: page 1 is read while the app loads. Recording it
    # is part of opening it, however early the read finished: history holds the query,
    # at page 1, before any key is pressed, so --resume and h find it.
    from dynotui.core.history import HistoryStore
    from dynotui.dynamodb.history_entry import reopen
    from dynotui.ui.app import PagerApp
    from dynotui.ui.dynamodb.adapter import DynamoDBAdapter
    from dynotui.ui.testing import settle

    options = ConnectionOptions(endpoint_url=ddb.endpoint_url)
    form = QueryForm(partition_value="acme", page_size="7")
    missing = []
    for run in range(REPEATS):
        store = HistoryStore(tmp_path / f"history-{run}.json")
        opening = Opening(options, demo_table, form, fork=fork).start()
        if read_before_mount:
            assert opening.done.wait(60)
        adapter = DynamoDBAdapter(
            opening.client, options, label="tests", table=demo_table, form=form, preread=opening
        )
        app = PagerApp(adapter, history=store)
        try:
            async with app.run_test(size=(160, 50)) as pilot:
                await settle(pilot)
                assert opening.done.wait(60)
                deadline = time.monotonic() + 60
                while app.pager is None and time.monotonic() < deadline:
                    await pilot.pause(0.05)
                assert app.pager is not None and app.pager.number == 1
                app.history.flush(timeout=30)
                entry = store.last()
        finally:
            opening.close()
        if entry is None:
            missing.append(run)
            continue
        reopening = reopen(entry)
        assert entry.page == 1 and reopening.spec is not None
        assert reopening.spec.table == demo_table and reopening.start_json is None
    assert missing == [], f"not in history after runs {missing} of {REPEATS}"


@needs_fork
async def test_the_apps_own_client_is_made_once_page_one_is_in_not_while_it_comes(
    ddb: Any, client: Any, demo_table: str
) -> None:
    # Making the client loads botocore on the app's one interpreter: while the child still
    # reads page 1, that would hold back the page's arrival on screen.
    from dynotui.ui.app import PagerApp
    from dynotui.ui.dynamodb.adapter import DynamoDBAdapter

    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        proxy.gate = threading.Event()  # page 1's calls wait until the app is up
        # ... however long a busy machine takes to start it: no read timeout meanwhile.
        options = ConnectionOptions(endpoint_url=proxy.endpoint_url, read_timeout=300)
        form = QueryForm(partition_value="acme", page_size="7")
        opening = Opening(options, demo_table, form, fork=True).start()
        lazy = opening.wait_for_client()
        adapter = DynamoDBAdapter(
            lazy, options, label="tests", table=demo_table, form=form, preread=opening
        )
        app = PagerApp(adapter)
        try:
            async with app.run_test(size=(160, 50)) as pilot:
                deadline = time.monotonic() + 60
                warming = adapter.warming
                while not warming._started and time.monotonic() < deadline:
                    await pilot.pause(0.05)  # until the first screen is up (started)
                assert warming._started and not warming._handed_over, "page 1 came first"
                await pilot.pause(0.5)
                assert not opening.done.is_set(), opening.opened
                assert lazy._client is None
                proxy.gate.set()
                deadline = time.monotonic() + 60
                while (app.pager is None or lazy._client is None) and (time.monotonic() < deadline):
                    await pilot.pause(0.05)
                assert app.pager is not None and app.pager.current is not None
                assert app.pager.current.items == plain_pages(client, demo_table, 7, 1)[0]
                assert lazy._client is not None  # made once page 1 was in
        finally:
            opening.close()


@needs_fork
async def test_page_one_in_before_the_first_screen_is_drawn_before_the_client_is_made(
    ddb: Any, client: Any, demo_table: str
) -> None:
    # A start that draws its first frame first (ui/starting.py) finds page 1 in when its
    # main screen comes up: the app's own client (botocore, on the interpreter that draws)
    # is made once a frame shows the page, not as the screen comes up before it.
    from dynotui.ui.app import PagerApp
    from dynotui.ui.dynamodb.adapter import DynamoDBAdapter
    from dynotui.ui.starting import Starting
    from dynotui.ui.testing import settle

    options = ConnectionOptions(endpoint_url=ddb.endpoint_url)
    form = QueryForm(partition_value="acme", page_size="7")
    opening = Opening(options, demo_table, form, fork=True).start()
    lazy = opening.wait_for_client()
    assert opening.done.wait(60) and opening.opened.page is not None
    made: list[tuple[int, bool]] = []  # rows in the grid, and drawn, when the client is made
    real = lazy.warm

    def warm() -> None:
        grid = app.main_view.results
        made.append((grid.row_count, grid._rows_drawn))
        real()

    lazy.warm = warm  # type: ignore[method-assign]

    def adapter() -> DynamoDBAdapter:
        return DynamoDBAdapter(
            lazy, options, label="tests", table=demo_table, form=form, preread=opening
        )

    app = PagerApp(starting=Starting("tests", "Reading page 1", adapter))
    try:
        async with app.run_test(size=(160, 50)) as pilot:
            deadline = time.monotonic() + 60
            while (not made or lazy._client is None) and time.monotonic() < deadline:
                await pilot.pause(0.05)
            await settle(pilot)
            assert made == [(7, True)]
            assert app.pager is not None and app.pager.current is not None
            assert app.pager.current.items == plain_pages(client, demo_table, 7, 1)[0]
    finally:
        opening.close()


@pytest.mark.parametrize("fork", MODES)
async def test_the_table_list_shows_the_names_read_at_open_without_listing_again(
    ddb: Any, client: Any, demo_table: str, fork: bool
) -> None:
    from dynotui.ui.app import PagerApp
    from dynotui.ui.dynamodb.adapter import DynamoDBAdapter
    from dynotui.ui.screens.picker import PickerScreen
    from dynotui.ui.testing import settle

    truth: list[str] = []
    for page in client.get_paginator("list_tables").paginate():
        truth.extend(page["TableNames"])
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        options = ConnectionOptions(endpoint_url=proxy.endpoint_url)
        opening = Opening(options, None, QueryForm(), fork=fork).start()
        adapter = DynamoDBAdapter(
            opening.wait_for_client(), options, label="tests", table=None, preread=opening
        )
        app = PagerApp(adapter)
        try:
            async with app.run_test(size=(160, 50)) as pilot:
                deadline = time.monotonic() + 60
                while not isinstance(app.screen, PickerScreen) and time.monotonic() < deadline:
                    await pilot.pause(0.05)
                await settle(pilot)
                assert isinstance(app.screen, PickerScreen)
                assert app.screen.picker_title.startswith(f"Tables ({len(truth)})")
                assert [value for value, _ in app.screen.choices] == truth
                assert proxy.forwarded["ListTables"] == 1  # read at open, not again
        finally:
            opening.close()


# -- the child forked as the command starts (cli/early_open.py) --------------------------


@pytest.mark.parametrize(
    "argv, opens",
    [
        ([], True),
        (["--table-name", "orders", "--partition-value", "c1"], True),
        (["--endpoint-url", "http://localhost:8000", "--scan", "--segments", "4"], True),
        (["--table-name=orders", "--no-history", "--no-mouse"], True),
        (["pages", "--table-name", "orders"], False),
        (["--endpoint-url", "http://localhost:8000", "tables"], False),
        (["-h"], False),
        (["--help"], False),
        (["--he"], False),  # argparse reads a prefix of an option as the option
        (["--version"], False),
        (["--postgres", "postgresql://x"], False),
        (["--postgres=postgresql://x"], False),
        (["--post", "postgresql://x"], False),
        (["--from-export", "folder"], False),
        (["--from", "folder"], False),
        (["--resume"], False),
        (["--res"], False),
        (["--table-name", "demo"], False),  # a table named like a command: no guess
    ],
)
def test_the_child_is_forked_at_start_only_when_the_app_surely_opens_on_dynamodb(
    argv: list[str], opens: bool
) -> None:
    from dynotui.cli.early_open import opens_dynamodb

    assert opens_dynamodb(argv) is opens


def test_the_early_fork_knows_every_command_and_every_option_that_opens_no_table() -> None:
    """early_open keeps its own copy of the commands (it runs before the parser loads):
    a command added to the parser and not to it would fork a child for nothing."""
    from dynotui.cli.early_open import COMMAND_WORDS, NOT_OPENING
    from dynotui.cli.main import COMMANDS, build_parser

    assert set(COMMAND_WORDS) == set(COMMANDS)
    options = {o for action in build_parser()._actions for o in action.option_strings}
    assert set(NOT_OPENING) <= options, "each option early_open watches is the parser's"


@needs_fork
def test_a_child_forked_at_start_reads_page_one_once_it_is_sent_the_query(
    ddb: Any, client: Any, demo_table: str
) -> None:
    from dynotui.cli import early_open

    early_open.start(["--table-name", demo_table])
    options = ConnectionOptions(endpoint_url=ddb.endpoint_url)
    form = QueryForm(partition_value="acme", page_size="6")
    child = early_open.ask(options, demo_table, form, None)  # sent as the line is read
    assert child is not None and child.pid is not None and early_open.take() is None
    opening = Opening(options, demo_table, form).start(child)
    result = opened(opening)
    assert opening._child is child and opening.forked_page
    assert result.error is None
    truth = plain_pages(client, demo_table, 6, 2)
    assert result.page.items == truth[0]
    result.pager.accept(result.page)
    assert result.pager.next().items == truth[1]  # read by that child, standing in
    opening.close()
    assert child.pid is None


@needs_fork
def test_a_child_forked_at_start_and_not_needed_is_stopped(
    ddb: Any, client: Any, demo_table: str
) -> None:
    from dynotui.cli import early_open

    early_open.start([])
    child = early_open._child
    assert child is not None and child.pid is not None
    pid = child.pid
    child.close()  # as if it had died before it was asked: the opening forks its own
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: gone
    options = ConnectionOptions(endpoint_url=ddb.endpoint_url)
    form = QueryForm(partition_value="acme", page_size="4")
    assert early_open.ask(options, demo_table, form, None) is None
    assert early_open.take() is None  # taken: not asked twice
    opening = Opening(options, demo_table, form)
    result = opened(opening.start())
    assert opening._child is not None and opening._child is not child and opening.forked_page
    assert result.page.items == plain_pages(client, demo_table, 4, 1)[0]
    opening.close()
    early_open.start([])
    pid = early_open._child.pid if early_open._child else None
    early_open.release()
    assert pid is not None and early_open.take() is None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_making_the_client_loads_no_boto3() -> None:
    """The opening's child makes the client before page 1: botocore's session makes it,
    as boto3.client would, and boto3 (with its S3 transfer manager) stays unloaded, in a
    fresh interpreter. The client is the one boto3 makes: same class, region, endpoint."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from dynotui.dynamodb.connection import ConnectionOptions, make_client\n"
        "client = make_client(ConnectionOptions(endpoint_url='http://localhost:8000'))\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'boto3', 's3transfer'}))\n"
        "print(type(client).__name__, client.meta.region_name, client.meta.endpoint_url)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded, made = done.stdout.splitlines()
    assert loaded == "[]"
    import boto3

    plain = boto3.client(
        "dynamodb",
        region_name="us-east-1",
        endpoint_url="http://localhost:8000",
        aws_access_key_id="x",
        aws_secret_access_key="x",
    )
    assert made == f"{type(plain).__name__} us-east-1 http://localhost:8000"


def test_the_schema_the_child_sends_needs_no_dateutil_to_unpickle(
    client: Any, demo_table: str
) -> None:
    """botocore gives CreationDateTime in dateutil's local zone; the schema holds the same
    instant in the standard library's UTC, so the app unpickles it without dateutil."""
    import pickle
    from datetime import timezone

    from dynotui.dynamodb.schema import describe_table

    raw = client.describe_table(TableName=demo_table)["Table"]["CreationDateTime"]
    assert "dateutil" in type(raw.tzinfo).__module__  # what botocore gives
    schema = describe_table(client, demo_table)
    assert schema.created == raw and schema.created is not None
    assert schema.created.tzinfo is timezone.utc
    assert b"dateutil" not in pickle.dumps(schema)
