"""Keyset paging exact on schemas nobody here made (issue 18), against the embedded
PostgreSQL 18: every index order of a pgbench-shaped table drains exactly and reads flat
buffers with depth, nullable or not; the edge cases D1-D3, D5, D6; labels; one execution
per page without auto_explain.

Ground truth is the test's own ``SELECT ... ORDER BY`` (its own ORDER BY text, written
here, on the test's own connection), never dynotui's.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from helpers import page_lines, walk
from psycopg.conninfo import make_conninfo

from dynotui.core.errors import InputError
from dynotui.core.pager import Pager
from dynotui.postgres.connection import MEASURED_ONE_PASS, PgOptions, PgSession, connect
from dynotui.postgres.schema import describe_table, list_tables, table_refs
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

ACCOUNTS = 6_000
SETUP = f"""
DROP SCHEMA IF EXISTS exact CASCADE;
CREATE SCHEMA exact;
-- pgbench's accounts as pgbench declares them (bid, abalance nullable though no row holds
-- a NULL), a last_seen that is NULL in 30% of rows, and the issue's kinds of index. Rows
-- lie in the heap in no index's order, so a page costs about the same wherever it lies
-- unless the seek itself grows with depth.
CREATE TABLE exact.accounts (
    aid integer NOT NULL PRIMARY KEY,
    bid integer,
    abalance integer,
    filler character(84),
    last_seen timestamptz
);
INSERT INTO exact.accounts
SELECT g, 1 + (g - 1) / 600, ((g * 7919) % 2001) - 1000, '',
       CASE WHEN g % 10 >= 3
            THEN timestamptz '2026-01-01 00:00:00+00' + ((g * 37) % 500) * interval '1 minute'
       END
FROM generate_series(1, {ACCOUNTS}) AS g
ORDER BY md5(g::text);
CREATE INDEX accounts_bid ON exact.accounts (bid, aid);
CREATE INDEX accounts_balance ON exact.accounts (abalance DESC, aid);
CREATE INDEX accounts_bid_balance ON exact.accounts (bid, abalance DESC, aid DESC);
CREATE INDEX accounts_abs ON exact.accounts (abs(abalance), aid);
CREATE INDEX accounts_seen ON exact.accounts (last_seen, aid);
CREATE INDEX accounts_seen_nulls_first ON exact.accounts (last_seen NULLS FIRST, aid);
CREATE INDEX accounts_seen_desc ON exact.accounts (last_seen DESC NULLS LAST, aid DESC);
CREATE INDEX accounts_positive ON exact.accounts (abalance) WHERE abalance > 0;
-- Tie-heavy: an index that lacks the tie-breaker aid, and an expression over the blank
-- char(84) filler, on which every row ties (issue 26: seq scans and sorts of whole groups).
CREATE INDEX accounts_bid_abalance ON exact.accounts (bid, abalance);
CREATE INDEX accounts_lower_filler ON exact.accounts (lower(filler));
-- D1: a UNIQUE index on a nullable column; one that treats NULLs as equal.
CREATE TABLE exact.users (id integer PRIMARY KEY, email text UNIQUE, handle text);
INSERT INTO exact.users
SELECT g, CASE WHEN g % 3 <> 0 THEN 'u' || g || '@example.com' END, 'h' || g
FROM generate_series(1, 3000) AS g;
CREATE UNIQUE INDEX users_handle_key ON exact.users (handle) NULLS NOT DISTINCT;
-- D2: COALESCE of two nullable columns is NULL when both are.
CREATE TABLE exact.people (id integer PRIMARY KEY, nickname text, name text);
INSERT INTO exact.people
SELECT g, CASE WHEN g % 4 = 0 THEN 'nick' || (g % 50) END,
       CASE WHEN g % 5 <> 0 THEN 'name' || (g % 70) END
FROM generate_series(1, 4000) AS g;
CREATE INDEX people_called ON exact.people (COALESCE(nickname, name));
CREATE INDEX people_called_or_blank ON exact.people (COALESCE(nickname, ''), id);
-- D3: values whose text depends on session settings.
CREATE TABLE exact.measures (
    id integer PRIMARY KEY, f double precision NOT NULL, at timestamptz NOT NULL,
    span interval NOT NULL, blob bytea NOT NULL
);
INSERT INTO exact.measures
SELECT g, 1.0 + (g % 40) * 2.220446049250313e-16,
       timestamptz '2026-03-01 00:00:00+00' + (g % 90) * interval '1 microsecond'
           + (g % 7) * interval '1 hour',
       (g % 6) * interval '1 month' - (g % 11) * interval '1 day' + (g % 5) * interval '1 ms',
       decode(lpad(to_hex(g % 300), 4, '0'), 'hex')
