"""Reading ahead (``--read-ahead N``), at the pager, on DynamoDB Local through the fault
proxy (which records every request in the order it arrives): pages read ahead equal a
plain boto3 loop's, page for page; n then shows them with no call; what they spent is in
the ledger as read ahead, shown or not, and never billed twice; n pressed while a page is
being read ahead waits for that read; a moved boundary, a failure, an endless walk and a
stack no longer shown each drop what was read ahead rather than show it."""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faultproxy import FaultProxy
from helpers import responses, run_in_process, until
from terminal import Terminal
from uihelpers import expected_rows, grid_rows, make_app, text_of
from uihelpers import until as app_until

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import ReadCancelled
from dynotui.core.ledger import SessionLedger
from dynotui.core.pager import NoProgressError, Pager
from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.query_form import QueryForm
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import query_pager
from dynotui.dynamodb.spec import from_key
from dynotui.local.tables import create_table, table_definition, write_items
from dynotui.ui.background import Done
from dynotui.ui.testing import settle
from dynotui.ui.widgets.safe_text import TextStatic

SIZE = 5  # twelve items: pages of 5, 5 and 2
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


def through(proxy: FaultProxy, client: Any, table: str, ledger: SessionLedger) -> Pager:
    schema = describe_table(client, table)
    spec = from_key(schema, partition_value="p", page_size=SIZE)
    proxied = make_client(ConnectionOptions(endpoint_url=proxy.endpoint_url, max_attempts=1))
    pager = query_pager(proxied, spec, schema)
    pager.ledger = ledger
    return pager


def queries(proxy: FaultProxy) -> int:
    return proxy.arrivals.count("Query")


def reading() -> bool:
    """A thread of the app's is reading (or waiting on) a page."""
    return any(thread.name in READERS for thread in threading.enumerate())


def read_ahead(pager: Pager, pages: int) -> int:
    work = pager.start_reading_ahead(pages)
    return 0 if work is None else work()


def test_pages_read_ahead_are_the_loop_s_and_n_shows_them_without_a_call(
    ddb: Any, client: Any, table: str
) -> None:
    expected = truth(client, table)
    assert [len(r["Items"]) for r in expected] == [5, 5, 2]
    ledger = SessionLedger()
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        pager = through(proxy, client, table, ledger)
        assert pager.next().items == expected[0]["Items"]
        assert read_ahead(pager, 5) == 2  # pages 2 and 3: the data ends there
        assert queries(proxy) == 3 and pager.ahead_numbers() == [2, 3]
        assert read_ahead(pager, 5) == 0  # nothing more to read: no call

        for number in (2, 3):
            move = pager.plan("next")
            assert move.ahead is not None and move.cached is None
            page = pager.go("next")
            assert page.number == number and page.read_ahead and not page.cached
            assert page.items == expected[number - 1]["Items"]
        assert queries(proxy) == 3  # n read nothing
        assert pager.ahead_numbers() == []
        assert pager.prev().cached  # what was read ahead is cached once shown, as any page

    def capacity(responses: list[dict]) -> float:
        return sum(r["ConsumedCapacity"]["CapacityUnits"] for r in responses)

    figures = ledger.figures()
    unit = figures.by_unit[0]
    assert figures.pages_read == 1 and figures.read_ahead == 2 and figures.read_ahead_shown == 2
    assert unit.pages.headline == pytest.approx(capacity(expected[:1]))
    assert unit.read_ahead.headline == pytest.approx(capacity(expected[1:]))
    assert unit.total == pytest.approx(capacity(expected))  # billed once each
    assert pager.totals.pages_read == 3  # the stack's own pages, however they were read
    assert pager.totals.cost.headline == pytest.approx(capacity(expected))


