"""Every order of a PostgreSQL table that reads a filter's matches, costed by the planner.

A path is one order the table lists (its primary key, each b-tree index made unique by the
row key; the columns ``--order`` names, where no index gives them), read by keyset pages as
``dynotui pages`` reads it. For each, the statement of its first page, exactly as ``pages``
sends it (the filter as checked, deparsed), is explained (``EXPLAIN (FORMAT JSON)``, never
ANALYZE: nothing of the query runs, and nothing is written). What the planner would do
(which scan, which index, where a Limit stops it) and the catalog's sizes give the
buffers of a page and of a drain (``buffers``); the planner's estimate of the matches gives
the pages. The cheapest usable path is named, every other as a ratio to it.

An order ``pages`` would refuse (no key names one row; dates inside an array or range,
whose text follows DateStyle) is listed as unusable with ``pages``' reason. A filter
``pages`` would refuse is refused here the same way, before any statement (exit 2).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from dynotui.core.errors import FieldError, InputError
from dynotui.postgres.cost import shape
from dynotui.postgres.filter import PgFilter
from dynotui.postgres.plan.buffers import Catalog, Estimate, Relation, estimate, nodes
from dynotui.postgres.plan.conjuncts import conjuncts, psycopg_text
from dynotui.postgres.reach import verify
from dynotui.postgres.sql import PAGE_SETTINGS, PgQuery, covered_terms, keyset, page_statement
from dynotui.postgres.table_model import PgOrder, PgTable, quote

BASIS = (
    "the planner's plan of page 1 (EXPLAIN, not run) and its row estimates; buffers "
    "from the catalog's sizes (relpages, reltuples, relallvisible) and the index's "
    "correlation"
)

TIE = 0.1  # estimates closer than this to the cheapest's are not told apart

STATS_SQL = """
SELECT c.relname, c.relkind::text, GREATEST(c.relpages, 1)::float8,
       GREATEST(c.reltuples, 0)::float8, c.relallvisible::float8,
       (SELECT s.correlation FROM pg_catalog.pg_index i
        JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
        JOIN pg_catalog.pg_stats s ON s.schemaname = %(schema)s AND s.tablename = %(table)s
             AND s.attname = a.attname AND NOT s.inherited
        WHERE i.indexrelid = c.oid AND i.indkey[0] <> 0)::float8
FROM pg_catalog.pg_class c
WHERE c.oid = %(qualified)s::pg_catalog.regclass
   OR c.oid IN (SELECT i.indexrelid FROM pg_catalog.pg_index i
                WHERE i.indrelid = %(qualified)s::pg_catalog.regclass)
