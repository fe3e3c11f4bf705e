"""Counting against DynamoDB Local: equal to a plain boto3 count, cancellable, costed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any

import pytest
from faultproxy import FaultProxy
from helpers import query_pages, run_in_process
from processes import as_a_background_job, interruptible

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import InputError
from dynotui.dynamodb.count import count, forecast
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import query_pager
from dynotui.dynamodb.spec import from_expressions, from_key
from dynotui.local import demo

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}
RARE = {":r": {"S": demo.RARE_STATUS}}


@pytest.fixture(scope="module")
def schema(client: Any, demo_table: str) -> Any:
    return describe_table(client, demo_table)


_truths: dict[str, int] = {}


def truth(client: Any, **params: Any) -> int:
    """A plain loop's count, read once per module: the demo table is never written."""
    asked = json.dumps(params, sort_keys=True)
    if asked not in _truths:
        # Select=COUNT: the same loop without the items (a Scan of the table reads 19 MB).
        found = query_pages(client, TableName=demo.TABLE, Select="COUNT", **params)
        _truths[asked] = sum(response["Count"] for response in found)
    return _truths[asked]


_whole_counts: dict[int, Any] = {}


def whole_table_count(client: Any, schema: Any, segments: int = 1) -> Any:
    """dynotui's count of the whole demo table in ``segments``, made once per module and
    read by several tests (each Scan of the table costs DynamoDB Local seconds of CPU)."""
    if segments not in _whole_counts:
        spec = from_expressions(demo.TABLE, scan=True)
        _whole_counts[segments] = count(client, spec, schema, segments=segments)
    return _whole_counts[segments]


def test_counts_equal_a_plain_loop(client, schema) -> None:
    acme = {":c": {"S": demo.BIG_CUSTOMER}}
    cases = [
        (
            from_key(schema, partition_value=demo.BIG_CUSTOMER),
            dict(KeyConditionExpression="customer = :c", ExpressionAttributeValues=acme),
        ),
        (
            from_key(
                schema, partition_value=demo.BIG_CUSTOMER, filter="status = :r", filter_values=RARE
            ),
            dict(
                KeyConditionExpression="customer = :c",
                FilterExpression="#s = :r",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={**acme, **RARE},
            ),
        ),
        (
            from_key(schema, index="by_status", partition_value="CANCELLED"),
            dict(
                IndexName="by_status",
                KeyConditionExpression="#s = :v",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={":v": {"S": "CANCELLED"}},
            ),
        ),
        (
            from_expressions(demo.TABLE, scan=True, filter="attribute_exists(flag)"),
            dict(FilterExpression="attribute_exists(flag)"),
        ),
    ]
    for spec, params in cases:
        result = count(client, spec, schema)
        assert result.complete and result.count == truth(client, **params), spec
        assert result.capacity is not None and result.capacity.total > 0
        assert result.calls >= 1 and result.scanned >= result.count


def test_a_parallel_scan_sums_its_segments(client, schema) -> None:
    everything = truth(client)
    one = whole_table_count(client, schema)
    four = whole_table_count(client, schema, segments=4)
    assert one.count == four.count == everything
    assert four.scanned == everything and four.calls >= 4, "every segment read to its end"
    assert four.capacity.total == pytest.approx(one.capacity.total, rel=0.05)
    with pytest.raises(InputError, match="segments split a Scan"):
        count(client, from_key(schema, partition_value="acme"), schema, segments=2)


class CancelAfterFirst:
    def __init__(self, client: Any, token: CancelToken) -> None:
        self.client, self.token, self.calls, self.meta = client, token, 0, client.meta

    def scan(self, **params: Any) -> Any:
        self.calls += 1
        response = self.client.scan(**params)
        self.token.cancel()
        return response


def test_a_cancelled_count_makes_no_further_call(client, schema) -> None:
    token = CancelToken()
    counting = CancelAfterFirst(client, token)
    spec = from_expressions(demo.TABLE, scan=True)
    result = count(counting, spec, schema, cancel=token)
    assert counting.calls == 1 and result.calls == 1
    assert not result.complete and result.count > 0 and result.capacity.total > 0
    assert "partial count" in result.summary()
    capped = count(client, spec, schema, max_calls=2)
    assert capped.calls == 2 and not capped.complete


@pytest.mark.parametrize("segments, cap", [(8, 3), (4, 4), (2, 1)])
def test_max_calls_caps_all_segments_together(ddb, schema, segments, cap) -> None:
    """The cap is on calls made, over every segment: counted by botocore's own event."""
    own = ddb.client()
    sent: list[dict] = []
    own.meta.events.register("before-call.dynamodb.Scan", lambda params, **_: sent.append(params))
    spec = from_expressions(demo.TABLE, scan=True)
    result = count(own, spec, schema, segments=segments, max_calls=cap)
    assert len(sent) == result.calls <= cap
    assert result.complete is False, "the table needs more calls than the cap"
    if cap >= segments:
        # Each segment is read at least once, so with fewer calls than segments the count
        # cannot be whole on any table; here the table itself must need more than the cap.
        uncapped = whole_table_count(own, schema, segments=segments)
        assert uncapped.complete and uncapped.calls > cap


