"""``dynotui plan --patterns FILE``: every access pattern of a patterns file planned, and
which ones a cheaper path would serve, with what moving would save a month.

Each pattern (each value tried) is built as ``pages`` builds it (``check_cmd.prepare``:
the file and every query checked before anything is read), then planned by ``plan``'s own
``Planner``. Its path today is the order its query is written on; the plan's cheapest is
the cheapest path that exists (an imagined index is what-if's question). The saving is a
call's (``moving.saved_per_call``) at the pattern's ``calls_per_day``, over 365/12 days.
``--max-read-units`` holds the whole run: each plan reads at most what the plans before it
left; a pattern left without any is listed as not planned.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TextIO

from dynotui.cli.options import connection_options
from dynotui.cli.output import write_line
from dynotui.core.errors import DynotuiError, InputError
from dynotui.core.figures_text import number
from dynotui.core.money import PriceList, json_usd, usd
from dynotui.core.text import visible
from dynotui.dynamodb.what_if.figures import Figure

if TYPE_CHECKING:
    from dynotui.dynamodb.plan.figures import Plan
    from dynotui.dynamodb.spec import QuerySpec

DAYS_PER_MONTH = Decimal(365) / 12
# plan's flags that say one query: the patterns file says each instead.
QUERY_FLAGS = (
    "table_name",
    "index_name",
    "key_condition_expression",
    "filter_expression",
    "projection_expression",
    "expression_attribute_names",
    "expression_attribute_values",
    "no_scan_index_forward",
    "consistent_read",
    "scan",
    "page_size",
    "mode",
    "max_rounds",
    "from_export",
)
STATEMENT = "a PartiQL statement (plan plans a Query or Scan)"


def check_flags(args: argparse.Namespace) -> None:
    given = [
        "--" + name.replace("_", "-")
        for name in QUERY_FLAGS
        if getattr(args, name, None) not in (None, False)
    ]
    if given:
        raise InputError(f"--patterns takes each query from the file: drop {', '.join(given)}")


def _figure_json(figure: Figure | None, digits: int = 6) -> Any:
    return None if figure is None else figure.as_json(digits)


def _usd_json(prices: PriceList, figure: Figure) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for rate in prices.rates:
        low = json_usd(rate.of(figure.low))
        high = None if figure.high is None else json_usd(rate.of(figure.high))
        found[rate.name] = low if high == low else {"low": low, "high": high}
    return found


def _mean(figures: list[Figure]) -> Figure:
    low = sum(f.low for f in figures) / len(figures)
    highs = [f.high for f in figures]
    high = (
        None
        if any(h is None for h in highs)
        else sum(h for h in highs if h is not None) / len(highs)
    )
    return Figure.exact(low) if high == low else Figure(low, high)


class Run:
    """The plans of one file, within one budget of read units."""

    def __init__(self, args: argparse.Namespace) -> None:
        from dynotui.cli.price_options import prices_from_args
        from dynotui.dynamodb.connection import make_client

        self.args = args
        self.prices = prices_from_args(args)
        self.client = make_client(connection_options(args))
        self.cap = float(args.max_read_units)
        self.spent = 0.0
        self.calls = 0
        self.described: dict[str, dict[str, Any]] = {}
        self.stopped_by: str | None = None

    def describe(self, table: str) -> dict[str, Any]:
        from dynotui.dynamodb.errors import translate

        if table not in self.described:
            try:
                self.described[table] = self.client.describe_table(TableName=table)["Table"]
            except Exception as exc:
                raise translate(exc, table=table) from exc
            self.calls += 1
        return self.described[table]

    def plan(self, spec: QuerySpec) -> Plan:
        from dynotui.dynamodb.plan.planner import Planner

        planner = Planner(
            self.client,
            spec,
            described=self.describe(spec.table),
            max_read_units=self.cap - self.spent,
            segments=self.args.segments,
            imagine=not self.args.no_imagined,
            prices=self.prices,
        )
        found = planner.run()
        self.spent += found.cost.read_units
        self.calls += found.cost.calls
        return found


def _specs(file: Any, prepared: list[Any], run: Run) -> list[tuple[Any, list[Any]]]:
    """Each pattern's specs by value tried, validated against its table (DescribeTable,
    no item read) before any plan reads; a statement has none."""
    from dynotui.cli.page_lines import spec_from_args
    from dynotui.cli.pattern_reads import pattern_error
    from dynotui.dynamodb.schema import parse_schema

    found = []
    for pattern, cases in prepared:
        specs = []
        if not pattern.is_statement:
            for case, case_args in cases:
                try:
                    spec = spec_from_args(
                        case_args,
                        page_size=case_args.page_size,
                        mode=case_args.mode or "raw",
                        max_rounds=case_args.max_rounds,
                    )
                    spec.validate(parse_schema(run.describe(spec.table)))
                except DynotuiError as exc:
                    raise pattern_error(exc, file.path, pattern, case) from None
                specs.append((case, spec))
        found.append((pattern, specs))
    return found


def _pattern_json(
    pattern: Any, specs: list[Any], run: Run, file: Any
) -> tuple[dict[str, Any], list[Any]]:
    """The pattern's row of the JSON, and its plans (one per value tried) for the text."""
    from dynotui.cli.pattern_reads import pattern_error
    from dynotui.dynamodb.plan.moving import move, today_name

    row: dict[str, Any] = {
        "name": pattern.name,
        "planned": False,
        "why": None,
        "calls_per_day": pattern.calls_per_day,
        "pages_per_call": pattern.pages,
        "today": today_name(specs[0][1]) if specs else None,
        "cheapest": [],
        "moves": False,
        "read_units_saved_per_call": None,
        "read_units_saved_per_month": None,
        "usd_saved_per_month": None,
        "cases": [],
    }
    plans: list[Any] = []
    if pattern.is_statement:
        row["why"] = STATEMENT
        return row, plans
    savings: list[Figure] = []
    unknown: str | None = None
    for case, spec in specs:
        if run.spent >= run.cap:
            run.stopped_by = "max-read-units"
            row["why"] = f"the run's --max-read-units ({run.cap:g}) was spent before it"
            return row, plans
        try:
            plan = run.plan(spec)
        except DynotuiError as exc:
            raise pattern_error(exc, file.path, pattern, case) from None
        if plan.stopped_by is not None and run.spent >= run.cap:
            run.stopped_by = plan.stopped_by
        moved = move(spec, plan, pattern.pages)
        plans.append(plan)
        row["cases"].append(
            {
                "values": case.label,
                "today": moved.today,
                "cheapest": moved.cheapest,
                "moves": moved.moves,
                "read_units_saved_per_call": _figure_json(moved.saved_per_call),
                "why": moved.why,
                "plan": plan.as_json(),
            }
        )
        if moved.cheapest is not None and moved.cheapest not in row["cheapest"]:
            row["cheapest"].append(moved.cheapest)
        row["moves"] = row["moves"] or moved.moves
        if moved.saved_per_call is None:
            unknown = unknown or moved.why
        else:
            savings.append(moved.saved_per_call)
    row["planned"] = True
    if unknown is not None:
        row["why"] = f"no saving worked out: {unknown}"
        return row, plans
    per_call = _mean(savings)
    row["read_units_saved_per_call"] = per_call.as_json()
    if pattern.calls_per_day is None:
        row["why"] = "no calls_per_day: no saving a month"
        return row, plans
    month = per_call.scaled(pattern.calls_per_day * float(DAYS_PER_MONTH))
    row["read_units_saved_per_month"] = month.as_json()
    row["usd_saved_per_month"] = _usd_json(run.prices, month)
    return row, plans