FROM generate_series(1, 3000) AS g;
CREATE INDEX measures_f ON exact.measures (f, id);
CREATE INDEX measures_at ON exact.measures (at, id);
CREATE INDEX measures_span ON exact.measures (span, id);
CREATE INDEX measures_blob ON exact.measures (blob, id);
-- D5: sort values of 5,004 characters (compressed in the index).
CREATE TABLE exact.longs (id integer PRIMARY KEY, v text NOT NULL);
INSERT INTO exact.longs SELECT g, repeat('x', 5000) || lpad((g % 17)::text, 4, '0')
FROM generate_series(1, 60) AS g;
CREATE INDEX longs_v ON exact.longs (v, id);
-- Labels: orders that differ only by collation or operator class.
CREATE TABLE exact.typed (id integer PRIMARY KEY, t_def text);
INSERT INTO exact.typed SELECT g, 'v' || (g % 9) FROM generate_series(1, 50) AS g;
CREATE INDEX typed_t_def ON exact.typed (t_def, id);
CREATE INDEX typed_t_def_as_c ON exact.typed (t_def COLLATE "C", id);
CREATE INDEX typed_t_def_pattern ON exact.typed (t_def text_pattern_ops, id);
-- Roles of no privilege beyond reading: one with settings that round values, one whose
-- statements the server logs.
DROP ROLE IF EXISTS exact_rounding;
CREATE ROLE exact_rounding LOGIN;
ALTER ROLE exact_rounding SET extra_float_digits = 0;
ALTER ROLE exact_rounding SET DateStyle = 'SQL, DMY';
ALTER ROLE exact_rounding SET IntervalStyle = 'sql_standard';
ALTER ROLE exact_rounding SET bytea_output = 'escape';
DROP ROLE IF EXISTS exact_counted;
CREATE ROLE exact_counted LOGIN;
ALTER ROLE exact_counted SET log_statement = 'all';
GRANT USAGE ON SCHEMA exact TO exact_rounding, exact_counted;
GRANT SELECT ON ALL TABLES IN SCHEMA exact TO exact_rounding, exact_counted;
-- D6: names that differ by case and by a space, beside the demo's orders.
CREATE TABLE public."Orders" (n integer PRIMARY KEY);
INSERT INTO public."Orders" SELECT generate_series(1, 7);
CREATE TABLE public."Order Items" (n integer PRIMARY KEY);
INSERT INTO public."Order Items" SELECT generate_series(1, 3);
ANALYZE exact.accounts, exact.users, exact.people, exact.measures, exact.longs, exact.typed,
    public."Orders", public."Order Items";
