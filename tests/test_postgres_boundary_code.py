"""An order's boundary is code too (issue 41, DESIGN rule 14): a keyset page casts each
boundary value back to its term's type, and that cast runs the type's input function and
the CHECK constraints of every domain inside it (a composite's attributes, an array's
elements, at any depth). On Debian's PostgreSQL 15 and the embedded 18, a domain whose
CHECK writes through dblink (a second connection, which no READ ONLY transaction covers)
is hidden in a composite, an array and an array inside a composite; a dblink writer counts
what runs.

Each case is first shown to write when its boundary is cast in a plain read-only
transaction (so the test could fail); then dynotui refuses the order when it is listed
(the order's label, ``PgQuery.check``, ``pages`` with exit 2 and one line, ``tables``),
by default as code not PostgreSQL's own and when trusting the database as VOLATILE, and
nothing is written. A domain at the top level is cast to its base (its CHECK never runs),
and a composite of built-in code only, still drain exactly.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from dblink_writer import SERVERS, server
from dblink_writer import written as count_written
from helpers import walk

from dynotui.core.errors import FieldError
from dynotui.core.pager import Pager
from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.schema import describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

SETUP = """
CREATE EXTENSION IF NOT EXISTS citext;
CREATE FUNCTION bc.loud(integer) RETURNS boolean VOLATILE LANGUAGE sql
    AS $$ SELECT bc.write('check') = 1 $$;
CREATE DOMAIN bc.d1 AS integer CHECK (bc.loud(VALUE));
CREATE DOMAIN bc.d2 AS bc.d1;
-- a composite of a domain of a domain; an array of it inside another composite
CREATE TYPE bc.pair AS (a bc.d2, b integer);
CREATE TYPE bc.deep AS (xs bc.pair[], n integer);
-- built-in code only: a domain whose CHECK calls int4gt, in a composite
CREATE DOMAIN bc.calm AS integer CHECK (VALUE > 0);
CREATE TYPE bc.plain AS (a bc.calm, b text);
CREATE TABLE bc.t (
    id integer PRIMARY KEY,
    pair_c bc.pair NOT NULL,
    arr bc.d2[] NOT NULL,
    deep_c bc.deep NOT NULL,
    dom bc.d2 NOT NULL,
    plain_c bc.plain,
    ci public.citext NOT NULL
);
INSERT INTO bc.t
SELECT g, ROW(g %% 7, g)::bc.pair, ARRAY[g %% 5, g %% 3]::bc.d2[],
       ROW(ARRAY[ROW(g %% 4, g)::bc.pair], g %% 6)::bc.deep, (g %% 9)::bc.d2,
       CASE WHEN g %% 11 = 0 THEN NULL ELSE ROW(1 + g %% 8, 'b' || (g %% 3))::bc.plain END,
       'Word' || (g %% 10)
FROM generate_series(1, 90) AS g;
CREATE INDEX t_pair ON bc.t (pair_c);
CREATE INDEX t_arr ON bc.t (arr);
CREATE INDEX t_deep ON bc.t (deep_c);
CREATE INDEX t_dom ON bc.t (dom);
CREATE INDEX t_plain ON bc.t (plain_c);
CREATE INDEX t_ci ON bc.t (ci);
ANALYZE bc.t;
"""

# (order, its column, the type its boundary is cast to, the way to the CHECK's function)
REFUSED = [
    (
        "t_pair",
        "pair_c",
        "bc.pair",
        r"used by the CHECK constraint d1_check of type bc\.d1, the base type of type "
        r"bc\.d2, the type of column a of row type bc\.pair, the attributes of type "
        r"bc\.pair, which the boundary of pair_c is cast to",
    ),
    (
        "t_arr",
        "arr",
        "bc.d2[]",
        r"used by the CHECK constraint d1_check of type bc\.d1, the base type of type "
        r"bc\.d2, the element type of type bc\.d2\[\], which the boundary of arr is cast to",
    ),
    (
        "t_deep",
        "deep_c",
        "bc.deep",
        r"used by the CHECK constraint d1_check .* the element type of type bc\.pair\[\], "
        r"the type of column xs of row type bc\.deep, the attributes of type bc\.deep, which "
        r"the boundary of deep_c is cast to",
    ),
]
IDS = [case[0] for case in REFUSED]


@pytest.fixture(scope="module", params=SERVERS)
def server_uri(request: pytest.FixtureRequest) -> Iterator[str]:
    with server(request, "bc", SETUP.replace("%%", "%")) as uri:
        yield uri


@pytest.fixture
def admin(server_uri: str) -> Iterator[Any]:
    with psycopg.connect(server_uri, autocommit=True) as conn:
        conn.execute("TRUNCATE bc.writes")
        yield conn


def written(admin: Any) -> int:
    return count_written(admin, "bc")


def table_of(uri: str, *, trusted: bool = False) -> Any:
    session = connect(PgOptions(uri=uri, trust_database_code=trusted))
    try:
        return describe_table(session, "bc.t")
    finally:
        session.close()


@pytest.mark.parametrize(("order", "column", "cast_to", "way"), REFUSED, ids=IDS)
def test_each_boundary_cast_writes_when_run_plainly(
    server_uri: str, admin: Any, order: str, column: str, cast_to: str, way: str
) -> None:
    """The ground truth: the keyset predicate as a plain read-only transaction sends it,
    the boundary as text cast to the term's type, runs the CHECK, which writes."""
    boundary = admin.execute(f"SELECT {column}::text FROM bc.t ORDER BY {column}, id LIMIT 1")
    value = boundary.fetchone()[0]
    with psycopg.connect(server_uri) as plain:
        plain.read_only = True
        plain.execute(
            f"SELECT id FROM bc.t WHERE {column} > %s::{cast_to} LIMIT 3",  # type: ignore[arg-type]
            (value,),
        )
        plain.rollback()
    assert written(admin) > 0


