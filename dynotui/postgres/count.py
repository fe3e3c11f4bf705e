"""Counting a PostgreSQL query: a free estimate first, then count(*), an explicit cost.

The estimates cost nothing: ``pg_class.reltuples`` (as of the last ANALYZE or VACUUM)
for the table, the planner's row estimate for a filter. ``count(*)`` reads every
matching row (or index entry), and its buffers and time say what that cost.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import ReadCancelled
from dynotui.core.text import plural
from dynotui.postgres.connection import PgSession
from dynotui.postgres.cost import PgCost, from_plan
from dynotui.postgres.reach import verify
from dynotui.postgres.sql import PgQuery, count_sql


@dataclass(frozen=True)
class PgForecast:
    table_rows: int | None  # reltuples
    matching_rows: int | None  # the planner's estimate for the filter
    basis: str

    @property
    def items(self) -> int | None:
        return self.matching_rows if self.matching_rows is not None else self.table_rows

    def as_json(self) -> dict[str, Any]:
        return {
            "table_rows": self.table_rows,
            "matching_rows": self.matching_rows,
            "basis": self.basis,
        }


@dataclass(frozen=True)
class PgCountResult:
    scope: str
    count: int | None  # None: stopped before it finished (count(*) is one statement)
    cost: PgCost | None
    seconds: float
    complete: bool
    forecast: PgForecast
    taken_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    def summary(self) -> str:
        when = self.taken_at.astimezone().strftime("%H:%M")
        if not self.complete or self.count is None:
            return f"count stopped at {when} (count(*) gives nothing until it ends)"
        cost = self.cost
        buffers = plural(cost.shared_hit + cost.shared_read, "buffer") if cost else "?"
        return f"{plural(self.count, 'row')}, counted {when}, cost {buffers}"

    def as_json(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "complete": self.complete,
            "seconds": round(self.seconds, 3),
            "cost": self.cost.as_json() if self.cost else None,
            "taken_at": self.taken_at.isoformat(timespec="seconds"),
            "forecast": self.forecast.as_json(),
        }


def forecast(session: PgSession, query: PgQuery) -> PgForecast:
    """What is known for free: reltuples, and the planner's estimate (EXPLAIN, not run)."""
    rows = query.table.estimated_rows
    rows = rows if rows is not None and rows >= 0 else None  # -1: never analyzed
    basis = "pg_class.reltuples, as of the last ANALYZE or VACUUM"
    if query.filter is None:
        return PgForecast(rows, rows, basis)
    verify(
        session, query.filter, query.table.schema, query.table.name
    )  # EXPLAIN plans it: the planner may evaluate what it calls
    sql, params = count_sql(query)
    plan = session.query("EXPLAIN (FORMAT JSON) " + sql, params)[0][0]
    top = plan[0]["Plan"]
    child = top.get("Plans", [top])[0]
    matching = int(child.get("Plan Rows", 0))
    return PgForecast(rows, matching, basis + "; the filter's matches: the planner's estimate")


def count(
    session: PgSession, query: PgQuery, forecast_: PgForecast, cancel: CancelToken | None = None
) -> PgCountResult:
    token = cancel or CancelToken()
    verify(session, query.filter, query.table.schema, query.table.name)
    sql, params = count_sql(query)
    began = time.perf_counter()
    withdraw = token.on_cancel(lambda: session.cancel(token))
    try:
        rows, plan = session.run(sql, params, token)
    except Exception:
        if token.cancelled:
            return PgCountResult(
                query.scope(), None, None, time.perf_counter() - began, False, forecast_
            )
        raise
    finally:
        withdraw()
    seconds = time.perf_counter() - began
    cost = from_plan(plan, 1, seconds * 1000, seconds * 1000, plan.get("measured", ""))
    if token.cancelled:
        raise ReadCancelled(cost)
    return PgCountResult(query.scope(), int(rows[0][0]), cost, seconds, True, forecast_)
