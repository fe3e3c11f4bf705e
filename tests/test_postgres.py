"""The pager on PostgreSQL, against an embedded PostgreSQL 18: keyset and OFFSET pages
equal a ground-truth ORDER BY read for every kind of order, back, jump and by token;
cursors are bound to their order and filter; the session cannot write; a dropped
connection is reopened; cancel stops a statement.

Ground truth is the test's own SQL (its own ORDER BY text, on the test's own writable
connection), never dynotui's.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from helpers import walk

from dynotui.core.cancel import CancelToken
from dynotui.core.cursor import CursorError, CursorSigner
from dynotui.core.errors import InputError, ReadCancelled, ServiceError
from dynotui.core.pager import Pager
from dynotui.postgres.count import count, forecast
from dynotui.postgres.schema import describe_table, list_tables
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery

SIGNER = CursorSigner(b"k" * 32)
SUBSET = "id <= $1"  # 2,000 orders: every tie, NULL and status the full table has


def truth(admin: Any, order_by: str, where: str = "id <= 2000", table: str = "orders") -> list[Any]:
    key = "id" if table in ("orders", "ticks") else "n"
    return [
        row[0]
        for row in admin.execute(f"SELECT {key} FROM {table} WHERE {where} ORDER BY {order_by}")
    ]


def ids(pages: list[Any], key: str = "id") -> list[Any]:
    return [int(item[key]) for page in pages for item in page.items]


_described: dict[str, Any] = {}


def described(pg: Any, table: str) -> Any:
    """``table`` as dynotui describes it, once per module: no test here changes a table's
    columns or indexes, and describing plans each order's first pages (EXPLAIN), about
    0.6 s for orders. The tests of describing itself call ``describe_table``."""
    if table not in _described:
        _described[table] = describe_table(pg, table)
    return _described[table]


def query(
    pg: Any, order: str, *, reverse: bool = False, table: str = "orders", **options: Any
) -> PgQuery:
    described_table = described(pg, table)
    chosen = described_table.order(order)
    if reverse:
        chosen = chosen.reversed()
    options.setdefault("where", SUBSET if table == "orders" else None)
    options.setdefault("params", (2000,) if table == "orders" else ())
    return PgQuery(described_table, chosen, descending=reverse, **options)


# (dynotui's order, reversed?, the test's own ORDER BY for the same rows)
ORDERS = [
    ("primary key", False, "id"),
    ("orders_created_id", False, "created_at, id"),  # ties on created_at, microseconds
    ("orders_created_id", True, "created_at DESC, id DESC"),
    ("orders_status", False, "status, id"),  # not unique: tie-broken by id
    ("orders_customer_created", False, "customer, created_at DESC, id DESC"),  # mixed
    ("orders_customer_created", True, "customer DESC, created_at, id"),
    ("orders_shipped", False, "COALESCE(shipped_at, '-infinity'), id"),  # expression index
    ("shipped_at desc", False, "shipped_at DESC NULLS FIRST, id DESC"),  # nullable, no index
    ("shipped_at", True, "shipped_at DESC NULLS FIRST, id DESC"),  # nullable, reversed
    ("total", False, "total, id"),  # no index: a sort per page
    ("status desc, total", False, "status DESC, total, id"),  # mixed, no index
]


def test_orders_of_the_demo_table(pg: Any) -> None:
    table = describe_table(pg, "orders")
    by_name = {o.name: o for o in table.orders}
    assert table.primary_key == ("id",)
    assert set(by_name) == {
        "primary key",
        "orders_created_id",
        "orders_customer_created",
        "orders_shipped",
        "orders_status",
    }
    status = by_name["orders_status"]
    assert status.tie_breaker == ("id",) and status.unique
    assert "tie-broken by id" in status.describe()
    mixed = by_name["orders_customer_created"]
    assert [c.descending for c in mixed.columns] == [False, True, True]
    shipped = by_name["orders_shipped"]
    assert shipped.columns[0].label.upper().startswith("COALESCE")
    assert not shipped.columns[0].nullable
    assert table.order("total").index is None
    assert "no index" in table.order("total").describe()
    assert ("orders", 200_000) in list_tables(pg)


@pytest.mark.parametrize(("order", "reverse", "order_by"), ORDERS)
@pytest.mark.parametrize("mode", ["keyset", "offset"])
def test_pages_equal_the_ground_truth(
    pg: Any, pg_admin: Any, order: str, reverse: bool, order_by: str, mode: str
) -> None:
    expected = truth(pg_admin, order_by)
    pager = Pager(PgSource(pg, query(pg, order, reverse=reverse, page_size=37, mode=mode)))
    pages = walk(pager)
    assert ids(pages) == expected
    assert len(pages) == -(-len(expected) // 37)
    assert [p.shown for p in pages[:-1]] == [37] * (len(pages) - 1)
    assert pages[-1].next_start_key is None and not pager.can_advance


@pytest.mark.parametrize(("order", "reverse", "order_by"), ORDERS[1:9:2])
def test_back_jump_and_token_reread_the_same_pages(
    pg: Any, pg_admin: Any, order: str, reverse: bool, order_by: str
) -> None:
    expected = truth(pg_admin, order_by)
    size = 29
    source = PgSource(pg, query(pg, order, reverse=reverse, page_size=size))
    pager = Pager(source, cache_pages=0)  # every move re-reads from the stored boundary
    for _ in range(6):
        pager.next()

    def page_ids(page: Any) -> list[int]:
        return [int(row["id"]) for row in page.items]

    def truth_page(k: int) -> list[int]:
        return expected[(k - 1) * size : k * size]

    assert page_ids(pager.prev()) == truth_page(5)
    assert page_ids(pager.prev()) == truth_page(4)
    assert page_ids(pager.goto(2)) == truth_page(2)
    assert page_ids(pager.goto(6)) == truth_page(6)
    assert page_ids(pager.first()) == truth_page(1)
    # A token of page 4's boundary opens a new stack whose page 1 is page 4.
    token = SIGNER.sign(source.key_to_json(pager.start_key_of(4)), source.scope())
    resumed = Pager(source, start_key=source.key_from_json(SIGNER.verify(token, source.scope())))
    assert page_ids(resumed.next()) == truth_page(4)
    assert page_ids(resumed.next()) == truth_page(5)


def test_microsecond_boundaries_lose_no_row(pg: Any, pg_admin: Any) -> None:
    expected = truth(pg_admin, "at, id", where="true", table="ticks")
    boundaries = []
    for size in (3, 5, 7, 8):  # boundaries inside and between groups of tied seconds
        pager = Pager(PgSource(pg, query(pg, "ticks_at_id", table="ticks", page_size=size)))
        pages = walk(pager)
        assert ids(pages) == expected, size
        boundaries += [p.next_start_key for p in pages if p.next_start_key]
    # The boundary carries the microseconds: truncated, page after page would repeat rows.
    assert any(".000001" in key[0] or ".000002" in key[0] for key in boundaries)
    # Exact numerics survive as text, digit for digit.
    rows = walk(Pager(PgSource(pg, query(pg, "amount", table="ticks", page_size=50))))
    amounts = [row["amount"] for page in rows for row in page.items]
    admin_amounts = [
        r[0] for r in pg_admin.execute("SELECT amount::text FROM ticks ORDER BY amount, id")
    ]
    assert amounts == admin_amounts
    assert any(len(a.replace(".", "")) >= 38 for a in amounts)


def test_a_millisecond_cursor_would_lose_rows(pg: Any, pg_admin: Any) -> None:
    """The rule the boundary honours, shown failing when broken: keep only milliseconds
    of the last row's timestamp and the next page starts in the wrong place."""
    source = PgSource(pg, query(pg, "ticks_at_id", table="ticks", page_size=4))
    pager = Pager(source)
    first = pager.next()
    exact = first.next_start_key
    truncated = [exact[0].split(".")[0] + "+00", exact[1]]  # microseconds dropped
    assert truncated != exact
    right = Pager(source, start_key=exact).next()
    wrong = Pager(source, start_key=truncated).next()
    assert [r["id"] for r in right.items] != [r["id"] for r in wrong.items]


