"""The attack set, run again after issue 41: 39 payloads that write through dblink, take a
lock, advance a sequence, read files or other sessions, or reach the database's code by
every path the filter check knows (a call, an operator's negator, a cast's domain CHECK, a
composite's attribute, an array's element, a default argument, an aggregate, a view, a
policy, a row passed whole, a type, a configuration or an OID named in a string), each in
8 wrappers: 312 filters, read by an ordinary role and by the superuser, by default and
trusting the database's code, on Debian's PostgreSQL 15 and the embedded 18.

After each, nothing may have happened: no row written (a dblink writer counts), no lock
held, no row deleted, the sequence where it was. Each is refused in one line or reads a
page. Then 52 ordinary filters of PostgreSQL's own built-ins are read by the same sessions,
none refused, each page the rows a plain SELECT finds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from dblink_writer import SERVERS, server, written
from psycopg.conninfo import make_conninfo

from dynotui.core.errors import DynotuiError, InputError
from dynotui.core.pager import Pager
from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.schema import describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

SETUP = """
ALTER FUNCTION atk.write(text) SECURITY DEFINER;
CREATE FUNCTION atk.loud(integer) RETURNS boolean VOLATILE LANGUAGE sql
    AS $$ SELECT atk.write('check') = 1 $$;
CREATE DOMAIN atk.d1 AS integer CHECK (atk.loud(VALUE));
CREATE DOMAIN atk.d3 AS atk.d1;
CREATE TYPE atk.comp AS (a atk.d3);
CREATE FUNCTION atk.calm_eq(integer, integer) RETURNS boolean IMMUTABLE
    LANGUAGE plpgsql AS 'BEGIN RETURN $1 = $2; END';
CREATE FUNCTION atk.loud_ne(integer, integer) RETURNS boolean VOLATILE LANGUAGE sql
    AS $$ SELECT atk.write('negator') = 1 AND $1 <> $2 $$;