def test_n_pressed_while_the_page_is_read_ahead_waits_for_that_read(
    ddb: Any, client: Any, table: str
) -> None:
    expected = truth(client, table)
    ledger = SessionLedger()
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        pager = through(proxy, client, table, ledger)
        pager.next()
        proxy.gate = threading.Event()  # every request waits here, unanswered
        work = pager.start_reading_ahead(1)
        assert work is not None
        ahead = threading.Thread(target=work)
        ahead.start()
        assert until(lambda: queries(proxy) == 2)
        move = pager.plan("next")
        assert move.ready is None  # under way: not ready yet
        got: list[Any] = []
        pressed = threading.Thread(target=lambda: got.append(pager.read(move)))
        pressed.start()
        entry = pager._ahead_entry(2, move.start_key)
        assert entry is not None
        # The press is waiting on that read (its wake-up is registered), the gate shut.
        assert until(lambda: len(entry.future._done_callbacks) == 1)  # type: ignore[attr-defined]
        assert pressed.is_alive() and queries(proxy) == 2
        proxy.gate.set()
        ahead.join(60)
        pressed.join(60)
        assert queries(proxy) == 2  # one read of page 2, not two
        page = pager.accept(got[0])
        assert page.items == expected[1]["Items"] and page.read_ahead
    figures = ledger.figures()
    assert figures.read_ahead == 1 and figures.read_ahead_shown == 1 and figures.pages_read == 1


def test_a_wait_for_a_page_read_ahead_is_cancelled_with_esc(
    ddb: Any, client: Any, table: str
) -> None:
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        pager = through(proxy, client, table, SessionLedger())
        pager.next()
        proxy.gate = threading.Event()
        work = pager.start_reading_ahead(1)
        assert work is not None
        ahead = threading.Thread(target=work)
        ahead.start()
        assert until(lambda: queries(proxy) == 2)
        token = CancelToken()
        outcome: list[BaseException] = []

        def press() -> None:
            try:
                pager.read(pager.plan("next"), token)
            except ReadCancelled as exc:
                outcome.append(exc)

        pressed = threading.Thread(target=press)
        pressed.start()
        token.cancel()
        pressed.join(60)
        assert len(outcome) == 1 and outcome[0].cost is None  # the wait spent nothing
        proxy.gate.set()
        ahead.join(60)
        assert pager.number == 1 and pager.plan("next").ahead is not None  # still there


def test_a_moved_boundary_drops_the_page_read_ahead_from_the_old_one(
    ddb: Any, client: Any, table: str
) -> None:
    ledger = SessionLedger()
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        pager = through(proxy, client, table, ledger)
        pager.next()
        assert read_ahead(pager, 1) == 1
        # Item 02 deleted: page 1 now ends on 05, and page 2 begins after it.
        client.delete_item(TableName=table, Key={"k": {"S": "p"}, "s": {"S": "02"}})
        pager.refresh()
        assert pager.ahead_numbers() == []
        before = queries(proxy)
        page = pager.next()
        assert queries(proxy) == before + 1 and not page.read_ahead
        assert page.items == truth(client, table)[1]["Items"]  # from the new boundary
    figures = ledger.figures()
    assert figures.read_ahead == 1 and figures.read_ahead_shown == 0  # billed, never shown


def test_a_failed_read_ahead_is_left_to_n_which_reads_and_says_it(
    ddb: Any, client: Any, table: str
) -> None:
    expected = truth(client, table)
    ledger = SessionLedger()
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0, operations=("Query",)) as proxy:
        pager = through(proxy, client, table, ledger)
        pager.next()
        proxy.fail_all = True
        assert read_ahead(pager, 2) == 0  # stopped at its first failure: page 3 not tried
        assert queries(proxy) == 2
        assert read_ahead(pager, 2) == 0 and queries(proxy) == 2  # not retried on its own
        proxy.fail_all = False
        page = pager.next()  # n reads it itself
        assert queries(proxy) == 3 and not page.read_ahead
        assert page.items == expected[1]["Items"]
    assert ledger.figures().read_ahead == 0  # a refused call spent nothing


def test_a_stack_no_longer_shown_reads_no_further_and_bills_what_it_spent(
    ddb: Any, client: Any, table: str
) -> None:
    ledger = SessionLedger()
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        pager = through(proxy, client, table, ledger)
        pager.next()
        proxy.gate = threading.Event()
        work = pager.start_reading_ahead(2)
        assert work is not None
        read: list[int] = []
        ahead = threading.Thread(target=lambda: read.append(work()))
        ahead.start()
        assert until(lambda: queries(proxy) == 2)
        pager.stop_reading_ahead()
        proxy.gate.set()
        ahead.join(60)
        assert read == [0] and queries(proxy) == 2  # page 3 never asked for
        assert pager.ahead_numbers() == []
        page = pager.next()
        assert not page.read_ahead and queries(proxy) == 3
    figures = ledger.figures()
    assert figures.read_ahead == 1 and figures.read_ahead_shown == 0
    assert figures.by_unit[0].read_ahead.headline > 0  # the answered call was billed