def test_a_cursor_is_bound_to_its_order_filter_and_mode(pg: Any) -> None:
    base = PgSource(pg, query(pg, "orders_created_id", page_size=10))
    pager = Pager(base)
    pager.next()
    token = SIGNER.sign(base.key_to_json(pager.current.next_start_key), base.scope())
    assert SIGNER.verify(token, base.scope())  # its own query takes it
    others = [
        query(pg, "primary key", page_size=10),  # another order
        query(pg, "orders_created_id", reverse=True, page_size=10),  # the other direction
        query(pg, "orders_created_id", page_size=10, params=(1999,)),  # another parameter
        query(pg, "orders_created_id", page_size=10, where="id < $1"),  # another filter
        query(pg, "orders_created_id", page_size=10, mode="offset"),  # another mode
        query(pg, "orders_created_id", page_size=10, projection=("id",)),  # other columns
    ]
    for other in others:
        with pytest.raises(CursorError) as refused:
            SIGNER.verify(token, PgSource(pg, other).scope())
        assert refused.value.reason == "scope"
    # A boundary of the wrong shape is refused before any statement.
    for bad in (["x"], [1, 2], "2026", [None, "1", "2"], [{"a": 1}, "1"]):
        with pytest.raises(CursorError):
            base.key_from_json(bad)


