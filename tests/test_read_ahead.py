"""Reading ahead (``--read-ahead N``) in the app and the command: the app reads the page
after the one shown only when asked, once the frame showing a page is drawn, and n shows
it with no call, said as read ahead; the flag takes ASCII digits only and is refused where
it does not apply; ``dynotui --read-ahead 1`` does it on DynamoDB Local in a terminal.

The app's tests read the in-memory DynamoDB (``dynamodb/memory.py``, held to DynamoDB
Local by ``test_memory_conformance.py``), whose ``calls`` record each request as the fault
proxy did. The rules of the pager's chain are in ``test_read_ahead_chain.py``; those of the
view's reading (when to read ahead, jumps, held n, Esc) in ``test_view_reader.py``."""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faultproxy import FaultProxy
from helpers import responses, run_in_process, until
from rich.console import Console
from terminal import Terminal
from uihelpers import expected_rows, grid_rows, make_app, text_of
from uihelpers import until as app_until

from dynotui.core.pager import Pager
from dynotui.dynamodb.memory import MemoryDynamoDB
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local.tables import create_table, table_definition, write_items
from dynotui.ui.background import Done
from dynotui.ui.testing import settle
from dynotui.ui.widgets.safe_text import TextStatic

SIZE = 5  # twelve items: pages of 5, 5 and 2
MEMORY = "twelve"
READERS = ("dynotui-call", "dynotui-read-ahead")  # the app's threads that read


@pytest.fixture
def table(client: Any, table_name: Callable[[str], str]) -> str:
    name = table_name()
    create_table(client, table_definition(name, ("k", "S"), ("s", "S")))
    write_items(client, name, [{"k": "p", "s": f"{i:02d}", "n": i} for i in range(12)])
    return name


def truth(client: Any, table: str) -> list[dict]:
    """Every page of a plain boto3 loop, with what each consumed."""
    return responses(
        client.query,
        TableName=table,
        KeyConditionExpression="k = :v",
        ExpressionAttributeValues={":v": {"S": "p"}},
        Limit=SIZE,
        ReturnConsumedCapacity="TOTAL",
    )


def queries(memory: MemoryDynamoDB) -> int:
    return [operation for operation, _ in memory.calls].count("Query")


@pytest.fixture
def memory() -> MemoryDynamoDB:
    """The twelve items in memory, table MEMORY."""
    client = MemoryDynamoDB()
    client.create_table(**table_definition(MEMORY, ("k", "S"), ("s", "S")))
    client.put(MEMORY, [{"k": "p", "s": f"{i:02d}", "n": i} for i in range(12)])
    return client


def reading() -> bool:
    """A thread of the app's is reading (or waiting on) a page."""
    return any(thread.name in READERS for thread in threading.enumerate())


async def test_reading_ahead_waits_for_the_frame_that_shows_the_page(
    memory: MemoryDynamoDB,
) -> None:
    """After n, the next page is read ahead once the frame showing this one is drawn: its
    answer is parsed on another thread, which drawing that frame would share the
    interpreter with (a fresh n at 0 ms took 22-28 ms against 17-18 ms)."""
    app = make_app(
        memory, QueryForm(partition_value="p", page_size="5"), table=MEMORY, read_ahead=1
    )
    events: list[str] = []
    display = app._display

    def drawn(screen: Any, renderable: Any) -> None:
        page = app.main_view.page
        if renderable is not None and page is not None:
            events.append(f"frame with page {page.number}")
        display(screen, renderable)

    async with app.run_test(size=(120, 35)) as pilot:
        await app_until(pilot, lambda: queries(memory) == 2)  # page 2 read ahead
        await app_until(pilot, lambda: not reading())
        await settle(pilot)
        state = app.main_view.state
        assert state is not None
        start = state.pager.start_reading_ahead

        def reading_ahead(pages: int, each: Any = None) -> Any:
            events.append(f"read ahead past page {state.pager.number}")
            return start(pages, each)

        state.pager.start_reading_ahead = reading_ahead  # type: ignore[method-assign]
        app._display = drawn  # type: ignore[method-assign]
        await pilot.press("n")  # page 2 from what was read ahead
        await app_until(pilot, lambda: queries(memory) == 3)  # page 3 read ahead
        await settle(pilot)
    asked = events.index("read ahead past page 2")
    assert "frame with page 2" in events[:asked]


