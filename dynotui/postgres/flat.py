"""Whether an order reads page 2 (and so every page past the first) by bounded seeks, as
the planner plans it, checked when a table is described: each index order, both ways.

A keyset page past a boundary is a few seeks read in turn (``sql.keyset``). It costs what
page 1 costs when the planner serves each seek with an index scan that starts at the
boundary and stops with the page. Where the plan of page 2 reads more than a page, the
order says so, naming what does it: a sequential scan, a bitmap scan of many rows (every
matching row before the first is returned), an index walked from its start, a sort of
many rows (an index that lacks a tie-breaker, with large groups of equal values). The
boundary the plan is made for is a real row's, the one after the first page in the
index's order (read by that index: a few entries).

Page 1 is planned too: where the order's index lacks the tie-breaker, page 1 sorts the rows
that tie on the index's first value, which may be the whole table (an expression on which
every row ties); the order says that as well.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dynotui.core.errors import DynotuiError
from dynotui.postgres.sql import PgQuery, page_statement
from dynotui.postgres.table_model import PgOrder, PgTable

CHECK_PAGE = 25  # the default page size: the shape of its plan is what matters
FULL_SCANS = {
    "Seq Scan": "reads the table from its start",
    "Bitmap Heap Scan": "reads every matching row before returning one (a bitmap scan)",
    "Tid Range Scan": "reads the table from the boundary to its end",
}


def _nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    found = [node]
    for child in node.get("Plans") or []:
        found.extend(_nodes(child))
    return found


def _branches(top: dict[str, Any]) -> list[dict[str, Any]]:
    """The plan of each seek: the children of the Append the page's LIMIT reads."""
    node = top
    while node.get("Node Type") in ("Limit", "Subquery Scan", "Result"):
        children = node.get("Plans") or []
        if len(children) != 1:
            break
        node = children[0]
    if node.get("Node Type") in ("Append", "Merge Append"):
        return list(node.get("Plans") or [])
    return [node]


def unbounded(plan: dict[str, Any], seek_words: list[str], limit: int) -> str:
    """What in the plan of a page past a boundary reads more than the page ("" if
    nothing does): the first seek whose plan scans a table, walks an index from its start,
    or reads or sorts many more rows than a page."""
    most = 10 * limit + 100
    for number, branch in enumerate(_branches(plan["Plan"]), start=1):
        which = f"seek {number}" + (
            f" ({seek_words[number - 1]})" if number <= len(seek_words) else ""
        )
        for node in _nodes(branch):
            kind = node.get("Node Type", "")
            rows = float(node.get("Plan Rows", 0))
            if kind == "Seq Scan" or (kind in FULL_SCANS and rows > most):
                return f"{which} {FULL_SCANS[kind]}"
            if kind in ("Index Scan", "Index Only Scan") and not node.get("Index Cond"):
                return f"{which} walks index {node.get('Index Name')} from its start"
            if kind == "Sort":
                child = (node.get("Plans") or [{}])[0]
                rows = float(child.get("Plan Rows", 0))
                if rows > most:
                    return f"{which} sorts about {rows:,.0f} rows"
    return ""


def first_page_unbounded(plan: dict[str, Any], limit: int) -> str:
    """What in the plan of page 1 reads more than the page ("" if nothing does): a scan of
    the table, or a sort of many more rows than a page (page 1 starts at an end of the
    index, so an index walked from its start is what it should do). An Incremental Sort's
    groups are not in the plan: the advisor names such a sort from the page as read."""
    most = 10 * limit + 100
    for node, share in _shared(plan["Plan"], 1.0):
        kind = node.get("Node Type", "")
        if kind == "Sort":
            rows = float((node.get("Plans") or [{}])[0].get("Plan Rows", 0)) * share
            if rows > most:
                return f"sorts about {rows:,.0f} rows"
        elif kind in FULL_SCANS and float(node.get("Plan Rows", 0)) * share > most:
            return FULL_SCANS[kind]
    return ""


def _shared(node: dict[str, Any], share: float) -> list[tuple[dict[str, Any], float]]:
    """Each node with what to multiply its row estimate by: below a Gather, the planner
    gives rows per process, a share of the whole (the leader takes part less the more
    workers there are, as PostgreSQL's get_parallel_divisor counts it)."""
    found = [(node, share)]
    if node.get("Node Type") in ("Gather", "Gather Merge"):
        workers = int(node.get("Workers Planned", 0))
        share = workers + max(1.0 - 0.3 * workers, 0.0)
    for child in node.get("Plans") or []:
        found.extend(_shared(child, share))
    return found