def test_going_back_reads_ahead_only_n_pages_past_the_page_shown(
    ddb: Any, client: Any, table: str
) -> None:
    """A chain reads up to N pages past the page shown, not up to a page some earlier
    chain was heading for: back on page 1 (no longer cached), one page, not three."""
    ledger = SessionLedger()
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        schema = describe_table(client, table)
        spec = from_key(schema, partition_value="p", page_size=3)  # pages 1 to 4
        proxied = make_client(ConnectionOptions(endpoint_url=proxy.endpoint_url))
        pager = query_pager(proxied, spec, schema, cache_pages=1)
        pager.ledger = ledger
        for _ in range(3):
            pager.next()
        assert read_ahead(pager, 1) == 1  # page 4
        assert pager.first().number == 1 and not pager.current.cached
        before = queries(proxy)
        assert read_ahead(pager, 1) == 1 and queries(proxy) == before + 1  # page 2 only
        assert pager.ahead_numbers() == [2, 4]


def test_a_fill_page_read_ahead_is_read_with_the_selectivity_n_would_use(
    client: Any, table_name: Callable[[str], str]
) -> None:
    """Fill mode sizes a page's first call by the selectivity seen so far, and a page cut
    by its round cap holds what that call reached: a page read ahead after another page
    read ahead must be read as if that one had been shown. Ground truth: the same pages
    read by n alone, on a second stack."""
    name = table_name()
    create_table(client, table_definition(name, ("k", "S"), ("s", "S")))
    write_items(
        client,
        name,
        [{"k": "p", "s": f"{i:03d}", "hit": "yes" if i % 4 == 0 else "no"} for i in range(40)],
    )
    schema = describe_table(client, name)
    spec = from_key(
        schema,
        partition_value="p",
        filter="hit = :y",
        filter_values={":y": {"S": "yes"}},
        page_size=2,
        mode="fill",
        max_rounds=1,
    )
    plain = query_pager(client, spec, schema)
    expected = [plain.next().items for _ in range(4)]
    pager = query_pager(client, spec, schema)
    pager.next()
    assert read_ahead(pager, 3) == 3
    shown = [pager.go("next") for _ in range(3)]
    assert all(page.read_ahead for page in shown)
    assert [page.items for page in shown] == expected[1:]


@pytest.fixture
def forty(client: Any, table_name: Callable[[str], str]) -> str:
    """A partition of 40 items: pages of two, far more than a test walks."""
    name = table_name()
    create_table(client, table_definition(name, ("k", "S"), ("s", "S")))
    write_items(client, name, [{"k": "p", "s": f"{i:02d}"} for i in range(40)])
    return name


def two_per_page(proxy: FaultProxy, table: str) -> Any:
    """The app on ``table`` through ``proxy``, two items a page, reading one page ahead."""
    proxied = make_client(ConnectionOptions(endpoint_url=proxy.endpoint_url, max_attempts=1))
    form = QueryForm(partition_value="p", page_size="2")
    return make_app(proxied, form, table=table, read_ahead=1)


async def until_page_two_is_read_ahead(pilot: Any, proxy: FaultProxy) -> None:
    await app_until(pilot, lambda: queries(proxy) == 2)  # page 1, then page 2 read ahead
    await app_until(pilot, lambda: not reading())
    await settle(pilot)


async def test_esc_in_a_jump_does_not_read_the_cancelled_page_ahead_again(
    ddb: Any, forty: str
) -> None:
    """A jump's walk cancelled with Esc while it reads a page: the page drawn where the
    walk stopped reads nothing ahead while that read is still being cancelled (it would
    read the very page being cancelled: billed twice)."""
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        app = two_per_page(proxy, forty)
        async with app.run_test(size=(120, 35)) as pilot:
            view = app.main_view
            await until_page_two_is_read_ahead(pilot, proxy)
            first_gate = threading.Event()
            proxy.gate = first_gate
            # Page 2 from what was read ahead; the walk reads page 3 itself (it began
            # before page 2's frame was drawn, when reading ahead would have started).
            view.jump(8)
            await app_until(pilot, lambda: queries(proxy) == 3)
            proxy.gate = threading.Event()  # page 4, the walk's own read, held here
            first_gate.set()
            await app_until(pilot, lambda: queries(proxy) == 4)
            view.cancel()  # the walk ends on page 3; page 4's call, still held, is dropped
            await app_until(pilot, lambda: not view.busy)
            for _ in range(3):  # the frames after Esc, and what waits for them
                await pilot.pause()
            assert reading()  # page 4's call is still out, held at the proxy
            assert view.state is not None and view.state.pager.number == 3
            assert view.state.pager.ahead_numbers() == []  # page 4 not claimed again
            proxy.gate.set()
            await app_until(pilot, lambda: not reading())
            assert queries(proxy) == 4
        assert app.session.ledger.figures().read_ahead == 1  # page 2


