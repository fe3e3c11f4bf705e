"""A plan as a report section: the text table's rows (``words``), with the refused paths
and their reasons, and what the plan cost."""

from __future__ import annotations

from dynotui.dynamodb.plan.figures import Plan
from dynotui.dynamodb.plan.words import HEADERS, kind_words, ratio_words, row
from dynotui.report.model import TableSection


def plan_section(plan: Plan) -> TableSection:
    rows = [(*row(p, plan), ratio_words(p, plan)) for p in plan.paths if p.usable]
    rows += [
        (p.path.name, kind_words(p), *("-",) * (len(HEADERS) - 2), f"cannot serve: {p.why}")
        for p in plan.paths
        if not p.usable
    ]
    cost = plan.cost
    notes = (
        f"for {plan.query}",
        "* the cheapest path that exists; ~ estimated, a figure without ~ was measured; "
        "drain s: at the plan's measured latency / at 3,000 read units a second",
        f"the plan's own cost: {cost.calls:,} calls, {cost.read_units:,.6g} read units, "
        f"{cost.seconds:,.2f} s",
        *plan.notes,
    )
    return TableSection(
        title="Plan: every path for this query",
        header=(*HEADERS, "against the cheapest"),
        rows=tuple(rows),
        notes=notes,
    )