def test_the_session_cannot_write(pg: Any, pg_admin: Any) -> None:
    before = pg_admin.execute("SELECT count(*), sum(total) FROM orders").fetchone()
    # Qualified: dynotui's statements run on PostgreSQL's own search path.
    for statement in (
        "DELETE FROM public.orders WHERE id = 1",
        "UPDATE public.orders SET total = 0",
        "SELECT 1; DELETE FROM public.orders",
        "CREATE TABLE public.dynotui_was_here (x int)",
    ):
        with pytest.raises(InputError, match=r"read-only|multiple commands"):
            pg.run(statement)
    # A filter that tries to turn read-only off for later statements: refused before it
    # runs; and a statement that does it anyway is undone with its transaction.
    sneaky = query(
        pg,
        "primary key",
        where="id <= $1 AND set_config('default_transaction_read_only', 'off', false) = 'off'",
        page_size=5,
    )
    with pytest.raises(InputError, match="set_config"):
        Pager(PgSource(pg, sneaky)).next()
    pg.query("SELECT set_config('default_transaction_read_only', 'off', false)")
    assert pg.query("SHOW default_transaction_read_only") == [("on",)]
    with pytest.raises(InputError, match="read-only"):
        pg.run("DELETE FROM public.orders WHERE id = 1")
    # A filter that tries to end the statement and start another: refused unparsed.
    with pytest.raises(InputError, match="parentheses do not balance"):
        query(pg, "primary key", where="id <= $1); DELETE FROM orders; --", page_size=5).check()
    assert pg_admin.execute("SELECT count(*), sum(total) FROM orders").fetchone() == before
    assert pg_admin.execute("SELECT to_regclass('dynotui_was_here')").fetchone() == (None,)


def test_cost_comes_from_the_statements_own_plan(pg: Any) -> None:
    indexed = Pager(PgSource(pg, query(pg, "orders_created_id", where=None, params=())))
    page = indexed.next()
    assert "Index Scan using orders_created_id" in page.cost.plan
    assert page.cost.shared_hit + page.cost.shared_read > 0
    assert page.cost.measured == "auto_explain"
    unindexed = Pager(PgSource(pg, query(pg, "total", where=None, params=())))
    sorted_page = unindexed.next()
    assert "Sort" in sorted_page.cost.plan
    # The whole table is read to sort it: far more buffers than an index seek.
    assert sorted_page.cost.headline > 20 * page.cost.headline
    rare = query(pg, "primary key", where="status = $1", params=("RETURNED",), page_size=20)
    filtered = Pager(PgSource(pg, rare)).next()
    assert filtered.shown == 20 and filtered.cost.removed > 100
    assert filtered.cost.read == filtered.cost.matched + filtered.cost.removed
    assert filtered.waste_ratio > 0.8


