"""What a PostgreSQL index that does not exist would do for a keyset page: the server's
own planner, through the hypopg extension, when it is installed.

Now: the first pages read by the real pager, buffers measured. What-if: the page's
statement explained with a hypothetical index (``PgSession.explain_hypothetical``): whether
the planner would use it, its cost against the cost now, and the buffers a page would
touch, estimated from the plan and the index's estimated size (hypopg's own):

    tree levels + leaf pages for the rows read + heap pages for them,

the heap between one page per ``rows per heap page`` rows (a heap in index order) and one
page per row (none in order): a range, not a point. ``CREATE EXTENSION hypopg`` is a
write, so dynotui never runs it; without hypopg it says how to install it and estimates
nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dynotui.core.errors import InputError
from dynotui.core.pager import Pager
from dynotui.postgres.connection import PgSession
from dynotui.postgres.cost import shape
from dynotui.postgres.schema import quote
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import PgQuery, page_statement

BLOCK = 8192
# One line: the embedded PostgreSQL has no hypopg. dynotui never creates the extension
# (a write); the README says how to install it (Debian: postgresql-NN-hypopg).
NOT_INSTALLED = "hypopg is not installed here: its owner can CREATE EXTENSION hypopg"
_COLUMN = re.compile(
    r"^(?P<name>.+?)(?:\s+(?P<dir>asc|desc))?(?:\s+nulls\s+(?P<nulls>first|last))?$", re.I
)


@dataclass(frozen=True)
class PgWhatIf:
    table: str
    index_sql: str  # the CREATE INDEX planned
    installed: bool
    now_pages: int
    now_buffers: list[float]  # per page read, measured
    now_plan: str
    now_cost: float | None  # the planner's total cost of page 1
    uses_index: bool | None  # None: not planned (no hypopg)
    what_if_plan: str | None
    what_if_cost: float | None
    buffers_low: float | None
    buffers_high: float | None
    index_bytes: int | None
    notes: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        ordered = sorted(self.now_buffers)
        return {
            "table": self.table,
            "hypothetical_index": self.index_sql,
            "hypopg_installed": self.installed,
            "now": {
                "pages": self.now_pages,
                "buffers_per_page": {
                    "p50": ordered[(len(ordered) + 1) // 2 - 1] if ordered else None,
                    "max": ordered[-1] if ordered else None,
                    "each": self.now_buffers,
                },
                "plan": self.now_plan,
                "planner_cost": self.now_cost,
            },
            "what_if": {
                "uses_index": self.uses_index,
                "plan": self.what_if_plan,
                "planner_cost": self.what_if_cost,
                "buffers_per_page": None
                if self.buffers_low is None
                else {"low": self.buffers_low, "high": self.buffers_high},
                "index_bytes": self.index_bytes,
                "estimated": True,
            },
            "notes": list(self.notes),
        }


def index_sql(query: PgQuery, columns: str) -> str:
    """CREATE INDEX on the query's table for ``columns`` ("status, created_at desc"): only
    the table's own column names, quoted here, with ASC/DESC and NULLS FIRST/LAST."""
    if not columns or not columns.strip():
        raise InputError("--hypothetical-index names no column: give columns like 'status, id'")
    parts = []
    for text in columns.split(","):
        match = _COLUMN.match(text.strip())
        if not match:
            raise InputError(f"--hypothetical-index: {text.strip()!r} is not a column")
        name = match.group("name").strip()
        if len(name) > 1 and name.startswith('"') and name.endswith('"'):
            name = name[1:-1].replace('""', '"')
        column = query.table.column(name)  # refused by name when the table has none
        part = quote(column.name)
        if match.group("dir"):
            part += f" {match.group('dir').upper()}"
        if match.group("nulls"):
            part += f" NULLS {match.group('nulls').upper()}"
        parts.append(part)
    return f"CREATE INDEX ON {query.table.qualified} ({', '.join(parts)})"


def hypopg_schema(session: PgSession) -> str | None:
    rows = session.query(
        "SELECT n.nspname FROM pg_catalog.pg_extension e "
        "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'hypopg'"
    )
    return str(rows[0][0]) if rows else None


def _nodes(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("Plans", []):
        yield from _nodes(child)


def _table_pages(session: PgSession, query: PgQuery) -> tuple[float, float]:
    (row,) = session.query(
        "SELECT GREATEST(c.reltuples, 0), GREATEST(c.relpages, 1) "
        "FROM pg_catalog.pg_class c WHERE c.oid = %(t)s::pg_catalog.regclass",
        {"t": query.table.qualified},
    )
    return float(row[0]), float(row[1])


def estimate(session: PgSession, query: PgQuery, columns: str, pages: int = 5) -> PgWhatIf:
    """Read up to ``pages`` pages now (measured), then plan page 1 with the hypothetical
    index, when hypopg is installed."""
    ddl = index_sql(query, columns)
    pager = Pager(PgSource(session, query))
    buffers: list[float] = []
    while pager.can_advance and len(buffers) < pages:
        page = pager.next()
        buffers.append(page.cost.headline)
    now_plan = pager.summary_of(1).cost.plan if pager.summary_of(1) else ""  # type: ignore[union-attr]
    schema = hypopg_schema(session)
    notes: list[str] = []
    if schema is None:
        return PgWhatIf(
            query.table.label, ddl, False, len(buffers), buffers, now_plan, None,
            None, None, None, None, None, None, (NOT_INSTALLED,),
        )  # fmt: skip
    sql, params, _ = page_statement(query, None, query.page_size + 1)
    before, created, after, _ = session.explain_hypothetical(schema, ddl, sql, params)[2:]
    plan_now = _document(before)["Plan"]
    plan_with = _document(after)["Plan"]
    _, index_name, index_bytes = created[0]
    used = [n for n in _nodes(plan_with) if n.get("Index Name") == index_name]
    low = high = None
    if used:
        tuples, heap_pages = _table_pages(session, query)
        rows = float(plan_with.get("Plan Rows", query.page_size + 1))
        if any("Filter" in n for n in used):
            notes.append(
                "a filter stays on the index scan: the rows it drops are read too and are not "
                "in the estimate, which is then a lower bound"
            )
        index_pages = max(1.0, math.ceil(int(index_bytes) / BLOCK))
        per_leaf = max(2.0, tuples / index_pages) if tuples else 2.0
        levels = 1 + (
            math.ceil(math.log(index_pages) / math.log(per_leaf)) if index_pages > 1 else 0
        )
        leaves = math.ceil(rows / per_leaf)
        per_heap = max(1.0, tuples / heap_pages) if tuples else 1.0
        low = float(levels + leaves + math.ceil(rows / per_heap))
        high = float(levels + leaves + rows)
    else:
        notes.append(
            "the planner would not use the hypothetical index for this page: it keeps "
            f"{shape(plan_with)}"
        )
    return PgWhatIf(
        table=query.table.label,
        index_sql=ddl,
        installed=True,
        now_pages=len(buffers),
        now_buffers=buffers,
        now_plan=now_plan or shape(plan_now),
        now_cost=float(plan_now.get("Total Cost", 0.0)),
        uses_index=bool(used),
        what_if_plan=shape(plan_with),
        what_if_cost=float(plan_with.get("Total Cost", 0.0)),
        buffers_low=low,
        buffers_high=high,
        index_bytes=int(index_bytes),
        notes=tuple(notes),
    )


def _document(rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    document = rows[0][0]
    if isinstance(document, str):
        import json

        document = json.loads(document)
    return dict(document[0] if isinstance(document, list) else document)
