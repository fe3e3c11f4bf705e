"""Paging through a proxy that throttles, fails and drops: nothing lost, nothing repeated,
every retry counted, and an outage leaves the stack as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from faultproxy import FaultProxy
from helpers import drain, items_of, page_lines, rare_spec, walk

from dynotui.core.errors import ServiceError
from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import query_pager
from dynotui.local import demo

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}
RARE = {":c": {"S": demo.BIG_CUSTOMER}, ":r": {"S": demo.RARE_STATUS}}


@pytest.fixture(scope="module")
def truth(client: Any, demo_table: str) -> list[dict]:
    return drain(
        client,
        TableName=demo_table,
        KeyConditionExpression="customer = :c",
        FilterExpression="#s = :r",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues=RARE,
    )


def faulty_client(proxy: FaultProxy, attempts: int = 5) -> Any:
    return make_client(
        ConnectionOptions(endpoint_url=proxy.endpoint_url, max_attempts=attempts, read_timeout=5)
    )


@pytest.mark.parametrize(("mode", "page_size", "seed"), [("raw", 250, 3), ("fill", 10, 4)])
def test_the_pager_loses_and_repeats_nothing_under_faults(
    ddb, truth, mode, page_size, seed
) -> None:
    with FaultProxy(ddb.endpoint_url, seed=seed, fault_rate=0.25) as proxy:
        client = faulty_client(proxy)
        schema = describe_table(client, demo.TABLE)
        pager = query_pager(client, rare_spec(schema, page_size=page_size, mode=mode), schema)
        pages = walk(pager)
    assert items_of(pages) == truth
    retries = sum(page.cost.retries for page in pages)
    assert proxy.injected >= 5, "the proxy must have misbehaved"
    assert retries == proxy.injected, "every injected fault is one retry, counted on its page"
    assert pager.totals.cost.retries == retries
    assert len(proxy.faults) >= 3, proxy.faults


@pytest.mark.parametrize("mode", ["raw", "fill"])
def test_pages_output_counts_retries_and_loses_nothing(ddb, truth, mode) -> None:
    with FaultProxy(ddb.endpoint_url, seed=7, fault_rate=0.15) as proxy:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "dynotui",
                "pages",
                "--endpoint-url",
                proxy.endpoint_url,
                "--table-name",
                demo.TABLE,
                "--key-condition-expression",
                "customer = :c",
                "--filter-expression",
                "status = :r",
                "--expression-attribute-values",
                json.dumps(RARE),
                "--mode",
                mode,
                "--page-size",
                "50",
            ],
            capture_output=True,
            text=True,
            timeout=600,
            env=ENV,
        )
    assert result.returncode == 0, result.stderr
    pages = page_lines(result.stdout)
    assert [item for page in pages for item in page["items"]] == [to_wire(i) for i in truth]
    assert sum(page["retries"] for page in pages) == proxy.injected >= 3


def test_an_outage_leaves_the_stack_and_the_next_move_resumes(ddb, truth) -> None:
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        client = faulty_client(proxy, attempts=3)
        schema = describe_table(client, demo.TABLE)
        pager = query_pager(client, rare_spec(schema, page_size=25, mode="fill"), schema)
        first = [pager.next() for _ in range(2)]
        before = (pager.number, pager.stack, pager.cached_numbers(), pager.totals)
        proxy.fail_all = True
        for move in ("next", "refresh"):
            with pytest.raises(ServiceError, match="after 2 retries"):
                pager.go(move, fresh=True)
        assert (pager.number, pager.stack, pager.cached_numbers(), pager.totals) == before
        proxy.fail_all = False
        rest = walk(pager)
    assert items_of(first + rest) == truth
