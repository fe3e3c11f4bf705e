"""The reading of a view (``core/view_reader.py``), with no app: every rule the widget held,
on the in-memory DynamoDB read by dynotui's own source (``tests/reading.py``). Work is held
until the test runs it, each piece on a thread of its own as the app's would be, so a read
can be "in flight" while keys are pressed. Items are checked against a plain boto3 loop on
the same client."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import responses, until
from reading import Opening, rig

from dynotui.core.errors import InputError
from dynotui.core.outcome import Done
from dynotui.core.pager import Pager
from dynotui.core.read_state import ReadMachine
from dynotui.core.view_reader import CANCELLED
from dynotui.dynamodb.memory import MemoryDynamoDB, refusal
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.segments import segmented_scan
from dynotui.dynamodb.spec import from_expressions


def truth(client: MemoryDynamoDB, size: int, table: str = "items") -> list[list[dict]]:
    """Each page's items by a plain boto3 loop (calls not counted)."""
    before = len(client.calls)
    found = responses(
        client.query,
        TableName=table,
        KeyConditionExpression="k = :v",
        ExpressionAttributeValues={":v": {"S": "p"}},
        Limit=size,
    )
    del client.calls[before:]
    return [r["Items"] for r in found]


def opened(items: int = 40, size: int = 2, **options: Any) -> Any:
    """A rig with page 1 of partition p shown, ``size`` items a page."""
    r = rig(items, **options)
    assert r.open(r.query(page_size=size))
    r.settle()
    assert r.number == 1
    return r


# -- new queries -----------------------------------------------------------------------------


def test_a_new_query_replaces_the_stack_only_once_its_first_page_arrives() -> None:
    r = opened(size=2)
    first = r.reader.state
    assert r.open(r.query(page_size=5))
    assert r.reader.state is first and r.reader.pending is not None  # still shown
    assert r.screen.began[-1] == 1 and r.reader.status.reading.first_page
    r.settle()
    assert r.reader.pending is None and r.reader.state is not first
    assert r.reader.state.pager.current.items == truth(r.client, 5)[0]
    assert r.screen.promoted_to == [first, r.reader.state]


def test_a_new_query_that_fails_keeps_what_is_shown_and_r_reads_it_again() -> None:
    r = opened(size=2)
    first = r.reader.state
    r.client.before = lambda op, params: (_ for _ in ()).throw(
        refusal("InternalServerError", "injected", op)
    )
    r.open(r.query(page_size=5))
    r.settle()
    assert r.reader.state is first and r.reader.pending is None
    assert r.reader.status.failure is not None and r.reader.status.failure.page == 1
    words, title, severity = r.screen.said[-1]
    assert title == "Page 1" and severity == "error" and "R retries" in words
    assert "the pages read so far are kept" in words
    r.client.before = None
    r.reader.retry()
    r.settle()
    assert r.reader.state is not first
    assert r.reader.state.pager.current.items == truth(r.client, 5)[0]
    assert r.reader.status.failure is None and r.reader.retry_move is None


def test_a_first_page_refused_as_bad_input_goes_back_to_its_form() -> None:
    r = opened(size=2)
    first = r.reader.state
    r.client.before = lambda op, params: (_ for _ in ()).throw(
        refusal("ValidationException", "no such filter", op)
    )
    query = r.query(page_size=5)
    r.open(query)
    r.settle()
    assert r.reader.state is first and r.reader.pending is None
    assert r.reader.status.phase == "idle" and r.reader.retry_move is None  # nothing to retry
    assert [q for q, _ in r.screen.refused] == [query]
    words, title, _ = r.screen.said[-1]
    assert title == "Query refused" and "the form is open again" in words


def test_a_query_that_cannot_be_read_is_refused_before_any_call() -> None:
    r = opened(size=2)
    calls = len(r.client.calls)
    bad = r.query(page_size=5).__class__(r.query().spec, r.query().schema, "no such index")
    assert not r.reader.start(Opening(bad))
    assert r.screen.said[-1] == ("no such index", "Query", "error")
    assert not r.open(r.query(page_size=5), key_json={"k": {"S": "p"}})  # not this order's key
    assert "cursor" in r.screen.said[-1][0]
    assert len(r.client.calls) == calls and r.reader.pending is None


