"""A DynamoDB plan as the generic plan screen shows it (``ui/screens/plan.py``): its
columns, one row a path (the cheapest starred, every estimated figure marked ``~``), the
highlighted path's query and what its figures rest on, and how the plan is made: off the
UI thread, stoppable at any call (Esc: the plan of what was read).

The cells are ``plan.words``' (the terminal's ``dynotui plan`` and the report say the
same); ``c`` copies the plan as ``dynotui plan --json`` prints it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import error_words
from dynotui.core.figures_text import number
from dynotui.core.money import PriceList
from dynotui.dynamodb.plan.figures import Plan, PlannedPath
from dynotui.dynamodb.plan.planner import Progress
from dynotui.dynamodb.plan.words import drain_seconds, kind_words, ratio_words, row
from dynotui.ui.dynamodb.plan_run import PlanBroken, PlanMade, run
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.screens.plan import PlanAsk, PlanColumn, PlanFailed, PlanRow, PlanShown

# What decides first, so 80 columns show it: the path, its read units, against the cheapest.
COLUMNS = (
    PlanColumn("path"),
    PlanColumn("read units", "RCU"),
    PlanColumn("vs cheapest"),
    PlanColumn("matches"),
    PlanColumn("pages"),
    PlanColumn("p50/p99"),
    PlanColumn("$/M views", "$/M"),
    PlanColumn("drain s", in_detail=True),
    PlanColumn("kind", in_detail=True),
)
HINT = "* cheapest · + marked · ~ estimated (a figure without ~ was measured)"

DynamoPlanAsk = PlanAsk[Plan, PlanMade | PlanBroken]


def detail(planned: PlannedPath, plan: Plan) -> tuple[str, ...]:
    """The highlighted path in words: its query, order, basis and reason."""
    path = planned.path
    lines = [f"{path.name} ({kind_words(planned)}): {ratio_words(planned, plan)}"]
    if not planned.usable:
        lines.append(f"cannot serve this query: {planned.why}")
        return tuple(lines)
    if path.kind != "export":
        lines.append(f"key condition: {planned.key_text() or 'none (a Scan)'}")
    lines.append(f"filter: {planned.filter_text() or 'none'} · order: {path.order_words()}")
    if planned.figures is not None:
        # The "drain s" column holds two figures and says what they are nowhere.
        if path.kind == "export":
            lines.append(f"drain: {drain_seconds(planned)} s: the time reading its files took")
        else:
            lines.append(
                f"drain: {drain_seconds(planned)} s, at the plan's measured latency / at "
                "3,000 read units a second (a partition's ceiling)"
            )
        lines.append(f"rests on: {planned.figures.basis}")
    if planned.why:
        lines.append(f"note: {planned.why}")
    return tuple(lines)


def path_row(planned: PlannedPath, plan: Plan) -> PlanRow:
    _, kind, pages, matches, units, per_page, money, drain = row(planned, plan)
    vs = ratio_words(planned, plan) if planned.usable else "cannot serve"
    vs = vs.replace("x the cheapest's read units", "x").replace("the cheapest", "cheapest")
    if planned.usable and planned.path.kind == "export":
        vs = "no units"
    name = planned.path.name
    cells = (name, units, vs, matches, pages, per_page, money, drain, kind)
    return PlanRow(name, cells, planned.usable, detail(planned, plan))


def shown(plan: Plan, stopped: bool) -> PlanShown[Plan]:
    cost = plan.cost
    said = "Stopped by Esc" if stopped else "Done"
    return PlanShown(
        plan,
        f"{said}: the plan read {cost.calls:,} calls, {number(cost.read_units)} RCU; "
        f"cheapest: {plan.cheapest or 'none'}",
        plan.cheapest,
        tuple(path_row(planned, plan) for planned in plan.paths),
        json.dumps(plan.as_json(), ensure_ascii=False),
        warn=stopped or plan.stopped_by is not None,
    )


def step_words(step: Progress) -> str:
    return (
        f"Reading {step.path or 'the paths'}: {step.calls} calls · "
        f"{number(step.read_units)} of {number(step.budget)} RCU so far · Esc stops"
    )


def plan_ask(
    client: object,
    query: DynamoQuery,
    prices: PriceList | None,
    *,
    finished: Callable[[PlanMade | PlanBroken], None],
    copy: Callable[[str, str], None],
    clock: Callable[[], float],
    plan: Plan | None = None,
) -> DynamoPlanAsk:
    """``plan``: one made before (shown at once, nothing read); else one is made.
    ``finished`` hears how every run ends (all are billed)."""
    spec = query.spec

    def make(report: Callable[[str], None], token: CancelToken) -> PlanMade | PlanBroken:
        return run(client, spec, prices, token, lambda step: report(step_words(step)), clock)

    def ended(result: PlanMade | PlanBroken) -> PlanShown[Plan] | PlanFailed:
        finished(result)
        if isinstance(result, PlanBroken):
            return PlanFailed(
                f"The plan failed: {error_words(result.error)} — the "
                f"{number(result.cost.headline or 0.0)} RCU it had read are billed to the "
                "session."
            )
        return shown(result.plan, result.stopped)

    return PlanAsk(
        title="Plan: every path that answers this query",
        asked=f"{query.conditions_text()} on {query.table}",
        starting="Starting…",
        columns=COLUMNS,
        hint=HINT,
        copy_what="the plan (JSON, as dynotui plan --json prints it)",
        mark_first="Mark two paths with space first.",
        copy=copy,
        make=make,
        ended=ended,
        made=None if plan is None else shown(plan, stopped=False),
        stoppable=True,
    )
