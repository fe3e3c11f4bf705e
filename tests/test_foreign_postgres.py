"""A boundary row someone else handed out, opened on the embedded PostgreSQL 18.

Page 1 from it is checked against the test's own ``SELECT ... ORDER BY`` past that row,
on a connection of its own; a row that does not fit the order is refused naming what
is wrong, a value its column's type cannot hold is named as the server reads it.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from typing import Any

from helpers import page_lines

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}


def pages(uri: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dynotui", "pages", "--postgres", uri, "--table", "orders", *args],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=120,
    )


def lines(result: subprocess.CompletedProcess) -> list[dict]:
    assert result.returncode == 0, result.stderr
    return page_lines(result.stdout)


def one_line_error(result: subprocess.CompletedProcess, needle: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert needle in result.stderr, result.stderr
    assert result.stdout == ""


def ids(pg_admin: Any, sql: str, *params: Any) -> list[str]:
    return [str(row[0]) for row in pg_admin.execute(sql, params)]  # type: ignore[arg-type]


def b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def test_a_boundary_row_opens_page_one_after_it(pg_uri: str, pg_admin: Any) -> None:
    at, row_id = pg_admin.execute(
        "SELECT created_at::text, id FROM orders ORDER BY created_at, id OFFSET 777 LIMIT 1"
    ).fetchone()
    truth = ids(
        pg_admin,
        "SELECT id FROM orders WHERE (created_at, id) > (%s::timestamptz, %s) "
        "ORDER BY created_at, id LIMIT 6",
        at,
        row_id,
    )
    order = ["--order", "orders_created_id", "--page-size", "6", "--max-pages", "1"]
    for text in (
        json.dumps([at, row_id]),  # a JSON number for the bigint: its digits are kept
        json.dumps([at, str(row_id)]),
        b64url(json.dumps({"id": row_id, "created_at": at})),
    ):
        out = lines(pages(pg_uri, *order, "--foreign-token", text))
        assert [row["id"] for row in out[0]["items"]] == truth, text
        mark = out[0]["foreign_start"]
        assert mark["signed"] is False and "anyone could have edited it" in mark["note"]
        assert mark["start_key"] == [at, str(row_id)]


def test_a_boundary_row_on_mixed_directions(pg_uri: str, pg_admin: Any) -> None:
    customer, at, row_id = pg_admin.execute(
        "SELECT customer, created_at::text, id FROM orders "
        "ORDER BY customer, created_at DESC, id DESC OFFSET 4321 LIMIT 1"
    ).fetchone()
    truth = ids(
        pg_admin,
        "SELECT id FROM orders WHERE customer > %s OR (customer = %s AND "
        "(created_at, id) < (%s::timestamptz, %s)) ORDER BY customer, created_at DESC, id DESC "
        "LIMIT 5",
        customer,
        customer,
        at,
        row_id,
    )
    row = {"customer": customer, "created_at": at, "id": row_id}
    out = lines(
        pages(
            pg_uri,
            "--order",
            "orders_customer_created",
            "--page-size",
            "5",
            "--max-pages",
            "1",
            "--foreign-token",
            json.dumps(row),
        )
    )
    assert [r["id"] for r in out[0]["items"]] == truth


def test_a_row_that_does_not_fit_the_order_is_refused(pg_uri: str) -> None:
    order = ["--order", "orders_created_id"]
    one_line_error(
        pages(pg_uri, *order, "--foreign-token", '["2026-09-01 00:00:00+00"]'),
        "holds 1 value(s); the order 'orders_created_id' has 2: created_at, id",
    )
    one_line_error(
        pages(pg_uri, *order, "--foreign-token", '{"created_at": "2026-09-01", "ident": 3}'),
        "missing id; extra ident",
    )
    one_line_error(
        pages(pg_uri, *order, "--foreign-token", '["not a time", 3]'),
        "created_at is 'not a time', which PostgreSQL does not read as timestamp with time zone",
    )
    one_line_error(
        pages(pg_uri, *order, "--foreign-token", '["2026-09-01", null]'),
        "id is null, and that term is never NULL",
    )
    one_line_error(
        pages(pg_uri, *order, "--exclusive-start-key", '{"id": 1}'),
        "--exclusive-start-key is DynamoDB's",
    )
    one_line_error(
        pages(pg_uri, *order, "--mode", "offset", "--foreign-token", '["2026-09-01", 3]'),
        "read with OFFSET",
    )
    refused = pages(pg_uri, *order, "--starting-token", '["2026-09-01", 3]')
    one_line_error(refused, "this is a foreign cursor (PostgreSQL boundary row (JSON list))")
    assert "--foreign-token JSON" in refused.stderr and "exclusive" not in refused.stderr
