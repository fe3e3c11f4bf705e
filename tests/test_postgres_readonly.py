"""Read-only means read-only on PostgreSQL (issue 17), against the embedded PostgreSQL 18
as superuser: what a filter may call is decided by PostgreSQL's parser and the server's
catalog, what runs is the deparsed filter, and no statement can be stacked on another.

Each attack is checked by its effect, seen on the test's own connection: the rows of a
victim table, a file on disk, another session still alive.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from helpers import page_lines, run_in_process
from pg_catalog_checks import builtin_code_problems

from dynotui.core.cursor import CursorError, CursorSigner
from dynotui.core.errors import InputError, ReadCancelled, ServiceError
from dynotui.core.pager import Pager
from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.count import forecast
from dynotui.postgres.schema import describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

SETUP = """
DROP SCHEMA IF EXISTS ro CASCADE;
CREATE SCHEMA ro;
CREATE EXTENSION IF NOT EXISTS dblink;
CREATE TABLE ro.victims (id integer PRIMARY KEY, note text);
CREATE FUNCTION ro.touch() RETURNS boolean VOLATILE LANGUAGE sql AS 'SELECT true';
CREATE FUNCTION ro.calm() RETURNS boolean STABLE LANGUAGE sql AS 'SELECT true';
CREATE FUNCTION ro.twin(integer) RETURNS boolean IMMUTABLE LANGUAGE sql AS 'SELECT true';
CREATE FUNCTION ro.twin(text) RETURNS boolean VOLATILE LANGUAGE sql AS 'SELECT true';
-- On the search path, as the call notation t.f needs (dropped with ro's row type).
CREATE FUNCTION public.ro_touch_row(ro.victims) RETURNS boolean VOLATILE LANGUAGE sql
    AS 'SELECT true';
CREATE FUNCTION ro.loud_eq(integer, integer) RETURNS boolean VOLATILE LANGUAGE sql
    AS 'SELECT $1 = $2';
CREATE OPERATOR ro.=== (LEFTARG = integer, RIGHTARG = integer, FUNCTION = ro.loud_eq);
CREATE FUNCTION ro.touch_int(integer) RETURNS boolean VOLATILE LANGUAGE sql
    AS 'SELECT true';
CREATE DOMAIN ro.checked AS integer CHECK (ro.touch_int(VALUE));
"""


@pytest.fixture(scope="module")
def ro_schema(pg_admin: Any) -> Any:
    pg_admin.execute(SETUP)
    yield pg_admin
    pg_admin.execute("DROP SCHEMA ro CASCADE")


@pytest.fixture
def victims(ro_schema: Any) -> Any:
    """100 rows, fresh for each test: an attack that works shows as fewer."""
    ro_schema.execute("TRUNCATE ro.victims")
    ro_schema.execute(
        "INSERT INTO ro.victims SELECT g, 'row ' || g FROM generate_series(1, 100) AS g"
    )
    return ro_schema


def rows_of(admin: Any) -> list[int]:
    return [r[0] for r in admin.execute("SELECT id FROM ro.victims ORDER BY id")]


def victims_query(pg: Any, where: str, params: tuple[Any, ...] = (), **options: Any) -> PgQuery:
    table = describe_table(pg, "ro.victims")
    return PgQuery(table, table.default_order(), where=where, params=params, **options)


def read_one_page(pg: Any, query: PgQuery) -> Any:
    return Pager(PgSource(pg, query)).next()


def socket_dir(admin: Any) -> str:
    return str(admin.info.host)


# -- what a filter may call -----------------------------------------------------------------


def test_dblink_exec_in_a_filter_is_refused_and_deletes_nothing(pg: Any, victims: Any) -> None:
    target = f"host={socket_dir(victims)} dbname=postgres user=postgres"
    attack = f"dblink_exec('{target}', 'DELETE FROM ro.victims WHERE id > 90') IS NOT NULL"
    with pytest.raises(InputError, match=r"refused: the filter calls dblink_exec .*another"):
        read_one_page(pg, victims_query(pg, attack))
    assert rows_of(victims) == list(range(1, 101))


def test_lo_export_in_a_filter_is_refused_and_writes_no_file(pg: Any, victims: Any) -> None:
    folder = Path(tempfile.mkdtemp(prefix="dynotui-lo-"))
    folder.chmod(0o777)  # the server runs as its own user
    out = folder / "out.txt"
    victims.execute("SELECT lo_unlink(424242) FROM pg_largeobject_metadata WHERE oid = 424242")
    victims.execute("SELECT lo_from_bytea(424242, 'secret')")
    try:
        with pytest.raises(InputError, match=r"refused: .*lo_export.*large objects"):
            read_one_page(pg, victims_query(pg, f"lo_export(424242, '{out}') = 1"))
        assert not out.exists()
    finally:
        victims.execute("SELECT lo_unlink(424242)")
        out.unlink(missing_ok=True)
        folder.rmdir()


def test_pg_terminate_backend_in_a_filter_is_refused(pg: Any, victims: Any, pg_uri: str) -> None:
    with psycopg.connect(pg_uri, autocommit=True) as bystander:
        pid = bystander.info.backend_pid
        with pytest.raises(InputError, match=r"pg_terminate_backend.*ends another session"):
            read_one_page(pg, victims_query(pg, f"pg_terminate_backend({pid}) IS NOT NULL"))
        assert bystander.execute("SELECT 1").fetchone() == (1,)  # still alive


@pytest.fixture
def trusting(pg_uri: str) -> Any:
    """A session that trusts the database's code (``--trust-database-code``)."""
    session = connect(PgOptions(uri=pg_uri, trust_database_code=True))
    yield session
    session.close()


# By default a filter runs only PostgreSQL's own code: the database's functions, operators
# and types are refused by name, whatever they declare, and so is a sub-select.
@pytest.mark.parametrize(
    ("where", "refusal"),
    [
        ("ro.touch()", r"calls ro\.touch\(\), which is not PostgreSQL's own"),
        ("ro.calm()", r"calls ro\.calm\(\), which is not PostgreSQL's own"),  # even STABLE
        ("ro.twin(1)", r"calls ro\.twin\(\w+\), which is not PostgreSQL's own"),
        ("id OPERATOR(ro.===) 1", r"applies operator ro\.===\(integer,integer\), which is not"),
        ("victims.ro_touch_row", r"calls ro_touch_row, which is not PostgreSQL's own"),
        ("id::ro.checked > 0", r"names type ro\.checked, which is not PostgreSQL's own"),
        ("id IN (SELECT v.id FROM ro.victims AS v)", r"holds a sub-select"),
        ("EXISTS (SELECT 1)", r"holds a sub-select"),
        ("random() < 0.5", r"random\(\), which is VOLATILE"),
        ("pg_sleep(1) IS NOT NULL", r"pg_sleep\(double precision\), which sleeps"),
        ("pg_advisory_lock(1) IS NOT NULL", r"advisory lock"),
        ("query_to_xml('SELECT 1', true, true, '') IS NOT NULL", r"runs SQL text"),
        ("table_to_xml('ro.victims', true, true, '') IS NOT NULL", r"runs SQL on a table"),
        ("txid_current() > 0", r"assigns a transaction id"),
        ("set_config('a.b', 'c', true) = 'c'", r"changes session settings"),
        ("pg_ls_dir('.') IS NOT NULL", r"lists server directories"),
    ],
)
def test_by_default_a_filter_runs_only_postgresqls_own_code(
    pg: Any, victims: Any, where: str, refusal: str
) -> None:
    with pytest.raises(InputError, match=refusal):
        read_one_page(pg, victims_query(pg, where))


# Trusting the database's code still refuses what is VOLATILE or denied, however it is
# reached: an overload, an operator's function, the call notation t.f, a domain's CHECK.
@pytest.mark.parametrize(
    ("where", "refusal"),
    [
        ("ro.touch()", r"calls ro\.touch\(\), which is VOLATILE"),
        ("ro.twin(1)", r"calls ro\.twin\(text\), which is VOLATILE"),  # any overload counts
        ("id OPERATOR(ro.===) 1", r"may run ro\.loud_eq\(integer,integer\) \(the function of"),
        ("victims.ro_touch_row", r"calls ro_touch_row\(ro\.victims\), which is VOLATILE"),
        (
            "id::ro.checked > 0",
            r"may run ro\.touch_int\(integer\) \(used by the CHECK constraint checked_check "
            r"of type ro\.checked, which the filter names\), which is VOLATILE",
        ),
        ("random() < 0.5", r"random\(\), which is VOLATILE"),
        ("id IN (SELECT g FROM pg_ls_dir('.') AS g)", r"lists server directories"),
    ],
)
def test_trusting_the_databases_code_still_refuses_volatile_and_denied_code(
    trusting: Any, victims: Any, where: str, refusal: str
) -> None:
    with pytest.raises(InputError, match=refusal):
        read_one_page(trusting, victims_query(trusting, where))


def test_builtin_objects_reach_only_builtin_code(pg_admin: Any) -> None:
    assert builtin_code_problems(pg_admin) == []


def test_an_ordinary_filter_runs_by_default(pg: Any, victims: Any) -> None:
    """Built-in functions, LIKE, casts, arithmetic, IN lists, IS NULL, date arithmetic."""
    where = (
        "lower(note) LIKE 'row 1%' AND id::text <> 'x' AND id * 2 + 1 > 3"
        " AND id IN (10, 11, 12, $1)"
        " AND note IS NOT NULL AND now() - interval '1 day' < now()"
        " AND date '2026-01-01' + 3 > current_date - 100000 AND coalesce(note, '') ~ '^row'"
        " AND note <> '$1 %(p1)s'"  # a $1 and a placeholder inside a literal stay text
    )
    page = read_one_page(pg, victims_query(pg, where, (13,), page_size=50))
    expected = [
        str(r[0])
        for r in victims.execute(
            "SELECT id FROM ro.victims WHERE note LIKE 'row 1%' AND id IN (10, 11, 12, 13)"
            " ORDER BY id"
        )
    ]
    assert [row["id"] for row in page.items] == expected == ["10", "11", "12", "13"]


def test_stable_calls_and_sub_selects_are_read_when_trusted(trusting: Any, victims: Any) -> None:
    where = (
        "ro.calm() AND lower(note) LIKE 'row 1%' AND now() > '2000-01-01'"
        " AND id IN (SELECT v.id FROM ro.victims AS v WHERE v.id <= $1)"
    )
    page = read_one_page(trusting, victims_query(trusting, where, (50,), page_size=50))
    expected = [
        str(r[0])
        for r in victims.execute(
            "SELECT id FROM ro.victims WHERE note LIKE 'row 1%' AND id <= 50 ORDER BY id"
        )
    ]
    assert [row["id"] for row in page.items] == expected


@pytest.mark.parametrize(
    ("where", "refusal"),
    [
        ("id IN (WITH d AS (DELETE FROM ro.victims RETURNING id) SELECT id FROM d)", "a DELETE"),
        ("id IN (SELECT id FROM ro.victims FOR UPDATE)", "FOR UPDATE"),
        ("id IN (SELECT id FROM ro.victims TABLESAMPLE SYSTEM (50))", "RangeTableSample"),
        ("true) OR (true", "parentheses do not balance"),
        ("(true", "parentheses do not balance"),
        ("true; DELETE FROM ro.victims", "does not parse"),
        ("NOT " * 20_000 + "true", "does not parse"),
        ("x" * 100_001, "longer than 100,000"),
    ],
    ids=lambda value: value[:40] if isinstance(value, str) else None,
)
def test_statement_shapes_that_are_not_one_expression_are_refused(
    pg: Any, victims: Any, where: str, refusal: str
) -> None:
    with pytest.raises(InputError, match=refusal):
        read_one_page(pg, victims_query(pg, where))
    assert rows_of(victims) == list(range(1, 101))


def test_what_runs_is_the_deparsed_filter_in_parentheses(pg: Any, victims: Any) -> None:
    query = victims_query(pg, "id<=5   OR\n id = $1 -- a comment ) OR (true", (7,))
    page = read_one_page(pg, query)
    assert [row["id"] for row in page.items] == ["1", "2", "3", "4", "5", "7"]
    sql = page.extra["sql"]
    # The comment (and what it hides) is gone: what runs is what PostgreSQL parsed.
    assert "WHERE (id <= 5 OR id = %(p1)s)" in sql and "comment" not in sql


# -- one statement at a time, over the extended protocol -----------------------------------


def test_a_stacked_statement_is_refused_by_the_server(pg: Any, victims: Any) -> None:
    stacked = "SELECT 1; COMMIT; BEGIN READ WRITE; DELETE FROM ro.victims WHERE id > 95; COMMIT"
    with pytest.raises(InputError, match="multiple commands"):
        pg.query(stacked)
    with pytest.raises(InputError, match="multiple commands"):
        pg.run(stacked)
    assert rows_of(victims) == list(range(1, 101))


def test_the_count_forecast_cannot_stack_statements(pg: Any, victims: Any) -> None:
    attack = (
        "true); COMMIT; BEGIN READ WRITE; DELETE FROM ro.victims WHERE id > 95; COMMIT; SELECT (1"
    )
    with pytest.raises(InputError):
        forecast(pg, victims_query(pg, attack))
    assert rows_of(victims) == list(range(1, 101))


def test_each_transaction_sets_its_timeouts_locally(pg: Any) -> None:
    settings = pg.query(
        "SELECT current_setting('statement_timeout'),"
        " current_setting('idle_in_transaction_session_timeout'),"
        " current_setting('transaction_read_only'), current_setting('extra_float_digits')"
    )
    assert settings == [("30s", "1min", "on", "3")]


def test_a_statement_timeout_stops_a_long_filter(pg_uri: str, victims: Any) -> None:
    session = connect(PgOptions(uri=pg_uri, statement_timeout=0.2, trust_database_code=True))
    try:
        slow = "(SELECT count(*) FROM generate_series(1, 400000000)) > 0"  # a sub-select
        with pytest.raises(ServiceError, match="statement timeout"):
            read_one_page(session, victims_query(session, slow))
        assert read_one_page(session, victims_query(session, "id <= 3")).shown == 3
    finally:
        session.close()


# -- what the server reports, and stopping it -------------------------------------------------


def test_a_failed_dblink_call_says_what_failed(pg: Any, ro_schema: Any) -> None:
    elsewhere = "host=127.0.0.1 port=1 dbname=nowhere connect_timeout=2"
    with pytest.raises(ServiceError) as failed:
        pg.query(
            f"SELECT * FROM dblink('{elsewhere}', 'SELECT 1') AS t(x integer)",
            user_search_path=True,  # dblink lives in public
        )
    message = str(failed.value)
    assert "could not establish connection" in message and "08001" in message
    assert "cannot reach PostgreSQL" not in message
    assert pg.query("SELECT 1") == [(1,)]  # the session itself was fine all along


def busy(admin: Any, pid: int) -> bool:
    row = admin.execute(
        "SELECT state = 'active' AND query LIKE '%%generate_series%%' FROM pg_stat_activity"
        " WHERE pid = %s",
        (pid,),
    ).fetchone()
    return bool(row and row[0])


def test_cancel_running_stops_the_statement_on_the_server(pg_uri: str, pg_admin: Any) -> None:
    session = connect(PgOptions(uri=pg_uri))
    pid = session.conn.info.backend_pid
    assert session.cancel_running() is False  # nothing in flight
    outcome: list[BaseException] = []

    def reader() -> None:
        try:
            session.query("SELECT count(*) FROM generate_series(1, 400000000)")
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=reader)
    thread.start()
    while not busy(pg_admin, pid):
        time.sleep(0.01)
    assert session.cancel_running(closing=True) is True
    thread.join()
    assert isinstance(outcome[0], ServiceError) and "user request" in str(outcome[0])
    assert not busy(pg_admin, pid)
    with pytest.raises(ReadCancelled):  # closing: nothing more is sent
        session.query("SELECT 1")
    session.close()