"""
TEARDOWN = """
DROP SCHEMA exact CASCADE;
DROP TABLE public."Orders", public."Order Items";
DROP OWNED BY exact_rounding, exact_counted;
DROP ROLE exact_rounding, exact_counted;
"""


@pytest.fixture(scope="module")
def exact(pg_admin: Any) -> Any:
    pg_admin.execute(SETUP)
    yield pg_admin
    pg_admin.execute(TEARDOWN)


def truth(admin: Any, table: str, order_by: str, key: str = "id") -> list[int]:
    return [r[0] for r in admin.execute(f"SELECT {key} FROM {table} ORDER BY {order_by}")]


def drain(session: Any, table: str, order: str, *, reverse: bool = False, size: int = 97) -> Any:
    described = describe_table(session, table)
    chosen = described.order(order)
    if reverse:
        chosen = chosen.reversed()
    rows = described.estimated_rows or 10_000
    return walk(Pager(PgSource(session, PgQuery(described, chosen, page_size=size))), rows)


def keys(pages: list[Any], key: str = "id") -> list[int]:
    return [int(item[key]) for page in pages for item in page.items]


# Every index order of the accounts, forward and back, in the test's own words.
ACCOUNT_ORDERS = {
    "primary key": ("aid", "aid DESC"),
    "accounts_bid": ("bid, aid", "bid DESC, aid DESC"),
    "accounts_balance": ("abalance DESC, aid", "abalance ASC NULLS LAST, aid DESC"),
    "accounts_bid_balance": (
        "bid, abalance DESC, aid DESC",
        "bid DESC, abalance ASC NULLS LAST, aid",
    ),
    "accounts_abs": ("abs(abalance), aid", "abs(abalance) DESC, aid DESC"),
    "accounts_seen": ("last_seen, aid", "last_seen DESC NULLS FIRST, aid DESC"),
    "accounts_seen_nulls_first": (
        "last_seen NULLS FIRST, aid",
        "last_seen DESC NULLS LAST, aid DESC",
    ),
    "accounts_seen_desc": (
        "last_seen DESC NULLS LAST, aid DESC",
        "last_seen NULLS FIRST, aid",
    ),
    "accounts_bid_abalance": ("bid, abalance, aid", "bid DESC, abalance DESC, aid DESC"),
    "accounts_lower_filler": ("lower(filler), aid", "lower(filler) DESC, aid DESC"),
}


def test_the_accounts_offer_every_full_index_and_no_partial_one(pg: Any, exact: Any) -> None:
    table = describe_table(pg, "exact.accounts")
    assert {o.name for o in table.orders} == set(ACCOUNT_ORDERS)
    by_name = {o.name: o for o in table.orders}
    assert [c.nullable for c in by_name["accounts_balance"].columns] == [True, False]
    assert by_name["accounts_bid"].tie_breaker == ()  # the index holds the key already


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "back"])
@pytest.mark.parametrize("order", list(ACCOUNT_ORDERS))
def test_every_index_order_drains_exactly_and_reads_flat(
    pg: Any, exact: Any, order: str, reverse: bool
) -> None:
    expected = truth(exact, "exact.accounts", ACCOUNT_ORDERS[order][reverse], key="aid")
    pages = drain(pg, "exact.accounts", order, reverse=reverse, size=40)
    assert keys(pages, "aid") == expected
    assert len(pages) == ACCOUNTS // 40
    # Flat with depth: no page reads much more than the first (an OR the planner cannot
    # bound starts every page at the beginning of the index and grows with the page).
    first = pages[0].cost.headline
    deepest = max(p.cost.headline for p in pages[1:])
    assert deepest <= 2 * first + 12, [p.cost.headline for p in pages]
    # Every page past the first is index seeks: none scans the table or sorts what no
    # index orders, and EXPLAIN at open found page 2 bounded.
    unbounded = [p.number for p in pages[1:] if "Seq Scan" in p.cost.plan or p.cost.sorts_input]
    assert not unbounded, [p.cost.plan for p in pages[1:3]]
    chosen = describe_table(pg, "exact.accounts").order(order)
    note = chosen.reverse_cost_note if reverse else chosen.cost_note
    if order != "accounts_lower_filler":
        assert note == ""
        return
    # Page 1 of an index that lacks the tie-breaker sorts the rows that tie on its first
    # value: here every row, as the page's own plan shows and the order says.
    assert "Sort" in pages[0].cost.plan and pages[0].cost.sorts_input
    assert re.fullmatch(
        r"page 1 sorts about [\d,]+ rows \(index accounts_lower_filler lacks the tie-breaker "
        r"aid, so the rows that tie on its first value are all read and sorted\)",
        note,
    ), note
    assert note in chosen.describe()


def test_a_nullable_order_reads_its_null_run_by_a_seek_of_its_own(pg: Any, exact: Any) -> None:
    pages = drain(pg, "exact.accounts", "accounts_seen", size=200)
    forms = {p.extra["keyset"] for p in pages[1:]}
    # A boundary among the values: the values after it, then the NULL run (last).
    among_values = (
        "2 seeks joined by UNION ALL, each read only if the ones before it end before the "
        "page does ((last_seen, aid) after the boundary; then last_seen is null)"
    )
    assert among_values in forms
    # A boundary inside the NULL run continues it: one seek.
    assert "one seek (last_seen is null and (aid) after the boundary)" in forms
    # The NULL seek is read only by the pages where the values run out (the last page of
    # values, or the one whose has-next row is the first NULL's): before that, the seeks'
    # Append stops at the LIMIT and the NULL run's index is never descended.
    among = [p for p in pages[1:] if p.extra["keyset"] == among_values]
    reads = [p.cost.seek_buffers[1] > 0 for p in among]
    assert len(among) > 10 and reads == sorted(reads) and 1 <= reads.count(True) <= 2
    pager = Pager(PgSource(pg, PgQuery(*_accounts(pg, "accounts_balance"), page_size=20)))
    for _ in range(3):
        pager.next()
    findings = {f.kind: f.text for f in pager.advisor.findings()}
    assert "2 seeks joined by UNION ALL" in findings["keyset-form"]
    assert "abalance (pg_stats found no NULL at the last ANALYZE)" in findings["nullable"]


def _accounts(pg: Any, order: str) -> tuple[Any, Any]:
    table = describe_table(pg, "exact.accounts")
    return table, table.order(order)


# -- D1, D2: what can be NULL is read from the catalog -----------------------------------------


def test_d1_a_unique_index_on_a_nullable_column_is_tie_broken(pg: Any, exact: Any) -> None:
    table = describe_table(pg, "exact.users")
    email = table.order("users_email_key")
    assert email.tie_breaker == ("id",) and "NULLs repeat" in email.describe()
    assert table.order("users_handle_key").tie_breaker == ()  # NULLS NOT DISTINCT: unique
    for reverse, order_by in ((False, "email, id"), (True, "email DESC, id DESC")):
        pages = drain(pg, "exact.users", "users_email_key", reverse=reverse, size=70)
        assert keys(pages) == truth(exact, "exact.users", order_by)


def test_d2_a_coalesce_of_nullable_columns_may_be_null(pg: Any, exact: Any) -> None:
    table = describe_table(pg, "exact.people")
    assert table.order("people_called").columns[0].nullable
    assert not table.order("people_called_or_blank").columns[0].nullable
    for order, order_by in (
        ("people_called", "COALESCE(nickname, name), id"),
        ("people_called_or_blank", "COALESCE(nickname, ''), id"),
    ):
        for reverse in (False, True):
            expected = truth(exact, "exact.people", order_by)
            pages = drain(pg, "exact.people", order, reverse=reverse, size=83)
            assert keys(pages) == (expected[::-1] if reverse else expected)


# -- D3: the session's settings make every boundary exact -----------------------------------


def without_startup_options(uri: str) -> PgSession:
    """A session as a pooler gives it: the role's settings in force, dynotui's startup
    options dropped; only each transaction's LOCAL settings stand between them."""
    conn = psycopg.connect(uri, autocommit=False)
    conn.read_only = True
    return PgSession(conn, False, PgOptions(uri=uri))


