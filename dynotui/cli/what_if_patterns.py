"""``dynotui what-if --patterns FILE``: one imagined index against every access pattern of
a patterns file: what it would save in reads, at each pattern's ``calls_per_day``, against
what it costs in writes (at ``--writes-per-day`` puts to the table) and storage: the net
per month, in each way of paying.

Each pattern (each value tried) is estimated by ``what-if``'s own ``WhatIf``, on its query
as ``pages`` builds it; a call of a pattern reads its ``pages`` pages. Nothing is created.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, TextIO

from dynotui.cli.options import connection_options
from dynotui.cli.output import write_line
from dynotui.core.errors import DynotuiError, InputError
from dynotui.core.figures_text import number
from dynotui.core.money import json_usd, usd
from dynotui.core.text import visible
from dynotui.patterns.model import Pattern

DAYS_PER_MONTH = Decimal(365) / 12
# what-if's flags that say the query: the patterns file says it instead.
QUERY_FLAGS = (
    "index_name",
    "key_condition_expression",
    "filter_expression",
    "projection_expression",
    "expression_attribute_names",
    "expression_attribute_values",
    "scan",
    "no_scan_index_forward",
    "consistent_read",
    "code",
)


def add_patterns_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--patterns",
        metavar="FILE",
        help="estimate the index for every pattern of a patterns file (as 'dynotui check' "
        "reads it), summed at each pattern's calls_per_day: the net per month",
    )
    group.add_argument(
        "--writes-per-day",
        metavar="N",
        help="with --patterns: puts to the table a day (each writes the index too)",
    )


def _digits(text: str | None, flag: str) -> int:
    if text is None:
        raise InputError(f"{flag} is required with --patterns: the index is written on each put")
    if not (text.isascii() and text.isdigit()) or len(text) > 15:
        raise InputError(f"{flag} takes a whole number in ASCII digits, not {text!r}")
    return int(text)


def check_flags(args: argparse.Namespace) -> int:
    given = ["--" + name.replace("_", "-") for name in QUERY_FLAGS if getattr(args, name, None)]
    if given:
        raise InputError(f"--patterns takes each query from the file: drop {', '.join(given)}")
    if getattr(args, "postgres", None) is not None or args.hypothetical_index:
        raise InputError("--patterns estimates a DynamoDB index: drop --postgres")
    return _digits(args.writes_per_day, "--writes-per-day")


def _table_of(patterns: list[Pattern], chosen: str | None) -> str:
    tables = sorted({str(p.query["table_name"]) for p in patterns if "table_name" in p.query})
    if chosen is not None:
        if chosen not in tables:
            raise InputError(f"no pattern of the file reads the table '{chosen}'")
        return chosen
    if len(tables) != 1:
        raise InputError(
            f"the patterns read {len(tables)} tables: name the index's with --table-name"
        )
    return tables[0]


def _bound(figure: Any, high: bool) -> float | None:
    """A figure's point, or the bound of its range that makes the saving smaller."""
    if figure is None:
        return None
    if isinstance(figure, (int, float)):
        return float(figure)
    chosen = figure.get("high") if high else figure.get("low")
    return float(figure["low"] if chosen is None else chosen)


def _saved_per_page(estimate: Mapping[str, Any]) -> float | None:
    """Read units a page of the pattern would save: the same matches cost the index's
    read units over the query's own (over what the estimate read), so a page that costs
    ``mean`` now costs ``mean`` times that share on the index. The bounds of a partial
    read are taken to save the least."""
    now, then = estimate["now"], estimate["what_if"]
    per_page = (now.get("read_units_per_page") or {}).get("mean")
    units_now = _bound(now.get("read_units"), high=False)
    units_then = _bound(then.get("read_units"), high=True)
    if per_page is None or units_now is None or units_then is None:
        return None
    if units_now == 0:  # nothing read today (a value with no items): nothing to save
        return 0.0
    return float(per_page * (1 - units_then / units_now))  # below 0: the index reads more


