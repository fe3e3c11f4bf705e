"""Buffers a page touches, estimated from its plan (EXPLAIN, not run) and the catalog.

EXPLAIN (BUFFERS) counts buffers only with ANALYZE, which runs the statement: the plan
never does. It estimates them instead, node by node, from what the planner says it will
do (which scan of which index, its row estimates, where a Limit stops it) and the sizes
the catalog keeps (``pg_class.relpages``, ``reltuples``, ``relallvisible``; the leading
column's ``pg_stats.correlation``), as PostgreSQL's cost model does for its own pages:

- a **Seq Scan** reads the table's pages (the share a Limit lets it reach);
- an **Index Scan** reads the index's levels once and the leaf pages for the rows it
  reads, and for each row the heap: from one visit per ``rows per heap page`` rows (the
  heap in index order, correlation 1) to one per row (correlation 0), placed between by
  the square of the correlation, as the planner places its I/O cost;
- an **Index Only Scan** the same, with heap visits only for the pages the visibility
  map does not mark all-visible;
- a **Bitmap Index Scan** its levels and leaves; the **Bitmap Heap Scan** above it each
  heap page holding a row once (the expected distinct pages of that many rows, or fewer
  where the heap is in index order);
- a **Limit** lets its input run only as far as its share of the input's rows; a
  **Sort** reads all of its input (so a Limit above it stops nothing below); an
  **Incremental Sort** reads at least one group of equal presorted values.

The rows an Index Scan reads are those its Index Cond admits, before its Filter: the
planner's rows for the node where it has no Filter; the index's entries where it has no
Index Cond; else the planner's rows for the filter's terms on that index's columns
(``rows_for``, asked by the caller). Where nothing better is known, every entry of the
index: an over-estimate, never an under-estimate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

BLOCKING = ("Sort", "Hash", "Aggregate", "Materialize", "HashAggregate", "WindowAgg")
INDEX_SCANS = ("Index Scan", "Index Only Scan")


@dataclass(frozen=True)
class Relation:
    """A table or index as the catalog sizes it."""

    name: str
    pages: float  # relpages (at least 1)
    tuples: float  # reltuples (0: never analyzed or empty)
    all_visible: float = 0.0  # relallvisible, tables only
    correlation: float | None = None  # an index's leading column, pg_stats (None: no stats)

    @property
    def per_page(self) -> float:
        return max(1.0, self.tuples / self.pages) if self.tuples > 0 else 1.0

    @property
    def levels(self) -> int:
        """A b-tree's pages from root to leaf, from its size and fill."""
        if self.pages <= 1:
            return 1
        fanout = max(2.0, self.per_page)
        return 1 + math.ceil(math.log(self.pages) / math.log(fanout))


@dataclass(frozen=True)
class Catalog:
    table: Relation
    indexes: dict[str, Relation]
    distinct: dict[str, float] = field(default_factory=dict)  # column: pg_stats.n_distinct
    leading: dict[str, str] = field(default_factory=dict)  # index: its first column's name

    def per_value(self, column: str | None) -> float:
        """Rows a value of ``column`` holds on average (1 where unknown)."""
        groups = self.groups([column]) if column is not None else None
        return max(1.0, self.table.tuples / groups) if groups else 1.0

    def groups(self, columns: list[str]) -> float | None:
        """Distinct values of the most distinct of ``columns`` (a lower bound on the
        groups an Incremental Sort makes of them); None where no column has stats."""
        found = []
        for column in columns:
            name = column.rsplit(".", 1)[-1].strip('"')
            n = self.distinct.get(name)
            if n is not None:
                found.append(-n * self.table.tuples if n < 0 else n)
        return max(found) if found else None


@dataclass
class Scan:
    """One scan node of a plan: what a page reads of it, and what reading it whole reads."""

    kind: str
    relation: str
    index: str | None
    share: float  # of its rows a page lets it produce (1: all)
    page_buffers: float
    whole_buffers: float
    descent: float  # what each restart costs before its first row (an index's levels)
    rows_read: float