CREATE OPERATOR atk.=#= (LEFTARG = integer, RIGHTARG = integer,
    FUNCTION = atk.calm_eq, NEGATOR = OPERATOR(atk.<#>));
CREATE OPERATOR atk.<#> (LEFTARG = integer, RIGHTARG = integer,
    FUNCTION = atk.loud_ne, NEGATOR = OPERATOR(atk.=#=));
CREATE FUNCTION atk.writes_default() RETURNS integer VOLATILE LANGUAGE sql
    AS $$ SELECT atk.write('default') $$;
CREATE FUNCTION atk.def_write(x integer DEFAULT atk.writes_default())
    RETURNS boolean IMMUTABLE LANGUAGE plpgsql AS 'BEGIN RETURN true; END';
CREATE FUNCTION atk.def_lock(x boolean DEFAULT pg_try_advisory_lock(4242))
    RETURNS boolean IMMUTABLE LANGUAGE plpgsql AS 'BEGIN RETURN true; END';
CREATE FUNCTION atk.agg_step(s integer, x integer) RETURNS integer VOLATILE LANGUAGE sql
    AS $$ SELECT atk.write('aggregate') + coalesce(s, 0) $$;
CREATE AGGREGATE atk.agg_evil(integer) (SFUNC = atk.agg_step, STYPE = integer);
CREATE SEQUENCE atk.seq;
CREATE TEXT SEARCH CONFIGURATION atk.cfg (COPY = pg_catalog.english);
CREATE TABLE atk.tgt (
    id integer PRIMARY KEY, v integer NOT NULL, t text, j jsonb, ts timestamptz,
    arr integer[], price numeric(10, 2)
);
INSERT INTO atk.tgt
SELECT g, g * 3 % 17, CASE WHEN g % 4 = 0 THEN NULL ELSE 'Item ' || g || ' cats' END,
       jsonb_build_object('k', g % 3, 'tags', jsonb_build_array('a', 'b' || g % 2)),
       timestamptz '2026-01-01 00:00:00+00' + g * interval '7 hours',
       ARRAY[g % 4, g % 5], (g * 1.25)::numeric(10, 2)
FROM generate_series(1, 40) AS g;
CREATE VIEW atk.v AS SELECT id, atk.write('view') AS w FROM atk.tgt;
CREATE TABLE atk.guarded (id integer);
INSERT INTO atk.guarded VALUES (1);
ALTER TABLE atk.guarded ENABLE ROW LEVEL SECURITY;
CREATE POLICY p ON atk.guarded USING (atk.write('policy') = 1);
CREATE FUNCTION public.atk_touch(atk.tgt) RETURNS boolean VOLATILE LANGUAGE sql
    AS $$ SELECT atk.write('whole row') = 1 $$;
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'atk_reader') THEN
        CREATE ROLE atk_reader LOGIN;
    END IF;
END $$;
GRANT USAGE ON SCHEMA atk TO atk_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA atk TO atk_reader;
GRANT USAGE ON SEQUENCE atk.seq TO atk_reader;
"""

DBLINK = "'host=/nonexistent dbname=none'"
PAYLOADS = [
    "atk.write('direct') = 1",
    f"public.dblink_exec({DBLINK}, 'DELETE FROM atk.tgt') IS NOT NULL",
    f"dblink_exec({DBLINK}, 'DELETE FROM atk.tgt') IS NOT NULL",
    "(1::atk.d3) = 1",
    "(ROW(1)::atk.comp).a = 1",
    """(jsonb_populate_record(NULL::atk.comp, '{"a": 1}')).a = 1""",
    "NOT (id OPERATOR(atk.=#=) 5)",
    "id OPERATOR(atk.<#>) 5",
    "atk.def_write()",
    "atk.def_lock()",
    "pg_advisory_lock(42) IS NOT NULL",
    "pg_try_advisory_lock(42)",
    "id IN (SELECT id FROM atk.v)",
    "EXISTS (SELECT 1 FROM atk.guarded)",
    "(SELECT atk.agg_evil(t2.id) FROM atk.tgt t2 WHERE t2.id < 3) > 0",
    "pg_input_is_valid('1', 'atk.d3')",
    "(pg_input_error_info('1', 'atk.d3')).message IS NULL",
    "'atk.d3'::regtype IS NOT NULL",
    "to_regtype('atk.d3') IS NOT NULL",
    "nextval('atk.seq') > 0",
    "setval('atk.seq', 5) > 0",
    "set_config('search_path', 'atk', false) IS NOT NULL",
    "pg_notify('atk', 'x') IS NULL",
    "lo_import('/etc/hostname') > 0",
    "pg_read_file('/etc/hostname') IS NOT NULL",
    "query_to_xml('SELECT atk.write(''xml'')', true, true, '') IS NOT NULL",
    "txid_current() > 0",
    "pg_sleep(0.01) IS NULL",
    "atk.calm_eq(id, 1)",
    "ts_stat('SELECT to_tsvector(''x'')') IS NOT NULL",
    "tgt.atk_touch",
    "v = ANY (ARRAY[1::atk.d3])",
    "ARRAY[1]::atk.d3[] IS NOT NULL",
    "to_tsvector('atk.cfg', t) @@ to_tsquery('atk.cfg', 'cat')",
    "format_type(99999, NULL) IS NULL",
    "pg_terminate_backend(pg_backend_pid())",
    "(SELECT count(*) FROM atk.writes) >= 0",
    "pg_input_is_valid(t, t)",
    "row_to_json(tgt)::text <> '' AND atk.write('json') = 1",
]
WRAPPERS = [
    "{p}",
    "NOT ({p})",
    "id > 0 AND {p}",
    "CASE WHEN id > 0 THEN {p} ELSE false END",
    "COALESCE({p}, true)",
    "({p}) IS NOT NULL",
    "id = 1 OR {p}",
    "({p})::text <> ''",
]
ATTACKS = [wrapper.format(p=payload) for payload in PAYLOADS for wrapper in WRAPPERS]

# Ordinary filters of PostgreSQL's own built-ins: none may be refused.
ORDINARY = [
    "v > 5",
    "v BETWEEN 3 AND 9",
    "v IN (1, 2, 3)",
    "v <> 4 AND id < 30",
    "t LIKE 'Item 1%'",
    "t ILIKE '%CATS'",
    "t ~ '^Item [0-9]+ cats$'",
    "t IS NULL",
    "t IS NOT NULL AND length(t) > 10",
    "lower(t) = 'item 3 cats'",
    "upper(t) LIKE 'ITEM 2%'",
    "substring(t from 6 for 1) = '1'",
    "position('cats' in t) > 0",
    "split_part(t, ' ', 2) = '7'",
    "concat(t, '!') LIKE '%!'",
    "format('%s-%s', id, v) = '3-9'",
    "trim(both ' ' from t) = t",
    "starts_with(t, 'Item 1')",
    "regexp_replace(t, '[0-9]+', 'N') = 'Item N cats'",
    "md5(t) IS NOT NULL",
    "abs(v - 8) < 3",
    "round(price) > 20",
    "mod(id, 7) = 0",
    "power(v, 2) > 100",
    "price * 2 > 30.5",
    "coalesce(t, 'none') = 'none'",
    "nullif(v, 0) IS NULL",
    "greatest(v, id) = id",
    "least(v, id) = v",
    "CASE WHEN v > 8 THEN true ELSE false END",
    "ts > now() - interval '100 years'",
    "ts < timestamptz '2026-01-03 00:00:00+00'",
    "date_trunc('day', ts) = timestamptz '2026-01-02 00:00:00+00'",
    "extract(hour from ts AT TIME ZONE 'UTC') < 6",
    "age(ts, timestamptz '2026-01-01 00:00:00+00') < interval '2 days'",
    "to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD') = '2026-01-02'",
    "ts::date = date '2026-01-03'",
    "j ->> 'k' = '1'",
    "j @> '{\"k\": 2}'",
    "jsonb_path_exists(j, '$.tags[*] ? (@ == \"b1\")')",
    "jsonb_array_length(j -> 'tags') = 2",
    "2 = ANY (arr)",
    "arr @> ARRAY[1]",
    "arr && ARRAY[3, 4]",
    "array_length(arr, 1) = 2",
    "v IS DISTINCT FROM 3",
    "(v > 3) IS TRUE",
    "to_tsvector('english', t) @@ to_tsquery('english', 'cat')",
    "pg_input_is_valid(t, 'integer') IS FALSE",
    "to_regtype('int4') IS NOT NULL AND v::text = '6'",
    "tableoid::regclass::text LIKE '%tgt'",
    "id::text || '' = '12' OR v::numeric(4, 1) = 2.0",
]


@pytest.fixture(scope="module", params=SERVERS)
def server_uri(request: pytest.FixtureRequest) -> Iterator[str]:
    with server(request, "atk", SETUP) as uri:
        yield uri
        with psycopg.connect(uri, autocommit=True) as admin:
            admin.execute("DROP OWNED BY atk_reader CASCADE")
            admin.execute("DROP SCHEMA atk CASCADE")
            admin.execute("DROP FUNCTION IF EXISTS public.atk_touch")
            admin.execute("DROP ROLE atk_reader")


@pytest.fixture(scope="module")
def admin(server_uri: str) -> Iterator[Any]:
    with psycopg.connect(server_uri, autocommit=True) as conn:
        yield conn


def effects(admin: Any, pid: int) -> tuple[int, int, int, Any]:
    """(rows written, advisory locks held by the reader's backend, rows of the table, the
    sequence's state): what an attack that worked would change."""
    locks = admin.execute(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = %s", (pid,)
    ).fetchone()[0]
    rows = admin.execute("SELECT count(*) FROM atk.tgt").fetchone()[0]
    sequence = admin.execute("SELECT last_value, is_called FROM atk.seq").fetchone()
    return written(admin, "atk"), locks, rows, sequence


ROLES = [("reader", False), ("reader", True), ("superuser", False), ("superuser", True)]


@pytest.mark.parametrize(("role", "trusted"), ROLES, ids=[f"{r}-{t}" for r, t in ROLES])
def test_no_attack_changes_anything_and_each_refusal_is_one_line(
    server_uri: str, admin: Any, role: str, trusted: bool
) -> None:
    assert len(ATTACKS) == 312
    uri = make_conninfo(server_uri, user="atk_reader") if role == "reader" else server_uri
    before = effects(admin, 0)
    session = connect(PgOptions(uri=uri, trust_database_code=trusted))
    try:
        table = describe_table(session, "atk.tgt")
        outcomes: dict[str, int] = {"refused": 0, "read": 0, "failed": 0}
        for where in ATTACKS:
            try:
                Pager(PgSource(session, PgQuery(table, table.default_order(), where=where))).next()
                outcomes["read"] += 1
            except InputError as exc:
                assert "\n" not in str(exc), (where, str(exc))
                outcomes["refused" if str(exc).startswith("refused") else "failed"] += 1
            except DynotuiError as exc:  # the server's own error, said in one line
                assert "\n" not in str(exc), (where, str(exc))
                outcomes["failed"] += 1
            pid = session.conn.info.backend_pid if session.conn is not None else 0
            assert effects(admin, pid) == before, where
    finally:
        session.close()
    # Most are refused before anything runs; what reads a page or fails on the server
    # (a function 15 lacks, a role's missing privilege) changed nothing all the same.
    assert outcomes["refused"] >= 250, outcomes


@pytest.mark.parametrize("payload", ["atk.write('direct') = 1", "(1::atk.d3) = 1"])
def test_the_payloads_write_when_run_plainly(server_uri: str, admin: Any, payload: str) -> None:
    """The ground truth: the writer works, so an attack that ran would show."""
    admin.execute("TRUNCATE atk.writes")
    with psycopg.connect(server_uri) as plain:
        plain.read_only = True
        plain.execute(f"SELECT id FROM atk.tgt WHERE {payload}")  # type: ignore[arg-type]
        plain.rollback()
    assert written(admin, "atk") > 0
    admin.execute("TRUNCATE atk.writes")


@pytest.mark.parametrize(("role", "trusted"), ROLES, ids=[f"{r}-{t}" for r, t in ROLES])
def test_ordinary_built_in_filters_are_never_refused(
    server_uri: str, admin: Any, role: str, trusted: bool
) -> None:
    uri = make_conninfo(server_uri, user="atk_reader") if role == "reader" else server_uri
    version = int(admin.info.server_version) // 10000
    session = connect(PgOptions(uri=uri, trust_database_code=trusted))
    try:
        table = describe_table(session, "atk.tgt")
        for where in ORDINARY:
            if "pg_input_is_valid" in where and version < 16:
                continue
            query = PgQuery(table, table.default_order(), where=where, page_size=50)
            got = [int(r["id"]) for r in Pager(PgSource(session, query)).next().items]
            plain = admin.execute(f"SELECT id FROM atk.tgt WHERE {where} ORDER BY id")  # type: ignore[arg-type]
            truth = [r[0] for r in plain]
            assert got == truth and truth, where
    finally:
        session.close()