def run_patterns(args: argparse.Namespace, out: TextIO, index: Any, budget: float) -> int:
    """The estimate over the file; ``index`` and ``budget`` as what-if makes them."""
    from dynotui.cli.check_cmd import prepare
    from dynotui.cli.page_lines import spec_from_args
    from dynotui.cli.pattern_reads import pattern_error
    from dynotui.cli.price_options import prices_from_args
    from dynotui.dynamodb.connection import make_client
    from dynotui.dynamodb.schema import describe_table
    from dynotui.dynamodb.what_if.estimate import WhatIf
    from dynotui.dynamodb.what_if.prices import index_prices
    from dynotui.patterns.load import load

    writes_per_day = check_flags(args)
    reads = prices_from_args(args)
    writes = index_prices(
        write_per_million=args.price_write_million,
        wcu_hour=args.price_wcu_hour,
        storage_gb_month=args.price_storage_gb_month,
    )
    file = load(args.patterns)
    prepared = prepare(file, args)
    table = _table_of(list(file.patterns), args.table_name)
    client = make_client(connection_options(args))
    schema = describe_table(client, table)
    index.check(schema)
    rows: list[dict[str, Any]] = []
    refused: list[str] = []  # why the index cannot serve a pattern, for when it serves none
    cost_side: dict[str, Any] | None = None
    most_items = -1
    for pattern, cases in prepared:
        skipped = _skipped(pattern, table)
        if skipped:
            rows.append({"name": pattern.name, "counted": False, "why": skipped})
            continue
        savings: list[float] = []
        unserved: str | None = None
        for case, case_args in cases:
            try:
                spec = spec_from_args(
                    case_args,
                    page_size=case_args.page_size,
                    mode=case_args.mode or "raw",
                    max_rounds=case_args.max_rounds,
                )
                spec.validate(schema)
            except DynotuiError as exc:
                raise pattern_error(exc, file.path, pattern, case) from None
            try:
                found = WhatIf(
                    client,
                    spec,
                    schema,
                    index,
                    max_read_units=budget,
                    read_prices_in_force=reads,
                    index_prices_in_force=writes,
                ).run()
            except InputError as exc:  # the query is sound: the index cannot answer it
                unserved = f"the index cannot serve it: {exc}"
                refused.append(f'pattern "{pattern.name}": {exc}')
                break
            except DynotuiError as exc:
                raise pattern_error(exc, file.path, pattern, case) from None
            estimate = found.as_json()
            saving = _saved_per_page(estimate)
            if saving is None:
                raise pattern_error(
                    InputError("the endpoint reported no read units to compare"),
                    file.path,
                    pattern,
                    case,
                )
            savings.append(saving)
            if estimate["sample"]["items"] > most_items:
                most_items, cost_side = estimate["sample"]["items"], estimate["what_if"]
        if unserved is not None:
            rows.append({"name": pattern.name, "counted": False, "why": unserved})
            continue
        per_call = pattern.pages * sum(savings) / len(savings)
        calls = pattern.calls_per_day or 0.0
        rows.append(
            {
                "name": pattern.name,
                "counted": True,
                "calls_per_day": calls,
                "pages_per_call": pattern.pages,
                "read_units_saved_per_call": round(per_call, 6),
                "read_units_saved_per_month": round(per_call * calls * float(DAYS_PER_MONTH), 3),
                "why": None if pattern.calls_per_day is not None else "no calls_per_day: 0",
            }
        )
    if cost_side is None and refused:
        raise InputError(
            f"{file.path}: the imagined index serves no pattern of '{table}' "
            f"({len(refused)} tried; {refused[0]})"
        )
    if cost_side is None:
        raise InputError(f"{file.path}: no pattern is a Query or Scan of '{table}' to estimate")
    result = _net(rows, cost_side, writes_per_day, reads, writes, estimate_of=index)
    if args.json:
        write_line(out, result)
    else:
        out.write(_text(result))
    return 0