def test_a_first_page_read_before_the_view_is_shown_without_a_call() -> None:
    r = rig(10)
    query = r.query(page_size=3)
    pager = Pager(query.make_source(r.client, r.reader.read_clock))
    page = pager.read(pager.plan("next"))

    class First:
        def __init__(self) -> None:
            self.pager, self.page = pager, page

    calls = len(r.client.calls)
    assert r.reader.start(Opening(query, first_page=First()))
    assert r.reader.state is not None and r.reader.state.pager is pager
    assert r.screen.shown == [1] and len(r.client.calls) == calls
    assert pager.ledger is r.ledger and r.ledger.figures().pages_read == 1


# -- moves -----------------------------------------------------------------------------------


def test_cached_pages_are_shown_without_a_call() -> None:
    r = opened(size=2)
    r.reader.navigate("next")
    r.settle()
    calls = r.queries()
    for target in ("prev", "next", "first", 2):
        r.reader.navigate(target)
        assert not r.works.held  # nothing to run
    assert r.queries() == calls and r.screen.shown == [1, 2, 1, 2, 1, 2]


def test_an_impossible_move_changes_nothing_not_even_the_read_in_flight() -> None:
    r = opened(size=2)
    r.reader.navigate("prev")
    assert r.screen.said[-1] == ("already on the first page", "", "warning")
    r.reader.navigate("next")
    reading = r.reader.status.reading
    r.reader.navigate(9)
    assert "has not been reached" in r.screen.said[-1][0]
    assert r.reader.status.reading is reading and not reading.payload.token.cancelled
    r.settle()
    assert r.number == 2


def test_n_pressed_while_a_page_is_read_walks_on_page_by_page() -> None:
    """Three n while page 2 is read: pages 2, 3 and 4, each asked for once, each drawn."""
    r = opened(size=2)
    expected = truth(r.client, 2)
    for _ in range(3):
        r.reader.navigate("next")
    assert r.reader.status.goal_page == 4 and len(r.works.held) == 1
    r.settle()
    assert r.screen.shown == [1, 2, 3, 4] and r.queries() == 4
    assert r.reader.state.pager.current.items == expected[3]
    assert r.reader.status.goal_page is None and r.reader.status.phase == "idle"


def test_held_n_past_the_end_stops_where_the_data_ends() -> None:
    r = opened(items=5, size=2)  # pages 1 to 3
    for _ in range(6):
        r.reader.navigate("next")
    r.settle()
    assert r.screen.shown == [1, 2, 3] and r.reader.status.goal_page is None
    assert not r.reader.state.pager.can_advance


def test_a_jump_reads_every_page_in_turn_and_draws_only_the_last() -> None:
    r = opened(size=2)
    expected = truth(r.client, 2)
    r.reader.jump(6)
    assert r.reader.status.quiet and r.reader.status.goal_page == 6
    r.settle()
    assert r.screen.shown == [1, 6] and r.queries() == 6
    assert r.reader.state.pager.current.items == expected[5]


def test_a_quiet_walk_redraws_its_status_ten_times_a_second_at_most() -> None:
    """Pages on the way redraw the status line (nothing else) when 0.1 s has passed since
    the last redraw: with the clock standing still, once for the whole walk."""
    counts = []
    for step in (0.0, 0.25):
        r = opened(size=2)
        r.reader.jump(8)
        before = len(r.screen.notices)
        while r.works.held:
            r.clock.now += step
            r.works.step()
        counts.append(len(r.screen.notices) - before)
    assert counts[1] - counts[0] == 5  # pages 3 to 7: each redrew once the clock moved


def test_any_other_move_ends_a_walk_and_stops_its_read() -> None:
    r = opened(size=2)
    r.reader.jump(6)
    r.works.step()  # page 2 read (not drawn)
    reading = r.reader.status.reading
    assert reading is not None and reading.number == 3
    r.reader.navigate("first")  # cached: no read
    assert reading.payload.token.cancelled and r.reader.status.goal_page is None
    assert r.screen.shown == [1, 2, 1]  # the quiet walk drew where it stopped, then page 1
    r.settle()
    assert r.number == 1 and r.queries() == 2  # page 3's read made no call


def test_esc_stops_the_read_and_the_walk_and_says_so_once() -> None:
    r = opened(size=2)
    r.reader.jump(6)
    r.works.step()
    assert r.reader.cancel() is True
    assert r.screen.notices[-1] == CANCELLED and r.screen.shown == [1, 2]
    assert not r.reader.status.busy
    assert r.reader.cancel() is False and r.screen.notices[-1] is None
    r.settle()
    assert r.number == 2


