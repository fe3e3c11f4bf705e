"""The read state machine on its own: no Textual, no database, a clock of the test's own."""

from __future__ import annotations

from datetime import datetime, timezone

from dynotui.core.read_state import Failure, ReadMachine, ReadStatus

AT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


class Ticks:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def machine() -> ReadMachine[str]:
    return ReadMachine(clock=Ticks())


def test_a_new_machine_is_idle_and_not_busy() -> None:
    m = machine()
    assert m.status == ReadStatus() and m.status.phase == "idle" and not m.status.busy


def test_a_read_goes_reading_then_idle_with_its_page() -> None:
    m = machine()
    reading = m.begin(1, "page 1", first_page=True)
    assert m.status.phase == "reading" and m.status.busy
    assert reading.number == 1 and reading.first_page and reading.began == 101.0
    assert m.arrived(reading.id) is reading
    assert m.status.phase == "idle"


def test_a_superseded_read_is_told_apart_from_the_current_one() -> None:
    m = machine()
    old = m.begin(2, "old")
    new = m.begin(3, "new")
    assert m.arrived(old.id) is None, "its page is not shown"
    assert m.failed(old.id, "late", AT) is None, "nor is its failure said"
    assert m.status.reading is new and m.status.failure is None


def test_held_n_walks_to_a_goal_page_and_the_walk_ends_there() -> None:
    m = machine()
    reading = m.begin(2, "p2")
    m.walk_to(4)
    assert m.status.phase == "walking" and m.status.goal_page == 4 and not m.status.quiet
    m.arrived(reading.id)
    # Between two reads of a walk, nothing is read but the goal is still asked for.
    assert m.status.phase == "idle" and m.status.goal_page == 4 and m.status.busy
    m.begin(3, "p3")
    assert m.status.phase == "walking"
    m.end_walk()
    assert m.status.goal_page is None and m.status.phase == "reading"


def test_a_failure_is_said_until_a_page_is_shown() -> None:
    m = machine()
    reading = m.begin(5, "p5")
    m.walk_to(9, quiet=True)
    assert m.failed(reading.id, "cannot reach DynamoDB", AT) is reading
    status = m.status
    assert status.phase == "failed" and status.failure == Failure(5, "cannot reach DynamoDB", AT)
    assert status.goal_page is None and not status.quiet and not status.busy, "the walk ends"
    again = m.begin(5, "retry")
    assert m.status.phase == "reading" and m.status.failure is not None, "said while retrying"
    m.arrived(again.id)
    assert m.status.phase == "failed", "a page arrived, not yet shown"
    m.shown()
    assert m.status.phase == "idle" and m.status.failure is None


def test_a_table_opening_is_wanted_until_esc_or_another_table() -> None:
    m = machine()
    first = m.open_table("orders")
    assert m.status.phase == "opening" and m.status.busy
    second = m.open_table("customers")
    assert not m.table_opened(first), "another table was asked for since"
    assert m.status.phase == "opening"
    assert m.table_opened(second) and m.status.phase == "idle"
    third = m.open_table("orders")
    m.cancel()
    assert not m.table_opened(third), "Esc abandoned it"
    assert m.status.phase == "idle"


def test_opening_a_table_keeps_a_read_in_flight_and_a_move_keeps_the_opening() -> None:
    m = machine()
    reading = m.begin(2, "p2")
    opening = m.open_table("orders")
    assert m.status.phase == "reading" and m.status.table_opening == opening
    assert m.drop_read() is reading, "the caller cancels it"
    assert m.status.phase == "opening" and m.table_opened(opening)


def test_esc_stops_everything_but_keeps_the_failure_said() -> None:
    m = machine()
    failing = m.begin(3, "p3")
    m.failed(failing.id, "timeout", AT)
    reading = m.begin(3, "p3 again")
    m.walk_to(6)
    m.open_table("orders")
    assert m.cancel() is reading
    status = m.status
    assert status.reading is None and status.goal_page is None and status.table_opening is None
    assert status.phase == "failed" and not status.busy
    assert m.cancel() is None, "nothing left to cancel"


def test_a_read_stopped_without_a_page_ends_the_walk_and_says_nothing() -> None:
    m = machine()
    reading = m.begin(7, "p7")
    m.walk_to(10, quiet=True)
    assert m.stopped(reading.id) is reading
    assert m.status == ReadStatus()


def test_every_move_makes_a_new_snapshot() -> None:
    # The view keeps the status in a reactive: a snapshot changed in place would be seen
    # by nobody.
    m = machine()
    seen = [m.status]
    reading = m.begin(1, "p1")
    seen.append(m.status)
    m.walk_to(3)
    seen.append(m.status)
    m.arrived(reading.id)
    seen.append(m.status)
    assert len({id(s) for s in seen}) == len(seen)
    assert [s.phase for s in seen] == ["idle", "reading", "walking", "idle"]
