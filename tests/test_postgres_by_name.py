"""Built-ins that take an object by name (issue 41, DESIGN rule 14): the name is a string
the parse tree cannot follow, so it must be a literal naming one of PostgreSQL's own
objects, looked up on the server. On PostgreSQL 16 and later ``pg_input_is_valid('1',
'bn.loud_d')`` runs that domain's CHECK, which writes through dblink here; on every
version a reg* cast or a text search configuration names objects the same way.

Each attack is first shown to write in a plain read-only transaction (so the test could
fail); dynotui refuses it by name, by default and when trusting the database's code (the
domain's CHECK is VOLATILE), and nothing is written. The same built-ins with PostgreSQL's
own objects still run, with the rows a plain SELECT finds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from dblink_writer import SERVERS, server, written
from psycopg.conninfo import make_conninfo

from dynotui.core.errors import InputError
from dynotui.core.pager import Pager
from dynotui.postgres.by_name import DOCUMENTED, REG_TYPES_SQL
from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.schema import describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

SETUP = """
CREATE FUNCTION bn.loud(integer) RETURNS boolean VOLATILE LANGUAGE sql
    AS $$ SELECT bn.write('check') = 1 $$;
CREATE DOMAIN bn.loud_d AS integer CHECK (bn.loud(VALUE));
CREATE DOMAIN bn.calm_d AS integer CHECK (VALUE > 0);
CREATE TEXT SEARCH CONFIGURATION bn.cfg (COPY = pg_catalog.english);
CREATE TABLE bn.t (id integer PRIMARY KEY, v text NOT NULL, n integer NOT NULL);
INSERT INTO bn.t SELECT g, CASE WHEN g % 3 = 0 THEN 'cats ' || g ELSE g::text END, g
FROM generate_series(1, 30) AS g;
"""


@pytest.fixture(scope="module", params=SERVERS)
def server_uri(request: pytest.FixtureRequest) -> Iterator[str]:
    with server(request, "bn", SETUP) as uri:
        yield uri


@pytest.fixture
def admin(server_uri: str) -> Iterator[Any]:
    with psycopg.connect(server_uri, autocommit=True) as conn:
        conn.execute("TRUNCATE bn.writes")
        yield conn


def version(admin: Any) -> int:
    return int(admin.info.server_version) // 10000


def read(uri: str, where: str, *, trusted: bool = False) -> list[int]:
    session = connect(PgOptions(uri=uri, trust_database_code=trusted))
    try:
        table = describe_table(session, "bn.t")
        pager = Pager(PgSource(session, PgQuery(table, table.default_order(), where=where)))
        return [int(row["id"]) for row in pager.next().items]
    finally:
        session.close()


# (filter, the least version it runs on, refusal by default, refusal when trusting)
ATTACKS = [
    (
        "pg_input_is_valid('1', 'bn.loud_d')",
        16,
        r"gives pg_input_is_valid\(text,text\) a type by name \('bn\.loud_d'\), which is not "
        r"one of PostgreSQL's own",
        r"may run bn\.loud\(integer\) \(used by the CHECK constraint loud_d_check of type "
        r"bn\.loud_d, which the filter names\), which is VOLATILE",
    ),
    (
        "(pg_input_error_info('1', type_name => 'bn.loud_d')).message IS NULL",
        16,
        r"gives pg_input_error_info\(text,text\) a type by name \('bn\.loud_d'\)",
        r"may run bn\.loud\(integer\) .*which is VOLATILE",
    ),
    (
        "pg_input_is_valid(v, 'bn.' || 'loud_d')",
        16,
        r"gives pg_input_is_valid\(text,text\) a type by name from an expression",
        r"gives pg_input_is_valid\(text,text\) a type by name from an expression",
    ),
    (
        "pg_input_is_valid(v, v)",
        16,
        r"a type by name from an expression, not a literal",
        r"a type by name from an expression, not a literal",
    ),
]
IDS = ["is-valid", "error-info-named", "concatenated", "column"]
# (filter, refusal by default, refusal when trusting ("same": the same; "": none: it runs).
# A type named by a literal is followed like a cast's when trusted: its CHECK's VOLATILE
# function is refused even where the built-in only looks the name up (an over-approximation).
VOLATILE = r"may run bn\.loud\(integer\) .*which is VOLATILE"
REFUSED_NAMES = [
    (
        "'bn.loud_d'::regtype IS NOT NULL",
        r"casts to regtype a type by name \('bn\.loud_d'\)",
        VOLATILE,
    ),
    ("to_regtype('bn.loud_d') IS NOT NULL", r"gives to_regtype\(text\) a type by name", VOLATILE),
    ("v::regtype IS NOT NULL", r"casts to regtype a type by name from an expression", "same"),
    (
        "to_tsvector('bn.cfg', v) @@ to_tsquery('bn.cfg', 'cat')",
        r"gives to_tsvector\(regconfig,text\) a text search configuration by name \('bn\.cfg'\)",
        "",
    ),
    ("format_type(20000, NULL) IS NULL", r"gives format_type\(oid,integer\) an object", ""),
    ("to_regclass('bn.t') IS NOT NULL", r"gives to_regclass\(text\) a relation by name", ""),
    (
        "to_regtype('bn.nosuch') IS NULL",
        r"a type by name \('bn\.nosuch'\), which names no type",
        "same",
    ),
    (
        "has_table_privilege('bn.t', 'SELECT')",
        r"gives has_table_privilege\(text,text\) an object by name \('bn\.t'\) of a kind",
        "",
    ),
]
# Ordinary filters with built-ins that take PostgreSQL's own objects by name.
ALLOWED = [
    "to_regtype('int4') IS NOT NULL AND 'integer'::regtype = 'int4'::pg_catalog.regtype",
    "to_tsvector('english', v) @@ to_tsquery('english', 'cat')",
    "to_tsvector(v) @@ plainto_tsquery('cats')",
    "format_type(23, NULL) = 'integer'",
    "tableoid::regclass IS NOT NULL AND pg_typeof(n) = 'integer'::regtype",
    "to_regclass('pg_catalog.pg_class') IS NOT NULL AND n > 3",
]
ALLOWED_16 = [
    "pg_input_is_valid(v, 'integer')",
    "pg_input_is_valid(v, 'numeric(7,4)') AND NOT pg_input_is_valid(v, 'varchar(1)')",
    "(pg_input_error_info(v, 'int4')).message IS NULL",
]


@pytest.mark.parametrize(("where", "least", "refusal", "trusted_refusal"), ATTACKS, ids=IDS)
def test_a_type_named_in_a_string_writes_when_run_plainly(
    server_uri: str, admin: Any, where: str, least: int, refusal: str, trusted_refusal: str
) -> None:
    if version(admin) < least:
        pytest.skip(f"PostgreSQL {version(admin)} has no such function")
    if "'bn.loud_d'" not in where:
        pytest.skip("not a literal: nothing to show")
    with psycopg.connect(server_uri) as plain:
        plain.read_only = True
        plain.execute(f"SELECT id FROM bn.t WHERE {where}")  # type: ignore[arg-type]
        plain.rollback()
    assert written(admin, "bn") > 0


@pytest.mark.parametrize("trusted", [False, True], ids=["default", "trusted"])
@pytest.mark.parametrize(("where", "least", "refusal", "trusted_refusal"), ATTACKS, ids=IDS)
def test_a_type_named_in_a_string_is_refused_by_name_and_writes_nothing(
    server_uri: str,
    admin: Any,
    where: str,
    least: int,
    refusal: str,
    trusted_refusal: str,
    trusted: bool,
) -> None:
    if version(admin) < least:
        pytest.skip(f"PostgreSQL {version(admin)} has no such function")
    with pytest.raises(InputError, match=trusted_refusal if trusted else refusal):
        read(server_uri, where, trusted=trusted)
    assert written(admin, "bn") == 0


@pytest.mark.parametrize(("where", "refusal", "trusted_refusal"), REFUSED_NAMES)
def test_objects_named_in_strings_are_refused_unless_built_in(
    server_uri: str, admin: Any, where: str, refusal: str, trusted_refusal: str
) -> None:
    with pytest.raises(InputError, match=refusal):
        read(server_uri, where)
    if trusted_refusal:
        with pytest.raises(
            InputError, match=refusal if trusted_refusal == "same" else trusted_refusal
        ):
            read(server_uri, where, trusted=True)
    else:
        truth = admin.execute(f"SELECT id FROM bn.t WHERE {where} ORDER BY id LIMIT 25")  # type: ignore[arg-type]
        assert read(server_uri, where, trusted=True) == [r[0] for r in truth]
    assert written(admin, "bn") == 0


@pytest.mark.parametrize("where", ALLOWED + ALLOWED_16)
def test_built_ins_given_postgresqls_own_objects_still_run(
    server_uri: str, admin: Any, where: str
) -> None:
    if where in ALLOWED_16 and version(admin) < 16:
        pytest.skip(f"PostgreSQL {version(admin)} has no pg_input_is_valid")
    truth = [r[0] for r in admin.execute(f"SELECT id FROM bn.t WHERE {where} ORDER BY id LIMIT 25")]  # type: ignore[arg-type]
    assert truth  # each filter finds rows: a refusal or an empty page would show
    assert read(server_uri, where) == truth


def test_a_default_text_search_configuration_of_the_database_is_refused(
    server_uri: str, admin: Any
) -> None:
    """``to_tsvector(text)`` and ``text @@ text`` use default_text_search_config: a
    configuration the database made is refused unless trusted, like one named."""
    uri = make_conninfo(server_uri, options="-c default_text_search_config=bn.cfg")
    for where in ("to_tsvector(v) @@ plainto_tsquery('cats')", "v @@ 'cats'"):
        with pytest.raises(InputError, match=r"default text search configuration .*bn\.cfg"):
            read(uri, where)
        admin.execute("SET default_text_search_config = 'bn.cfg'")
        truth = admin.execute(f"SELECT id FROM bn.t WHERE {where} ORDER BY id")  # type: ignore[arg-type]
        assert read(uri, where, trusted=True) == [r[0] for r in truth]
        admin.execute("RESET default_text_search_config")
    assert read(uri, "n > 28") == [29, 30]  # nothing of text search: no configuration used


def test_the_catalog_gives_the_names_on_this_version(admin: Any) -> None:
    """The reg* types come from the catalog; the documented text arguments are each
    checked to exist where the version has them (to_regtypemod is 17's)."""
    kinds = {name for _, name, _ in admin.execute(REG_TYPES_SQL) if name.startswith("reg")}
    assert {"regtype", "regclass", "regproc", "regoperator", "regconfig"} <= kinds
    for function, position, _ in DOCUMENTED:
        rows = admin.execute(
            "SELECT (p.proargtypes::oid[])[%s]::regtype::text FROM pg_proc p "
            "WHERE p.proname = %s AND p.pronamespace = 'pg_catalog'::regnamespace",
            (position - 1, function),
        ).fetchall()
        least = 17 if function == "to_regtypemod" else 16
        assert (len(rows) > 0) == (version(admin) >= least), function
        assert all(row[0] == "text" for row in rows), (function, rows)


ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}


def test_the_cli_refuses_by_name_with_exit_2(server_uri: str, admin: Any) -> None:
    where = "to_tsvector('bn.cfg', v) @@ to_tsquery('bn.cfg', 'cat')"
    result = subprocess.run(
        [
            sys.executable, "-m", "dynotui", "pages", "--postgres", server_uri,
            "--table", "bn.t", "--where", where, "--no-summary",
        ],
        capture_output=True, text=True, env=ENV, timeout=120,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" and result.stderr.count("\n") == 1
    assert "text search configuration by name ('bn.cfg')" in result.stderr
    assert written(admin, "bn") == 0


def test_a_cast_types_modifiers_are_never_sent_to_a_lookup() -> None:
    """dynotui looks a cast's type up by name with to_regtype, which would run the type's
    modifier input function on ``t(5)``: the name it sends has no modifiers."""
    from dynotui.postgres.filter import parse_filter

    parsed = parse_filter("n::numeric(7,4) > 1 AND v::pg_catalog.varchar(3)[] IS NULL", 0)
    assert parsed.types == ("numeric", "varchar[]")
