"""``dynotui plan --postgres`` on the embedded PostgreSQL: each order's drain estimated by
the planner (EXPLAIN, never run), held to the truth: the same pages drained by the test's
own connection under EXPLAIN (ANALYZE, BUFFERS), their buffers added up."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from helpers import run_in_process

from dynotui.postgres.connection import PgOptions, connect
from dynotui.postgres.plan.conjuncts import conjuncts, psycopg_text
from dynotui.postgres.schema import describe_table
from dynotui.postgres.sql import PAGE_SETTINGS, PgQuery, page_statement
from dynotui.postgres.table_model import PgOrder, PgTable

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}
TABLE = "plan_shipments"
# 20,000 rows, 200 bytes of padding each (about 30 a heap page). id is in heap order;
# customer, created_at and total are drawn at random (seeded: the same every run), so
# their indexes are not in heap order; status has three values, one rare.
SETUP = f"""
DROP TABLE IF EXISTS {TABLE};
SELECT setseed(0.43);
CREATE TABLE {TABLE} (
    id integer PRIMARY KEY, customer integer NOT NULL, status text NOT NULL,
    created_at timestamptz NOT NULL, total integer NOT NULL, pad text);
INSERT INTO {TABLE}
SELECT g, floor(random() * 500)::integer,
       CASE WHEN g % 200 = 0 THEN 'RETURNED' WHEN g % 3 = 0 THEN 'SHIPPED' ELSE 'DELIVERED' END,
       timestamptz '2026-01-01 00:00:00+00' + floor(random() * 20000) * interval '1 second',
       floor(random() * 1000)::integer, repeat('x', 200)