@dataclass
class Estimate:
    scans: list[Scan] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # An Incremental Sort reads a whole group of ties to give a page: every page past a
    # boundary inside the group reads that group again (an index that lacks the
    # tie-breaker, on a column with few values).
    regroups: bool = False
    seeks: int = 1  # index seeks of a page past a boundary (``sql.keyset``)

    @property
    def page(self) -> float:
        return sum(s.page_buffers for s in self.scans)

    def drain(self, pages: int) -> float:
        """Buffers of every page of a drain: a scan a Limit stops (the order's index read
        from the boundary on) reads its rows once over the drain, plus its descent on each
        page; a scan every page reads whole (under a Sort) reads them on page 1 and, at
        most, once for each seek of every later page (each seek is page 1's statement with
        more conditions: the planner reads at most as much for it, as it estimates)."""
        total = 0.0
        for scan in self.scans:
            if scan.share < 1.0 and not self.regroups:
                total += max(scan.whole_buffers, scan.page_buffers) + (pages - 1) * scan.descent
            else:
                total += scan.page_buffers * (1 + (pages - 1) * self.seeks)
        return total

    @property
    def bounded(self) -> bool:
        """Every scan a Limit stops: pages past the first are read as seeks, not again."""
        return bool(self.scans) and not self.regroups and all(s.share < 1.0 for s in self.scans)


