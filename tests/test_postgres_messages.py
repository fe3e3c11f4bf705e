"""What a PostgreSQL refusal or failure says (issue 41): one line on stderr whatever psycopg
logs while closing a pipeline that already failed; a refusal names what the filter really
reaches (a qualified column is that column, not the whole row); array parameters given as
JSON arrays are PostgreSQL arrays. On the embedded PostgreSQL 18, in a database of its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from dblink_writer import server

from dynotui.core.errors import InputError
from dynotui.core.pager import Pager
from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.schema import describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery, param_text, parse_params

SETUP = """
CREATE EXTENSION IF NOT EXISTS citext;
CREATE TABLE msg.t (id integer PRIMARY KEY, v text, ci public.citext);
INSERT INTO msg.t VALUES (1, 'a"b', 'x'), (2, 'NULL', 'y'), (3, NULL, 'z'), (4, 'a\\b', 'w'),
    (5, '', 'v'), (6, 'plain', 'u');
"""


@pytest.fixture(scope="module", params=["embedded18"])
def server_uri(request: pytest.FixtureRequest) -> Iterator[str]:
    with server(request, "msg", SETUP) as uri:
        yield uri


@pytest.fixture
def admin(server_uri: str) -> Iterator[Any]:
    with psycopg.connect(server_uri, autocommit=True) as conn:
        yield conn


def read(uri: str, where: str, params: tuple[Any, ...] = ()) -> list[int]:
    session = connect(PgOptions(uri=uri))
    try:
        table = describe_table(session, "msg.t")
        query = PgQuery(table, table.default_order(), where=where, params=params)
        return [int(row["id"]) for row in Pager(PgSource(session, query)).next().items]
    finally:
        session.close()


# Run as a program of its own: pytest's log capture would hide what psycopg logs, which
# Python's last-resort handler prints on stderr only where no handler is configured.
TERMINATED = """
import sys, threading, time
import psycopg
from dynotui.core.errors import ServiceError
from dynotui.postgres.connection import PgOptions, connect

uri = sys.argv[1]
session = connect(PgOptions(uri=uri))
pid = session.conn.info.backend_pid

def terminate():
    with psycopg.connect(uri, autocommit=True) as admin:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            row = admin.execute(
                "SELECT state FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()
            if row and row[0] == "active":
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
                return
            time.sleep(0.02)

killer = threading.Thread(target=terminate)
killer.start()
try:
    session.run("SELECT pg_catalog.pg_sleep(20)")
except ServiceError as exc:
    print(f"dynotui: {exc}", file=sys.stderr)
killer.join()
"""


def test_a_pipeline_that_fails_twice_says_so_once(server_uri: str) -> None:
    """The backend is terminated mid-statement: the statement fails inside the pipeline,
    and closing the pipeline fails again; psycopg logged that second failure on stderr."""
    result = subprocess.run(
        [sys.executable, "-c", TERMINATED, server_uri],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("dynotui: cannot reach PostgreSQL")


def test_a_qualified_column_is_that_column_not_the_whole_row(server_uri: str, admin: Any) -> None:
    """``t.id`` is the column id (a column wins over the call notation id(t)): the citext
    column the filter does not read is not named, and the page is read."""
    assert read(server_uri, "t.id > 3 AND msg.t.id < 6") == [4, 5]
    with pytest.raises(InputError) as refused:
        read(server_uri, "row_to_json(t)::text <> ''")
    message = str(refused.value)
    assert "the table's row, which the filter passes whole" in message
    assert "reads column ci" not in message


@pytest.mark.parametrize(
    ("where", "params", "expected"),
    [
        ("id = ANY($1)", "[[1, 2, 3]]", [1, 2, 3]),
        ("id = ANY($1::int[])", '[["2", 5]]', [2, 5]),
        ("v = ANY($1)", '[["a\\"b", "NULL", null, "a\\\\b", ""]]', [1, 2, 4, 5]),
        ("$1::int[] @> ARRAY[id]", "[[[1, 2], [3, 6]]]", [1, 2, 3, 6]),
        ("cardinality($1::text[]) = 0 AND id = 6", "[[]]", [6]),
    ],
    ids=["integers", "mixed", "quoted-strings", "two-dimensions", "empty"],
)
def test_json_arrays_are_postgresql_arrays(
    server_uri: str, admin: Any, where: str, params: str, expected: list[int]
) -> None:
    parsed = parse_params(params)
    assert read(server_uri, where, parsed) == expected
    truth = admin.execute(
        f"SELECT id FROM msg.t WHERE {where.replace('$1', '%s')} ORDER BY id",  # type: ignore[arg-type]
        (param_text(parsed[0]),),
    )
    assert [r[0] for r in truth] == expected


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ('[{"a": 1}]', "not a JSON object"),
        ("[[[[[[[[1]]]]]]]]", "at most 6 dimensions"),
        ('[[{"a": 1}]]', "not a JSON object"),
    ],
)
def test_what_is_no_array_is_refused_in_one_line(params: str, words: str) -> None:
    with pytest.raises(InputError, match=words):
        parse_params(params)


ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}


def test_the_cli_takes_a_json_array_parameter(server_uri: str) -> None:
    result = subprocess.run(
        [
            sys.executable, "-m", "dynotui", "pages", "--postgres", server_uri,
            "--table", "msg.t", "--where", "id = ANY($1)", "--params", "[[1,2,3]]",
            "--no-summary",
        ],
        capture_output=True, text=True, env=ENV, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert '"id": "3"' in result.stdout and '"id": "4"' not in result.stdout
