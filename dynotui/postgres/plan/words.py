"""A PostgreSQL plan as text: one table of the orders side by side, then each order's plan
and notes, then the orders that cannot be paged with their reasons, then the plan's cost.

Every figure is the planner's, estimated: marked ``~``. Text from the server or the table
(names, the Index Cond, the filter) is made visible (``core.text.visible``).
"""

from __future__ import annotations

from dynotui.core.text import visible
from dynotui.postgres.plan.planner import PgPlan, PgPlannedPath

HEADERS = ("path", "kind", "pages", "matches", "buffers", "per page", "vs cheapest", "cost")


def figure(value: float | None) -> str:
    return "-" if value is None else f"~{value:,.0f}"


def span(low: float | None, high: float, digits: int = 0) -> str:
    """``~high``, or ``~low-high`` for a range."""
    if low is None or round(low, digits) == round(high, digits):
        return f"~{high:,.{digits}f}"
    return f"~{low:,.{digits}f}-{high:,.{digits}f}"


def ratio_words(planned: PgPlannedPath, plan: PgPlan) -> str:
    if planned.name == plan.cheapest:
        return "cheapest"
    if planned.ratio is None:
        return "-"
    return span(planned.ratio_low, planned.ratio, 1) + "x"


def row(planned: PgPlannedPath, plan: PgPlan) -> tuple[str, ...]:
    name = visible(planned.name)
    if planned.name == plan.cheapest:
        name = "* " + name
    if not planned.usable:
        return (name, "-", "-", "-", "-", "-", "cannot page", "-")
    return (
        name,
        planned.kind,
        figure(planned.pages),
        figure(planned.matches),
        "-" if planned.buffers is None else span(planned.buffers_low, planned.buffers),
        figure(planned.per_page),
        ratio_words(planned, plan),
        "-" if planned.planner_cost is None else f"{planned.planner_cost:,.1f}",
    )


def table_lines(plan: PgPlan) -> list[str]:
    rows = [HEADERS, *(row(p, plan) for p in plan.paths if p.usable)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS))]
    return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)).rstrip() for r in rows]


def index_condition(planned: PgPlannedPath) -> str:
    if planned.reads_index is None:
        return "none (no index is read)"
    index = visible(planned.reads_index)
    if planned.key_condition is None:
        return f"none: {index} read from its start"
    return f"{visible(planned.key_condition)} on {index}"


def detail_lines(planned: PgPlannedPath, plan: PgPlan) -> list[str]:
    lines = [
        f"{visible(planned.name)} ({planned.kind}): {ratio_words(planned, plan)}",
        f"  order: {visible(planned.order_words())}",
        f"  index condition: {index_condition(planned)}",
        f"  filter: {visible(plan.filter_text or 'none')}",
        f"  planner: {visible(planned.plan_shape)}",
    ]
    lines += [f"  note: {visible(n)}" for n in planned.notes]
    return lines


def plan_text(plan: PgPlan) -> str:
    lines = [f"plan: {visible(plan.table)} {visible(plan.query)}, pages of {plan.page_size}", ""]
    lines += table_lines(plan)
    lines += [
        "",
        "* the cheapest order to drain; ~ the planner's estimate (EXPLAIN, nothing run); "
        "buffers: every page of a drain; cost: the planner's cost of page 1",
    ]
    for planned in plan.paths:
        if planned.usable:
            lines += ["", *detail_lines(planned, plan)]
    refused = [p for p in plan.paths if not p.usable]
    if refused:
        lines += ["", "cannot be paged in this order:"]
        lines += [f"  {visible(p.name)}: {visible(p.why or '')}" for p in refused]
    lines += ["", *(f"note: {visible(n)}" for n in plan.notes)] if plan.notes else []
    cost = plan.cost
    lines += [
        "",
        f"the plan's own cost: {cost.calls:,} statements sent (catalog reads and EXPLAIN, "
        f"describing the table included), {cost.seconds:,.2f} s",
    ]
    return "\n".join(lines) + "\n"