def nodes(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("Plans") or []:
        yield from nodes(child)


def estimate(
    plan: dict[str, Any],
    catalog: Catalog,
    rows_for: Callable[[str], float | None],
    seeks: int = 1,
) -> Estimate:
    """The buffers of the statement ``plan`` (an EXPLAIN document's top node) reads.
    ``rows_for(index)``: the planner's rows for the filter's terms on that index's
    columns (None: none of its terms are). ``seeks``: how many index seeks a page past a
    boundary makes (``sql.keyset``): each descends the index again."""
    found = Estimate(seeks=seeks)
    _walk(plan, 1.0, catalog, rows_for, found)
    for scan in found.scans:
        scan.descent *= seeks
    return found


def _rows(node: dict[str, Any]) -> float:
    return max(float(node.get("Plan Rows", 0) or 0), 1.0)


def _walk(
    node: dict[str, Any],
    share: float,
    catalog: Catalog,
    rows_for: Callable[[str], float | None],
    found: Estimate,
) -> None:
    kind = node.get("Node Type", "")
    children = node.get("Plans") or []
    if kind == "Limit" and children:
        share = share * min(1.0, _rows(node) / _rows(children[0]))
    elif kind in BLOCKING:
        share = 1.0
    elif kind == "Incremental Sort" and children:
        groups = catalog.groups(list(node.get("Presorted Key") or []))
        group = catalog.table.tuples / groups if groups else _rows(children[0])
        if group / _rows(children[0]) > share:
            found.regroups = True
        share = min(1.0, max(share, group / _rows(children[0])))
    if kind == "Seq Scan":
        _seq_scan(node, share, catalog, found)
    elif kind in INDEX_SCANS:
        _index_scan(node, share, catalog, rows_for, found)
    elif kind == "Bitmap Heap Scan":
        _bitmap(node, share, catalog, found)
        return  # its Bitmap Index Scans are counted there
    for child in children:
        _walk(child, share, catalog, rows_for, found)


def _other(node: dict[str, Any], catalog: Catalog, found: Estimate) -> bool:
    """A scan of another relation (a sub-select's): not sized here, said."""
    if node.get("Relation Name") in (None, catalog.table.name):
        return False
    found.notes.append(
        f"a scan of {node['Relation Name']} (the filter's sub-select) is not counted"
    )
    return True


def _seq_scan(node: dict[str, Any], share: float, catalog: Catalog, found: Estimate) -> None:
    if _other(node, catalog, found):
        return
    pages = catalog.table.pages
    found.scans.append(
        Scan("Seq Scan", catalog.table.name, None, share, max(1.0, pages * share), pages, 0.0,
             catalog.table.tuples * share)
    )  # fmt: skip


def spread(rows: float, table: Relation) -> float:
    """The expected distinct heap pages of ``rows`` rows lying anywhere in the table."""
    pages = table.pages
    return pages * (1.0 - (1.0 - 1.0 / pages) ** rows) if rows > 0 else 0.0


def heap_visits(rows: float, table: Relation, correlation: float | None, per_value: float) -> float:
    """Heap pages an index scan visits for ``rows`` rows: a new page each time the next
    row lies on another (rows on one page in a row cost one visit). Rows of one key value
    come in heap order (a b-tree orders equal keys by where they lie): within about one
    value, each page holding one is visited once; across many, the correlation places
    the visits between the heap in index order and one a row."""
    if rows <= 0:
        return 0.0
    if rows <= per_value:
        return spread(rows, table)
    low = math.ceil(rows / table.per_page)
    c2 = (correlation or 0.0) ** 2
    return rows + c2 * (low - rows)


def _names(condition: str, column: str) -> bool:
    """Whether the server's text of a condition names ``column`` (as an identifier)."""
    import re

    quoted = '"' + column.replace('"', '""') + '"'
    if quoted in condition:
        return True
    return re.search(rf"(?<![\w$.]){re.escape(column)}(?![\w$])", condition) is not None


def _index_rows(
    node: dict[str, Any], index: Relation, rows_for: Callable[[str], float | None]
) -> float:
    """Rows the index scan reads before its Filter (see the module's note)."""
    if "Filter" not in node:
        return _rows(node)
    if "Index Cond" not in node:
        return max(index.tuples, _rows(node))
    by_terms = rows_for(index.name)
    return max(_rows(node), by_terms if by_terms is not None else index.tuples)


def _index_scan(
    node: dict[str, Any],
    share: float,
    catalog: Catalog,
    rows_for: Callable[[str], float | None],
    found: Estimate,
) -> None:
    if _other(node, catalog, found):
        return
    name = node.get("Index Name", "")
    index = catalog.indexes.get(name)
    if index is None:
        found.notes.append(f"index {name} has no size in the catalog: not counted")
        return
    whole_rows = _index_rows(node, index, rows_for)
    # An Index Cond that does not bound the first column walks the index's leaves (a
    # share of them as a Limit stops it), testing each entry.
    leading = catalog.leading.get(name)
    walks = leading is not None and not _names(node.get("Index Cond", ""), leading)
    per_value = catalog.per_value(leading)

    def buffers(rows: float) -> float:
        leaves = max(1.0, math.ceil(rows / index.per_page))
        if walks and whole_rows > 0:
            leaves = max(1.0, math.ceil(index.pages * rows / whole_rows))
        heap = heap_visits(rows, catalog.table, index.correlation, per_value)
        if node.get("Node Type") == "Index Only Scan":
            visible = min(1.0, catalog.table.all_visible / catalog.table.pages)
            heap = rows * (1.0 - visible)
        return index.levels - 1 + leaves + heap

    rows = whole_rows * share
    # A page past a boundary descends the index again, and visits the boundary's heap page.
    restart = index.levels + (1 if node.get("Node Type") == "Index Scan" else 0)
    found.scans.append(
        Scan(node.get("Node Type", ""), catalog.table.name, name, share, buffers(rows),
             buffers(whole_rows), float(restart), rows)
    )  # fmt: skip


def _bitmap(node: dict[str, Any], share: float, catalog: Catalog, found: Estimate) -> None:
    """A Bitmap Heap Scan and the Bitmap Index Scans (under BitmapAnd/Or) below it."""
    if _other(node, catalog, found):
        return
    leaves = 0.0
    correlation: float | None = None
    counts: list[float] = []
    for child in nodes(node):
        if child.get("Node Type") != "Bitmap Index Scan":
            continue
        index = catalog.indexes.get(child.get("Index Name", ""))
        rows = _rows(child)
        counts.append(rows)
        if index is None:
            found.notes.append(f"index {child.get('Index Name')} has no size: not counted")
            continue
        leaves += index.levels - 1 + max(1.0, math.ceil(rows / index.per_page))
        correlation = index.correlation if correlation is None else correlation
    inner = (node.get("Plans") or [{}])[0].get("Node Type")
    rows = (sum(counts) if inner == "BitmapOr" else min(counts)) if counts else _rows(node)
    table = catalog.table
    distinct = spread(rows, table)
    low = math.ceil(rows / table.per_page)
    heap = distinct + ((correlation or 0.0) ** 2) * (low - distinct)
    found.scans.append(
        Scan("Bitmap Heap Scan", table.name, None, 1.0, leaves + heap * share or 1.0,
             leaves + heap, 0.0, rows)
    )  # fmt: skip
