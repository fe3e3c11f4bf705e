"""A PostgreSQL plan as the generic plan screen shows it (``ui/screens/plan.py``): the
current filter's matches in each order of the table, costed by the server's planner
(EXPLAIN, never run), the cheapest starred, every figure marked ``~`` (estimated); the
highlighted order's plan below. An order that cannot be paged is refused by Enter and
space, with its reason.

The cells are ``plan.words``' (the terminal's ``dynotui plan`` says the same); ``c``
copies the plan as ``dynotui plan --postgres --json`` prints it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from dynotui.core.cancel import CancelToken
from dynotui.postgres.connection import PgSession
from dynotui.postgres.plan.planner import PgPlan, PgPlannedPath, make_plan
from dynotui.postgres.plan.words import detail_lines, row
from dynotui.ui.postgres.query import PostgresQuery
from dynotui.ui.screens.plan import PlanAsk, PlanColumn, PlanFailed, PlanRow, PlanShown

# What decides first, so 80 columns show it: the order, its buffers, against the cheapest.
COLUMNS = (
    PlanColumn("order"),
    PlanColumn("buffers"),
    PlanColumn("vs cheapest"),
    PlanColumn("per page"),
    PlanColumn("pages"),
    PlanColumn("matches"),
    PlanColumn("kind"),
    PlanColumn("cost"),
)
HINT = "* cheapest · + marked · ~ the planner's estimate (EXPLAIN, nothing is run)"

PgPlanAsk = PlanAsk[PgPlan, PgPlan]


def plan_for(
    session: PgSession, current: PostgresQuery, clock: Callable[[], float] = time.perf_counter
) -> PgPlan:
    """The plan of ``current``'s filter over its table's orders (its own order too)."""
    query = current.query
    return make_plan(
        session,
        query.table,
        where=query.where,
        params=query.params,
        projection=query.projection,
        page_size=query.page_size,
        asked=query.order,
        reverse=query.descending,
        clock=clock,
    )


def order_row(planned: PgPlannedPath, plan: PgPlan) -> PlanRow:
    name, kind, pages, matches, buffers, per_page, vs, cost = row(planned, plan)
    name = name.removeprefix("* ") if planned.name == plan.cheapest else name
    cells = (name, buffers, vs, per_page, pages, matches, kind, cost)
    if not planned.usable:
        refusal = (f"{planned.name}: cannot be paged in this order", planned.why or "")
        refused = f"{planned.name} cannot be paged: {planned.why}"
        return PlanRow(planned.name, cells, False, refusal, refused)
    lines = tuple(line.strip() for line in detail_lines(planned, plan))
    return PlanRow(planned.name, cells, True, lines)


def shown(plan: PgPlan) -> PlanShown[PgPlan]:
    cost = plan.cost
    return PlanShown(
        plan,
        f"Done: {cost.calls:,} statements (catalog reads and EXPLAIN, nothing run), "
        f"{cost.seconds:,.2f} s; cheapest: {plan.cheapest or 'none'}"
        + (f" (as cheap, within 10%: {', '.join(plan.ties)})" if plan.ties else ""),
        plan.cheapest,
        tuple(order_row(planned, plan) for planned in plan.paths),
        json.dumps(plan.as_json(), ensure_ascii=False),
    )


def plan_ask(
    session: PgSession,
    query: PostgresQuery,
    *,
    copy: Callable[[str, str], None],
    clock: Callable[[], float] = time.perf_counter,
) -> PgPlanAsk:
    """``clock``: the session's (what the plan's own seconds are timed by)."""

    def make(report: Callable[[str], None], token: CancelToken) -> PgPlan:
        return plan_for(session, query, clock)

    def ended(plan: PgPlan) -> PlanShown[PgPlan] | PlanFailed:
        return shown(plan)

    return PlanAsk(
        title="Plan: every order that reads this filter",
        asked=f"{query.conditions_text()} on {query.table}",
        starting="Asking the planner (EXPLAIN, nothing is run)…",
        columns=COLUMNS,
        hint=HINT,
        copy_what="the plan (JSON, as dynotui plan --postgres --json prints it)",
        mark_first="Mark two orders with space first.",
        copy=copy,
        make=make,
        ended=ended,
    )