def frame_text(renderable: Any) -> str:
    """The text a frame handed to the terminal writes (its cursor moves left out)."""
    console = Console(file=io.StringIO(), width=120, height=35, color_system=None)
    return "".join(segment.text for segment in console.render(renderable) if not segment.control)


async def test_reading_ahead_on_a_querys_first_page_waits_for_a_frame_showing_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a query's first page too, page 2 is asked for only once frames showing page 1's
    rows have been drawn: the frames' own text, not the view's state, says what was shown.
    (Textual's call_after_refresh ran the request at once when the screen had nothing
    dirty yet: the grid's repaint reaches the screen a message later.)"""
    client = MemoryDynamoDB()
    client.create_table(**table_definition(MEMORY, ("k", "S"), ("s", "S")))
    client.put(MEMORY, [{"k": "p", "s": f"item {i:02d}"} for i in range(12)])
    first = truth(client, MEMORY)[0]["Items"]
    rows = [item["s"]["S"] for item in first]  # page 1's rows, from a plain query
    client.calls.clear()
    answer = threading.Event()

    def over_the_network(operation: str, params: dict[str, Any]) -> None:
        if operation == "Query" and "ExclusiveStartKey" not in params:
            answer.wait(60)  # page 1 arrives once the screen is drawn, as over a network

    client.before = over_the_network
    events: list[str] = []
    app = make_app(
        client, QueryForm(partition_value="p", page_size="5"), table=MEMORY, read_ahead=1
    )
    display = app._display

    def drawn(screen: Any, renderable: Any) -> None:
        if renderable is not None:
            events.append(frame_text(renderable))
        display(screen, renderable)

    start = Pager.start_reading_ahead

    def asked(pager: Pager, pages: int, each: Any = None) -> Any:
        events.append(f"read ahead past page {pager.number}")
        return start(pager, pages, each)

    monkeypatch.setattr(Pager, "start_reading_ahead", asked)
    app._display = drawn  # type: ignore[method-assign]
    async with app.run_test(size=(120, 35)) as pilot:
        await app_until(pilot, lambda: len(events) > 3)  # the screen drawn, no rows yet
        answer.set()
        await app_until(pilot, lambda: queries(client) == 2)  # page 2 read ahead
        await settle(pilot)
    before = "".join(events[: events.index("read ahead past page 1")])
    assert [row for row in rows if row not in before] == [], "drawn before page 2 was asked"


# -- in the app ------------------------------------------------------------------------


@pytest.mark.parametrize("pages", [0, 1])
async def test_the_app_reads_ahead_only_when_asked_and_n_shows_that_page(
    memory: MemoryDynamoDB, pages: int
) -> None:
    """With ``read_ahead=1`` (``--read-ahead 1``) the page after the one shown is read as
    soon as a page is shown, n shows it with no call, said as read ahead in the status
    line, and the sidebar's session figures bill it as read ahead. Off (the default):
    nothing is read before n."""
    expected = truth(memory, MEMORY)
    memory.calls.clear()  # the loop's own calls
    form = QueryForm(partition_value="p", page_size=str(SIZE))
    app = make_app(memory, form, table=MEMORY, read_ahead=pages)
    async with app.run_test(size=(120, 35)) as pilot:
        view = app.main_view
        await app_until(pilot, lambda: view.page is not None)
        await settle(pilot)
        state = view.state
        assert state is not None
        if pages:
            await app_until(pilot, lambda: state.pager.plan("next").ahead is not None)
        await settle(pilot)
        assert queries(memory) == 1 + pages
        await pilot.press("n")
        await app_until(pilot, lambda: view.page is not None and view.page.number == 2)
        page = view.page
        assert page.items == expected[1]["Items"]
        assert grid_rows(view) == expected_rows(view, page)
        status = text_of(view.query_one("#status-line", TextStatic))
        assert ("read ahead" in status) is bool(pages) and page.read_ahead is bool(pages)
        if pages:  # and page 3 is read ahead in turn
            await app_until(pilot, lambda: queries(memory) == 3)
            await app_until(pilot, lambda: app.session.ledger.figures().read_ahead == 2)
            await settle(pilot)
            assert "2 pages read ahead (1 shown)" in " ".join(
                text_of(view.query_one("#session-cost", TextStatic)).split()
            )
        else:
            await settle(pilot)
            assert queries(memory) == 2
        figures = app.session.ledger.figures()
        assert figures.pages_read == 2 - pages and figures.read_ahead_shown == pages
        if pages:
            # Page 3, read ahead, answering a read superseded since (Esc, or another
            # move, after the wait ended): not shown, and not billed again either.
            ahead = state.pager.plan("next").ahead
            assert ahead is not None
            view.reader.owners[999] = state
            view.reader.reported(999, Done(ahead))
            await settle(pilot)
            assert app.session.ledger.figures().abandoned_reads == 0
            assert view.page.number == 2


# -- the command -----------------------------------------------------------------------


BAD = ["x", "-1", "11", "1.5", "", "\x1b[2J9", "\u00b2", "\uff10", "9" * 5000]


@pytest.mark.parametrize("given", BAD)
def test_a_bad_read_ahead_is_one_line_and_exit_2(given: str) -> None:
    where = ["--endpoint-url", "http://127.0.0.1:9", "--table-name", "t"]
    result = run_in_process(
        [*where, "--partition-value", "p", "--read-ahead", given],
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "--read-ahead" in result.stderr
    assert "\x1b" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--postgres", "postgresql://127.0.0.1:9/x", "--table", "t"],
        ["--from-export", "nowhere"],
        ["demo", "--postgres"],
    ],
    ids=["postgres", "export", "postgres-demo"],
)
def test_read_ahead_is_refused_where_it_does_not_apply(args: list[str]) -> None:
    result = run_in_process([*args, "--read-ahead", "1"], env=dict(os.environ))
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "--read-ahead" in result.stderr