def _cost(plan: dict[str, Any]) -> float:
    return float(plan["Plan"].get("Total Cost", 0.0))


def _first_boundary(query: PgQuery) -> str:
    """The boundary that opens page 2 in the order's index order: a few index entries
    (the tie-breaker's values, where the index lacks it, are that row's own)."""
    order = query.order
    indexed = order.columns[: len(order.columns) - len(order.tie_breaker)] or order.columns
    return (
        f"SELECT {', '.join(c.text_sql() for c in order.columns)} FROM {query.table.qualified}"
        f" ORDER BY {', '.join(c.sql() for c in indexed)} LIMIT 1 OFFSET {CHECK_PAGE - 1}"
    )


FLOOR = 50.0  # planner cost units (about 50 page reads): below it a page is cheap anyway


def _note(second: dict[str, Any], words: list[str]) -> str:
    """The note for an order whose page 2 reads more than a page, by the plan's shape (a
    plan the planner costs below FLOOR reads little whatever its shape: a small table)."""
    if _cost(second) <= FLOOR:
        return ""
    why = unbounded(second, words, CHECK_PAGE + 1)
    return f"pages past the first are not bounded seeks: {why}" if why else ""


def _first_note(first: dict[str, Any], order: PgOrder) -> str:
    """The note for an order whose page 1 reads more than a page (the rows that tie on the
    first value of an index that lacks the tie-breaker, sorted)."""
    if _cost(first) <= FLOOR:
        return ""
    why = first_page_unbounded(first, CHECK_PAGE + 1)
    if not why:
        return ""
    lacks = ""
    if order.tie_breaker and order.index is not None:
        lacks = (
            f" (index {order.index} lacks the tie-breaker {', '.join(order.tie_breaker)}, "
            "so the rows that tie on its first value are all read and sorted)"
        )
    return f"page 1 {why}{lacks}"


def with_cost_notes(session: Any, table: PgTable) -> PgTable:
    """``table`` with each index order's note, both ways: two round trips, one for the
    boundaries, one for the plans (no note where either fails: the order is read all
    the same)."""
    queries = [
        (i, PgQuery(table, way, page_size=CHECK_PAGE))
        for i, order in enumerate(table.orders)
        if order.index is not None and order.unique and not order.refused
        for way in (order, order.reversed())
    ]
    if not queries:
        return table
    try:
        boundaries = session.queries([(_first_boundary(q), None) for _, q in queries])
        explained: list[tuple[int, PgQuery, list[str] | None]] = []
        statements = []
        for (i, query), rows in zip(queries, boundaries, strict=True):
            sql, params, _ = page_statement(query, None, CHECK_PAGE + 1)
            statements.append(("EXPLAIN (FORMAT JSON) " + sql, params))
            explained.append((i, query, None))  # page 1
            if rows:
                sql, params, keyset = page_statement(query, list(rows[0]), CHECK_PAGE + 1)
                statements.append(("EXPLAIN (FORMAT JSON) " + sql, params))
                explained.append((i, query, [s.words for s in keyset.seeks] if keyset else []))
        plans = [_document(rows) for rows in session.queries(statements)]
    except DynotuiError:
        return table
    first: dict[tuple[int, bool], str] = {}
    later: dict[tuple[int, bool], str] = {}
    for n, (i, query, words) in enumerate(explained):
        key = (i, query.order.columns == table.orders[i].columns)
        if words is None:
            first[key] = _first_note(plans[n], query.order)
        else:
            later[key] = _note(plans[n], words)
    notes = {key: "; ".join(n for n in (later.get(key), first[key]) if n) for key in first}
    orders: list[PgOrder] = [
        replace(
            order,
            cost_note=notes.get((i, True), ""),
            reverse_cost_note=notes.get((i, False), ""),
        )
        for i, order in enumerate(table.orders)
    ]
    return replace(table, orders=tuple(orders))


def _document(rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    document = rows[0][0]
    return dict(document[0] if isinstance(document, list) else document)
