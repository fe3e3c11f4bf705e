"""The article's five measures: pure properties, then the demo against a plain boto3 loop."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from helpers import page_lines, summary_line
from hypothesis import given
from hypothesis import strategies as st
from test_cli_pages import RARE_ARGS, pages

from dynotui.core.cursor import CursorError, CursorSigner
from dynotui.core.measures import QueryMeasures, nearest_rank
from dynotui.core.page import EndedBy, HasNext, PageSummary
from dynotui.core.refusals import CursorRefusals, verify_cursor
from dynotui.dynamodb.cost import Call, Capacity, DynamoCost
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import QuerySource, query_pager
from dynotui.dynamodb.spec import from_key
from dynotui.local import demo

# -- pure -------------------------------------------------------------------------------


@given(st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1), st.integers(1, 100))
def test_nearest_rank_is_the_least_value_covering_p_percent(values, p) -> None:
    got = nearest_rank(sorted(values), p)
    # The definition from the other side: the smallest measured value v such that at
    # least p% of the values are <= v.
    covering = [v for v in values if sum(x <= v for x in values) * 100 >= p * len(values)]
    assert got == min(covering)
    assert got in values


def summary(
    number: int,
    capacity: float | None,
    *,
    calls: int = 1,
    count: int = 1,
    scanned: int | None = 4,
    shown: int = 1,
    more: bool = True,
    mode: str = "fill",
    cached: bool = False,
) -> PageSummary[DynamoCost]:
    made = tuple(
        Call(
            10,
            count if i == 0 else 0,
            scanned if i == 0 else (0 if scanned is not None else None),
            None if capacity is None else Capacity(capacity if i == 0 else 0.0),
            1.0,
            0,
            more,
        )
        for i in range(calls)
    )
    return PageSummary(
        number=number,
        mode=mode,
        start_key=None,
        next_start_key={"k": {"S": str(number)}} if more else None,
        has_next=HasNext.UNKNOWN if more else HasNext.NO,
        ended_by=EndedBy.LIMIT if more else EndedBy.END,
        cost=DynamoCost.of(made),
        shown=shown,
        cached=cached,
    )


page_shapes = st.lists(
    st.tuples(
        st.one_of(st.none(), st.sampled_from([0.0, 0.5, 1.0, 1.5, 4.0, 12.5, 31.5, 200.0])),
        st.integers(1, 5),  # calls
        st.integers(0, 11),  # count
        st.integers(0, 400),  # scanned (>= count is not needed for the sums)
        st.integers(0, 10),  # shown
        st.booleans(),  # a key came back
        st.sampled_from(["raw", "fill"]),
        st.booleans(),  # cached
    ),
    max_size=60,
)


@given(page_shapes)
def test_incremental_measures_equal_a_batch_computation(shapes) -> None:
    measures = QueryMeasures()
    pages = [
        summary(
            i + 1,
            cap,
            calls=calls,
            count=count,
            scanned=scanned,
            shown=shown,
            more=more,
            mode=mode,
            cached=cached,
        )
        for i, (cap, calls, count, scanned, shown, more, mode, cached) in enumerate(shapes)
    ]
    for page in pages:
        measures.add(page)
    got = measures.snapshot()
    fresh = [p for p in pages if not p.cached]
    assert got.reads == len(fresh)
    reported = sorted(p.cost.headline for p in fresh if p.cost.headline is not None)
    if reported:
        assert got.capacity is not None
        n = len(reported)
        assert got.capacity.p50 == reported[math.ceil(n * 50 / 100) - 1]
        assert got.capacity.p99 == reported[math.ceil(n * 99 / 100) - 1]
        assert got.capacity.max == max(reported)
        assert got.capacity.not_reported == len(fresh) - n
        assert got.capacity_mean == pytest.approx(sum(reported) / n)
    else:
        assert got.capacity is None  # "not reported", never a 0
    assert got.matched == sum(p.count for p in fresh)
    assert got.scanned == (sum(p.cost.read for p in fresh) if fresh else None)
    assert got.calls == sum(p.cost.requests for p in fresh)
    assert got.max_calls == max((p.cost.requests for p in fresh), default=0)
    assert got.rounds_apply == any(p.mode == "fill" for p in fresh)
    assert got.empty_with_key == sum(1 for p in fresh if p.shown == 0 and p.next_start_key)


def test_a_tenfold_swing_is_flagged_and_not_reported_is_not_zero() -> None:
    steady = QueryMeasures()
    swinging = QueryMeasures()
    silent = QueryMeasures()
    for n in range(1, 101):
        steady.add(summary(n, 2.0))
        swinging.add(summary(n, 2.0 if n <= 98 else 25.0))  # p99 is the 99th value
        silent.add(summary(n, None, scanned=None))
    assert not steady.snapshot().capacity.swings  # type: ignore[union-attr]
    figures = swinging.snapshot().capacity
    assert figures is not None and figures.p99 == 25.0 and figures.swing == 12.5
    assert figures.swings
    quiet = silent.snapshot()
    assert quiet.capacity is None and quiet.scanned is None and quiet.selectivity is None
    assert quiet.as_json()["capacity_per_page"] == {"unit": "RCU", "reported": False}


def test_tampered_and_expired_cursors_make_two_refusals_with_their_reasons() -> None:
    now = [1_000_000.0]
    signer = CursorSigner(b"s" * 32, max_age=60, clock=lambda: now[0])
    scope = '{"table":"t"}'
    good = signer.sign({"pk": {"S": "a"}}, scope)
    refusals = CursorRefusals()
    assert verify_cursor(signer, good, scope, lambda key: key, refusals) == {"pk": {"S": "a"}}
    mac = good.split(".")[1]
    other = signer.sign({"pk": {"S": "b"}}, scope).split(".")[0]
    tampered = f"{other}.{mac}"  # another boundary under the first one's signature
    with pytest.raises(CursorError):
        verify_cursor(signer, tampered, scope, lambda key: key, refusals)
    now[0] += 61
    with pytest.raises(CursorError):
        verify_cursor(signer, good, scope, lambda key: key, refusals)
    figures = refusals.figures()
    assert (figures.presented, figures.refused) == (3, 2)
    assert dict(figures.by_reason) == {"signature": 1, "expired": 1}
    assert figures.rate == pytest.approx(2 / 3)
    assert "expired" in (figures.last_message or "")


def test_a_boundary_the_source_refuses_counts_as_malformed() -> None:
    signer = CursorSigner(b"s" * 32)
    token = signer.sign({"pk": {"S": "a"}}, "scope")
    refusals = CursorRefusals()

    def refuse(key: Any) -> Any:
        raise CursorError("malformed", "not this order's keys")

    with pytest.raises(CursorError):
        verify_cursor(signer, token, "scope", refuse, refusals)
    assert dict(refusals.figures().by_reason) == {"malformed": 1}


# -- the demo, against a plain boto3 loop -----------------------------------------------


def fill_loop(client: Any, params: dict, page_size: int, rounds: int, read: list) -> list[dict]:
    """Each page as a plain boto3 fill loop reads it: calls with the Limits dynotui's
    pages recorded, until page size + 1 matches, the round cap or the end; the next page
    starts after the last item shown (or at the LastEvaluatedKey when none is extra)."""
    found = []
    key = None
    for page in read:
        limits = [c.limit for c in page.cost.calls]
        items: list[dict] = []
        responses = []
        resume = key
        while len(responses) < rounds:
            request = dict(params, Limit=limits[len(responses)])
            if resume:
                request["ExclusiveStartKey"] = resume
            response = client.query(**request)
            responses.append(response)
            items.extend(response["Items"])
            resume = response.get("LastEvaluatedKey")
            if len(items) > page_size or resume is None:
                break
        shown = items[:page_size]
        found.append(
            {
                "start": key,
                "calls": len(responses),
                "capacity": sum(r["ConsumedCapacity"]["CapacityUnits"] for r in responses),
                "count": sum(r["Count"] for r in responses),
                "scanned": sum(r["ScannedCount"] for r in responses),
                "shown": shown,
            }
        )
        if len(items) > page_size:
            key = {"customer": shown[-1]["customer"], "order_no": shown[-1]["order_no"]}
        else:
            key = resume
        if key is None:
            break
    return found


def test_demo_measures_agree_with_a_plain_boto3_loop(client: Any, demo_table: str) -> None:
    schema = describe_table(client, demo.TABLE)
    spec = from_key(
        schema,
        partition_value=demo.BIG_CUSTOMER,
        filter="status = :r",
        filter_values={":r": {"S": demo.RARE_STATUS}},
        page_size=10,
        mode="fill",
    )
    pager = query_pager(client, spec, schema)
    pages = []
    while pager.can_advance:
        pages.append(pager.next())
    params = spec.request(schema, None, 1)
    del params["Limit"]
    truth = fill_loop(client, params, spec.page_size, spec.max_rounds, pages)
    assert len(truth) == len(pages) >= 10
    for page, plain in zip(pages, truth, strict=True):
        assert page.start_key == plain["start"]
        assert list(page.items) == plain["shown"]
    got = pager.measures.snapshot()
    capacities = sorted(p["capacity"] for p in truth)
    n = len(capacities)
    assert got.capacity is not None
    assert got.capacity.p50 == capacities[math.ceil(n / 2) - 1]
    assert got.capacity.p99 == capacities[math.ceil(n * 0.99) - 1]
    assert got.capacity.max == capacities[-1]
    assert got.capacity.swing == pytest.approx(got.capacity.p99 / got.capacity.p50)
    calls = [p["calls"] for p in truth]
    assert got.rounds_mean == pytest.approx(sum(calls) / n)
    assert got.max_calls == max(calls)
    assert max(calls) > 1, "the rare filter needs more than one round on some page"
    count = sum(p["count"] for p in truth)
    scanned = sum(p["scanned"] for p in truth)
    assert (got.matched, got.scanned) == (count, scanned)
    assert got.selectivity == pytest.approx(count / scanned)
    assert got.wasteful  # RETURNED is ~2.5% of orders
    assert got.empty_with_key == 0  # fill mode never shows an empty page with a key


def test_raw_pages_count_their_empty_pages(client: Any, demo_table: str) -> None:
    schema = describe_table(client, demo.TABLE)
    spec = from_key(
        schema,
        partition_value=demo.BIG_CUSTOMER,
        filter="status = :r",
        filter_values={":r": {"S": demo.RARE_STATUS}},
        page_size=10,
        mode="raw",
    )
    pager = query_pager(client, spec, schema)
    for _ in range(60):
        pager.next()
    params = spec.request(schema, None, 10)
    empty = 0
    key = None
    for _ in range(60):  # the plain loop: Limit 10, following LastEvaluatedKey
        response = client.query(**(dict(params, ExclusiveStartKey=key) if key else params))
        key = response.get("LastEvaluatedKey")
        empty += not response["Items"] and key is not None
    got = pager.measures.snapshot()
    assert got.empty_with_key == empty > 0
    assert got.empty_rate == pytest.approx(empty / 60)
    assert not got.rounds_apply and got.rounds_mean == 1


def test_pages_summary_line_holds_the_sums_of_its_pages(ddb: Any, demo_table: str) -> None:
    result = pages(ddb, *RARE_ARGS, "--mode", "fill", "--page-size", "10", "--no-tokens")
    assert result.returncode == 0, result.stderr
    out = page_lines(result.stdout)
    summary = summary_line(result.stdout)
    totals = summary["totals"]
    assert summary["pages"] == len(out)
    assert totals["cost"] == sum(p["consumed_capacity"]["total"] for p in out)
    assert totals["count"] == sum(p["count"] for p in out)
    assert totals["scanned_count"] == sum(p["scanned_count"] for p in out)
    assert totals["calls"] == sum(p["calls"] for p in out)
    capacities = sorted(p["consumed_capacity"]["total"] for p in out)
    measures = summary["measures"]
    assert measures["capacity_per_page"]["p50"] == capacities[math.ceil(len(out) / 2) - 1]
    assert measures["rounds_per_page"]["max"] == max(p["calls"] for p in out)
    price = summary["price_estimate"]
    assert price["source"].startswith("us-east-1 list prices as of 2024-11-01")
    assert price["these_pages"]["usd"]["on-demand"] == pytest.approx(
        totals["cost"] * 0.125 / 1e6, rel=1e-5
    )
    assert price["these_pages"]["usd"]["provisioned"] == pytest.approx(
        totals["cost"] * 0.00013 / 3600, rel=1e-5
    )
    mean = totals["cost"] / len(out)
    assert price["per_million_page_views"]["usd"]["on-demand"] == pytest.approx(
        mean * 1e6 * 0.125 / 1e6, rel=1e-5
    )
    assert summary["cursors"] == {"presented": 0, "refused": 0, "rate": None, "by_reason": {}}
    quiet = pages(ddb, *RARE_ARGS, "--max-pages", "2", "--no-tokens", "--no-summary")
    assert [json.loads(line)["page"] for line in quiet.stdout.splitlines()] == [1, 2]


def test_a_resumed_run_counts_the_cursor_it_was_given(ddb: Any, demo_table: str) -> None:
    first = page_lines(pages(ddb, *RARE_ARGS, "--max-pages", "1").stdout)
    resumed = pages(ddb, *RARE_ARGS, "--max-pages", "1", "--starting-token", first[0]["next_token"])
    assert resumed.returncode == 0, resumed.stderr
    assert summary_line(resumed.stdout)["cursors"]["presented"] == 1


def test_source_reports_capacity_per_index(client: Any, demo_table: str) -> None:
    """The GSI's share is part of each page's headline: the measures see the total."""
    schema = describe_table(client, demo.TABLE)
    spec = from_key(schema, index="by_status", partition_value=demo.RARE_STATUS, page_size=50)
    source = QuerySource(client, spec, schema)
    pager = query_pager(client, spec, schema)
    page = pager.next()
    assert source.scope() == pager.scope
    assert page.cost.capacity is not None and "by_status" in page.cost.capacity.indexes
    assert pager.measures.snapshot().capacity.max == page.cost.capacity.total  # type: ignore[union-attr]