def test_a_superseded_read_is_not_shown_and_its_cost_is_billed() -> None:
    """A read answered after another move replaced it: the database billed it, so the
    stack's and the session's figures hold it, as an abandoned read."""
    r = opened(size=2)
    gate = r.gate()
    r.reader.navigate("next")
    work = r.works.start()
    assert until(lambda: r.queries() == 2)  # its call is out
    r.reader.navigate("first")  # cached page 1: the read of page 2 is superseded
    gate.set()
    r.works.finish(work)
    assert r.number == 1 and r.screen.shown == [1, 1]
    totals = r.reader.state.pager.totals
    assert totals.abandoned is not None and totals.abandoned.headline > 0
    assert r.ledger.figures().abandoned_reads == 1
    assert r.screen.figures == 1 and r.screen.costs == 1


def test_a_superseded_answer_read_ahead_or_cached_is_not_billed_again() -> None:
    """A page read ahead answering a superseded read (Esc, or another move, after the wait
    ended) is billed as read ahead already; a cached one was billed when it was read: not
    shown, not billed again. A fresh page is. (From test_read_ahead.py's app test.)"""
    r = opened(size=2, read_ahead=1)
    r.settle()  # page 2 read ahead
    state = r.reader.state
    ahead = state.pager.plan("next").ahead
    assert ahead is not None
    r.reader.owners[999] = state
    r.reader.reported(999, Done(ahead))
    r.reader.owners[998] = state
    r.reader.reported(998, Done(state.pager.current.as_cached()))
    assert r.ledger.figures().abandoned_reads == 0 and r.number == 1
    fresh = state.pager.read(state.pager.plan(1, fresh=True))
    r.reader.owners[997] = state
    r.reader.reported(997, Done(fresh))
    assert r.ledger.figures().abandoned_reads == 1 and r.number == 1


def test_a_failure_is_said_until_a_read_succeeds_and_r_retries_the_move() -> None:
    r = opened(size=2)
    r.client.before = lambda op, params: (_ for _ in ()).throw(
        refusal("InternalServerError", "injected", op)
    )
    r.reader.navigate(2)
    r.settle()
    failure = r.reader.status.failure
    assert failure is not None and failure.page == 2 and "InternalServerError" in failure.words
    assert r.reader.status.phase == "failed" and r.number == 1
    assert r.reader.retry_move == (r.reader.state, 2)
    r.client.before = None
    r.reader.retry()
    r.settle()
    assert r.number == 2 and r.reader.status.failure is None
    assert r.reader.retry_move is None
    r.reader.retry()
    assert r.screen.said[-1] == ("No failed move to retry.", "", "warning")


def test_a_failed_walk_draws_where_it_stopped() -> None:
    r = opened(size=2)
    r.reader.jump(6)
    r.works.step()  # page 2, quiet
    r.client.before = lambda op, params: (_ for _ in ()).throw(
        refusal("InternalServerError", "injected", op)
    )
    r.settle()
    assert r.screen.shown == [1, 2] and r.reader.status.failure.page == 3
    assert r.reader.status.goal_page is None


def test_a_move_in_the_query_shown_drops_a_pending_one() -> None:
    r = opened(size=2)
    r.open(r.query(page_size=5))
    r.reader.navigate("first")
    assert r.reader.pending is None
    assert r.screen.said[-1][0].startswith("The new query was dropped")
    r.settle()
    assert r.reader.state.pager.current.shown == 2  # still the 2-a-page query


def test_a_page_of_a_replaced_stack_is_dropped() -> None:
    r = opened(size=2)
    old = r.reader.state
    r.open(r.query(page_size=5))
    r.settle()
    page = old.pager.read(old.pager.plan("next"))
    shown = list(r.screen.shown)
    r.reader._accept(old, page)
    assert r.screen.shown == shown and r.reader.state is not old


def test_a_reconnect_reads_the_same_stack_through_the_new_client() -> None:
    r = opened(size=2)
    other = MemoryDynamoDB()
    from reading import table

    table(other, 40)
    r.reader.use_client(other)
    r.reader.navigate("next")
    r.settle()
    assert [op for op, _ in other.calls] == ["Query"] and r.number == 2
    assert r.reader.client is other


