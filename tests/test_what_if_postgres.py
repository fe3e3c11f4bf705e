"""What-if on PostgreSQL: a hypothetical index planned by the server through hypopg, held
to the real index built on a copy of the table; and the one line said where hypopg is not
installed (the embedded server has none)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from helpers import run_in_process
from system_postgres import SystemPostgres, find_bindir

from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.what_if import NOT_INSTALLED

SETUP = """
CREATE TABLE orders (id integer PRIMARY KEY, status text NOT NULL, total numeric, pad text);
INSERT INTO orders
SELECT g, CASE WHEN g % 400 = 0 THEN 'RETURNED' ELSE 'DELIVERED' END, g % 1000, repeat('x', 80)
FROM generate_series(1, 120000) AS g;
ANALYZE orders;
"""


def what_if(uri: str, *args: str) -> subprocess.CompletedProcess:
    return run_in_process(["what-if", "--postgres", uri, *args])


@pytest.fixture(scope="module")
def hypopg_uri() -> Iterator[str]:
    bindir, why = find_bindir()
    if bindir is None:
        pytest.skip(why)
    if not (bindir.parent / "lib" / "hypopg.so").exists():
        pytest.skip("hypopg is not installed for this server (.ci/run installs it)")
    with SystemPostgres(bindir) as server, psycopg.connect(server.uri, autocommit=True) as conn:
        # The test's own admin connection installs it, as a database owner would.
        conn.execute("CREATE EXTENSION hypopg")
        conn.execute(SETUP)  # type: ignore[arg-type]
        yield server.uri


@pytest.mark.system_postgres
def test_hypothetical_index_against_the_real_one_on_a_copy(hypopg_uri: str) -> None:
    args = ["--table", "orders", "--where", "status = 'RETURNED'", "--page-size", "25"]
    result = what_if(hypopg_uri, *args, "--hypothetical-index", "status, id", "--json")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["hypopg_installed"] is True
    assert found["what_if"]["uses_index"] is True
    low = found["what_if"]["buffers_per_page"]["low"]
    high = found["what_if"]["buffers_per_page"]["high"]
    now = found["now"]["buffers_per_page"]["p50"]
    assert low <= high < now  # the primary key walk reads ~400 rows a match
    # The truth: the same index made for real on a copy, pages read by dynotui's pager.
    with psycopg.connect(hypopg_uri, autocommit=True) as conn:
        conn.execute("CREATE TABLE orders_copy (LIKE orders INCLUDING ALL)")
        conn.execute("INSERT INTO orders_copy SELECT * FROM orders")
        conn.execute("CREATE INDEX ON orders_copy (status, id)")
        conn.execute("ANALYZE orders_copy")
    pages = subprocess.run(
        [
            sys.executable, "-m", "dynotui", "pages", "--postgres", hypopg_uri,
            "--table", "orders_copy", "--where", "status = 'RETURNED'", "--page-size", "25",
            "--max-pages", "1", "--no-tokens", "--no-summary",
        ],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert pages.returncode == 0, pages.stderr
    (page,) = [json.loads(line) for line in pages.stdout.splitlines()]
    assert "orders_copy_status_id_idx" in page["cost"]["plan"]
    measured = page["cost"]["shared_hit"] + page["cost"]["shared_read"]
    assert low - 1 <= measured <= high + 1, (low, measured, high)


@pytest.mark.system_postgres
def test_no_hypothetical_index_is_left_in_the_session(hypopg_uri: str) -> None:
    session = connect(PgOptions(uri=hypopg_uri))
    try:
        session.explain_hypothetical(
            "public", 'CREATE INDEX ON public.orders ("total")', "SELECT 1", None
        )
        assert session.query("SELECT count(*) FROM public.hypopg_list_indexes") == [(0,)]
        with pytest.raises(Exception, match="read-only"):
            session.query("CREATE TABLE written (a int)")
    finally:
        session.close()


@pytest.mark.system_postgres
def test_only_the_tables_own_columns_make_an_index(hypopg_uri: str) -> None:
    for columns, words in (
        ("status, nope", "has no column 'nope'"),
        ("lower(status)", "has no column"),
        ("status); DROP TABLE orders; --", "has no column"),
        ("", "--hypothetical-index"),
    ):
        result = what_if(hypopg_uri, "--table", "orders", "--hypothetical-index", columns)
        assert result.returncode == 2, result.stderr
        assert words in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_without_hypopg_it_says_so_in_one_line(pg_uri: str) -> None:
    result = what_if(pg_uri, "--table", "orders", "--hypothetical-index", "status, id")
    assert result.returncode == 0, result.stderr
    assert "buffers per page" in result.stdout
    assert sum(line == f"- {NOT_INSTALLED}" for line in result.stdout.splitlines()) == 1
    found: Any = json.loads(
        what_if(pg_uri, "--table", "orders", "--hypothetical-index", "status", "--json").stdout
    )
    assert found["hypopg_installed"] is False
    assert found["what_if"]["buffers_per_page"] is None
    assert found["now"]["pages"] >= 1
