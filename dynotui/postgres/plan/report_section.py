"""A PostgreSQL plan as a report section: the text table's rows (``words``), the orders
that cannot be paged with their reasons, and what the plan cost."""

from __future__ import annotations

from dynotui.postgres.plan.planner import PgPlan
from dynotui.postgres.plan.words import HEADERS, row
from dynotui.report.model import TableSection


def plan_section(plan: PgPlan) -> TableSection:
    rows = [row(p, plan) for p in plan.paths if p.usable]
    rows += [
        (p.name, "-", *("-",) * (len(HEADERS) - 3), f"cannot page: {p.why}")
        for p in plan.paths
        if not p.usable
    ]
    cost = plan.cost
    notes = (
        f"{plan.table} {plan.query}, pages of {plan.page_size}",
        "* the cheapest order to drain; ~ the planner's estimate (EXPLAIN, nothing run); "
        "buffers: every page of a drain, a range where only page 1 could be planned; "
        "cost: the planner's cost of page 1",
        f"the plan's own cost: {cost.calls:,} statements, {cost.seconds:,.2f} s",
        *plan.notes,
    )
    return TableSection(
        title="Plan: every order for this filter",
        header=HEADERS,
        rows=tuple(rows),
        notes=notes,
    )