def test_count_command_caps_segmented_calls(ddb) -> None:
    """Counted at a proxy in front of the server, independently of dynotui's own tally."""
    capped = ["--table-name", demo.TABLE, "--scan", "--segments", "8", "--max-calls", "3"]
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        result = run_in_process(["count", "--endpoint-url", proxy.endpoint_url, *capped], env=ENV)
        forwarded = proxy.forwarded["Scan"]
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["complete"] is False and out["calls"] == forwarded <= 3


def test_forecasts_come_from_what_is_free_and_what_was_measured(client, schema) -> None:
    scan = from_expressions(demo.TABLE, scan=True)
    guess = forecast(schema, scan)
    measured = whole_table_count(client, schema)
    assert guess.items == schema.item_count
    assert guess.read_units == pytest.approx(measured.capacity.total, rel=0.1)
    assert "4 KB" in guess.basis and "eventually consistent" in guess.basis
    query = from_key(schema, partition_value=demo.BIG_CUSTOMER, page_size=100)
    pager = query_pager(client, query, schema)
    for _ in range(3):
        pager.next()
    partial = forecast(schema, query, pager.totals.cost)
    assert "estimate from the pages seen so far" in partial.basis and partial.items is None
    small = query_pager(client, from_key(schema, partition_value="c001", page_size=100), schema)
    while small.can_advance:
        small.next()
    whole = forecast(schema, small.source.spec, small.totals.cost, whole_range_read=True)
    assert whole.exact_items and whole.items == small.totals.scanned


def run_count(ddb: Any, *args: str) -> subprocess.CompletedProcess:
    command = ["count", "--endpoint-url", ddb.endpoint_url, "--table-name", demo.TABLE]
    return run_in_process([*command, *args], env=ENV)


def test_count_command_prints_one_object_and_progress(ddb, client) -> None:
    result = run_count(
        ddb,
        "--key-condition-expression",
        "customer = :c",
        "--filter-expression",
        "status = :r",
        "--expression-attribute-values",
        json.dumps({":c": {"S": demo.BIG_CUSTOMER}, **RARE}),
        "--progress",
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert set(out) >= {
        "count",
        "scanned_count",
        "consumed_capacity",
        "calls",
        "seconds",
        "complete",
        "forecast",
    }
    assert out["complete"] is True and set(out["consumed_capacity"]) == {
        "total",
        "table",
        "indexes",
    }
    expected = truth(
        client,
        KeyConditionExpression="customer = :c",
        FilterExpression="#s = :r",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":c": {"S": demo.BIG_CUSTOMER}, **RARE},
    )
    assert out["count"] == expected
    steps = [json.loads(line) for line in result.stderr.splitlines()]
    assert len(steps) == out["calls"] and steps[-1]["count"] == expected
    capped = json.loads(run_count(ddb, "--scan", "--max-calls", "2").stdout)
    assert capped["complete"] is False and capped["calls"] == 2
    segmented = json.loads(run_count(ddb, "--scan", "--segments", "4").stdout)
    assert segmented["count"] == truth(client)
    bad = run_count(
        ddb,
        "--key-condition-expression",
        "customer = :c",
        "--expression-attribute-values",
        '{":c": {"S": "a"}}',
        "--segments",
        "2",
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "segments" in bad.stderr


def test_ctrl_c_prints_the_partial_count(ddb) -> None:
    with (
        FaultProxy(ddb.endpoint_url, fault_rate=0.0, delay=0.4) as proxy,
        as_a_background_job(),
        interruptible(
            [
                sys.executable,
                "-m",
                "dynotui",
                "count",
                "--endpoint-url",
                proxy.endpoint_url,
                "--table-name",
                demo.TABLE,
                "--scan",
                "--progress",
                "--read-timeout",  # a cold JVM on a busy machine, behind a slow proxy
                "120",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=ENV,
        ) as proc,
    ):
        assert proc.stderr is not None
        first = proc.stderr.readline()
        assert json.loads(first)["calls"] >= 1, first  # the first call has been answered
        proc.send_signal(signal.SIGINT)
        out, errors = proc.communicate(timeout=120)
    assert proc.returncode == 130, errors
    partial = json.loads(out)
    assert partial["complete"] is False and partial["count"] > 0 and partial["calls"] >= 1