def test_a_table_opened_answers_only_while_it_is_wanted() -> None:
    r = rig(1)
    got: list[Any] = []
    r.reader.open_table("a", lambda: "A", got.append, got.append)
    r.reader.open_table("b", lambda: "B", got.append, got.append)  # a is abandoned
    assert r.reader.status.phase == "opening"
    r.settle()
    assert got == ["B"]
    r.reader.open_table("c", lambda: "C", got.append, got.append)
    assert r.reader.cancel() is True  # Esc abandons it
    r.settle()
    assert got == ["B"] and r.reader.status.phase == "idle"

    def broken() -> str:
        raise RuntimeError("no table")

    r.reader.open_table("d", broken, got.append, got.append)
    r.settle()
    assert isinstance(got[-1], RuntimeError)


def test_segments_are_paged_one_at_a_time_each_on_its_own_stack() -> None:
    client = MemoryDynamoDB()
    from reading import table

    table(client, 0)
    client.put("items", [{"k": f"p{i}", "s": "a"} for i in range(6)])
    schema = describe_table(client, "items")
    spec = from_expressions("items", scan=True, page_size=1)
    read = segmented_scan([client, client, client], spec, schema)
    r = rig(client=client)
    from reading import MemoryQuery

    queries = tuple(MemoryQuery(spec.with_(segment=i, total_segments=3), schema) for i in range(3))

    class Segments:
        def __init__(self) -> None:
            self.read, self.queries = read, queries

    assert r.reader.start(Opening(MemoryQuery(spec, schema), segments=Segments()))
    r.settle()
    assert r.reader.state.segment == 0 and read.selected == 0
    r.reader.navigate("next")
    r.settle()
    assert r.number == 2
    assert r.reader.step_segment(1)
    r.settle()
    assert r.reader.state.segment == 1 and read.selected == 1 and r.number == 1
    assert r.reader.step_segment(-1)  # back to segment 0, on the page it was left on
    assert not r.works.held and r.reader.state.segment == 0 and r.number == 2
    r.reader.read_ahead(r.reader.state)
    assert not r.works.held  # a read in segments backs off on its own: none read ahead


# -- reading ahead ---------------------------------------------------------------------------


def test_nothing_is_read_ahead_unless_asked() -> None:
    r = opened(size=2)
    r.screen.frame()
    assert not r.works.held and r.queries() == 1


def test_nothing_is_read_ahead_while_a_read_or_a_walk_is_under_way() -> None:
    r = opened(size=2, read_ahead=1)
    r.settle()  # page 2 read ahead
    state = r.reader.state
    r.reader.navigate("next")  # page 2 from what was read ahead, page 3 not yet
    r.reader.navigate("next")  # page 3: a read
    assert r.reader.status.reading is not None
    r.reader.read_ahead(state)
    assert not any(w.ahead for w in r.works.held)
    r.reader.navigate("next")  # a walk to page 4
    r.works.step()  # page 3 arrives: the walk goes on
    r.reader.read_ahead(state)
    assert not any(w.ahead for w in r.works.held)


def test_a_stack_no_longer_shown_reads_nothing_ahead() -> None:
    r = opened(size=2, read_ahead=2)
    old = r.reader.state
    r.open(r.query(page_size=5))
    r.works.step(ahead=False)  # the new query's first page: old is no longer shown
    assert old.pager.ahead_numbers() == []  # stopped, what was claimed dropped
    r.reader.read_ahead(old)
    assert not any(w.ahead for w in r.works.held if w not in r.works.held[:1])


def test_each_page_read_ahead_tells_the_session() -> None:
    r = rig(read_ahead=3)
    r.open(r.query(page_size=2))
    r.works.step()  # page 1
    costs = r.screen.costs
    r.settle()
    assert r.reader.state.pager.ahead_numbers() == [2, 3, 4]
    assert r.screen.costs == costs + 3


def test_no_thread_for_reading_ahead_drops_the_page_claimed() -> None:
    r = rig(read_ahead=1)
    r.open(r.query(page_size=2))
    r.works.step()  # page 1

    def refuse(work: Any, report: Any) -> None:
        raise RuntimeError("can't start new thread")

    r.reader.run_ahead = refuse
    r.screen.frame()
    assert not r.works.held and r.reader.state.pager.ahead_numbers() == []
    r.reader.navigate("next")  # n reads it itself, not waiting for a read never made
    r.settle()
    assert r.number == 2 and not r.reader.state.pager.current.read_ahead


