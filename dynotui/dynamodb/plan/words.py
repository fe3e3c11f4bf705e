"""A plan as text: one table of the paths side by side, then each path's query and what its
figures rest on, then the refused paths with their reasons, then the plan's own cost.

Every figure carries its mark: ``~`` estimated, none measured. Text from the table (names,
values) is made visible here (``core.text.visible``): nothing in it acts on a terminal.
"""

from __future__ import annotations

from dynotui.core.money import estimate, per_page_views, usd
from dynotui.core.text import visible
from dynotui.dynamodb.plan.figures import Plan, PlannedPath
from dynotui.dynamodb.what_if.figures import Figure, short_number

HEADERS = ("path", "kind", "pages", "matches", "read units", "p50/p99", "$/M views", "drain s")


def mark(planned: PlannedPath, name: str) -> str:
    figures = planned.figures
    return "" if figures is not None and name in figures.measured else "~"


def figure(planned: PlannedPath, name: str, value: Figure) -> str:
    return mark(planned, name) + value.text()


def kind_words(planned: PlannedPath) -> str:
    path = planned.path
    if path.kind == "export":
        return "export"
    if path.kind == "imagined":
        return "GSI to build"
    order = path.order
    where = "" if order is None or order.kind == "table" else f" {order.kind.upper()}"
    return f"{path.kind}{where}"


def money(planned: PlannedPath, plan: Plan) -> str:
    figures = planned.figures
    assert figures is not None
    found = estimate(plan.prices, "per million page views", per_page_views(figures.mean_per_page))
    if not found.amounts:
        return "-"
    return "~" + usd(found.amounts[0][1])


def drain_seconds(planned: PlannedPath) -> str:
    figures = planned.figures
    assert figures is not None
    latency = figures.seconds_at_latency
    at = "-" if latency is None else f"{mark(planned, 'seconds')}{latency.text()}"
    if planned.path.kind == "export":
        return f"{at} / -"  # read from its files: no partition's ceiling
    return f"{at} / ~{figures.seconds_at_ceiling.text()}"


def row(planned: PlannedPath, plan: Plan) -> tuple[str, ...]:
    name = visible(planned.path.name)
    if planned.path.name == plan.cheapest:
        name = "* " + name
    figures = planned.figures
    if figures is None:
        return (name, kind_words(planned), "-", "-", "-", "-", "-", "-")
    if planned.path.kind == "export":
        # Read in one pass from its files: no pages, no units or money a page, no
        # partition's ceiling; its drain is the time the reading took ("pages 0", "~0/0").
        matches = figure(planned, "matches", figures.matches)
        return (name, kind_words(planned), "-", matches, "0", "-", "$0", drain_seconds(planned))
    per_page = "-"
    if figures.p50 is not None and figures.p99 is not None:
        per_page = (
            f"{mark(planned, 'read_units_per_page')}"
            f"{short_number(figures.p50)}/{short_number(figures.p99)}"
        )
    return (
        name,
        kind_words(planned),
        figure(planned, "pages", figures.pages),
        figure(planned, "matches", figures.matches),
        figure(planned, "read_units", figures.read_units),
        per_page,
        money(planned, plan),
        drain_seconds(planned),
    )


def ratio_words(planned: PlannedPath, plan: Plan) -> str:
    if planned.path.name == plan.cheapest:
        return "the cheapest"
    if planned.path.kind == "export":
        return "no read units: its files, as they were exported"  # not "0x the cheapest's"
    if planned.ratio is None:
        return "no ratio"
    return f"{planned.ratio.text()}x the cheapest's read units"


def table_lines(plan: Plan) -> list[str]:
    usable = [p for p in plan.paths if p.usable]
    rows = [HEADERS, *(row(p, plan) for p in usable)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS))]
    return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)).rstrip() for r in rows]


def plan_text(plan: Plan) -> str:
    lines = [f"plan: {visible(plan.query)}", ""]
    lines += table_lines(plan)
    lines += [
        "",
        "* the cheapest path that exists; ~ estimated, a figure without ~ was measured; "
        "drain s: at the plan's measured latency / at 3,000 read units a second "
        "(a partition's ceiling)",
    ]
    for planned in plan.paths:
        if not planned.usable:
            continue
        lines += [
            "",
            f"{visible(planned.path.name)} ({kind_words(planned)}): {ratio_words(planned, plan)}",
        ]
        key, filter_text = planned.key_text(), planned.filter_text()
        if planned.path.kind != "export":
            lines.append(f"  key condition: {visible(key) if key else 'none (a Scan)'}")
        lines.append(f"  filter: {visible(filter_text) if filter_text else 'none'}")
        lines.append(f"  order: {planned.path.order_words()}")
        if planned.figures is not None:
            lines.append(f"  rests on: {visible(planned.figures.basis)}")
        if planned.why:
            lines.append(f"  note: {visible(planned.why)}")
        lines += [f"  note: {visible(n)}" for n in planned.path.notes]
    refused = [p for p in plan.paths if not p.usable]
    if refused:
        lines += ["", "cannot serve this query:"]
        lines += [
            f"  {visible(p.path.name)} ({kind_words(p)}): {visible(p.why or '')}" for p in refused
        ]
    lines += ["", *(f"note: {visible(n)}" for n in plan.notes)] if plan.notes else []
    cost = plan.cost
    lines += [
        "",
        f"the plan's own cost: {cost.calls:,} calls, {short_number(cost.read_units)} read units, "
        f"{cost.seconds:,.2f} s",
    ]
    return "\n".join(lines) + "\n"