def test_offset_cost_grows_with_depth_and_keyset_stays_flat(pg: Any) -> None:
    def buffers_at(mode: str, page_number: int) -> tuple[int, int]:
        pager = Pager(
            PgSource(
                pg, query(pg, "orders_created_id", where=None, params=(), mode=mode, page_size=100)
            ),
            cache_pages=1,
        )
        for _ in range(page_number):
            page = pager.next()
        return int(page.cost.headline), page.cost.skipped

    keyset_1, _ = buffers_at("keyset", 1)
    keyset_60, keyset_skipped = buffers_at("keyset", 60)
    offset_60, skipped = buffers_at("offset", 60)
    assert keyset_skipped == 0 and skipped == 5_900
    assert keyset_60 <= 2 * keyset_1 + 2  # flat
    assert offset_60 > 10 * keyset_60  # OFFSET walks past 5,900 rows


def test_advisor_findings(pg: Any) -> None:
    def findings(q: PgQuery, pages: int = 2) -> dict[str, str]:
        pager = Pager(PgSource(pg, q))
        for _ in range(pages):
            pager.next()
        return {f.kind: f.text for f in pager.advisor.findings()}

    physical = findings(query(pg, "events_kind", table="events", page_size=7))
    assert "not updated during paging" in physical["physical"]
    assert "no-index" in findings(query(pg, "total", where=None, params=()))
    waste = findings(query(pg, "primary key", where="status = $1", params=("RETURNED",)))
    assert "status" in waste["filter-waste"]
    assert "nullable" in findings(query(pg, "shipped_at", where=None, params=()))
    assert "changing-key" in findings(query(pg, "updated_at", where=None, params=()))
    deep = findings(query(pg, "primary key", where=None, params=(), mode="offset"), pages=5)
    assert "OFFSET walked past 100 rows" in deep["offset-depth"]
    mixed = query(pg, "orders_customer_created", where=None, params=(), page_size=25)
    form = findings(mixed, pages=6)["keyset-form"]
    assert "2 seeks joined by UNION ALL" in form and "per seek" in form


def test_a_table_without_a_key_is_tie_broken_by_where_rows_lie(pg: Any, pg_admin: Any) -> None:
    table = describe_table(pg, "events")
    assert table.row_key == ("ctid",)
    assert [o.label for o in table.orders] == ["(kind, ctid)"]
    assert "exact while rows are not updated during paging" in table.orders[0].describe()
    pages = walk(Pager(PgSource(pg, PgQuery(table, table.orders[0], page_size=7))))
    truth = pg_admin.execute("SELECT kind, n::text FROM events ORDER BY kind, ctid").fetchall()
    assert [(r["kind"], r["n"]) for p in pages for r in p.items] == [tuple(r) for r in truth]
    odd = describe_table(pg, '"odd schema"."Mixed ""Case"""')
    assert odd.primary_key == ("Key",)
    pages = walk(Pager(PgSource(pg, PgQuery(odd, odd.default_order(), page_size=7))))
    assert [int(r["Key"]) for p in pages for r in p.items] == list(range(1, 31))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"where": "id <= $1 AND $2 = 1"}, "the filter uses \\$2 but 1 parameter"),
        ({"params": (1, 2)}, "\\$2 given but not used"),
        ({"projection": ("nope",)}, "has no column 'nope'"),
        ({"page_size": 0}, "page size must be 1 to 1000"),
        ({"where": "id <= $1 AND"}, "does not parse"),
        ({"where": "id <= $1 ORDER BY id"}, "does not parse"),
        ({"where": "id <= $1) UNION (SELECT 1"}, "parentheses do not balance"),
        ({"where": "id <= $1; SELECT 1"}, "does not parse"),
    ],
)
def test_bad_queries_are_refused_before_any_statement(
    pg: Any, change: dict[str, Any], message: str
) -> None:
    with pytest.raises(InputError, match=message):
        PgSource(pg, query(pg, "primary key", **change))


