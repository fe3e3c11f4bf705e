"""Every row, on every table, or a refusal (issue 26), against the embedded PostgreSQL 18:
a composite sort column holding ROW(NULL, NULL), an inherited table whose child repeats
the parent's keys, a table with no unique index (and rows that are exact duplicates), a
table with no index at all, a materialized view, a partitioned table with no key; each
drains exactly, both ways, against the test's own ``SELECT ... ORDER BY``. A view has
nothing that names one row: refused in one line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from helpers import walk

from dynotui.core.errors import FieldError
from dynotui.core.pager import Pager
from dynotui.postgres.schema import describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

SETUP = """
DROP SCHEMA IF EXISTS every CASCADE;
CREATE SCHEMA every;
-- A composite sort column: NULL itself, ROW(NULL, NULL) (for which IS NULL is true too),
-- half-NULL rows and plain ones.
CREATE TYPE every.pair AS (a integer, b text);
CREATE TABLE every.pairs (id integer PRIMARY KEY, p every.pair);
INSERT INTO every.pairs
SELECT g, CASE g % 6
    WHEN 0 THEN NULL
    WHEN 1 THEN ROW(NULL, NULL)::every.pair
    WHEN 2 THEN ROW(g % 7, NULL)::every.pair
    WHEN 3 THEN ROW(NULL, 'x' || g % 5)::every.pair
    ELSE ROW(g % 11, 'y' || g % 3)::every.pair END
FROM generate_series(1, 3000) AS g ORDER BY md5(g::text);
CREATE INDEX pairs_p ON every.pairs (p, id);
CREATE INDEX pairs_p_alone ON every.pairs (p);
-- Inheritance: the child repeats 1,001 of the parent's primary key values.
CREATE TABLE every.parent (id integer PRIMARY KEY, note text NOT NULL);
CREATE TABLE every.child () INHERITS (every.parent);
INSERT INTO every.parent SELECT g, 'parent ' || g FROM generate_series(1, 2000) AS g;
INSERT INTO every.child SELECT g, 'child ' || g FROM generate_series(1000, 2000) AS g;
-- No primary key, no unique index, and rows that are exact duplicates of each other.
CREATE TABLE every.dups (kind text NOT NULL, n integer);
INSERT INTO every.dups SELECT 'k' || (g % 5), g % 40 FROM generate_series(1, 3000) AS g;
CREATE INDEX dups_kind ON every.dups (kind);
CREATE TABLE every.bare (v integer);
INSERT INTO every.bare SELECT g % 17 FROM generate_series(1, 500) AS g;
-- A materialized view: its columns are nullable, so its unique index names no row.
CREATE MATERIALIZED VIEW every.mv AS SELECT g % 10 AS k, g AS v FROM generate_series(1, 700) AS g;
CREATE UNIQUE INDEX mv_k_v ON every.mv (k, v);
-- A partitioned table with no key.
CREATE TABLE every.parts (k integer, v integer) PARTITION BY RANGE (k);
CREATE TABLE every.parts_low PARTITION OF every.parts FOR VALUES FROM (0) TO (50);
CREATE TABLE every.parts_high PARTITION OF every.parts FOR VALUES FROM (50) TO (100);
INSERT INTO every.parts SELECT g % 100, g % 7 FROM generate_series(1, 2000) AS g;
CREATE INDEX parts_k ON every.parts (k);
CREATE VIEW every.v AS SELECT * FROM every.pairs;
-- No key, and an index of four values: past a boundary, the rows equal to it can only be
-- found by reading (and sorting) the whole group.
CREATE TABLE every.lumpy (g integer NOT NULL, v text);
INSERT INTO every.lumpy SELECT g % 4, md5(g::text) FROM generate_series(1, 40000) AS g;
CREATE INDEX lumpy_g ON every.lumpy (g);
ANALYZE every.pairs, every.parent, every.child, every.dups, every.bare, every.mv, every.parts,
    every.lumpy;
"""


@pytest.fixture(scope="module")
def every(pg_admin: Any) -> Any:
    pg_admin.execute(SETUP)
    yield pg_admin
    pg_admin.execute("DROP SCHEMA every CASCADE")


def rows(admin: Any, select: str) -> list[tuple[str | None, ...]]:
    """The test's own rows, every value as text (as dynotui gives them)."""
    return [tuple(None if v is None else str(v) for v in r) for r in admin.execute(select)]


