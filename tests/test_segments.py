"""A parallel Scan (``pages --scan --segments N`` and the segmented count) against DynamoDB
Local: every item exactly once, against a plain boto3 Scan; under a throttling proxy nothing
is lost or repeated, and each segment's throttles are its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest
from faultproxy import FaultProxy
from helpers import drain, page_lines

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import FieldError, InputError, ServiceError
from dynotui.core.segments import Backoff
from dynotui.dynamodb.connection import ConnectionOptions
from dynotui.dynamodb.count import count
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.segments import segment_clients, segmented_scan
from dynotui.dynamodb.spec import from_expressions
from dynotui.local import demo

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}
KEYS = ["--projection-expression", "customer, order_no", "--page-size", "1000"]


@pytest.fixture(scope="module")
def every_key(client: Any, demo_table: str) -> Counter[tuple[str, str]]:
    items = drain(client, TableName=demo_table, ProjectionExpression="customer, order_no")
    keys = Counter((i["customer"]["S"], i["order_no"]["S"]) for i in items)
    assert max(keys.values()) == 1 and len(keys) > 10_000
    return keys


def pages(endpoint: str, *args: str, scan: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "dynotui",
            "pages",
            "--endpoint-url",
            endpoint,
            "--table-name",
            demo.TABLE,
            *(["--scan"] if scan else []),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=ENV,
    )


def keys_of(lines: list[dict]) -> Counter[tuple[str, str]]:
    return Counter(
        (item["customer"]["S"], item["order_no"]["S"]) for line in lines for item in line["items"]
    )


def summary_of(stdout: str) -> dict:
    return json.loads(stdout.splitlines()[-1])["summary"]


def test_four_segments_give_every_item_once(ddb, every_key) -> None:
    result = pages(ddb.endpoint_url, "--segments", "4", *KEYS)
    assert result.returncode == 0, result.stderr
    lines = page_lines(result.stdout)
    assert keys_of(lines) == every_key, "every item exactly once"
    by_segment: dict[int, list[int]] = {}
    for line in lines:
        assert line["total_segments"] == 4
        by_segment.setdefault(line["segment"], []).append(line["page"])
    assert sorted(by_segment) == [0, 1, 2, 3]
    for numbers in by_segment.values():
        assert numbers == list(range(1, len(numbers) + 1)), "each segment's pages in order"
    summary = summary_of(result.stdout)
    assert summary["complete"] is True
    cells = summary["segments"]
    assert [c["segment"] for c in cells] == [0, 1, 2, 3] and all(c["done"] for c in cells)
    assert sum(c["items"] for c in cells) == sum(every_key.values()) == summary["totals"]["count"]
    assert all(c["items"] > 0 and c["units"] > 0 for c in cells), "the segments split the table"
    assert summary["totals"]["cost"] == pytest.approx(sum(c["units"] for c in cells))


def test_throttling_loses_and_repeats_nothing_and_is_counted_per_segment(ddb, every_key) -> None:
    with FaultProxy(ddb.endpoint_url, seed=5, fault_rate=0.3) as proxy:
        result = pages(proxy.endpoint_url, "--segments", "4", "--max-attempts", "5", *KEYS)
    assert result.returncode == 0, result.stderr
    lines = page_lines(result.stdout)
    assert keys_of(lines) == every_key
    cells = summary_of(result.stdout)["segments"]
    throttled = proxy.faults["throttle"] + proxy.faults["throttling"]
    assert throttled >= 3 and proxy.injected > throttled, proxy.faults
    assert sum(c["throttles"] for c in cells) == throttled
    # At most two faults in a row to a segment and five attempts: botocore's retries get
    # every call through, so no segment waits and every fault is one retry.
    assert sum(c["backoffs"] for c in cells) == 0
    assert sum(c["retries"] for c in cells) == proxy.injected == sum(li["retries"] for li in lines)
    per_segment = Counter()
    for line in lines:
        per_segment[line["segment"]] += line["retries"]
    assert [c["retries"] for c in cells] == [per_segment[s] for s in range(4)]


def test_a_segment_backs_off_past_its_clients_retries(ddb, every_key) -> None:
    """Throttles only, more in a row than botocore's attempts: the segment waits and reads
    the same page again."""
    with FaultProxy(
        ddb.endpoint_url,
        seed=11,
        fault_rate=0.6,
        max_in_a_row=4,
        faults=("throttle", "throttling"),
    ) as proxy:
        result = pages(proxy.endpoint_url, "--segments", "3", "--max-attempts", "2", *KEYS)
    assert result.returncode == 0, result.stderr
    assert keys_of(page_lines(result.stdout)) == every_key
    cells = summary_of(result.stdout)["segments"]
    assert sum(c["backoffs"] for c in cells) >= 1
    assert sum(c["throttles"] for c in cells) == proxy.injected


def test_an_outage_fails_the_read_in_one_line(ddb) -> None:
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        proxy.fail_all = True
        result = pages(proxy.endpoint_url, "--segments", "4", "--max-attempts", "2", *KEYS)
    assert result.returncode == 1
    # --max-attempts 2: one retry, said in the singular.
    assert result.stderr.count("\n") == 1 and "after 1 retry;" in result.stderr, result.stderr


def test_segments_refuse_what_they_cannot_take(ddb) -> None:
    cases = [
        (["--segments", "65"], "segments must be 1 to 64"),
        (["--segments", "2", "--starting-token", "x"], "drop --starting-token"),
        (["--segments", "2", "--exclusive-start-key", "{}"], "drop --exclusive-start-key"),
    ]
    for args, words in cases:
        result = pages(ddb.endpoint_url, *args)
        assert result.returncode == 2 and words in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1
    query = pages(
        ddb.endpoint_url,
        "--key-condition-expression",
        "customer = :c",
        "--expression-attribute-values",
        '{":c": {"S": "acme"}}',
        "--segments",
        "2",
        scan=False,
    )
    assert query.returncode == 2 and "segments split a Scan" in query.stderr


def test_a_segment_has_its_own_scope_and_request(ddb) -> None:
    spec = from_expressions(demo.TABLE, scan=True)
    parts = [spec.with_(segment=i, total_segments=3) for i in range(3)]
    assert len({p.scope() for p in [spec, *parts]}) == 4, "a segment's cursor opens no other"
    schema = describe_table(ddb.client(), demo.TABLE)
    request = parts[2].request(schema, None, 10)
    assert request["Segment"] == 2 and request["TotalSegments"] == 3
    with pytest.raises(FieldError, match="not one of 0 to 2"):
        spec.with_(segment=3, total_segments=3).check_options()
    with pytest.raises(FieldError, match="split a Scan"):
        from_expressions(
            demo.TABLE, key_condition="customer = :c", values={":c": {"S": "a"}}
        ).with_(segment=0, total_segments=2).check_options()


def test_the_model_moves_between_segments_and_pages(ddb, every_key) -> None:
    """What the app will drive: a cursor stack per segment, [ and ] round the ring."""
    clients = segment_clients(ConnectionOptions(endpoint_url=ddb.endpoint_url), 3)
    schema = describe_table(clients[0], demo.TABLE)
    spec = from_expressions(demo.TABLE, scan=True, projection="customer, order_no", page_size=500)
    read = segmented_scan(clients, spec, schema)
    assert read.step(-1).index == 2 and read.step(1).index == 0
    first = read.read_next(read.current, CancelToken())
    second = read.read_next(read.current, CancelToken())
    assert (first.number, second.number) == (1, 2)
    assert read.current.pager.prev().items == first.items, "back within a segment"
    other = read.step(1)
    assert other.pager.number == 0 and read.segments[0].pager.number == 1
    seen: list[dict] = []
    failures = read.drain(lambda s, p: seen.extend(p.items), cancel=CancelToken())
    assert not failures and read.done
    figures = read.figures()
    assert sum(f.items for f in figures) == sum(every_key.values())
    assert read.totals.pages_read == sum(f.reads for f in figures), "a cached page counted once"
    # Segment 0 was on page 1 again: its drain went on from page 2 (served from its cache).
    got = Counter((i["customer"]["S"], i["order_no"]["S"]) for i in [*first.items, *seen])
    assert got == every_key


def test_a_segmented_count_has_each_segments_figures(ddb, every_key) -> None:
    schema = describe_table(ddb.client(), demo.TABLE)
    spec = from_expressions(demo.TABLE, scan=True)
    with FaultProxy(ddb.endpoint_url, seed=3, fault_rate=0.3) as proxy:
        clients = segment_clients(
            ConnectionOptions(endpoint_url=proxy.endpoint_url, max_attempts=5), 4
        )
        result = count(clients[0], spec, schema, segments=4, clients=clients)
    assert result.complete and result.count == sum(every_key.values())
    assert [f.segment for f in result.segments] == [0, 1, 2, 3]
    assert sum(f.items for f in result.segments) == result.count
    assert sum(f.retries for f in result.segments) == result.retries == proxy.injected
    throttled = proxy.faults["throttle"] + proxy.faults["throttling"]
    assert sum(f.throttles for f in result.segments) == throttled >= 1
    assert all(f.done for f in result.segments)
    assert result.as_json()["segments"][0]["segment"] == 0
    with pytest.raises(InputError, match="segments split a Scan"):
        query = from_expressions(
            demo.TABLE, key_condition="customer = :c", values={":c": {"S": "acme"}}
        )
        count(clients[0], query, schema, segments=2)


def test_backoff_waits_with_jitter_and_gives_up() -> None:
    draws = iter([0.5, 1.0, 0.25])
    backoff = Backoff(attempts=2, base=1.0, cap=1.5, rng=lambda: next(draws))
    waited: list[float] = []

    class Clock(CancelToken):
        def wait(self, seconds: float) -> bool:
            waited.append(seconds)
            return False

    token = Clock()
    assert backoff.wait(token) and backoff.wait(token)
    assert not backoff.wait(token), "two waits in a row at most"
    assert waited == [0.5, 1.5], "full jitter, doubled, capped"
    backoff.succeeded()
    assert backoff.wait(token) and waited[-1] == 0.25 and backoff.total == 3
    cancelled = CancelToken()
    cancelled.cancel()
    assert not Backoff().wait(cancelled)


def test_service_errors_stop_the_other_segments() -> None:
    from dynotui.core.segments import run_segments

    token = CancelToken()
    ran: list[int] = []

    def work(index: int) -> None:
        if index == 0:
            raise ServiceError("segment 0 failed")
        token.wait(5)
        ran.append(index)

    failures = run_segments(3, work, cancel=token, workers=3)
    assert [str(f) for f in failures] == ["segment 0 failed"] and token.cancelled