def test_bad_sql_in_a_filter_is_a_clear_error_and_keeps_the_stack(pg: Any) -> None:
    pager = Pager(PgSource(pg, query(pg, "primary key", page_size=10)))
    pager.next()
    pager.next()
    bad = PgSource(pg, query(pg, "primary key", where="id <= $1 AND nope = 1", page_size=10))
    with pytest.raises(InputError, match='column "nope" does not exist'):
        Pager(bad).next()
    assert pager.number == 2 and [int(r["id"]) for r in pager.next().items] == list(range(21, 31))


def test_a_dropped_connection_is_reopened_and_the_stack_kept(pg: Any, pg_admin: Any) -> None:
    pager = Pager(PgSource(pg, query(pg, "orders_created_id", page_size=10)), cache_pages=0)
    pager.next()
    pager.next()
    pid = pg.conn.info.backend_pid
    pg_admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    with pytest.raises(ServiceError, match="PostgreSQL"):
        pager.next()
    assert pager.number == 2  # nothing lost
    page = pager.next()  # R: the session reconnects before the statement
    assert page.number == 3 and pg.conn.info.backend_pid != pid
    assert pg.query("SHOW default_transaction_read_only") == [("on",)]


# A filter that only calls IMMUTABLE functions yet runs for many seconds.
# Built-ins only (a filter holds no sub-select): megabytes of text made for every row, and
# no row matches, so the statement reads the whole table.
SLOW = "id <= $1 AND length(repeat(id::text, 1000000)) < 0"


def active_statement(admin: Any, pid: int) -> str | None:
    row = admin.execute(
        "SELECT query FROM pg_stat_activity WHERE pid = %s AND state = 'active'", (pid,)
    ).fetchone()
    return None if row is None else row[0]


def when_running(admin: Any, pid: int, action: Any) -> threading.Thread:
    """Run ``action`` once the session's backend is executing its statement."""

    def watch() -> None:
        while not (active_statement(admin, pid) or "").count("repeat("):
            time.sleep(0.01)
        action()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_cancel_stops_a_running_statement(pg: Any, pg_admin: Any) -> None:
    source = PgSource(pg, query(pg, "primary key", where=SLOW, page_size=200))
    token = CancelToken()
    watcher = when_running(pg_admin, pg.conn.info.backend_pid, token.cancel)
    with pytest.raises(ReadCancelled):
        source.read_page(None, 1, selectivity=None, cancel=token)
    watcher.join()
    assert active_statement(pg_admin, pg.conn.info.backend_pid) is None
    assert Pager(PgSource(pg, query(pg, "primary key", page_size=3))).next().shown == 3


def test_count_and_its_free_estimate(pg: Any, pg_admin: Any) -> None:
    everything = query(pg, "primary key", where=None, params=())
    estimate = forecast(pg, everything)
    assert estimate.table_rows is not None and abs(estimate.table_rows - 200_000) < 20_000
    rare = query(pg, "primary key", where="status = $1", params=("RETURNED",))
    result = count(pg, rare, forecast(pg, rare))
    expected = pg_admin.execute("SELECT count(*) FROM orders WHERE status = 'RETURNED'").fetchone()[
        0
    ]
    assert result.complete and result.count == expected
    assert result.cost is not None and result.cost.headline > 0
    assert result.forecast.matching_rows is not None
    assert 0.5 < result.forecast.matching_rows / expected < 2
