"""A cancelled read makes no further call, and what it spent is still known."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from faultproxy import FaultProxy
from helpers import rare_spec

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import ReadCancelled
from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import query_pager


class CancelAfter:
    """A client that cancels the token once ``calls`` queries have been answered."""

    def __init__(self, client: Any, token: CancelToken, calls: int) -> None:
        self.client = client
        self.token = token
        self.calls = calls
        self.made = 0
        self.meta = client.meta

    def query(self, **params: Any) -> Any:
        self.made += 1
        response = self.client.query(**params)
        if self.made >= self.calls:
            self.token.cancel()
        return response


def test_the_fill_loop_stops_between_calls_and_reports_the_cost(client, demo_table) -> None:
    schema = describe_table(client, demo_table)
    token = CancelToken()
    counting = CancelAfter(client, token, calls=1)
    pager = query_pager(
        counting, rare_spec(schema, page_size=50, mode="fill", max_rounds=50), schema
    )
    with pytest.raises(ReadCancelled) as info:
        pager.read(pager.plan("next"), token)
    assert counting.made == 1, "no call after the cancel"
    cost = info.value.cost
    assert cost.requests == 1 and cost.capacity.total > 0
    pager.abandon(cost)
    assert pager.totals.abandoned.capacity.total == cost.capacity.total
    assert pager.totals.pages_read == 0 and pager.current is None


def test_a_cancel_stops_botocore_retries_too(ddb, demo_table) -> None:
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        client = make_client(ConnectionOptions(endpoint_url=proxy.endpoint_url, max_attempts=10))
        schema = describe_table(client, demo_table)
        pager = query_pager(client, rare_spec(schema, page_size=10), schema)
        proxy.fail_all = True
        token = CancelToken()

        def cancel_after_first_fault() -> None:
            while not proxy.faults:
                time.sleep(0.005)
            token.cancel()

        threading.Thread(target=cancel_after_first_fault, daemon=True).start()
        began = time.monotonic()
        with pytest.raises(ReadCancelled):
            pager.read(pager.plan("next"), token)
        assert proxy.injected <= 2, "botocore made no further attempt after the cancel"
        assert time.monotonic() - began < 5