@pytest.mark.parametrize("opened", ["connect", "pooled"])
@pytest.mark.parametrize("order", ["measures_f", "measures_at", "measures_span", "measures_blob"])
def test_d3_boundaries_survive_a_roles_rounding_settings(
    pg_uri: str, exact: Any, order: str, opened: str
) -> None:
    column = order.removeprefix("measures_")
    uri = make_conninfo(pg_uri, user="exact_rounding")
    session = connect(PgOptions(uri=uri)) if opened == "connect" else without_startup_options(uri)
    try:
        if opened == "pooled":  # outside dynotui's transactions the role's settings rule
            with session.conn.transaction():
                shown = session.conn.execute("SHOW extra_float_digits").fetchone()
            assert shown == ("0",)
        expected = truth(exact, "exact.measures", f"{column}, id")
        pages = drain(session, "exact.measures", order, size=37)
        assert keys(pages) == expected
    finally:
        session.close()


# -- D5: the tool takes its own cursor --------------------------------------------------------

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}


def pages_cli(uri: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dynotui", "pages", "--postgres", uri, *args],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=120,
    )


def test_d5_a_cursor_on_a_5004_character_value_opens_the_next_page(pg_uri: str, exact: Any) -> None:

    base = ["--table", "exact.longs", "--order", "longs_v", "--page-size", "7"]
    first = pages_cli(pg_uri, *base, "--max-pages", "1")
    assert first.returncode == 0, first.stderr
    (page,) = page_lines(first.stdout)
    assert len(page["next_start_key"][0]) == 5004
    resumed = pages_cli(pg_uri, *base, "--max-pages", "1", "--starting-token", page["next_token"])
    assert resumed.returncode == 0, resumed.stderr
    expected = truth(exact, "exact.longs", "v, id")
    assert [int(r["id"]) for r in page_lines(resumed.stdout)[0]["items"]] == expected[7:14]


# -- D6: names from the table list open exactly their table ---------------------------------


