"""Regression guards for long sessions: counted, not timed. Pure code, no server."""

from __future__ import annotations

import sys
from typing import Any

from dynotui.core.cancel import CancelToken
from dynotui.core.page import EndedBy, HasNext, Page, PageSummary
from dynotui.core.pager import Pager
from dynotui.dynamodb.cost import Call, Capacity, DynamoCost
from dynotui.dynamodb.schema import parse_schema
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import from_key
from dynotui.local.demo import TABLE_DEFINITION

SCHEMA = parse_schema({**TABLE_DEFINITION, "TableStatus": "ACTIVE", "ItemCount": 10})


class Synthetic(QuerySource):
    """Pages of five orders each, as DynamoDB shapes them, with no server."""

    def read_page(
        self, start_key: Any, number: int, *, selectivity: float | None, cancel: CancelToken
    ) -> Page[DynamoCost]:
        items = [
            {
                "customer": {"S": "acme"},
                "order_no": {"S": f"{number:06d}{i}"},
                "status": {"S": "RETURNED" if i == 0 else "DELIVERED"},
                "total": {"N": str(number + i)},
            }
            for i in range(5)
        ]
        key = {"customer": {"S": "acme"}, "order_no": items[-1]["order_no"]}
        call = Call(5, 5, 5, Capacity(0.5, 0.5, {}), 1.0, 0, True)
        return Page(
            number=number,
            mode="raw",
            start_key=start_key,
            items=items,
            shown=5,
            next_start_key=key,
            has_next=HasNext.UNKNOWN,
            ended_by=EndedBy.LIMIT,
            cost=DynamoCost.of((call,)),
            extra={"last_evaluated_key": key},
        )


def pager(cache_pages: int = 20) -> Pager:
    spec = from_key(SCHEMA, partition_value="acme", page_size=5)
    return Pager(Synthetic(None, spec, SCHEMA), cache_pages=cache_pages)


def test_page_summaries_hold_no_items_and_the_cache_is_bounded() -> None:
    session = pager(cache_pages=7)
    for _ in range(300):
        session.next()
    summaries = [session.summary_of(n) for n in range(1, 301)]
    assert all(type(s) is PageSummary for s in summaries)
    assert not any(hasattr(s, "items") or hasattr(s, "extra") for s in summaries)
    assert len(session.cached_numbers()) == 7
    assert session.summary_of(150).shown == 5 and session.summary_of(150).cost.requests == 1


def steps_taken(work: Any) -> int:
    """Lines of Python run by ``work()``, loop iterations included: a count of the work,
    the same on any machine (a timed test would be neither)."""
    count = 0

    def trace(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        count += 1
        return trace

    sys.settrace(trace)
    try:
        work()
    finally:
        sys.settrace(None)
    return count


def test_work_per_page_does_not_grow_with_the_session() -> None:
    """Accepting a page, the advisor's findings and the sidebar's series cost the same
    at page 1,000 as at page 200: folded in per page, never recomputed over all pages
    (the sparkline shows a window of the last 120 pages)."""
    session = pager()

    def step() -> None:
        page = session.read(session.plan("next"))
        session.accept(page)
        session.advisor.findings()
        session.series()
        session.selectivity()

    for _ in range(199):
        step()
    early = steps_taken(step)
    for _ in range(800):
        step()
    late = steps_taken(step)
    assert session.number == 1001
    assert late <= early * 1.05 + 20, (early, late)