async def test_a_jump_reads_ahead_once_its_walk_ends(ddb: Any, forty: str) -> None:
    """A jump reads its pages in turn, as held n does (nothing read beside them); where
    it stops, the next page is read ahead, once."""
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        app = two_per_page(proxy, forty)
        async with app.run_test(size=(120, 35)) as pilot:
            view = app.main_view
            await until_page_two_is_read_ahead(pilot, proxy)
            view.jump(5)  # page 2 from what was read ahead, pages 3 to 5 read by the walk
            await app_until(pilot, lambda: view.page is not None and view.page.number == 5)
            await app_until(pilot, lambda: queries(proxy) == 6)  # page 6 read ahead
            await app_until(pilot, lambda: not reading())
            await settle(pilot)
            assert view.state is not None and view.state.pager.ahead_numbers() == [6]
            assert queries(proxy) == 6  # pages 1 to 6, each asked for once
        assert app.session.ledger.figures().read_ahead == 2  # pages 2 and 6


async def test_held_n_reads_ahead_once_its_walk_ends(ddb: Any, forty: str) -> None:
    """n pressed while page 3 is being read ahead waits for it; n pressed again then is
    one more page, read by the walk; where it stops, page 5 is read ahead, once."""
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        app = two_per_page(proxy, forty)
        async with app.run_test(size=(120, 35)) as pilot:
            view = app.main_view
            await until_page_two_is_read_ahead(pilot, proxy)
            gate = threading.Event()
            proxy.gate = gate
            await pilot.press("n")  # page 2, read ahead; page 3 read ahead, held here
            await app_until(pilot, lambda: queries(proxy) == 3)
            await pilot.press("n")  # waits for page 3
            await app_until(pilot, lambda: view.busy)
            await pilot.press("n")  # one more: a walk to page 4
            await app_until(pilot, lambda: view.machine.status.goal_page == 4)
            proxy.gate = None
            gate.set()
            await app_until(pilot, lambda: view.page is not None and view.page.number == 4)
            await app_until(pilot, lambda: queries(proxy) == 5)  # page 5 read ahead
            await app_until(pilot, lambda: not reading())
            await settle(pilot)
            assert view.state is not None and view.state.pager.ahead_numbers() == [5]
            assert queries(proxy) == 5  # pages 1 to 5, each asked for once
        assert app.session.ledger.figures().read_ahead == 3  # pages 2, 3 and 5


async def test_reading_ahead_waits_for_the_frame_that_shows_the_page(
    ddb: Any, client: Any, table: str
) -> None:
    """After n, the next page is read ahead once the frame showing this one is drawn: its
    answer is parsed on another thread, which drawing that frame would share the
    interpreter with (a fresh n at 0 ms took 22-28 ms against 17-18 ms)."""
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        proxied = make_client(ConnectionOptions(endpoint_url=proxy.endpoint_url, max_attempts=1))
        app = make_app(
            proxied, QueryForm(partition_value="p", page_size="5"), table=table, read_ahead=1
        )
        events: list[str] = []
        display = app._display

        def drawn(screen: Any, renderable: Any) -> None:
            page = app.main_view.page
            if renderable is not None and page is not None:
                events.append(f"frame with page {page.number}")
            display(screen, renderable)

        async with app.run_test(size=(120, 35)) as pilot:
            await app_until(pilot, lambda: queries(proxy) == 2)  # page 2 read ahead
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
            await app_until(pilot, lambda: queries(proxy) == 3)  # page 3 read ahead
            await settle(pilot)
    asked = events.index("read ahead past page 2")
    assert "frame with page 2" in events[:asked]


