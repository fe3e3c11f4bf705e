"""Filters read as the server reads them (issue 26), against the embedded PostgreSQL 18: a
literal in ``--where`` is read in the session's own TimeZone, DateStyle and IntervalStyle
(the role's, or the URI's ``options=-c ...``), as psql and a plain psycopg connection read
it; only the boundaries dynotui writes and reads back are spelled in forms no setting
changes, so a drain is exact under any settings and a cursor made under one reads on
under another.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from helpers import page_lines, walk
from psycopg.conninfo import make_conninfo

from dynotui.core.pager import Pager
from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.schema import describe_table
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

SETUP = """
DROP SCHEMA IF EXISTS tz CASCADE;
CREATE SCHEMA tz;
CREATE TABLE tz.events (
    id integer PRIMARY KEY, at timestamptz NOT NULL, d date NOT NULL, span interval NOT NULL,
    local timestamp NOT NULL
);
-- Every 20 minutes over four days, with microseconds; dates either side of the 2nd of March
-- and the 3rd of February (which DMY and MDY read the other way round); intervals of mixed
-- signs; BC dates and infinities at the ends.
INSERT INTO tz.events
SELECT g,
       timestamptz '2026-01-01 00:00:00+00' + g * interval '20 minutes'
           + (g % 7) * interval '1 microsecond',
       date '2026-01-20' + (g % 60),
       (g % 13 - 6) * interval '1 day' + (g % 5 - 2) * interval '1 hour'
           + (g % 3) * interval '1 month' + (g % 4) * interval '1 ms',
       timestamp '2026-01-01 00:00:00' + g * interval '7 minutes'
FROM generate_series(1, 3000) AS g;
INSERT INTO tz.events VALUES
    (3001, '-infinity', '-infinity', '-178000000 years', '-infinity'),
    (3002, 'infinity', 'infinity', '178000000 years', 'infinity'),
    (3003, '0044-03-15 12:00:00+00 BC', '0044-03-15 BC', '-1 year -2 mons', '0044-03-15 BC');
CREATE INDEX events_at ON tz.events (at, id);
CREATE INDEX events_d ON tz.events (d DESC, id);
CREATE INDEX events_span ON tz.events (span, id);
CREATE INDEX events_local ON tz.events (local, id);
ANALYZE tz.events;
DROP ROLE IF EXISTS tz_reader;
CREATE ROLE tz_reader LOGIN;
ALTER ROLE tz_reader SET TimeZone = 'America/New_York';
ALTER ROLE tz_reader SET DateStyle = 'SQL, DMY';
ALTER ROLE tz_reader SET IntervalStyle = 'sql_standard';
GRANT USAGE ON SCHEMA tz TO tz_reader;
GRANT SELECT ON tz.events TO tz_reader;
"""

# Literals whose meaning depends on the session: a time with no zone, a date that DMY and
# MDY read apart, an interval whose sign sql_standard spreads over its fields.
WHERE = (
    "at < '2026-01-02 12:00' AND d <> '02/03/2026' AND span > '-1 2:00:00'"
    " AND local::date <> '03/02/2026'"
)


@pytest.fixture(scope="module")
def tz(pg_admin: Any) -> Iterator[Any]:
    pg_admin.execute(SETUP)
    yield pg_admin
    pg_admin.execute("DROP SCHEMA tz CASCADE")
    pg_admin.execute("DROP OWNED BY tz_reader")
    pg_admin.execute("DROP ROLE tz_reader")


def uris(pg_uri: str) -> dict[str, str]:
    return {
        "role": make_conninfo(pg_uri, user="tz_reader"),
        "uri options": make_conninfo(
            pg_uri,
            options="-c TimeZone=Asia/Kolkata -c DateStyle=Postgres,DMY"
            " -c IntervalStyle=postgres_verbose",
        ),
    }


def plain_ids(uri: str, where: str, order_by: str) -> list[str]:
    """The ground truth: a plain connection with the same settings, as psql would be."""
    with psycopg.connect(uri) as conn:
        return [
            str(r[0])
            for r in conn.execute(f"SELECT id FROM tz.events WHERE {where} ORDER BY {order_by}")  # type: ignore[arg-type]
        ]


ORDERS = [
    ("events_at", "at, id"),
    ("events_d", "d DESC, id"),
    ("events_span", "span, id"),
    ("events_local", "local, id"),
]


@pytest.mark.parametrize("settings", ["role", "uri options"])
@pytest.mark.parametrize(("order", "order_by"), ORDERS, ids=[o for o, _ in ORDERS])
def test_a_filter_reads_literals_as_the_session_does_and_drains_exactly(
    pg_uri: str, tz: Any, settings: str, order: str, order_by: str
) -> None:
    uri = uris(pg_uri)[settings]
    expected = plain_ids(uri, WHERE, order_by)
    utc = plain_ids(
        make_conninfo(
            uri, options="-c TimeZone=UTC -c DateStyle=ISO,MDY -c IntervalStyle=postgres"
        ),
        WHERE,
        order_by,
    )
    assert expected != utc  # the settings change what the filter means: the test can fail
    session = connect(PgOptions(uri=uri))
    try:
        table = describe_table(session, "tz.events")
        pages = walk(
            Pager(PgSource(session, PgQuery(table, table.order(order), WHERE, page_size=29)))
        )
        assert [r["id"] for p in pages for r in p.items] == expected
        everything = walk(
            Pager(PgSource(session, PgQuery(table, table.order(order), page_size=97)))
        )
        assert [r["id"] for p in everything for r in p.items] == plain_ids(uri, "true", order_by)
    finally:
        session.close()


def test_shown_values_are_the_sessions_and_boundaries_are_fixed(pg_uri: str, tz: Any) -> None:
    uri = uris(pg_uri)["role"]
    session = connect(PgOptions(uri=uri))
    try:
        table = describe_table(session, "tz.events")
        query = PgQuery(table, table.order("events_at"), "id IN (3001, 3003, 1)", page_size=1)
        pager = Pager(PgSource(session, query))
        first, second = pager.next(), pager.next()
    finally:
        session.close()
    with psycopg.connect(uri) as conn:
        shown = conn.execute("SELECT at::text FROM tz.events WHERE id = 3003").fetchone()[0]
    assert second.items[0]["at"] == shown  # as the session shows it (New York, SQL style)
    assert first.next_start_key == ["-infinity", "3001"]
    assert second.next_start_key == ["0044-03-15 12:00:00+00 BC", "3003"]


ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}


def pages(uri: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "dynotui",
            "pages",
            "--postgres",
            uri,
            "--table",
            "tz.events",
            *args,
        ],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=120,
    )


@pytest.mark.parametrize("order", ["events_at", "events_span", "events_local"])
def test_a_cursor_made_under_one_sessions_settings_reads_on_under_another(
    pg_uri: str, tz: Any, order: str
) -> None:
    one, other = uris(pg_uri)["role"], uris(pg_uri)["uri options"]
    base = ["--order", order, "--page-size", "50", "--max-pages", "1"]
    first = pages(one, *base)
    assert first.returncode == 0, first.stderr
    (page,) = page_lines(first.stdout)
    resumed = pages(other, *base, "--starting-token", page["next_token"])
    assert resumed.returncode == 0, resumed.stderr
    expected = plain_ids(one, "true", dict(ORDERS)[order])
    assert [r["id"] for r in page_lines(resumed.stdout)[0]["items"]] == expected[50:100]