"""
DISTINCT_SQL = """
SELECT s.attname::text, s.n_distinct::float8 FROM pg_catalog.pg_stats s
WHERE s.schemaname = %(schema)s AND s.tablename = %(table)s AND NOT s.inherited
"""


@dataclass(frozen=True)
class PgPlannedPath:
    name: str
    index: str | None
    order: PgOrder
    usable: bool
    why: str | None
    kind: str = "query"  # "scan": the plan of a page reads the whole table
    key_condition: str | None = None  # the server's Index Cond of the index page 1 reads
    reads_index: str | None = None  # which index that is (not always the order's own)
    plan_shape: str = ""
    pages: int | None = None
    matches: float | None = None
    buffers: float | None = None  # a drain, every page (the high end of a range)
    buffers_low: float | None = None  # a range's low end (None: a point)
    per_page: float | None = None
    planner_cost: float | None = None  # the planner's total cost of page 1
    bounded: bool | None = None  # pages past the first are seeks the Limit stops
    notes: tuple[str, ...] = ()
    ratio: float | None = None  # buffers against the cheapest's (a range's high end)
    ratio_low: float | None = None

    def order_words(self) -> str:
        return f"by {self.order.label}"

    def as_json(self, filter_text: str | None) -> dict[str, Any]:
        per_page = None if self.per_page is None else round(self.per_page, 1)
        return {
            "name": self.name,
            "kind": self.kind,
            "index": self.index,
            "key_condition": self.key_condition,
            "reads_index": self.reads_index,
            "filter": filter_text,
            "order": self.order_words(),
            "usable": self.usable,
            "why": self.why,
            "pages": self.pages,
            "matches": None if self.matches is None else round(self.matches),
            "buffers": _figure(self.buffers_low, self.buffers, 1),
            "buffers_per_page": None if per_page is None else {"p50": per_page, "p99": per_page},
            "estimated": True,
            "measured": [],
            "planner_cost": self.planner_cost,
            "plan": self.plan_shape or None,
            "bounded": self.bounded,
            "ratio_to_cheapest": _figure(self.ratio_low, self.ratio, 4),
            "basis": BASIS if self.usable else None,
            "notes": list(self.notes),
        }


def _figure(low: float | None, high: float | None, digits: int) -> Any:
    """A point as a number, a range as ``{"low", "high"}`` (the DynamoDB plan's shape)."""
    if high is None:
        return None
    if low is None or round(low, digits) == round(high, digits):
        return round(high, digits)
    return {"low": round(low, digits), "high": round(high, digits)}


@dataclass(frozen=True)
class PgPlanCost:
    calls: int  # round trips to the server, describing the table included
    seconds: float

    def as_json(self) -> dict[str, Any]:
        return {"calls": self.calls, "seconds": round(self.seconds, 3), "buffers": None}


@dataclass(frozen=True)
class PgPlan:
    table: str
    query: str  # the filter and its parameters, in words
    filter_text: str | None  # as sent: the deparsed filter
    page_size: int
    paths: tuple[PgPlannedPath, ...]
    cheapest: str | None
    cost: PgPlanCost
    notes: tuple[str, ...] = field(default_factory=tuple)
    ties: tuple[str, ...] = ()  # paths within TIE of the cheapest: the estimates cannot split them

    def path(self, name: str) -> PgPlannedPath:
        for planned in self.paths:
            if planned.name == name:
                return planned
        raise KeyError(name)

    def as_json(self) -> dict[str, Any]:
        return {
            "database": "postgres",
            "table": self.table,
            "query": self.query,
            "unit": "buffers",
            "page_size": self.page_size,
            "paths": [p.as_json(self.filter_text) for p in self.paths],
            "cheapest": self.cheapest,
            "ties": list(self.ties),
            "cost": self.cost.as_json(),
            "notes": list(self.notes),
        }


class CountingSession:
    """The session, counting the round trips the plan makes (``query``, ``queries``)."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self.calls = 0

    def query(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self._session.query(*args, **kwargs)

    def queries(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self._session.queries(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def _document(rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    document = rows[0][0]
    if isinstance(document, str):
        import json

        document = json.loads(document)
    return dict(document[0] if isinstance(document, list) else document)


def _catalog(session: Any, table: PgTable) -> Catalog:
    names = {"schema": table.schema, "table": table.name, "qualified": table.qualified}
    relations, distinct = session.queries([(STATS_SQL, names), (DISTINCT_SQL, names)])
    table_relation = Relation(table.name, 1.0, 0.0)
    indexes: dict[str, Relation] = {}
    for name, kind, pages, tuples, visible, correlation in relations:
        relation = Relation(name, float(pages), float(tuples), float(visible or 0), correlation)
        if kind == "i":
            indexes[name] = relation
        else:
            table_relation = relation
    leading = {
        o.index: o.columns[0].label
        for o in table.orders
        if o.index and o.columns and o.columns[0].expression == quote(o.columns[0].label)
    }
    return Catalog(
        table_relation,
        indexes,
        {n: float(d) for n, d in distinct if d is not None},
        leading,
    )


def _index_columns(table: PgTable) -> dict[str, frozenset[str]]:
    """Each index's key columns (plain columns only; an expression is none)."""
    found: dict[str, frozenset[str]] = {}
    for order in table.orders:
        if order.index is None:
            continue
        keys = order.columns[: len(order.columns) - len(order.tie_breaker)]
        found[order.index] = frozenset(
            c.label for c in keys if c.expression in (quote(c.label), c.label)
        )
    return found


def _paths(table: PgTable, asked: PgOrder | None, reverse: bool) -> list[PgOrder]:
    orders = [o.reversed() if reverse else o for o in table.orders]
    if asked is not None and all(o.columns != asked.columns for o in orders):
        orders.append(asked)
    if not orders:
        table.default_order()  # raises: no order to read it in, said
    return orders


def _words(where: str | None, params: tuple[Any, ...]) -> str:
    if not where:
        return "every row"
    given = f" with {list(params)!r}" if params else ""
    return f"where {where}{given}"


def make_plan(
    session: Any,
    table: PgTable,
    *,
    where: str | None,
    params: tuple[Any, ...] = (),
    projection: tuple[str, ...] = (),
    page_size: int = 25,
    asked: PgOrder | None = None,
    reverse: bool = False,
    calls: int = 0,
    began: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> PgPlan:
    """The plan of ``where`` over ``table``'s orders (``asked``: an order of the user's
    besides, by its columns). ``calls``: round trips already made for it (describing the
    table); ``began``: when it began (the clock's reading)."""
    began = clock() if began is None else began
    counting = CountingSession(session)
    queries, parsed = _checked(table, _paths(table, asked, reverse), where, params, projection,
                               page_size, reverse)  # fmt: skip
    verify(counting, parsed, table.schema, table.name)  # EXPLAIN plans what the filter calls
    notes: list[str] = []
    if any(query is not None for _, query, _ in queries):
        planned = _explained(counting, table, queries, parsed, page_size)
    else:
        planned = [PgPlannedPath(o.name, o.index, o, False, why) for o, _, why in queries]
        notes.append("no order of this table can be paged exactly: nothing was explained")
    planned, cheapest = _ranked(planned)
    ties = tuple(
        p.name
        for p in planned
        if p.usable and p.name != cheapest and p.ratio is not None and p.ratio <= 1 + TIE
    )
    if ties:
        notes.append(
            f"{', '.join(ties)}: within {TIE:.0%} of the cheapest, a tie at the precision of "
            "these estimates"
        )
    return PgPlan(
        table=table.label,
        query=_words(where, params),
        filter_text=None if parsed is None else parsed.deparsed,
        page_size=page_size,
        paths=tuple(planned),
        cheapest=cheapest,
        cost=PgPlanCost(calls + counting.calls, clock() - began),
        notes=tuple(notes),
        ties=ties,
    )


Checked = list[tuple[PgOrder, PgQuery | None, str | None]]  # an order, its query or why not


def _checked(
    table: PgTable,
    orders: list[PgOrder],
    where: str | None,
    params: tuple[Any, ...],
    projection: tuple[str, ...],
    page_size: int,
    reverse: bool,
) -> tuple[Checked, PgFilter | None]:
    """Each order's query as ``pages`` checks it (an order it refuses: the reason), and
    the filter parsed; a filter, column or page size it refuses is refused here."""
    queries: Checked = []
    parsed: PgFilter | None = None
    for order in orders:
        query = PgQuery(table, order, where, params, projection, page_size, "keyset", reverse)
        try:
            query.check()
        except FieldError as exc:
            if exc.field != "order":
                raise
            queries.append((order, None, str(exc)))
            continue
        parsed = query.filter
        queries.append((order, query, None))
    if parsed is None and where and where.strip():
        # Every order refused: the filter is still checked, so a hostile one is said.
        parsed = PgQuery(table, orders[0], where, params, projection, page_size).filter
    return queries, parsed


def _explained(
    session: Any, table: PgTable, queries: Checked, parsed: PgFilter | None, page_size: int
) -> list[PgPlannedPath]:
    """Every order costed from the plan of its page 1 (one round trip for the catalog,
    one for the plans, one for the rows of the filter's terms on an index's columns)."""
    usable = [q for _, q, _ in queries if q is not None]
    catalog = _catalog(session, table)
    statements: list[tuple[str, Any]] = [
        ("SELECT pg_catalog.set_config(%(n)s, %(v)s, true)", {"n": n, "v": v})
        for n, v in PAGE_SETTINGS.items()
    ]
    first = usable[0]
    match_sql = f"SELECT 1 FROM {table.qualified}"
    if first.filter_sql:
        match_sql += f" WHERE {first.filter_sql}"
    statements.append(("EXPLAIN (FORMAT JSON) " + match_sql, first.filter_params()))
    for query in usable:
        sql, sql_params, _ = page_statement(query, None, page_size + 1)
        statements.append(("EXPLAIN (FORMAT JSON) " + sql, sql_params))
    answers = session.queries(statements)[len(PAGE_SETTINGS) :]
    matches = float(_document(answers[0])["Plan"].get("Plan Rows", 0))
    plans = {id(q): _document(a)["Plan"] for q, a in zip(usable, answers[1:], strict=True)}
    rows_by_index = _rows_by_index(session, table, parsed, first, plans.values())
    pages = max(1, math.ceil(matches / page_size))
    planned: list[PgPlannedPath] = []
    for order, checked, why in queries:
        if checked is None:
            planned.append(PgPlannedPath(order.name, order.index, order, False, why))
            continue
        plan = plans[id(checked)]
        try:
            found = estimate(plan, catalog, rows_by_index.get, _seeks(order))
        except RecursionError:  # a plan nested deeper than Python's stack: not a crash
            why = "its plan is nested too deeply to estimate"
            planned.append(PgPlannedPath(order.name, order.index, order, False, why))
            continue
        planned.append(_planned(order, plan, found, pages, matches, catalog, page_size))
    return planned


def _rows_by_index(
    session: Any,
    table: PgTable,
    parsed: PgFilter | None,
    query: PgQuery,
    plans: Any,
) -> dict[str, float]:
    """For each index an Index Scan reads with both an Index Cond and a Filter: the
    planner's rows for the filter's terms on that index's columns (one round trip)."""
    if parsed is None:
        return {}
    wanted = {
        node["Index Name"]
        for plan in plans
        for node in nodes(plan)
        if node.get("Node Type") in ("Index Scan", "Index Only Scan")
        and "Index Cond" in node
        and "Filter" in node
    }
    columns = _index_columns(table)
    terms = conjuncts(parsed)
    asks: list[tuple[str, str]] = []
    for name in sorted(wanted):
        own = columns.get(name)
        chosen = tuple(t for t in terms if own and not t.opaque and t.columns and t.columns <= own)
        if chosen:
            asks.append((name, psycopg_text(chosen)))
    if not asks:
        return {}
    params = query.filter_params()
    explain = f"EXPLAIN (FORMAT JSON) SELECT 1 FROM {table.qualified} WHERE "
    answers = session.queries([(explain + sql, params) for _, sql in asks])
    return {
        name: float(_document(rows)["Plan"].get("Plan Rows", 0))
        for (name, _), rows in zip(asks, answers, strict=True)
    }


def _seeks(order: PgOrder) -> int:
    """The index seeks of a page past a boundary in ``order`` (none of its values NULL)."""
    found = keyset(order.columns, ["0"] * len(order.columns), covered_terms(order))
    return max(1, len(found.seeks))


def _planned(
    order: PgOrder,
    plan: dict[str, Any],
    found: Estimate,
    pages: int,
    matches: float,
    catalog: Catalog,
    page_size: int,
) -> PgPlannedPath:
    bounded_by = next((n for n in nodes(plan) if n.get("Index Name") and "Index Cond" in n), None)
    reads = next((n["Index Name"] for n in nodes(plan) if n.get("Index Name")), None)
    key = None if bounded_by is None else bounded_by["Index Cond"]
    reads = reads if bounded_by is None else bounded_by["Index Name"]
    whole = any(n.get("Node Type") == "Seq Scan" for n in nodes(plan))
    notes = list(dict.fromkeys(found.notes))
    later = (
        "; a drain is a range: from page 1 then seeks that read only their page's rows, to "
        "page 1's reads for each seek of every later page (only page 1 is planned)"
    )
    if found.regroups:
        notes.append(
            "page 1 reads a whole group of rows that tie on the index's columns, sorted by "
            "the tie-breaker the index lacks" + later
        )
    elif not found.bounded:
        notes.append(
            "page 1 reads all it sorts (a Sort, a bitmap or a table scan under the Limit)" + later
        )
    if order.cost_note:
        notes.append(order.cost_note)
    return PgPlannedPath(
        name=order.name,
        index=order.index,
        order=order,
        usable=True,
        why=None,
        kind="scan" if whole else "query",
        key_condition=key,
        reads_index=reads,
        plan_shape=shape(plan),
        pages=pages,
        matches=matches,
        buffers=found.drain(pages),
        buffers_low=None
        if found.bounded
        else found.page + (pages - 1) * least_page(catalog, reads, page_size),
        per_page=found.page,
        planner_cost=float(plan.get("Total Cost", 0.0)),
        bounded=found.bounded,
        notes=tuple(notes),
    )


def least_page(catalog: Catalog, index: str | None, page_size: int) -> float:
    """The fewest buffers a keyset page can read: an index's descent, and the heap pages
    of its rows lying together."""
    levels = catalog.indexes[index].levels if index in catalog.indexes else 1
    # The first heap page may be the one the page before ended on.
    return float(levels + math.ceil((page_size + 1) / catalog.table.per_page) - 1)


def _ranked(paths: list[PgPlannedPath]) -> tuple[list[PgPlannedPath], str | None]:
    """The cheapest by the high end of each drain (what it reads at most, as estimated),
    and each path's ratio to it."""
    costed = [p for p in paths if p.usable and p.buffers is not None]
    if not costed:
        return paths, None
    best = min(costed, key=lambda p: (p.buffers or 0.0, p.planner_cost or 0.0))
    base = max(best.buffers or 0.0, 1.0)
    ranked = [
        replace(
            p,
            ratio=p.buffers / base,
            ratio_low=None if p.buffers_low is None else p.buffers_low / base,
        )
        if p.buffers is not None
        else p
        for p in paths
    ]
    return ranked, best.name


def refuse_offset(mode: str | None) -> None:
    if mode not in (None, "keyset"):
        raise InputError(
            f"--mode {mode}: the plan costs keyset pages over each order (OFFSET reads every "
            "row before a page: dynotui pages --mode offset shows what that costs)"
        )