# -- the cursor scope comes from the parse -------------------------------------------------


def test_the_scope_keeps_whitespace_inside_literals_and_ignores_it_outside(
    pg: Any, victims: Any
) -> None:
    def scope(where: str) -> str:
        return PgSource(pg, victims_query(pg, where)).scope()

    two, one = scope("note = 'a  b'"), scope("note = 'a b'")
    assert two != one
    assert scope("note='a b'") == scope("note   =\n 'a b'  -- same") == one
    signer = CursorSigner(b"s" * 32)
    token = signer.sign(["5"], two)
    with pytest.raises(CursorError) as refused:
        signer.verify(token, one)
    assert refused.value.reason == "scope"


# -- the CLI: one line, exit 2 ------------------------------------------------------------------

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}


def pages(uri: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_in_process(["pages", "--postgres", uri, *args], env=ENV)


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("id IN (WITH d AS (DELETE FROM ro.victims RETURNING id) SELECT id FROM d)", "DELETE"),
        ("true) OR (true", "parentheses do not balance"),
        ("pg_terminate_backend(1) IS NOT NULL", "pg_terminate_backend"),
    ],
)
def test_refused_filters_exit_2_with_one_line(
    pg_uri: str, victims: Any, where: str, message: str
) -> None:
    result = pages(pg_uri, "--table", "ro.victims", "--where", where, "--max-pages", "3")
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and result.stderr.count("\n") == 1
    assert result.stdout == ""
    assert rows_of(victims) == list(range(1, 101))


