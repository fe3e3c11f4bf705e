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


def with_cost_notes(session: Any, table: PgTable) -> PgTable:
    """``table`` with each index order's note, both ways: two round trips, one for the
    boundaries, one for the plans (no note where either fails: the order is read all
    the same)."""
    queries = [
        (i, PgQuery(table, way, page_size=CHECK_PAGE))
        for i, order in enumerate(table.orders)
        if order.index is not None and order.unique
        for way in (order, order.reversed())
    ]
    if not queries:
        return table
    try:
        boundaries = session.queries([(_first_boundary(q), None) for _, q in queries])
        explained: list[tuple[int, PgQuery, list[str]]] = []
        statements = []
        for (i, query), rows in zip(queries, boundaries, strict=True):
            if rows:
                sql, params, keyset = page_statement(query, list(rows[0]), CHECK_PAGE + 1)
                statements.append(("EXPLAIN (FORMAT JSON) " + sql, params))
                explained.append((i, query, [s.words for s in keyset.seeks] if keyset else []))
        plans = [_document(rows) for rows in session.queries(statements)] if statements else []
    except DynotuiError:
        return table
    notes: dict[tuple[int, bool], str] = {}
    for n, (i, query, words) in enumerate(explained):
        forward = query.order.columns == table.orders[i].columns
        notes[(i, forward)] = _note(plans[n], words)
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
