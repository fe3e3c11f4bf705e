"""``dynotui pages --postgres`` end to end, and the code dynotui generates for a
PostgreSQL page, proven by running it against the same database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from helpers import page_lines, run_in_process

from dynotui.core.pager import Pager
from dynotui.postgres.codegen import generate_pg
from dynotui.postgres.schema import describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}


def pages(uri: str, *args: str, process: bool = False) -> subprocess.CompletedProcess:
    """In this process, or with ``process`` in a new one (where nothing of the last is left)."""
    if not process:
        return run_in_process(["pages", "--postgres", uri, *args], env=ENV)
    return subprocess.run(
        [sys.executable, "-m", "dynotui", "pages", "--postgres", uri, *args],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=120,
    )


def lines(result: subprocess.CompletedProcess) -> list[dict]:
    assert result.returncode == 0, result.stderr
    return page_lines(result.stdout)


def test_pages_prints_one_object_per_page(pg_uri: str, pg_admin: Any) -> None:
    result = pages(
        pg_uri,
        "--table", "orders",
        "--order", "orders_status",
        "--where", "status = $1 AND total > $2",
        "--params", '["RETURNED", 500]',
        "--page-size", "40",
    )  # fmt: skip
    out = lines(result)
    expected = [
        str(r[0])
        for r in pg_admin.execute(
            "SELECT id FROM orders WHERE status = 'RETURNED' AND total > 500 ORDER BY status, id"
        )
    ]
    assert [row["id"] for page in out for row in page["items"]] == expected
    first = out[0]
    assert set(first) >= {
        "page", "items", "start_key", "next_start_key", "has_next", "shown", "cost", "next_token"
    }  # fmt: skip
    assert set(first["cost"]) >= {
        "shared_hit", "shared_read", "rows_removed_by_filter", "execution_ms", "plan"
    }  # fmt: skip
    assert first["start_key"] is None and first["next_start_key"] == ["RETURNED", expected[39]]
    assert out[-1]["has_next"] is False and out[-1]["next_token"] is None
    assert all(p["has_next"] for p in out[:-1])
    # Values are PostgreSQL's exact text: microseconds, numeric digits, NULL as null.
    row = out[0]["items"][0]
    assert row["total"].count(".") == 1 and len(row["total"].split(".")[1]) == 2
    assert "+00" in row["created_at"]


def test_a_token_resumes_in_a_new_process(pg_uri: str) -> None:
    base = ["--table", "orders", "--order", "created_at desc, id", "--page-size", "7"]
    first = lines(pages(pg_uri, *base, "--max-pages", "3"))
    whole = lines(pages(pg_uri, *base, "--max-pages", "5"))
    token = first[1]["next_token"]
    resumed = lines(
        pages(pg_uri, *base, "--max-pages", "2", "--starting-token", token, process=True)
    )
    assert [r["id"] for p in resumed for r in p["items"]] == [
        r["id"] for p in whole[2:4] for r in p["items"]
    ]
    other = pages(pg_uri, "--table", "orders", "--starting-token", first[1]["next_token"])
    assert other.returncode == 2 and "another query" in other.stderr
    assert "it differs in its order;" in other.stderr, "the part that differs, by name"


def test_offset_mode(pg_uri: str) -> None:
    keyset = lines(pages(pg_uri, "--table", "orders", "--page-size", "50", "--max-pages", "40"))
    offset = lines(
        pages(
            pg_uri,
            "--table",
            "orders",
            "--page-size",
            "50",
            "--max-pages",
            "40",
            "--mode",
            "offset",
        )
    )
    assert [p["items"] for p in keyset] == [p["items"] for p in offset]
    assert offset[39]["start_key"] == 39 * 50
    assert offset[39]["cost"]["rows_skipped_by_offset"] == 39 * 50
    deep = offset[39]["cost"]["shared_hit"] + offset[39]["cost"]["shared_read"]
    flat = keyset[39]["cost"]["shared_hit"] + keyset[39]["cost"]["shared_read"]
    assert deep > 5 * flat


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--table", "nope"], 2, "does not exist"),
        (["--table", "orders", "--where", "nope = 1"], 2, 'column "nope" does not exist'),
        (["--table", "orders", "--order", "nope"], 2, "neither an order"),
        (["--table", "orders", "--mode", "raw"], 2, "keyset or offset"),
        (["--table", "orders", "--table-name", "x"], 2, "drop --table-name"),
        (["--table", "orders", "--params", "{}"], 2, "JSON list"),
        (["--table", "orders", "--starting-token", "garbage"], 2, "cursor"),
        (["--where", "true"], 2, "--table is required"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    pg_uri: str, args: list[str], code: int, message: str
) -> None:
    result = pages(pg_uri, *args)
    assert result.returncode == code
    assert message in result.stderr and result.stderr.count("\n") == 1
    assert result.stdout == ""


def test_an_unreachable_server_exits_1() -> None:
    result = pages("postgresql://nobody@127.0.0.1:1/none", "--table", "orders")
    assert result.returncode == 1 and "cannot reach PostgreSQL" in result.stderr


def test_dynamodb_modes_are_refused_without_postgres() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dynotui", "pages", "--table-name", "t", "--mode", "keyset"],
        capture_output=True,
        text=True,
        env=ENV,
    )
    assert result.returncode == 2 and "for --postgres" in result.stderr


# -- generated code, run against the same database ------------------------------------------

CODE_CASES = [
    ("orders_created_id", {}, False),
    ("orders_customer_created", {}, False),  # mixed directions
    ("shipped_at desc", {}, False),  # nullable
    ("orders_status", {"where": "status = $1", "params": ("RETURNED",)}, False),
    ("total", {"mode": "offset"}, False),
    ("orders_created_id", {"projection": ("id", "created_at")}, True),
]


@pytest.mark.parametrize(("order", "options", "reverse"), CODE_CASES)
def test_generated_code_reproduces_the_pages(
    pg: Any, pg_uri: str, pg_admin: Any, order: str, options: dict[str, Any], reverse: bool
) -> None:
    table = describe_table(pg, "orders")
    chosen = table.order(order)
    if reverse:
        chosen = chosen.reversed()
    query = PgQuery(table, chosen, page_size=11, descending=reverse, **options)
    pager = Pager(PgSource(pg, query))
    pages_read = [pager.next() for _ in range(6)]
    page = pages_read[2]  # page 3, from a boundary
    wanted = [row["id"] for p in pages_read[2:5] for row in p.items]

    sql = generate_pg("sql", query, page.start_key, page.number, pg_uri)
    got = pg_admin.execute(sql).fetchall()  # type: ignore[arg-type]
    names = [c.name for c in pg_admin.cursor().execute(sql).description]  # type: ignore[arg-type]
    assert [str(row[names.index("id")]) for row in got] == [r["id"] for r in page.items]

    script = generate_pg("psycopg", query, page.start_key, page.number, pg_uri)
    ran = subprocess.run(
        [sys.executable, "-c", script, "--pages", "3"],
        capture_output=True,
        text=True,
        env={**os.environ, "DATABASE_URL": pg_uri},
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    rows = [json.loads(line) for line in ran.stdout.splitlines()]
    assert [r["id"] for r in rows] == wanted
    assert rows[: len(page.items)] == list(page.items)