def pages_with_config(uri: str, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_in_process(
        ["pages", "--postgres", uri, *args], env={**ENV, "DYNOTUI_CONFIG": str(config)}
    )


def test_trusting_by_flag_or_config_key_says_what_it_gives_up(
    pg_uri: str, victims: Any, tmp_path: Path
) -> None:
    where = ["--table", "ro.victims", "--where", "ro.calm() AND id <= 3", "--no-tokens"]
    config = tmp_path / "config.toml"
    config.write_text("")
    refused = pages_with_config(pg_uri, config, *where)
    assert refused.returncode == 2 and "not PostgreSQL's own" in refused.stderr
    flagged = pages_with_config(pg_uri, config, *where, "--trust-database-code")
    config.write_text("[postgres]\ntrust_database_code = true\n")
    configured = pages_with_config(pg_uri, config, *where)
    for run in (flagged, configured):
        assert run.returncode == 0, run.stderr
        assert run.stderr.count("\n") == 1 and "trusting this database's code" in run.stderr
        assert "cannot see inside them" in run.stderr
        assert [r["id"] for r in page_lines(run.stdout)[0]["items"]] == ["1", "2", "3"]
    for bad, says in (
        ('[postgres]\ntrust_database_code = "yes"\n', "must be true or false"),
        ("[postgres]\ntrust = true\n", "has no setting trust"),
    ):
        config.write_text(bad)
        run = pages_with_config(pg_uri, config, *where)
        assert run.returncode == 2 and says in run.stderr and run.stderr.count("\n") == 1