@pytest.mark.parametrize("trusted", [False, True], ids=["default", "trusted"])
@pytest.mark.parametrize(("order", "column", "cast_to", "way"), REFUSED, ids=IDS)
def test_an_order_whose_boundary_runs_code_is_refused_when_listed_and_writes_nothing(
    server_uri: str, admin: Any, order: str, column: str, cast_to: str, way: str, trusted: bool
) -> None:
    why = "which is VOLATILE" if trusted else r"which is not PostgreSQL's own: an order runs only"
    expected = rf"the boundary of {column} may run bc\.loud\(integer\) \({way}\), {why}"
    session = connect(PgOptions(uri=server_uri, trust_database_code=trusted))
    try:
        table = describe_table(session, "bc.t")
        listed = table.order(order)
        assert re.search(expected, listed.refused), listed.refused
        assert re.search(f"; REFUSED: {expected}", listed.describe()), listed.describe()
        custom = table.order(f"{column}, id")  # the same column, no index: refused alike
        for chosen in (listed, listed.reversed(), custom):
            with pytest.raises(FieldError, match=rf"refused: order .*: {expected}") as refused:
                PgSource(session, PgQuery(table, chosen, page_size=10))
            assert refused.value.field == "order"
        # The default order is not one of them: the primary key's pages are read.
        assert table.default_order().name == "primary key"
        assert len(Pager(PgSource(session, PgQuery(table, table.default_order()))).next().items)
    finally:
        session.close()
    assert written(admin) == 0


def drained(uri: str, order: str, reverse: bool, *, trusted: bool = False) -> list[int]:
    session = connect(PgOptions(uri=uri, trust_database_code=trusted))
    try:
        table = describe_table(session, "bc.t")
        chosen = table.order(order).reversed() if reverse else table.order(order)
        assert not chosen.refused, chosen.refused
        pages = walk(Pager(PgSource(session, PgQuery(table, chosen, page_size=7))), 100)
        return [int(row["id"]) for page in pages for row in page.items]
    finally:
        session.close()


@pytest.mark.parametrize(
    ("order", "reverse", "order_by"),
    [
        ("t_dom", False, "dom, id"),
        ("t_dom", True, "dom DESC, id DESC"),
        ("t_plain", False, "plain_c NULLS LAST, id"),
        ("t_plain", True, "plain_c DESC NULLS FIRST, id DESC"),
    ],
    ids=["domain-forward", "domain-backward", "plain-forward", "plain-backward"],
)
def test_orders_that_run_only_built_in_code_still_drain_exactly(
    server_uri: str, admin: Any, order: str, reverse: bool, order_by: str
) -> None:
    """A domain at the top level is cast to its base (its CHECK never runs); a composite
    whose domain's CHECK is built-in code runs nothing of the database's."""
    truth = [r[0] for r in admin.execute(f"SELECT id FROM bc.t ORDER BY {order_by}")]  # type: ignore[arg-type]
    assert drained(server_uri, order, reverse) == truth
    assert written(admin) == 0  # the top-level domain's CHECK never ran


def test_an_extension_type_is_refused_unless_trusted(server_uri: str, admin: Any) -> None:
    """citext's input function and operator class are the extension's: not PostgreSQL's
    own, so refused by default, and read when the database's code is trusted."""
    order = table_of(server_uri).order("t_ci")
    assert "not PostgreSQL's own" in order.refused and "citext" in order.refused
    assert not table_of(server_uri, trusted=True).order("t_ci").refused


ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dynotui", *args],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=120,
    )


def test_the_cli_lists_the_refusal_and_refuses_the_order_with_exit_2(
    server_uri: str, admin: Any
) -> None:
    listed = run_cli("tables", "--postgres", server_uri, "--table", "bc.t")
    assert listed.returncode == 0, listed.stderr
    lines = {line.split(":")[0].strip(): line for line in listed.stdout.splitlines()}
    for order, *_ in REFUSED:
        assert "REFUSED: the boundary of" in lines[order]
    assert "REFUSED" not in lines["t_dom"] and "REFUSED" not in lines["primary key"]
    as_json = run_cli("tables", "--postgres", server_uri, "--table", "bc.t", "--json")
    refused = {o["name"]: o["refused"] for o in json.loads(as_json.stdout)["orders"]}
    assert refused["t_pair"].startswith("the boundary of pair_c may run bc.loud(integer)")
    assert refused["t_dom"] is None and refused["primary key"] is None
    paged = run_cli(
        "pages", "--postgres", server_uri, "--table", "bc.t", "--order", "t_deep", "--no-summary"
    )
    assert paged.returncode == 2, paged.stderr
    assert paged.stdout == "" and paged.stderr.count("\n") == 1
    assert "refused: order t_deep: the boundary of deep_c may run bc.loud(integer)" in paged.stderr
    assert written(admin) == 0


def test_tables_takes_the_trust_flag_only_with_postgres() -> None:
    refused = run_cli("tables", "--trust-database-code", "--endpoint-url", "http://localhost:1")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "--trust-database-code is for --postgres" in refused.stderr
