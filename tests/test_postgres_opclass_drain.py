"""Keyset seeks compare with the index's own operator family and collation (issue 41): an
order on a citext column lost and repeated rows (17 of 20, id 1 twice) because its seeks
compared with text's operators (a bare ">" where citext's are not on the search path)
where the index sorts by citext's operator class. Each
order here, on Debian's PostgreSQL (ICU) and on the embedded 18 (no ICU there), drains
every row once in the server's own ORDER BY order, both ways, against a plain SELECT:
citext's class (the extension's code: read when trusted, refused otherwise),
text_pattern_ops, a nondeterministic ICU collation (case-insensitive: its ties are
broken by id), a varchar in text's class (the term cast to text), and a class that sorts
integers backwards, made here with an IMMUTABLE SQL comparison. An order nothing can
compare (a json column: no b-tree class) is refused in one line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from dblink_writer import SERVERS, server
from helpers import walk

from dynotui.core.errors import FieldError
from dynotui.core.pager import Pager
from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.schema import describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

WORDS = "ARRAY['apple', 'Apple', 'APPLE', 'banana', 'Banana', '_x', 'a-b', 'ab', 'Zed', 'zed']"
# citext in a schema of its own, off the search path (as extensions are often kept): a bare
# "<" between two citext values then finds text's operator, by citext's implicit cast.
SETUP = f"""
CREATE SCHEMA ext;
CREATE EXTENSION citext SCHEMA ext;
CREATE FUNCTION oc.reverse_cmp(integer, integer) RETURNS integer IMMUTABLE STRICT
    LANGUAGE sql AS 'SELECT pg_catalog.btint4cmp($2, $1)';
CREATE OPERATOR CLASS oc.int4_reverse_ops FOR TYPE integer USING btree AS
    OPERATOR 1 pg_catalog.>, OPERATOR 2 pg_catalog.>=, OPERATOR 3 pg_catalog.=,
    OPERATOR 4 pg_catalog.<=, OPERATOR 5 pg_catalog.<,
    FUNCTION 1 oc.reverse_cmp(integer, integer);
CREATE TABLE oc.t (
    id integer PRIMARY KEY,
    ci ext.citext NOT NULL,
    t text,
    v varchar(12) NOT NULL,
    n integer NOT NULL,
    j json
);
INSERT INTO oc.t
SELECT g, ({WORDS})[1 + g % 10] || (g % 7),
       CASE WHEN g % 17 = 0 THEN NULL ELSE ({WORDS})[1 + (g * 7) % 10] || (g % 5) END,
       'v' || (g % 13), g % 23, '{{}}'