def test_the_command_reads_ahead_with_the_flag(
    ddb: Any, client: Any, table: str, tmp_path: Path
) -> None:
    """``dynotui --read-ahead 1`` in a terminal: page 2 is read while page 1 is shown, and
    n shows it, said as read ahead, with no call of its own."""
    env = {
        **os.environ,
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        args = ["--endpoint-url", proxy.endpoint_url, "--table-name", table]
        args += ["--partition-value", "p", "--page-size", str(SIZE), "--read-ahead", "1"]
        terminal = Terminal(args, env)
        try:
            terminal.wait_for(lambda text: "Page 1 ·" in text, timeout=120)
            assert until(lambda: proxy.arrivals.count("Query") == 2)  # page 2, before any key
            terminal.send(b"n")
            screen = terminal.wait_for(lambda text: "Page 2 ·" in text, timeout=120)
            assert "read ahead" in screen
            assert until(lambda: proxy.arrivals.count("Query") == 3)  # page 3 in turn, and no more
            terminal.send(b"q")
            assert terminal.wait_exit(60) == 0
        finally:
            terminal.close()
        assert proxy.arrivals.count("Query") == 3


def test_serve_says_a_bad_read_ahead_once_before_it_listens() -> None:
    result = run_in_process(["serve", "--port", "0", "--read-ahead", "x"], env=dict(os.environ))
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "--read-ahead" in result.stderr
    assert "http" not in result.stdout  # no URL: nothing was served