class Repeating:
    """A real Query source whose page ``at`` ends on the boundary page ``back_to`` began
    on, as a service answering with an earlier LastEvaluatedKey would."""

    def __init__(self, source: Any, at: int, back_to: int) -> None:
        self.source, self.at, self.back_to = source, at, back_to
        self.starts: dict[int, Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.source, name)

    def read_page(self, start_key: Any, number: int, **kwargs: Any) -> Any:
        page = self.source.read_page(start_key, number, **kwargs)
        self.starts.setdefault(number, start_key)
        if number == self.at:
            return dataclasses.replace(page, next_start_key=self.starts[self.back_to])
        return page


@pytest.mark.parametrize("back_to", [2, 3], ids=["a-page-read-ahead", "its-own-start"])
def test_a_page_read_ahead_that_would_repeat_a_boundary_is_refused_when_n_reaches_it(
    client: Any, table: str, back_to: int
) -> None:
    ledger = SessionLedger()
    schema = describe_table(client, table)
    pager = query_pager(client, from_key(schema, partition_value="p", page_size=4), schema)
    pager.ledger = ledger
    pager.source = Repeating(pager.source, at=3, back_to=back_to)
    pager.next()
    assert read_ahead(pager, 3) == 1  # page 2; page 3 read, billed and refused
    assert ledger.figures().read_ahead == 2
    assert pager.go("next").read_ahead  # page 2
    before = (pager.number, pager.stack, pager.cached_numbers(), pager.totals)
    with pytest.raises(NoProgressError, match=f"page 3 ends where page {back_to} began"):
        pager.go("next")  # read again by n, and refused there, in words
    assert (pager.number, pager.stack, pager.cached_numbers(), pager.totals) == before


# -- in the app ------------------------------------------------------------------------


@pytest.mark.parametrize("pages", [0, 1])
async def test_the_app_reads_ahead_only_when_asked_and_n_shows_that_page(
    ddb: Any, client: Any, table: str, pages: int
) -> None:
    """With ``read_ahead=1`` (``--read-ahead 1``) the page after the one shown is read as
    soon as a page is shown, n shows it with no call, said as read ahead in the status
    line, and the sidebar's session figures bill it as read ahead. Off (the default):
    nothing is read before n."""
    expected = truth(client, table)
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        proxied = make_client(ConnectionOptions(endpoint_url=proxy.endpoint_url, max_attempts=1))
        form = QueryForm(partition_value="p", page_size=str(SIZE))
        app = make_app(proxied, form, table=table, read_ahead=pages)
        async with app.run_test(size=(120, 35)) as pilot:
            view = app.main_view
            await app_until(pilot, lambda: view.page is not None)
            await settle(pilot)
            state = view.state
            assert state is not None
            if pages:
                await app_until(pilot, lambda: state.pager.plan("next").ahead is not None)
            await settle(pilot)
            assert queries(proxy) == 1 + pages
            await pilot.press("n")
            await app_until(pilot, lambda: view.page is not None and view.page.number == 2)
            page = view.page
            assert page.items == expected[1]["Items"]
            assert grid_rows(view) == expected_rows(view, page)
            status = text_of(view.query_one("#status-line", TextStatic))
            assert ("read ahead" in status) is bool(pages) and page.read_ahead is bool(pages)
            if pages:  # and page 3 is read ahead in turn
                await app_until(pilot, lambda: queries(proxy) == 3)
                await app_until(pilot, lambda: app.session.ledger.figures().read_ahead == 2)
                await settle(pilot)
                assert "2 pages read ahead (1 shown)" in " ".join(
                    text_of(view.query_one("#session-cost", TextStatic)).split()
                )
            else:
                await settle(pilot)
                assert queries(proxy) == 2
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
            assert until(lambda: queries(proxy) == 2)  # page 2, before any key
            terminal.send(b"n")
            screen = terminal.wait_for(lambda text: "Page 2 ·" in text, timeout=120)
            assert "read ahead" in screen
            assert until(lambda: queries(proxy) == 3)  # page 3 in turn, and no more
            terminal.send(b"q")
            assert terminal.wait_exit(60) == 0
        finally:
            terminal.close()
        assert queries(proxy) == 3


def test_serve_says_a_bad_read_ahead_once_before_it_listens() -> None:
    result = run_in_process(["serve", "--port", "0", "--read-ahead", "x"], env=dict(os.environ))
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "--read-ahead" in result.stderr
    assert "http" not in result.stdout  # no URL: nothing was served