def test_esc_in_a_jump_does_not_read_the_cancelled_page_ahead_again() -> None:
    """A jump's walk cancelled with Esc while it reads a page: the page drawn where the
    walk stopped reads nothing ahead while that read is still being cancelled (it would
    read the very page being cancelled: billed twice). (From test_read_ahead.py's app
    test on DynamoDB Local, which held page 4's call at the fault proxy.)"""
    r = opened(size=2, read_ahead=1)
    r.settle()  # page 2 read ahead
    assert r.queries() == 2
    # Page 2 from what was read ahead; the walk reads page 3 itself (it began before page
    # 2's frame was drawn, when reading ahead would have started).
    r.reader.jump(8)
    r.screen.frame()  # page 2's frame: the walk is under way, nothing read ahead
    r.works.step()  # page 3
    assert r.queries() == 3
    gate = r.gate()  # page 4, the walk's own read, held here
    work = r.works.start()
    assert until(lambda: r.queries() == 4)
    r.reader.cancel()  # the walk ends on page 3; page 4's call, still held, is dropped
    assert not r.reader.status.busy
    r.screen.frame()  # the frame after Esc, and what waits for it
    assert work.thread is not None and work.thread.is_alive()  # page 4's call still out
    assert r.number == 3
    assert r.reader.state.pager.ahead_numbers() == []  # page 4 not claimed again
    assert not r.works.held
    gate.set()
    r.works.finish(work)
    assert r.queries() == 4
    assert r.ledger.figures().read_ahead == 1  # page 2


def test_a_jump_reads_ahead_once_its_walk_ends() -> None:
    """A jump reads its pages in turn, as held n does (nothing read beside them); where
    it stops, the next page is read ahead, once."""
    r = opened(size=2, read_ahead=1)
    r.settle()
    r.reader.jump(5)  # page 2 from what was read ahead, pages 3 to 5 read by the walk
    r.settle()
    assert r.number == 5 and r.screen.shown[-1] == 5
    assert r.reader.state.pager.ahead_numbers() == [6]
    assert r.queries() == 6  # pages 1 to 6, each asked for once
    assert r.ledger.figures().read_ahead == 2  # pages 2 and 6


def test_held_n_reads_ahead_once_its_walk_ends() -> None:
    """n pressed while page 3 is being read ahead waits for it; n pressed again then is
    one more page, read by the walk; where it stops, page 5 is read ahead, once."""
    r = opened(size=2, read_ahead=1)
    r.settle()
    gate = r.gate()
    r.reader.navigate("next")  # page 2, read ahead
    r.screen.frame()  # page 3 read ahead, held here
    chain = r.works.start(ahead=True)
    assert until(lambda: r.queries() == 3)
    r.reader.navigate("next")  # waits for page 3
    assert r.reader.status.busy
    r.reader.navigate("next")  # one more: a walk to page 4
    assert r.reader.status.goal_page == 4
    r.client.before = None
    gate.set()
    r.works.finish(chain)
    r.settle()
    assert r.number == 4 and r.screen.shown[-1] == 4
    assert r.reader.state.pager.ahead_numbers() == [5]
    assert r.queries() == 5  # pages 1 to 5, each asked for once
    assert r.ledger.figures().read_ahead == 3  # pages 2, 3 and 5


def test_the_machine_is_the_clock_s() -> None:
    """The reader's machine times reads by the injected clock (the status line's
    "Reading page 2 · 0.3 s" counts from it)."""
    r = opened(size=2)
    r.clock.now = 12.5
    r.reader.navigate("next")
    assert r.reader.status.reading.began == 12.5
    assert isinstance(r.reader.machine, ReadMachine)


@pytest.mark.parametrize("error", [InputError("bad"), RuntimeError("boom")])
def test_a_failed_first_page_of_the_first_query_changes_nothing(error: Exception) -> None:
    r = rig(10)
    r.client.before = lambda op, params: (_ for _ in ()).throw(error)
    r.open(r.query(page_size=3))
    r.settle()
    assert r.reader.state is None and r.reader.pending is None
    if isinstance(error, InputError):
        assert r.screen.refused and r.reader.retry_move is None
    else:
        assert "nothing was changed" in r.screen.said[-1][0]
        assert r.reader.retry_move is not None