def drain(pg: Any, table: str, order: str, columns: tuple[str, ...], reverse: bool) -> Any:
    described = describe_table(pg, table)
    chosen = described.order(order)
    if reverse:
        chosen = chosen.reversed()
    pager = Pager(PgSource(pg, PgQuery(described, chosen, page_size=37)))
    pages = walk(pager)
    assert not pager.can_advance  # the end, not the walk's limit
    return [tuple(item[c] for c in columns) for page in pages for item in page.items]


# (table, dynotui's order, the columns compared, the test's ORDER BY forward, and back)
CASES = [
    ("every.pairs", "pairs_p", ("id", "p"), "p, id", "p DESC, id DESC"),
    ("every.pairs", "pairs_p_alone", ("id", "p"), "p, id", "p DESC, id DESC"),
    (
        "every.pairs",
        "p desc nulls last",
        ("id", "p"),
        "p DESC NULLS LAST, id DESC",
        "p NULLS FIRST, id",
    ),
    (
        "every.parent",
        "primary key",
        ("id", "note"),
        "id, tableoid, ctid",
        "id DESC, tableoid DESC, ctid DESC",
    ),
    ("every.dups", "dups_kind", ("kind", "n"), "kind, ctid", "kind DESC, ctid DESC"),
    ("every.bare", "physical order", ("v",), "ctid", "ctid DESC"),
    ("every.mv", "mv_k_v", ("k", "v"), "k, v, ctid", "k DESC, v DESC, ctid DESC"),
    (
        "every.parts",
        "parts_k",
        ("k", "v"),
        "k, tableoid, ctid",
        "k DESC, tableoid DESC, ctid DESC",
    ),
]


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "back"])
@pytest.mark.parametrize(
    ("table", "order", "columns", "forward", "back"), CASES, ids=[c[1] for c in CASES]
)
def test_every_row_drains_exactly(
    pg: Any,
    every: Any,
    table: str,
    order: str,
    columns: tuple[str, ...],
    forward: str,
    back: str,
    reverse: bool,
) -> None:
    expected = rows(
        every, f"SELECT {', '.join(columns)} FROM {table} ORDER BY {back if reverse else forward}"
    )
    assert drain(pg, table, order, columns, reverse) == expected
    assert len(expected) == every.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_orders_say_how_they_name_one_row(pg: Any, every: Any) -> None:
    parent = describe_table(pg, "every.parent")
    assert parent.row_key == ("tableoid", "ctid")
    key = parent.order("primary key")
    assert key.label == "(id, tableoid, ctid)"
    assert "inheritance children" in key.describe()
    assert "exact while rows are not updated during paging" in key.describe()
    assert describe_table(pg, "every.dups").order("dups_kind").label == "(kind, ctid)"
    assert describe_table(pg, "every.parts").row_key == ("tableoid", "ctid")
    bare = describe_table(pg, "every.bare")
    assert bare.default_order().label == "(ctid)"
    pairs = describe_table(pg, "every.pairs")
    assert pairs.order("pairs_p").columns[0].row_valued
    assert pairs.order("pairs_p_alone").tie_breaker == ("id",)


def test_a_view_names_no_row_and_is_refused_in_one_line(pg: Any, pg_uri: str, every: Any) -> None:
    view = describe_table(pg, "every.v")
    with pytest.raises(FieldError, match=r"every\.v is a view: no key and no ctid") as refused:
        PgQuery(view, view.order("id"), page_size=10).check()
    assert refused.value.field == "order"
    result = subprocess.run(
        [
            sys.executable, "-m", "dynotui", "pages", "--postgres", pg_uri,
            "--table", "every.v", "--order", "id",
        ],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"},
    )  # fmt: skip
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "is a view" in result.stderr and result.stdout == ""


def test_an_order_whose_page_2_is_not_bounded_says_so(pg: Any, every: Any) -> None:
    lumpy = describe_table(pg, "every.lumpy").order("lumpy_g")
    assert lumpy.cost_note.startswith(
        "pages past the first are not bounded seeks: seek 1 (g = the boundary's and (ctid) after"
    )
    assert lumpy.cost_note in lumpy.describe()
    pager = Pager(PgSource(pg, PgQuery(describe_table(pg, "every.lumpy"), lumpy, page_size=50)))
    pager.next()
    findings = {f.kind: f.text for f in pager.advisor.findings()}
    assert findings["not-flat"].startswith(f"Order lumpy_g: {lumpy.cost_note}")
    # Orders served by bounded seeks carry no note, either way.
    pairs = describe_table(pg, "every.pairs")
    assert [(o.cost_note, o.reverse_cost_note) for o in pairs.orders] == [("", "")] * 3