def test_d6_listed_names_open_exactly_their_table(pg: Any, exact: Any) -> None:
    listed = dict(list_tables(pg))
    assert {"orders", '"Orders"', '"Order Items"', "exact.accounts"} <= set(listed)
    assert '"odd schema"."Mixed ""Case"""' in listed
    for identifier, relname in (
        ("orders", "orders"),
        ('"Orders"', "Orders"),
        ('"Order Items"', "Order Items"),
        ('"odd schema"."Mixed ""Case"""', 'Mixed "Case"'),
    ):
        assert describe_table(pg, identifier).name == relname
    refs = {ref.identifier: ref for ref in table_refs(pg)}
    items = describe_table(pg, refs['"Order Items"'])
    assert (items.schema, items.name, items.estimated_rows) == ("public", "Order Items", 3)
    assert refs['"Orders"'].label == "Orders" and refs["exact.accounts"].label == "exact.accounts"


# -- labels, and orders typed as text --------------------------------------------------------


def test_orders_are_labelled_with_everything_that_sets_them_apart(pg: Any, exact: Any) -> None:
    accounts = describe_table(pg, "exact.accounts")
    labels = {o.name: o.label for o in accounts.orders}
    assert labels["accounts_seen"] == "(last_seen, aid)"
    assert labels["accounts_seen_nulls_first"] == "(last_seen nulls first, aid)"
    assert labels["accounts_seen_desc"] == "(last_seen desc nulls last, aid desc)"
    assert labels["accounts_abs"] == "(abs(abalance), aid)"
    typed = {o.name: o.label for o in describe_table(pg, "exact.typed").orders}
    assert typed["typed_t_def"] == "(t_def, id)"
    assert typed["typed_t_def_as_c"] == '(t_def collate "C", id)'
    assert typed["typed_t_def_pattern"] == "(t_def text_pattern_ops, id)"
    assert len(set(labels.values())) == len(labels)


def test_a_typed_order_is_read_by_postgresqls_parser(pg: Any, exact: Any) -> None:
    accounts = describe_table(pg, "exact.accounts")
    # The same terms as an index: that index's order, with its name.
    assert accounts.order("abalance DESC, aid").index == "accounts_balance"
    assert accounts.order("ABALANCE desc nulls first, AID").index == "accounts_balance"
    custom = accounts.order("last_seen desc nulls last, bid")
    assert custom.index is None and custom.label == "(last_seen desc nulls last, bid, aid)"
    pages = walk(Pager(PgSource(pg, PgQuery(accounts, custom, page_size=500))))
    assert keys(pages, "aid") == truth(
        exact, "exact.accounts", "last_seen DESC NULLS LAST, bid, aid", key="aid"
    )
    odd = describe_table(pg, '"odd schema"."Mixed ""Case"""')
    assert odd.order('"Key" desc').columns[0].label == "Key"
    for refused in ("Key", "aid; DROP TABLE exact.users", "aid USING <", "aid, bid + 1"):
        with pytest.raises(InputError, match="neither an order"):
            (odd if refused == "Key" else accounts).order(refused)


# -- 18.8: one execution per page for a role without auto_explain --------------------------


def log_entries(admin: Any, since: int) -> list[str]:
    """The server log's entries written after byte ``since`` (a statement's later lines
    are continuation lines that begin with a tab)."""
    folder = admin.execute("SHOW data_directory").fetchone()[0]
    with open(Path(folder) / "log", encoding="utf-8", errors="replace") as log:
        log.seek(since)
        lines = log.read().splitlines()
    entries: list[str] = []
    for line in lines:
        if line.startswith("\t") and entries:
            entries[-1] += "\n" + line
        else:
            entries.append(line)
    return entries


def log_size(admin: Any) -> int:
    return (Path(admin.execute("SHOW data_directory").fetchone()[0]) / "log").stat().st_size


def test_a_role_without_auto_explain_runs_each_page_once(pg_uri: str, exact: Any) -> None:
    session = connect(PgOptions(uri=make_conninfo(pg_uri, user="exact_counted")))
    try:
        assert not session.auto_explain  # LOAD 'auto_explain' needs a superuser
        table = describe_table(session, "exact.users")
        source = PgSource(session, PgQuery(table, table.order("users_email_key"), page_size=30))
        pager = Pager(source)
        pager.next()
        since = log_size(exact)
        page = pager.next()
        entries = log_entries(exact, since)
    finally:
        session.close()
    ran = [e for e in entries if "LOG:  execute" in e and '"exact"."users"' in e]
    assert len(ran) == 1, entries
    assert page.cost.measured == MEASURED_ONE_PASS and page.cost.headline > 0
    assert [int(r["id"]) for r in page.items] == truth(exact, "exact.users", "email, id")[30:60]