def run_patterns(args: argparse.Namespace, out: TextIO) -> int:
    from dynotui.cli.check_cmd import prepare
    from dynotui.patterns.load import load

    check_flags(args)
    began = time.perf_counter()
    file = load(args.patterns)
    prepared = prepare(file, args)
    run = Run(args)
    specs = _specs(file, prepared, run)
    planned = [_pattern_json(pattern, cases, run, file) for pattern, cases in specs]
    rows = [row for row, _ in planned]
    result = {
        "file": file.path,
        "patterns": rows,
        "moves": [r["name"] for r in rows if r["moves"]],
        "cost": {
            "read_units": round(run.spent, 6),
            "calls": run.calls,
            "seconds": round(time.perf_counter() - began, 3),
        },
        "max_read_units": run.cap,
        "stopped_by": run.stopped_by,
        "days_per_month": float(DAYS_PER_MONTH),
        "prices": run.prices.as_json(),
    }
    if args.json:
        write_line(out, result)
    else:
        out.write(patterns_text(result, [plans for _, plans in planned]))
    return 0


def _short(figure: Any, unit: str = "") -> str:
    if isinstance(figure, Mapping):
        return Figure(figure["low"], figure["high"]).text(unit)
    return Figure.exact(float(figure)).text(unit)


def _money(found: Mapping[str, Any]) -> str:
    parts = []
    for name, amount in found.items():
        if isinstance(amount, Mapping):
            high = amount["high"]
            shown = f"{_usd(amount['low'])} to {'?' if high is None else _usd(high)}"
        else:
            shown = _usd(amount)
        parts.append(f"{shown} {name}")
    return ", ".join(parts)


