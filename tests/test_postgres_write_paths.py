"""Read-only by construction (issue 26): the five ways a filter reached a VOLATILE function
without naming it, set up as an attacker would on Debian's PostgreSQL: an ordinary role
(``mallory``) owns functions that write through ``dblink_exec`` (a second connection, which
a READ ONLY transaction does not cover), and dynotui reads as another ordinary role.

Each path is first shown to write when its filter runs in a plain read-only transaction
(so the test could fail); then dynotui refuses it in one line, by default and when trusting
the database's code, and nothing is written. An ordinary filter still runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from pg_catalog_checks import builtin_code_problems
from psycopg.conninfo import make_conninfo
from system_postgres import SystemPostgres, find_bindir

from dynotui.core.errors import InputError
from dynotui.core.pager import Pager
from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.schema import describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

pytestmark = pytest.mark.system_postgres

SETUP = """
CREATE EXTENSION dblink;
CREATE ROLE mallory LOGIN PASSWORD 'mallory';
CREATE ROLE reader LOGIN;
CREATE SCHEMA AUTHORIZATION mallory;
GRANT USAGE ON SCHEMA mallory TO reader;
SET ROLE mallory;
CREATE TABLE mallory.writes (what text);
CREATE TABLE mallory.tgt (id integer PRIMARY KEY, v integer);
INSERT INTO mallory.tgt SELECT g, g FROM generate_series(1, 10) AS g;
GRANT SELECT ON mallory.tgt TO reader;
CREATE FUNCTION mallory.write(what text) RETURNS integer VOLATILE LANGUAGE sql AS $$
    SELECT 1 FROM public.dblink_exec(%(target)s,
        'INSERT INTO mallory.writes VALUES (' || quote_literal(what) || ')') $$;
-- 1. an aggregate whose transition function is VOLATILE (the aggregate itself is not)
CREATE FUNCTION mallory.agg_step(s integer, x integer) RETURNS integer VOLATILE LANGUAGE sql
    AS $$ SELECT mallory.write('aggregate') + coalesce(s, 0) $$;
CREATE AGGREGATE mallory.agg_evil(integer) (SFUNC = mallory.agg_step, STYPE = integer);
-- 2. a domain's CHECK, three domains down, and in a composite's attribute
CREATE FUNCTION mallory.check_write(integer) RETURNS boolean VOLATILE LANGUAGE sql
    AS $$ SELECT mallory.write('domain') = 1 $$;
