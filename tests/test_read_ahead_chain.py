"""Reading ahead (``--read-ahead N``) at the pager: its chain (``core/read_ahead.py``) on the
in-memory DynamoDB (``dynamodb/memory.py``, held to DynamoDB Local by
``test_memory_conformance.py``), whose ``calls`` record every request in the order it
arrives and whose ``before`` hook holds or fails one, as the fault proxy did for these
tests on DynamoDB Local: pages read ahead equal a plain boto3 loop's, page for page; n then
shows them with no call; what they spent is in the ledger as read ahead, shown or not, and
never billed twice; n pressed while a page is being read ahead waits for that read; a
moved boundary, a failure, an endless walk and a stack no longer shown each drop what was
read ahead rather than show it. (Moved from test_read_ahead.py, assertions unchanged.)"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

import pytest
from helpers import responses, until

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import ReadCancelled
from dynotui.core.ledger import SessionLedger
from dynotui.core.pager import NoProgressError, Pager
from dynotui.dynamodb.memory import MemoryDynamoDB, refusal
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import query_pager
from dynotui.dynamodb.spec import from_key
from dynotui.local.tables import table_definition

SIZE = 5  # twelve items: pages of 5, 5 and 2
TABLE = "twelve"


@pytest.fixture
def memory() -> MemoryDynamoDB:
    memory = MemoryDynamoDB()
    memory.create_table(**table_definition(TABLE, ("k", "S"), ("s", "S")))
    memory.put(TABLE, [{"k": "p", "s": f"{i:02d}", "n": i} for i in range(12)])
    return memory


def truth(client: MemoryDynamoDB, table: str = TABLE) -> list[dict]:
    """Every page of a plain boto3 loop, with what each consumed (not counted as calls)."""
    before = len(client.calls)
    found = responses(
        client.query,
        TableName=table,
        KeyConditionExpression="k = :v",
        ExpressionAttributeValues={":v": {"S": "p"}},
        Limit=SIZE,
        ReturnConsumedCapacity="TOTAL",
    )
    del client.calls[before:]
    return found


def through(client: MemoryDynamoDB, ledger: SessionLedger, page_size: int = SIZE) -> Pager:
    schema = describe_table(client, TABLE)
    spec = from_key(schema, partition_value="p", page_size=page_size)
    pager = query_pager(client, spec, schema)
    pager.ledger = ledger
    return pager


def queries(client: MemoryDynamoDB) -> int:
    return [operation for operation, _ in client.calls].count("Query")


def gated(client: MemoryDynamoDB) -> threading.Event:
    """Every request from now on waits here, unanswered, until the event is set."""
    gate = threading.Event()
    client.before = lambda operation, params: gate.wait() and None
    return gate


def read_ahead(pager: Pager, pages: int) -> int:
    work = pager.start_reading_ahead(pages)
    return 0 if work is None else work()


def test_pages_read_ahead_are_the_loop_s_and_n_shows_them_without_a_call(
    memory: MemoryDynamoDB,
) -> None:
    expected = truth(memory)
    assert [len(r["Items"]) for r in expected] == [5, 5, 2]
    ledger = SessionLedger()
    pager = through(memory, ledger)
    assert pager.next().items == expected[0]["Items"]
    assert read_ahead(pager, 5) == 2  # pages 2 and 3: the data ends there
    assert queries(memory) == 3 and pager.ahead_numbers() == [2, 3]
    assert read_ahead(pager, 5) == 0  # nothing more to read: no call

    for number in (2, 3):
        move = pager.plan("next")
        assert move.ahead is not None and move.cached is None
        page = pager.go("next")
        assert page.number == number and page.read_ahead and not page.cached
        assert page.items == expected[number - 1]["Items"]
    assert queries(memory) == 3  # n read nothing
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


def test_n_pressed_while_the_page_is_read_ahead_waits_for_that_read(memory: MemoryDynamoDB) -> None:
    expected = truth(memory)
    ledger = SessionLedger()
    pager = through(memory, ledger)
    pager.next()
    gate = gated(memory)
    work = pager.start_reading_ahead(1)
    assert work is not None
    ahead = threading.Thread(target=work)
    ahead.start()
    assert until(lambda: queries(memory) == 2)
    move = pager.plan("next")
    assert move.ready is None  # under way: not ready yet
    got: list[Any] = []
    pressed = threading.Thread(target=lambda: got.append(pager.read(move)))
    pressed.start()
    entry = pager._ahead_entry(2, move.start_key)
    assert entry is not None
    # The press is waiting on that read (its wake-up is registered), the gate shut.
    assert until(lambda: len(entry.future._done_callbacks) == 1)  # type: ignore[attr-defined]
    assert pressed.is_alive() and queries(memory) == 2
    gate.set()
    ahead.join(60)
    pressed.join(60)
    assert queries(memory) == 2  # one read of page 2, not two
    page = pager.accept(got[0])
    assert page.items == expected[1]["Items"] and page.read_ahead
    figures = ledger.figures()
    assert figures.read_ahead == 1 and figures.read_ahead_shown == 1 and figures.pages_read == 1


def test_a_wait_for_a_page_read_ahead_is_cancelled_with_esc(memory: MemoryDynamoDB) -> None:
    pager = through(memory, SessionLedger())
    pager.next()
    gate = gated(memory)
    work = pager.start_reading_ahead(1)
    assert work is not None
    ahead = threading.Thread(target=work)
    ahead.start()
    assert until(lambda: queries(memory) == 2)
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
    gate.set()
    ahead.join(60)
    assert pager.number == 1 and pager.plan("next").ahead is not None  # still there


def test_a_moved_boundary_drops_the_page_read_ahead_from_the_old_one(
    memory: MemoryDynamoDB,
) -> None:
    ledger = SessionLedger()
    pager = through(memory, ledger)
    pager.next()
    assert read_ahead(pager, 1) == 1
    # Item 02 deleted: page 1 now ends on 05, and page 2 begins after it.
    memory.delete_item(TableName=TABLE, Key={"k": {"S": "p"}, "s": {"S": "02"}})
    pager.refresh()
    assert pager.ahead_numbers() == []
    before = queries(memory)
    page = pager.next()
    assert queries(memory) == before + 1 and not page.read_ahead
    assert page.items == truth(memory)[1]["Items"]  # from the new boundary
    figures = ledger.figures()
    assert figures.read_ahead == 1 and figures.read_ahead_shown == 0  # billed, never shown


def test_a_failed_read_ahead_is_left_to_n_which_reads_and_says_it(memory: MemoryDynamoDB) -> None:
    expected = truth(memory)
    ledger = SessionLedger()
    pager = through(memory, ledger)
    pager.next()

    def fail_all(operation: str, params: Any) -> None:
        raise refusal("InternalServerError", "injected", operation)

    memory.before = fail_all
    assert read_ahead(pager, 2) == 0  # stopped at its first failure: page 3 not tried
    assert queries(memory) == 2
    assert read_ahead(pager, 2) == 0 and queries(memory) == 2  # not retried on its own
    memory.before = None
    page = pager.next()  # n reads it itself
    assert queries(memory) == 3 and not page.read_ahead
    assert page.items == expected[1]["Items"]
    assert ledger.figures().read_ahead == 0  # a refused call spent nothing


def test_a_stack_no_longer_shown_reads_no_further_and_bills_what_it_spent(
    memory: MemoryDynamoDB,
) -> None:
    ledger = SessionLedger()
    pager = through(memory, ledger)
    pager.next()
    gate = gated(memory)
    work = pager.start_reading_ahead(2)
    assert work is not None
    read: list[int] = []
    ahead = threading.Thread(target=lambda: read.append(work()))
    ahead.start()
    assert until(lambda: queries(memory) == 2)
    pager.stop_reading_ahead()
    gate.set()
    ahead.join(60)
    assert read == [0] and queries(memory) == 2  # page 3 never asked for
    assert pager.ahead_numbers() == []
    page = pager.next()
    assert not page.read_ahead and queries(memory) == 3
    figures = ledger.figures()
    assert figures.read_ahead == 1 and figures.read_ahead_shown == 0
    assert figures.by_unit[0].read_ahead.headline > 0  # the answered call was billed


def test_going_back_reads_ahead_only_n_pages_past_the_page_shown(memory: MemoryDynamoDB) -> None:
    """A chain reads up to N pages past the page shown, not up to a page some earlier
    chain was heading for: back on page 1 (no longer cached), one page, not three."""
    ledger = SessionLedger()
    schema = describe_table(memory, TABLE)
    spec = from_key(schema, partition_value="p", page_size=3)  # pages 1 to 4
    pager = query_pager(memory, spec, schema, cache_pages=1)
    pager.ledger = ledger
    for _ in range(3):
        pager.next()
    assert read_ahead(pager, 1) == 1  # page 4
    assert pager.first().number == 1 and not pager.current.cached
    before = queries(memory)
    assert read_ahead(pager, 1) == 1 and queries(memory) == before + 1  # page 2 only
    assert pager.ahead_numbers() == [2, 4]


def test_a_fill_page_read_ahead_is_read_with_the_selectivity_n_would_use() -> None:
    """Fill mode sizes a page's first call by the selectivity seen so far, and a page cut
    by its round cap holds what that call reached: a page read ahead after another page
    read ahead must be read as if that one had been shown. Ground truth: the same pages
    read by n alone, on a second stack."""
    memory = MemoryDynamoDB()
    name = "forty"
    memory.create_table(**table_definition(name, ("k", "S"), ("s", "S")))
    memory.put(
        name,
        [{"k": "p", "s": f"{i:03d}", "hit": "yes" if i % 4 == 0 else "no"} for i in range(40)],
    )
    schema = describe_table(memory, name)
    spec = from_key(
        schema,
        partition_value="p",
        filter="hit = :y",
        filter_values={":y": {"S": "yes"}},
        page_size=2,
        mode="fill",
        max_rounds=1,
    )
    plain = query_pager(memory, spec, schema)
    expected = [plain.next().items for _ in range(4)]
    pager = query_pager(memory, spec, schema)
    pager.next()
    assert read_ahead(pager, 3) == 3
    shown = [pager.go("next") for _ in range(3)]
    assert all(page.read_ahead for page in shown)
    assert [page.items for page in shown] == expected[1:]


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
    memory: MemoryDynamoDB, back_to: int
) -> None:
    ledger = SessionLedger()
    pager = through(memory, ledger, page_size=4)
    pager.source = Repeating(pager.source, at=3, back_to=back_to)
    pager.next()
    assert read_ahead(pager, 3) == 1  # page 2; page 3 read, billed and refused
    assert ledger.figures().read_ahead == 2
    assert pager.go("next").read_ahead  # page 2
    before = (pager.number, pager.stack, pager.cached_numbers(), pager.totals)
    with pytest.raises(NoProgressError, match=f"page 3 ends where page {back_to} began"):
        pager.go("next")  # read again by n, and refused there, in words
    assert (pager.number, pager.stack, pager.cached_numbers(), pager.totals) == before