def _usd(amount: float) -> str:
    value = Decimal(repr(amount))
    return f"-{usd(-value)}" if value < 0 else usd(value)


def patterns_text(result: Mapping[str, Any], plans: list[list[Any]]) -> str:
    """One table per pattern (each value tried), then the patterns a cheaper path would
    serve, then what the run itself cost. ``plans``: each pattern's, by value tried."""
    from dynotui.dynamodb.plan.words import table_lines

    lines = [
        f"plan --patterns {visible(result['file'])}",
        "(* the cheapest path that exists; ~ estimated, a figure without ~ was measured)",
    ]
    for row, found in zip(result["patterns"], plans, strict=True):
        name = visible(row["name"])
        lines.append("")
        if not row["cases"]:
            lines.append(f"{name}: not planned, {visible(row['why'] or '')}")
            continue
        for case, plan in zip(row["cases"], found, strict=True):
            tried = f" [{visible(case['values'])}]" if case["values"] else ""
            lines.append(f"{name}{tried}: {visible(plan.query)}")
            lines += table_lines(plan)  # as plan prints it, unindented: 80 columns
            lines.append(
                f"  today: {visible(case['today'])}; cheapest: {visible(case['cheapest'] or '-')}"
                + (f" ({visible(case['why'])})" if case["why"] else "")
            )
    lines += ["", *summary_lines(result)]
    cost = result["cost"]
    lines += [
        "",
        f"the run's own cost: {cost['calls']:,} calls, {_short(cost['read_units'])} read units, "
        f"{cost['seconds']:,.2f} s",
    ]
    return "\n".join(lines) + "\n"


def summary_lines(result: Mapping[str, Any]) -> list[str]:
    """The patterns a cheaper path would serve, each on a few short lines (80 columns)."""
    rows = result["patterns"]
    moving = [r for r in rows if r["moves"]]
    planned = [r for r in rows if r["planned"]]
    left = [r for r in rows if not r["planned"]]
    not_planned = [f"  not planned: {visible(r['name'])}: {visible(r['why'] or '')}" for r in left]
    stopped = (
        ["  the run stopped at --max-read-units: a plan it cut short gives ranges"]
        if result["stopped_by"]
        else []
    )
    if not moving:
        head = f"Every pattern planned ({len(planned)} of {len(rows)}) uses its cheapest path."
        return [head, *not_planned, *stopped]
    lines = [f"{len(moving)} of {len(rows)} patterns would read less on another path:"]
    for row in moving:
        lines.append(
            f"  {visible(row['name'])}: today {visible(row['today'] or '-')}, cheapest "
            f"{', '.join(visible(c) for c in row['cheapest'])}"
        )
        saved = row["read_units_saved_per_call"]
        if saved is None:
            lines.append(f"    {visible(row['why'] or '')}")
            continue
        lines.append(f"    saves {_short(saved, 'read units')} a call")
        if row["read_units_saved_per_month"] is None:
            lines[-1] += f" ({visible(row['why'] or '')})"
            continue
        lines[-1] += (
            f"; {_short(row['read_units_saved_per_month'])} a month at "
            f"{number(row['calls_per_day'])} calls a day"
        )
        lines.append(f"    saves {_money(row['usd_saved_per_month'])} a month (estimated)")
    return [*lines, *not_planned, *stopped]