FROM generate_series(1, 1500) AS g
ORDER BY md5(g::text);
CREATE INDEX t_ci ON oc.t (ci);
CREATE INDEX t_pattern ON oc.t (t text_pattern_ops);
CREATE INDEX t_v ON oc.t (v);
CREATE INDEX t_reverse ON oc.t (n oc.int4_reverse_ops);
"""
ICU = """
CREATE COLLATION oc.nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE INDEX t_nocase ON oc.t (t COLLATE oc.nocase);
"""

# (order, trusted, the server's ORDER BY forward, and backward)
ORDERS = [
    ("t_ci", True, "ci, id", "ci DESC, id DESC"),
    ("t_pattern", False, "t USING ~<~ NULLS LAST, id", "t USING ~>~ NULLS FIRST, id DESC"),
    ("t_v", False, "v, id", "v DESC, id DESC"),
    (
        "t_reverse",
        True,
        "n USING OPERATOR(pg_catalog.>), id",
        "n USING OPERATOR(pg_catalog.<), id DESC",
    ),
    ("t_nocase", False, "t COLLATE oc.nocase, id", "t COLLATE oc.nocase DESC, id DESC"),
]


@pytest.fixture(scope="module", params=SERVERS)
def server_uri(request: pytest.FixtureRequest) -> Iterator[str]:
    with server(request, "oc", SETUP) as uri:
        with psycopg.connect(uri, autocommit=True) as admin:
            if request.param == "debian":
                admin.execute(ICU)  # type: ignore[arg-type]
            admin.execute("ANALYZE oc.t")
        yield uri


@pytest.fixture
def admin(server_uri: str) -> Iterator[Any]:
    with psycopg.connect(server_uri, autocommit=True) as conn:
        yield conn


def truth(admin: Any, order_by: str) -> list[int]:
    return [r[0] for r in admin.execute(f"SELECT id FROM oc.t ORDER BY {order_by}")]  # type: ignore[arg-type]


def drained(uri: str, order: str, reverse: bool, trusted: bool) -> list[int]:
    session = connect(PgOptions(uri=uri, trust_database_code=trusted))
    try:
        table = describe_table(session, "oc.t")
        chosen = table.order(order).reversed() if reverse else table.order(order)
        pages = walk(Pager(PgSource(session, PgQuery(table, chosen, page_size=37))), 200)
        return [int(row["id"]) for page in pages for row in page.items]
    finally:
        session.close()


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "backward"])
@pytest.mark.parametrize(
    ("order", "trusted", "forward", "backward"), ORDERS, ids=[o[0] for o in ORDERS]
)
def test_each_order_drains_every_row_once_in_the_servers_own_order(
    server_uri: str,
    admin: Any,
    order: str,
    trusted: bool,
    forward: str,
    backward: str,
    reverse: bool,
) -> None:
    icu = admin.execute("SELECT count(*) FROM pg_collation WHERE collname = 'nocase'")
    if order == "t_nocase" and icu.fetchone()[0] == 0:
        pytest.skip("the embedded build has no ICU")
    expected = truth(admin, backward if reverse else forward)
    got = drained(server_uri, order, reverse, trusted)
    assert len(got) == len(set(got)) == 1500
    assert got == expected


def test_the_orders_really_sort_apart(admin: Any) -> None:
    """Were they alike, a seek with text's operators would drain them all the same (text's
    pattern class sorts as the C collation does, which is the embedded build's default)."""
    assert truth(admin, "ci, id") != truth(admin, "ci::text, id")  # citext's class, not text's
    c_order = truth(admin, 't COLLATE "C" NULLS LAST, id')
    assert truth(admin, "t USING ~<~ NULLS LAST, id") == c_order
    assert truth(admin, "n USING OPERATOR(pg_catalog.>), id") != truth(admin, "n, id")


def test_an_extensions_operator_class_is_refused_unless_trusted(server_uri: str) -> None:
    session = connect(PgOptions(uri=server_uri))
    try:
        table = describe_table(session, "oc.t")
        refused = table.order("t_ci").refused
        assert "citext" in refused and "not PostgreSQL's own" in refused
        assert "reverse_cmp" in table.order("t_reverse").refused
    finally:
        session.close()


def test_an_order_nothing_compares_is_refused_in_one_line(server_uri: str) -> None:
    session = connect(PgOptions(uri=server_uri))
    try:
        table = describe_table(session, "oc.t")
        custom = table.order("j, id")
        with pytest.raises(FieldError, match=r"type json of j has no default b-tree"):
            PgSource(session, PgQuery(table, custom))
    finally:
        session.close()
    result = subprocess.run(
        [
            sys.executable, "-m", "dynotui", "pages", "--postgres", server_uri,
            "--table", "oc.t", "--order", "j, id", "--no-summary",
        ],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"},
    )  # fmt: skip
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "no default b-tree" in result.stderr


@pytest.mark.parametrize("order", ["t_ci", "t_v", "t_reverse"])
def test_generated_sql_reproduces_the_pages_with_the_same_operators(
    server_uri: str, admin: Any, order: str
) -> None:
    from dynotui.postgres.codegen import generate_pg

    session = connect(PgOptions(uri=server_uri, trust_database_code=True))
    try:
        table = describe_table(session, "oc.t")
        query = PgQuery(table, table.order(order).reversed(), page_size=29)
        pager = Pager(PgSource(session, query))
        read = [pager.next() for _ in range(6)]
        sql = generate_pg("sql", query, read[5].start_key, read[5].number, server_uri)
        got = [str(row[0]) for row in admin.execute(sql)]  # type: ignore[arg-type]
        assert got == [row["id"] for row in read[5].items]
    finally:
        session.close()
