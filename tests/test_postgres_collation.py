"""D4 (issue 18): an index's collation and operator class are part of its order. On
Debian's PostgreSQL with an ICU default collation (where "apple" < "Banana" < "banana"),
an index on ``t_def COLLATE "C"`` and one with ``text_pattern_ops`` sort otherwise than
the column's default; each order must drain exactly in its index's order, served by that
index, and the generated code must reproduce its pages.

The embedded build has no ICU and only C locales, so these tests need the system server
(``.ci/run`` installs the ``postgresql`` package); they skip, saying so, where it is absent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from helpers import walk
from system_postgres import SystemPostgres, find_bindir

from dynotui.core.pager import Pager
from dynotui.postgres.codegen import generate_pg
from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.schema import describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

pytestmark = pytest.mark.system_postgres

WORDS = ["apple", "Apple", "banana", "Banana", "_x", "a-b", "ab", "Zed", "zed", "éclair", "eclair"]
FILL = """
INSERT INTO typed
SELECT g, CASE WHEN g %% 13 = 0 THEN NULL ELSE (%(words)s::text[])[1 + g %% 11] || (g %% 7) END
FROM generate_series(1, 1500) AS g
ORDER BY md5(g::text)
"""
SETUP = """
CREATE INDEX typed_t_def ON typed (t_def, id);
CREATE INDEX typed_t_def_as_c ON typed (t_def COLLATE "C", id);
CREATE INDEX typed_t_def_pattern ON typed (t_def text_pattern_ops, id);
CREATE INDEX typed_t_def_icu_desc ON typed (t_def COLLATE "und-x-icu" DESC NULLS LAST, id);
ANALYZE typed;
"""

# (order, reversed?, the test's own ORDER BY for the same rows)
ORDERS = [
    ("typed_t_def", False, "t_def, id"),
    ("typed_t_def", True, "t_def DESC, id DESC"),
    ("typed_t_def_as_c", False, 't_def COLLATE "C", id'),
    ("typed_t_def_as_c", True, 't_def COLLATE "C" DESC, id DESC'),
    ("typed_t_def_pattern", False, "t_def USING ~<~ NULLS LAST, id"),
    ("typed_t_def_pattern", True, "t_def USING ~>~ NULLS FIRST, id DESC"),
    ("typed_t_def_icu_desc", False, 't_def COLLATE "und-x-icu" DESC NULLS LAST, id'),
    ("typed_t_def_icu_desc", True, 't_def COLLATE "und-x-icu" ASC NULLS FIRST, id DESC'),
]


@pytest.fixture(scope="module")
def system_uri() -> Iterator[str]:
    bindir, why = find_bindir()
    if bindir is None:
        pytest.skip(why)
    with SystemPostgres(bindir) as server, psycopg.connect(server.uri, autocommit=True) as conn:
        conn.execute("CREATE TABLE typed (id integer PRIMARY KEY, t_def text)")
        conn.execute(FILL, {"words": WORDS})  # type: ignore[arg-type]
        conn.execute(SETUP)  # type: ignore[arg-type]
        yield server.uri


@pytest.fixture(scope="module")
def admin(system_uri: str) -> Iterator[Any]:
    with psycopg.connect(system_uri, autocommit=True) as conn:
        yield conn


@pytest.fixture
def session(system_uri: str) -> Iterator[Any]:
    opened = connect(PgOptions(uri=system_uri))
    yield opened
    opened.close()


def truth(admin: Any, order_by: str) -> list[int]:
    return [r[0] for r in admin.execute(f"SELECT id FROM typed ORDER BY {order_by}")]  # type: ignore[arg-type]


def test_the_collations_really_sort_differently(admin: Any) -> None:
    default, c, pattern = (truth(admin, o) for _, r, o in ORDERS[0:6:2])
    assert default != c and default != pattern and c == pattern  # pattern ops: C's order


def test_each_order_is_labelled_apart(session: Any) -> None:
    labels = {o.name: o.label for o in describe_table(session, "typed").orders}
    assert labels["typed_t_def"] == "(t_def, id)"
    assert labels["typed_t_def_as_c"] == '(t_def collate "C", id)'
    assert labels["typed_t_def_pattern"] == "(t_def text_pattern_ops, id)"
    assert labels["typed_t_def_icu_desc"] == '(t_def desc nulls last collate "und-x-icu", id)'


@pytest.mark.parametrize(("order", "reverse", "order_by"), ORDERS)
def test_every_order_drains_in_its_index_order_served_by_that_index(
    session: Any, admin: Any, order: str, reverse: bool, order_by: str
) -> None:
    table = describe_table(session, "typed")
    chosen = table.order(order).reversed() if reverse else table.order(order)
    pages = walk(Pager(PgSource(session, PgQuery(table, chosen, page_size=41))), 100)
    assert [int(r["id"]) for p in pages for r in p.items] == truth(admin, order_by)
    # The index of this very order serves page 1, and no page scans or sorts the table (a
    # seek inside a group of equal values may sort that group: a handful of rows).
    assert f"Index Only Scan using {order} on typed" in pages[0].cost.plan
    assert not any("Seq Scan" in p.cost.plan or p.cost.sorts_input for p in pages)


ENV = {**os.environ}


@pytest.mark.parametrize(
    ("order", "reverse"), [("typed_t_def_pattern", False), ("typed_t_def_as_c", True)]
)
def test_generated_code_reproduces_collated_pages(
    session: Any, admin: Any, system_uri: str, order: str, reverse: bool
) -> None:
    table = describe_table(session, "typed")
    chosen = table.order(order).reversed() if reverse else table.order(order)
    query = PgQuery(table, chosen, page_size=23)
    pager = Pager(PgSource(session, query))
    read = [pager.next() for _ in range(40)]  # boundaries among the values and the NULLs
    for page in (read[5], read[-1]):
        sql = generate_pg("sql", query, page.start_key, page.number, system_uri)
        got = [str(row[0]) for row in admin.execute(sql)]  # type: ignore[arg-type]
        assert got == [r["id"] for r in page.items]
    script = generate_pg("psycopg", query, read[5].start_key, read[5].number, system_uri)
    ran = subprocess.run(
        [sys.executable, "-c", script, "--pages", "3"],
        capture_output=True,
        text=True,
        env={**ENV, "DATABASE_URL": system_uri},
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    rows = [json.loads(line) for line in ran.stdout.splitlines()]
    assert [r["id"] for r in rows] == [r["id"] for p in read[5:8] for r in p.items]