CREATE DOMAIN mallory.d1 AS integer CHECK (mallory.check_write(VALUE));
CREATE DOMAIN mallory.d2 AS mallory.d1;
CREATE DOMAIN mallory.d3 AS mallory.d2;
CREATE TYPE mallory.comp AS (a mallory.d3);
-- 3. an IMMUTABLE operator whose negator is VOLATILE: NOT (a =#= b) runs the negator
CREATE FUNCTION mallory.calm_eq(integer, integer) RETURNS boolean IMMUTABLE
    LANGUAGE plpgsql AS 'BEGIN RETURN $1 = $2; END';
CREATE FUNCTION mallory.loud_ne(integer, integer) RETURNS boolean VOLATILE LANGUAGE sql
    AS $$ SELECT mallory.write('negator') = 1 AND $1 <> $2 $$;
CREATE OPERATOR mallory.=#= (LEFTARG = integer, RIGHTARG = integer,
    FUNCTION = mallory.calm_eq, NEGATOR = OPERATOR(mallory.<#>));
CREATE OPERATOR mallory.<#> (LEFTARG = integer, RIGHTARG = integer,
    FUNCTION = mallory.loud_ne, NEGATOR = OPERATOR(mallory.=#=));
-- 4. default argument expressions: one writes, one takes a session lock
CREATE FUNCTION mallory.writes_default() RETURNS integer VOLATILE LANGUAGE sql
    AS $$ SELECT mallory.write('default') $$;
CREATE FUNCTION mallory.def_dblink(x integer DEFAULT mallory.writes_default())
    RETURNS boolean IMMUTABLE LANGUAGE plpgsql AS 'BEGIN RETURN true; END';
CREATE FUNCTION mallory.def_lock(x boolean DEFAULT pg_try_advisory_lock(4242))
    RETURNS boolean IMMUTABLE LANGUAGE plpgsql AS 'BEGIN RETURN true; END';
-- 5. a view and a row-level security policy, each running its own function
CREATE VIEW mallory.v AS SELECT id, mallory.write('view') AS w FROM mallory.tgt;
GRANT SELECT ON mallory.v TO reader;
CREATE TABLE mallory.guarded (id integer);
INSERT INTO mallory.guarded VALUES (1);
ALTER TABLE mallory.guarded ENABLE ROW LEVEL SECURITY;
CREATE POLICY p ON mallory.guarded USING (mallory.write('policy') = 1);
GRANT SELECT ON mallory.guarded TO reader;
RESET ROLE;
"""

# (path, filter, dynotui's refusal by default, its refusal when trusting the database)
PATHS = [
    (
        "aggregate",
        "(SELECT mallory.agg_evil(t2.id) FROM mallory.tgt t2 WHERE t2.id < 3) > 0",
        r"holds a sub-select",
        r"may run mallory\.agg_step\(integer,integer\) \(the transition function of "
        r"mallory\.agg_evil\(integer\), which the filter calls\), which is VOLATILE",
    ),
    (
        "domain",
        "(1::mallory.d3) = 1",
        r"names type mallory\.d3, which is not PostgreSQL's own",
        r"may run mallory\.check_write\(integer\) \(used by the CHECK constraint d1_check of "
        r"type mallory\.d1, the base type of type mallory\.d2, the base type of type "
        r"mallory\.d3, which the filter names\), which is VOLATILE",
    ),
    (
        "domain",
        "(ROW(1)::mallory.comp).a = 1",
        r"names type mallory\.comp, which is not PostgreSQL's own",
        r"may run mallory\.check_write\(integer\) .*the type of column a of row type "
        r"mallory\.comp.*which is VOLATILE",
    ),
    (
        "domain",
        """(jsonb_populate_record(NULL::mallory.comp, '{"a": 1}')).a = 1""",
        r"names type mallory\.comp, which is not PostgreSQL's own",
        r"may run mallory\.check_write\(integer\) .*which is VOLATILE",
    ),
    (
        "negator",
        "NOT (id OPERATOR(mallory.=#=) 5)",
        r"applies operator mallory\.=#=\(integer,integer\), which is not PostgreSQL's own",
        r"may run mallory\.loud_ne\(integer,integer\) \(the function of operator "
        r"mallory\.<#>\(integer,integer\), the negator \(what NOT turns it into\) of operator "
        r"mallory\.=#=\(integer,integer\), which the filter applies\), which is VOLATILE",
    ),
    (
        "default",
        "mallory.def_dblink()",
        r"calls mallory\.def_dblink\(integer\), which is not PostgreSQL's own",
        r"may run mallory\.writes_default\(\) \(used by a default argument .*of "
        r"mallory\.def_dblink\(integer\), which the filter calls\), which is VOLATILE",
    ),
    (
        "view",
        "id IN (SELECT id FROM mallory.v)",
        r"holds a sub-select",
        r"may run mallory\.write\(text\) \(used by the view definition of relation "
        r"mallory\.v, which the filter reads\), which is VOLATILE",
    ),
    (
        "policy",
        "EXISTS (SELECT 1 FROM mallory.guarded)",
        r"holds a sub-select",
        r"may run mallory\.write\(text\) \(used by the row-level security policy p of "
        r"relation mallory\.guarded, which the filter reads\), which is VOLATILE",
    ),
]
LOCK = (
    "mallory.def_lock()",
    r"calls mallory\.def_lock\(boolean\), which is not PostgreSQL's own",
    r"may run pg_try_advisory_lock\(bigint\) \(used by a default argument of "
    r"mallory\.def_lock\(boolean\), which the filter calls\), which takes an advisory lock",
)
IDS = [f"{path}-{i}" for i, (path, *_) in enumerate(PATHS)]


@pytest.fixture(scope="module")
def server() -> Iterator[SystemPostgres]:
    bindir, why = find_bindir()
    if bindir is None:
        pytest.skip(why)
    with SystemPostgres(bindir, tcp=True) as running:
        target = f"host=127.0.0.1 port={running.port} dbname=postgres user=mallory password=mallory"
        with psycopg.connect(running.uri, autocommit=True) as admin:
            admin.execute(SETUP.replace("%(target)s", f"'{target}'"))  # type: ignore[arg-type]
        yield running


@pytest.fixture(scope="module")
def admin(server: SystemPostgres) -> Iterator[Any]:
    with psycopg.connect(server.uri, autocommit=True) as conn:
        yield conn


@pytest.fixture
def writes(admin: Any) -> Any:
    admin.execute("TRUNCATE mallory.writes")
    return admin


def written(admin: Any) -> list[str]:
    return [r[0] for r in admin.execute("SELECT what FROM mallory.writes ORDER BY what")]


def reader_uri(server: SystemPostgres) -> str:
    return make_conninfo(server.uri, user="reader")


def read_page(uri: str, where: str, *, trusted: bool = False) -> Any:
    session = connect(PgOptions(uri=uri, trust_database_code=trusted))
    try:
        table = describe_table(session, "mallory.tgt")
        query = PgQuery(table, table.default_order(), where=where)
        return Pager(PgSource(session, query)).next()
    finally:
        session.close()


@pytest.mark.parametrize(("path", "where", "refusal", "trusted_refusal"), PATHS, ids=IDS)
def test_each_path_writes_when_read_plainly(
    server: SystemPostgres, writes: Any, path: str, where: str, refusal: str, trusted_refusal: str
) -> None:
    """The ground truth: a plain read-only transaction as the reader runs the filter, and
    the row appears (dblink's second connection is no part of that transaction)."""
    with psycopg.connect(reader_uri(server)) as plain:
        plain.read_only = True
        plain.execute(f"SELECT id FROM mallory.tgt WHERE {where}")  # type: ignore[arg-type]
        plain.rollback()
    assert path in written(writes)


@pytest.mark.parametrize("trusted", [False, True], ids=["default", "trusted"])
@pytest.mark.parametrize(("path", "where", "refusal", "trusted_refusal"), PATHS, ids=IDS)
def test_dynotui_refuses_each_path_and_writes_nothing(
    server: SystemPostgres,
    writes: Any,
    path: str,
    where: str,
    refusal: str,
    trusted_refusal: str,
    trusted: bool,
) -> None:
    with pytest.raises(InputError, match=trusted_refusal if trusted else refusal):
        read_page(reader_uri(server), where, trusted=trusted)
    assert written(writes) == []


@pytest.mark.parametrize("trusted", [False, True], ids=["default", "trusted"])
def test_a_default_argument_takes_no_lock_that_outlives_the_page(
    server: SystemPostgres, admin: Any, trusted: bool
) -> None:
    with psycopg.connect(reader_uri(server)) as plain:  # the ground truth: it locks
        plain.execute(f"SELECT id FROM mallory.tgt WHERE {LOCK[0]}")  # type: ignore[arg-type]
        plain.rollback()
        held = admin.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = %s",
            (plain.info.backend_pid,),
        ).fetchone()
        assert held == (1,)
    session = connect(PgOptions(uri=reader_uri(server), trust_database_code=trusted))
    try:
        table = describe_table(session, "mallory.tgt")
        query = PgQuery(table, table.default_order(), where=LOCK[0])
        with pytest.raises(InputError, match=LOCK[2] if trusted else LOCK[1]):
            Pager(PgSource(session, query)).next()
        held = admin.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = %s",
            (session.conn.info.backend_pid,),
        ).fetchone()
        assert held == (0,)  # the idle session holds nothing
    finally:
        session.close()


def test_an_ordinary_filter_still_runs_as_the_reader(server: SystemPostgres, admin: Any) -> None:
    where = (
        "lower(v::text) LIKE '1%' AND v IN (1, 10, 11) AND v IS NOT NULL AND id * 2 - 1 > 0"
        " AND (v + 0.5)::numeric > 0.5 AND now() - interval '1 day' < now()"
        " AND date '2026-01-01' + 3 > current_date - 100000 AND abs(id) BETWEEN 1 AND 10"
    )
    page = read_page(reader_uri(server), where)
    truth = admin.execute(f"SELECT id::text FROM mallory.tgt WHERE {where} ORDER BY id").fetchall()  # type: ignore[arg-type]
    assert [r["id"] for r in page.items] == [r[0] for r in truth] == ["1", "10"]


def test_builtin_objects_reach_only_builtin_code_that_is_neither_volatile_nor_denied(
    admin: Any,
) -> None:
    assert builtin_code_problems(admin) == []


ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}


def test_the_cli_refuses_in_one_line_with_exit_2(server: SystemPostgres, writes: Any) -> None:
    result = subprocess.run(
        [
            sys.executable, "-m", "dynotui", "pages", "--postgres", reader_uri(server),
            "--table", "mallory.tgt", "--where", "NOT (id OPERATOR(mallory.=#=) 5)",
        ],
        capture_output=True, text=True, env=ENV, timeout=120,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "mallory.=#=" in result.stderr
    assert result.stdout == "" and written(writes) == []