FROM generate_series(1, 20000) AS g;
CREATE INDEX plan_shipments_status ON {TABLE} (status);
CREATE INDEX plan_shipments_created ON {TABLE} (created_at);
CREATE INDEX plan_shipments_customer_created ON {TABLE} (customer, created_at);
"""


def high(figure: Any) -> float:
    """A point, or a range's high end (the DynamoDB plan's JSON shape)."""
    return float(figure["high"] if isinstance(figure, dict) else figure)


def low(figure: Any) -> float:
    return float(figure["low"] if isinstance(figure, dict) else figure)


def plan(uri: str, *args: str) -> Any:
    return run_in_process(["plan", "--postgres", uri, *args], env=ENV)


@pytest.fixture(scope="module")
def shipments(pg_uri: str) -> Iterator[str]:
    with psycopg.connect(pg_uri, autocommit=True) as conn:
        conn.execute(SETUP)  # type: ignore[arg-type]
        conn.execute(f"VACUUM ANALYZE {TABLE}")  # type: ignore[arg-type]
    yield pg_uri
    with psycopg.connect(pg_uri, autocommit=True) as conn:
        conn.execute(f"DROP TABLE IF EXISTS {TABLE}")  # type: ignore[arg-type]


def true_drain(
    uri: str, table: PgTable, order: PgOrder, where: str | None, page_size: int
) -> tuple[list[float], int]:
    """Buffers (hit + read) of each page of a keyset drain in ``order``, each page's
    statement run under EXPLAIN (ANALYZE, BUFFERS) by the test's own connection, then
    run again for its rows (the next boundary); and the rows."""
    query = PgQuery(table, order, where, (), (), page_size)
    width = len(query.shown_columns)
    boundary: list[str | None] | None = None
    buffers: list[float] = []
    rows_seen = 0
    with psycopg.connect(uri, autocommit=True) as conn:
        for name, value in PAGE_SETTINGS.items():
            conn.execute(f"SET {name} = {value}")  # type: ignore[arg-type]
        while True:
            sql, params, _ = page_statement(query, boundary, page_size + 1)
            explained = conn.execute(
                "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql,  # type: ignore[arg-type]
                params,
            ).fetchone()
            assert explained is not None
            top = explained[0][0]["Plan"]
            buffers.append(top.get("Shared Hit Blocks", 0) + top.get("Shared Read Blocks", 0))
            rows = conn.execute(sql, params).fetchall()  # type: ignore[arg-type]
            rows_seen += min(len(rows), page_size)
            if len(rows) <= page_size:
                return buffers, rows_seen
            boundary = list(rows[page_size - 1][width : width + len(order.columns)])


def truths(uri: str, where: str, page_size: int = 25) -> dict[str, tuple[list[float], int]]:
    session = connect(PgOptions(uri=uri))
    try:
        table = describe_table(session, TABLE)
    finally:
        session.close()
    return {o.name: true_drain(uri, table, o, where, page_size) for o in table.orders}


@pytest.mark.parametrize(
    "where",
    [
        "customer = 42",  # the customer index's Index Cond: its order reads 40 rows
        "total > 990",  # no index: the primary key's order reads the heap in order, once
        "customer = 42 AND total > 500",  # an Index Cond and a Filter on one scan
        "created_at < timestamptz '2026-01-01 00:10:00+00'",  # a range on created_at
        "status = 'RETURNED'",  # every order reads the status index, then sorts
        "total < 20",  # 2%: the status order re-reads a whole status group every page
    ],
)
def test_the_cheapest_path_reads_the_fewest_buffers(shipments: str, where: str) -> None:
    result = plan(shipments, "--table", TABLE, "--where", where, "--json")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    truth = truths(shipments, where)
    paths = {p["name"]: p for p in found["paths"]}
    assert set(paths) == set(truth)
    drains = {name: sum(pages) for name, (pages, _) in truth.items()}
    report = {n: (paths[n]["buffers"], drains[n], paths[n]["buffers_per_page"]["p50"],
                  truth[n][0][0]) for n in truth}  # fmt: skip
    # The cheapest named reads the fewest buffers, or within 10% of the fewest, or the
    # one that does is named a tie (within 10% of the cheapest's estimate).
    truly = min(drains, key=lambda name: drains[name])
    named = {found["cheapest"], *found["ties"]}
    assert truly in named or drains[found["cheapest"]] <= 1.1 * drains[truly], report
    cheapest = paths[found["cheapest"]]
    assert (
        abs(high(cheapest["buffers"]) - drains[found["cheapest"]])
        <= 0.3 * drains[found["cheapest"]]
    )
    for name, (pages, rows) in truth.items():
        path = paths[name]
        assert path["usable"] is True and path["estimated"] is True
        assert path["kind"] in ("query", "scan")
        assert path["filter"] is not None
        # Page 1 is planned as it runs: its estimate is near what it read.
        estimate = path["buffers_per_page"]["p50"]
        assert abs(estimate - pages[0]) <= 0.3 * pages[0] + 5, (name, estimate, pages[0])
        # No path looks much cheaper than it is.
        assert high(path["buffers"]) >= 0.75 * drains[name], (name, path["buffers"], drains[name])
        if isinstance(path["buffers"], dict):  # a range: page 1 planned, later pages not
            assert path["bounded"] is False
            # Up to page 1's own error (as above) on each page.
            assert low(path["buffers"]) <= drains[name] <= high(path["buffers"]) * 1.3 + 5
        # The planner's matches against the rows every page returned.
        assert abs(path["matches"] - rows) <= max(5, rows * 0.5), (name, path["matches"], rows)
    print(report)


def fingerprint(uri: str) -> tuple[Any, ...]:
    """The table's rows (a hash of each, in id order) and each row's xmin: any write
    changes one or the other."""
    with psycopg.connect(uri, autocommit=True) as conn:
        row = conn.execute(
            f"SELECT count(*), sum(hashtext(t::text)), max(xmin::text::bigint) FROM {TABLE} t"  # type: ignore[arg-type]
        ).fetchone()
    assert row is not None
    return tuple(row)


@pytest.mark.parametrize(
    ("where", "message"),
    [
        (f"id IN (WITH d AS (DELETE FROM {TABLE} RETURNING id) SELECT id FROM d)", "DELETE"),
        ("true) OR (true", "parentheses do not balance"),
        ("pg_terminate_backend(1) IS NOT NULL", "pg_terminate_backend"),
        ("pg_sleep(5) IS NOT NULL", "pg_sleep"),
        ("id = 1; DROP TABLE plan_shipments", "parse"),
    ],
)
def test_a_hostile_filter_is_refused_with_one_line_and_nothing_is_written(
    shipments: str, where: str, message: str
) -> None:
    before = fingerprint(shipments)
    result = plan(shipments, "--table", TABLE, "--where", where)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert result.stdout == ""
    assert fingerprint(shipments) == before


def test_the_query_is_explained_never_run(shipments: str) -> None:
    """A filter that fails only when a row is tested: pages fails on it, the plan does not
    (EXPLAIN plans it and runs nothing); and nothing is written."""
    where = "id / (total - total) > 0"
    before = fingerprint(shipments)
    ran = run_in_process(
        ["pages", "--postgres", shipments, "--table", TABLE, "--where", where, "--max-pages",
         "1", "--no-tokens"], env=ENV,
    )  # fmt: skip
    assert ran.returncode != 0 and "division by zero" in ran.stderr, ran.stderr
    result = plan(shipments, "--table", TABLE, "--where", where, "--json")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["cheapest"] is not None
    assert all(p["estimated"] is True and p["measured"] == [] for p in found["paths"])
    assert fingerprint(shipments) == before


def test_the_json_has_the_dynamodb_plans_fields_where_they_apply(shipments: str) -> None:
    result = plan(
        shipments, "--table", TABLE, "--where", "customer = $1 AND status <> $2",
        "--params", '[42, "RETURNED"]', "--page-size", "10", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["database"] == "postgres" and found["unit"] == "buffers"
    assert {"paths", "cheapest", "cost", "table", "query", "notes"} <= set(found)
    assert found["cost"]["calls"] >= 3 and found["cost"]["seconds"] >= 0
    names = [p["name"] for p in found["paths"]]
    assert found["cheapest"] in names
    for path in found["paths"]:
        assert {
            "name", "kind", "index", "key_condition", "filter", "order", "usable", "why",
            "pages", "matches", "buffers", "buffers_per_page", "estimated",
        } <= set(path)  # fmt: skip
        assert path["kind"] in ("query", "scan")
        assert path["filter"] == "customer = $1 AND status <> $2"
        assert path["order"].startswith("by (")
        if path["name"] == found["cheapest"]:
            assert high(path["ratio_to_cheapest"]) == 1.0
        else:
            assert high(path["ratio_to_cheapest"]) >= 1.0
    # The customer index serves the equality: its Index Cond says so.
    customer = next(p for p in found["paths"] if p["index"] == "plan_shipments_customer_created")
    assert "customer" in customer["key_condition"]
    assert customer["reads_index"] == "plan_shipments_customer_created"
    with psycopg.connect(shipments, autocommit=True) as conn:
        (matches,) = conn.execute(  # type: ignore[misc]
            f"SELECT count(*) FROM {TABLE} WHERE customer = 42 AND status <> 'RETURNED'"  # type: ignore[arg-type]
        ).fetchone()
    assert customer["pages"] == max(1, -(-customer["matches"] // 10))
    assert abs(customer["matches"] - matches) <= max(5, matches / 2)


@pytest.fixture(scope="module")
def awkward(shipments: str) -> Iterator[str]:
    """A view (no key names one of its rows) and a table whose one index holds dates
    inside a range (their text follows DateStyle): orders pages refuses."""
    with psycopg.connect(shipments, autocommit=True) as conn:
        conn.execute(
            f"CREATE VIEW plan_view AS SELECT id, status FROM {TABLE};"
            "CREATE TABLE plan_spans (id integer NOT NULL, span tstzrange NOT NULL,"
            " note text);"
            "INSERT INTO plan_spans SELECT g, tstzrange(timestamptz '2026-01-01' + g * "
            "interval '1 hour', NULL), E'\\x1b[31m' || g FROM generate_series(1, 200) g;"
            'CREATE UNIQUE INDEX "spans_\x1b[2J" ON plan_spans (span, id);'
            "CREATE UNIQUE INDEX plan_spans_id ON plan_spans (id);"
            "ANALYZE plan_spans;"
        )
    yield shipments
    with psycopg.connect(shipments, autocommit=True) as conn:
        conn.execute("DROP VIEW plan_view; DROP TABLE plan_spans")


def test_orders_pages_would_refuse_are_listed_with_its_reason(awkward: str) -> None:
    result = plan(awkward, "--table", "plan_spans", "--where", "id > 100", "--json")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    by_index = {p["index"]: p for p in found["paths"]}
    refused = by_index["spans_\x1b[2J"]
    assert refused["usable"] is False and "DateStyle" in refused["why"]
    assert refused["buffers"] is None
    assert by_index["plan_spans_id"]["usable"] is True
    assert found["cheapest"] == by_index["plan_spans_id"]["name"]
    text = plan(awkward, "--table", "plan_spans", "--where", "id > 100")
    assert text.returncode == 0, text.stderr
    assert "\x1b" not in text.stdout  # the index's name is shown as text
    assert "cannot be paged in this order:" in text.stdout
    assert "DateStyle" in text.stdout
    # A view: no key names one of its rows; the order asked for is listed, refused.
    view = plan(awkward, "--table", "plan_view", "--order", "id", "--where", "id < 5", "--json")
    assert view.returncode == 0, view.stderr
    (only,) = json.loads(view.stdout)["paths"]
    assert only["usable"] is False and "names one row" in only["why"]
    assert json.loads(view.stdout)["cheapest"] is None


def test_the_text_table_names_the_cheapest_and_marks_estimates(shipments: str) -> None:
    result = plan(shipments, "--table", TABLE, "--where", "customer = 42")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    starred = [line for line in lines if line.startswith("* ") and "the cheapest" not in line]
    assert len(starred) == 1 and "cheapest" in starred[0]
    assert "~" in starred[0]
    assert "the plan's own cost:" in lines[-1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mode", "offset"], "keyset"),
        (["--mode", "fill"], "--mode fill"),
        (["--page-size", "5000"], "page size"),
        (["--page-size", "٣"], "digits"),
        (["--page-size", "-1"], "digits"),
        (["--segments", "4"], "--segments"),
        (["--no-imagined"], "--no-imagined"),
        (["--key-condition-expression", "pk = :p"], "--key-condition-expression"),
        (["--price-read-million", "0.25"], "--price-read-million"),
        (["--params", "[1]"], "$1"),
        (["--columns", "nope"], "nope"),
    ],
)
def test_bad_flags_exit_2_with_one_line(shipments: str, args: list[str], message: str) -> None:
    result = plan(shipments, "--table", TABLE, "--where", "id > 0", *args)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert result.stdout == ""


def test_conjuncts_keep_what_was_checked() -> None:
    """Each AND term is the checked filter's own sub-tree; a $n inside a literal stays
    text, a % is doubled for psycopg, and what a term tests is known."""
    from dynotui.postgres.filter import parse_filter

    parsed = parse_filter("status = '$1 50%' AND (customer = $1 OR total > $2) AND id > 3", 2)
    terms = conjuncts(parsed)
    assert [t.columns for t in terms] == [
        frozenset({"status"}), frozenset({"customer", "total"}), frozenset({"id"}),
    ]  # fmt: skip
    assert psycopg_text(terms[:1]) == "((status = '$1 50%%'))"
    assert psycopg_text(terms[1:2]) == "((customer = %(p1)s OR total > %(p2)s))"
    sub = conjuncts(parse_filter("id IN (SELECT 1) AND t.id = 1", 0))
    assert all(t.opaque for t in sub)


def test_an_index_without_the_tie_breaker_reads_its_group_again_every_page(
    shipments: str,
) -> None:
    """Paged by (kind, id) on an index of kind alone, each page reads every row of its
    kind and sorts them by id: the drain reads the group once a page, not once."""
    with psycopg.connect(shipments, autocommit=True) as conn:
        conn.execute(
            "DROP TABLE IF EXISTS plan_kinds;"
            "CREATE TABLE plan_kinds (id integer PRIMARY KEY, kind text NOT NULL, pad text);"
            "INSERT INTO plan_kinds SELECT g, 'k' || (g % 3), repeat('y', 100)"
            " FROM generate_series(1, 6000) g;"
            "CREATE INDEX plan_kinds_kind ON plan_kinds (kind);"
        )
        conn.execute("VACUUM ANALYZE plan_kinds")
    try:
        result = plan(shipments, "--table", "plan_kinds", "--page-size", "200", "--json")
        assert result.returncode == 0, result.stderr
        found = json.loads(result.stdout)
        paths = {p["name"]: p for p in found["paths"]}
        session = connect(PgOptions(uri=shipments))
        try:
            table = describe_table(session, "plan_kinds")
        finally:
            session.close()
        truth = {o.name: sum(true_drain(shipments, table, o, None, 200)[0]) for o in table.orders}
        kind = paths["plan_kinds_kind"]
        assert kind["bounded"] is False
        assert any("group" in note for note in kind["notes"])
        assert found["cheapest"] == "primary key" == min(truth, key=lambda n: truth[n])
        assert truth["plan_kinds_kind"] > 2 * truth["primary key"]
        assert low(kind["ratio_to_cheapest"]) < high(kind["ratio_to_cheapest"])
        assert high(kind["ratio_to_cheapest"]) > 2
        # Page 1's reads on every page at most: later pages' seeks are planned otherwise
        # here (by the primary key: 964 buffers in all, in the range up to 3,240).
        assert low(kind["buffers"]) <= truth["plan_kinds_kind"] <= high(kind["buffers"])
    finally:
        with psycopg.connect(shipments, autocommit=True) as conn:
            conn.execute("DROP TABLE plan_kinds")


@pytest.mark.parametrize(
    ("table", "where"),
    [
        ('"odd schema"."Mixed ""Case"""', '"Key" > 20'),  # quoted names
        ("ticks", "label IS NULL"),  # a nullable column; timestamps tied to the microsecond
    ],
)
def test_awkward_names_and_nullable_columns_plan(
    shipments: str, pg_admin: Any, table: str, where: str
) -> None:
    result = plan(shipments, "--table", table, "--where", where, "--json")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    (count,) = pg_admin.execute(f"SELECT count(*) FROM {table} WHERE {where}").fetchone()
    usable = [p for p in found["paths"] if p["usable"]]
    assert usable and found["cheapest"] in {p["name"] for p in usable}
    for path in usable:
        assert abs(path["matches"] - count) <= max(5, count / 2), (path, count)
        assert high(path["buffers"]) >= path["buffers_per_page"]["p50"] > 0


def test_an_order_no_index_gives_is_a_path_that_sorts(shipments: str) -> None:
    result = plan(
        shipments, "--table", TABLE, "--where", "total > 900", "--order", "pad, id", "--json"
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    custom = found["paths"][-1]
    assert custom["name"] == "pad, id" and custom["index"] is None and custom["usable"]
    assert custom["kind"] == "scan" and "Sort" in custom["plan"]
    assert custom["bounded"] is False
    assert found["cheapest"] != "pad, id"
    # Read backwards: every order reversed, the custom one too.
    back = plan(shipments, "--table", TABLE, "--where", "total > 900", "--order", "pad, id",
                "--reverse", "--json")  # fmt: skip
    assert back.returncode == 0, back.stderr
    orders = [p["order"] for p in json.loads(back.stdout)["paths"]]
    assert all(" desc" in order for order in orders), orders