def _skipped(pattern: Pattern, table: str) -> str | None:
    if pattern.is_statement:
        return "a PartiQL statement: what-if estimates a Query or Scan"
    if pattern.query.get("table_name") != table:
        return f"reads another table ({pattern.query.get('table_name')})"
    return None


def _net(
    rows: list[dict[str, Any]],
    cost_side: Mapping[str, Any] | None,
    writes_per_day: int,
    reads: Any,
    writes: Any,
    estimate_of: Any,
) -> dict[str, Any]:
    saved_units = sum(r["read_units_saved_per_month"] for r in rows if r["counted"])
    per_put = (cost_side or {}).get("write_units_per_put") or 0.0
    write_units = per_put * writes_per_day * float(DAYS_PER_MONTH)
    storage = (cost_side or {}).get("usd_per_month_storage") or {"low": 0.0, "high": None}
    write_usd = {r.name: r.of(write_units) for r in writes.writes.rates}
    net: dict[str, Any] = {}
    for rate in reads.rates:
        saved = rate.of(saved_units)
        spent = write_usd.get(rate.name, Decimal(0))
        low = Decimal(repr(storage["low"]))
        high = None if storage["high"] is None else Decimal(repr(storage["high"]))
        net[rate.name] = {
            "reads_saved_usd": json_usd(saved),
            "writes_usd": json_usd(spent),
            "storage_usd": {"low": storage["low"], "high": storage["high"]},
            "net_usd": {
                "best": json_usd(saved - spent - low),
                "worst": None if high is None else json_usd(saved - spent - high),
            },
        }
    return {
        "index": estimate_of.index_name,
        "patterns": rows,
        "read_units_saved_per_month": round(saved_units, 3),
        "writes_per_day": writes_per_day,
        "write_units_per_put": per_put,
        "write_units_per_month": round(write_units, 3),
        "per_month": net,
        "days_per_month": float(DAYS_PER_MONTH),
        "estimated": True,
    }


def _text(result: Mapping[str, Any]) -> str:
    lines = [f"The imagined index {visible(result['index'])}, over the patterns (estimated):"]
    for row in result["patterns"]:
        name = visible(row["name"])
        if not row["counted"]:
            lines.append(f"  {name}: not counted, {visible(row['why'])}")
            continue
        lines.append(
            f"  {name}: {_short(row['read_units_saved_per_call'])} read units saved a call, "
            f"{number(row['calls_per_day'])} calls a day: "
            f"{_short(row['read_units_saved_per_month'])} a month"
            + (f" ({row['why']})" if row["why"] else "")
        )
    lines.append(
        f"Writes: {_short(result['write_units_per_put'])} write units a put, "
        f"{result['writes_per_day']:,} puts a day: {_short(result['write_units_per_month'])} "
        "a month."
    )
    for name, money in result["per_month"].items():
        best, worst = money["net_usd"]["best"], money["net_usd"]["worst"]
        shown = _usd(best) if worst is None or worst == best else f"{_usd(worst)} to {_usd(best)}"
        lines.append(
            f"Net per month, {name}: {shown} (reads saved {_usd(money['reads_saved_usd'])}, "
            f"writes {_usd(money['writes_usd'])}, storage {_usd(money['storage_usd']['low'])}"
            + (
                ""
                if money["storage_usd"]["high"] in (None, money["storage_usd"]["low"])
                else f" to {_usd(money['storage_usd']['high'])}"
            )
            + ")"
        )
    return "\n".join(lines) + "\n"


def _short(value: float) -> str:
    """Four significant digits: an estimate says no more (the JSON keeps them all)."""
    return number(float(f"{value:.4g}"))


def _usd(amount: float) -> str:
    value = Decimal(repr(amount))
    return f"-{usd(-value)}" if value < 0 else usd(value)
