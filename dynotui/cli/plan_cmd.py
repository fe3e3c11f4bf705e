"""``dynotui plan``: every path that answers a query, costed side by side before it is read.

The query is written as for ``dynotui pages`` (on any one order); the plan lists the base
table, each LSI and GSI with the query rewritten onto its keys, a Scan, an export
(``--from-export``) and the advisor's imagined index, each with its pages, matches, read
units, money per million page views and drain time, marked estimated or measured; the
cheapest named; the plan's own cost last. Bad input exits 2 with one line.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from typing import Any, TextIO

from dynotui.cli.options import HelpFormatter, add_connection_options, connection_options
from dynotui.cli.output import write_line
from dynotui.cli.page_lines import spec_from_args
from dynotui.cli.pages_cmd import add_query_options
from dynotui.cli.price_options import add_price_options, prices_from_args
from dynotui.core.errors import InputError
from dynotui.dynamodb.spec import (
    DEFAULT_MAX_ROUNDS,
    DEFAULT_PAGE_SIZE,
    MAX_ROUNDS_LIMIT,
    PAGE_SIZE_MAX,
)

DEFAULT_MAX_READ_UNITS = 1000
MAX_SEGMENTS = 64  # as dynotui pages --segments
_COUNT = re.compile(r"[0-9]{1,9}")
_UNITS = re.compile(r"[0-9]{1,12}(\.[0-9]{1,6})?")


def count(text: str) -> int:
    """A whole number in ASCII digits (no sign, no '_', no other script's digits)."""
    if not _COUNT.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number in digits 0-9")
    return int(text)


def read_units(text: str) -> float:
    if not _UNITS.fullmatch(text) or float(text) <= 0:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of read units above 0 (digits 0-9, one '.' at most)"
        )
    return float(text)


def register(sub: Any, help_text: str) -> None:
    parser = sub.add_parser(
        "plan",
        help=help_text,
        formatter_class=HelpFormatter,
        description=(
            "Every path that answers a query, costed side by side before it is read: the "
            "base table, each LSI and GSI with the query rewritten onto its keys, a Scan, an "
            "export (--from-export) and the index the advisor would add; for each its key "
            "condition and filter, order, pages, matches, read units (per page p50 and "
            "p99), money per million page views and drain time, each figure marked "
            "estimated or measured; paths that cannot serve say why; the cheapest is named. "
            "It reads at most --max-read-units (bounded reads of the paths, cheapest first) "
            "and never Scans the table unless no Query serves; its own cost is printed."
        ),
    )
    add_query_options(parser)
    paging = parser.add_argument_group("paging (as in 'dynotui pages')")
    paging.add_argument(
        "--page-size", type=count, default=DEFAULT_PAGE_SIZE, help=f"1 to {PAGE_SIZE_MAX}"
    )
    paging.add_argument("--mode", choices=("raw", "fill"), default="raw")
    paging.add_argument(
        "--max-rounds",
        type=count,
        default=DEFAULT_MAX_ROUNDS,
        help=f"fill mode: calls per page at most (1 to {MAX_ROUNDS_LIMIT})",
    )
    planning = parser.add_argument_group("planning")
    planning.add_argument(
        "--max-read-units",
        type=read_units,
        default=float(DEFAULT_MAX_READ_UNITS),
        metavar="N",
        help="the plan reads at most this many read units (a call is never cut); with a "
        "Query path it also stops at half the cheapest possible Scan of the table",
    )
    planning.add_argument(
        "--segments",
        type=count,
        default=1,
        metavar="N",
        help=f"the Scan path's time as a parallel Scan in N segments (1 to {MAX_SEGMENTS})",
    )
    planning.add_argument(
        "--from-export",
        metavar="PATH",
        help="a DynamoDB table export (folder or s3://) as one more path: read here, with "
        "no read units, as the table was at its export time",
    )
    planning.add_argument(
        "--no-imagined", action="store_true", help="leave out the index the advisor would add"
    )
    planning.add_argument("--json", action="store_true", help="one JSON object")
    add_price_options(parser)
    add_connection_options(parser)
    parser.set_defaults(run=run)


def check_args(args: argparse.Namespace) -> None:
    if not 1 <= args.segments <= MAX_SEGMENTS:
        raise InputError(f"--segments must be 1 to {MAX_SEGMENTS}, got {args.segments}")


def export_facts(args: argparse.Namespace, spec: Any, schema: Any) -> Any:
    """The export read for the query's matches (DuckDB, no read units)."""
    from dynotui.cli.table_export_options import open_export
    from dynotui.dynamodb.plan.planner import ExportFacts
    from dynotui.table_export.count import count_export
    from dynotui.table_export.keys import as_exported

    opened = open_export(args)
    export = opened.export
    if export.table_name != spec.table:
        raise InputError(
            f"--from-export holds table '{export.table_name}', not '{spec.table}': plan the "
            "table the export was taken of"
        )
    counted = count_export(opened, spec, as_exported(schema, export.item_count, export.export_time))
    return ExportFacts(
        matches=counted.count,
        items=counted.scanned,
        seconds=counted.seconds,
        export_time=export.export_time,
    )


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out  # at the call: in-process callers redirect it
    from dynotui.dynamodb.connection import make_client
    from dynotui.dynamodb.errors import translate
    from dynotui.dynamodb.plan.planner import Planner
    from dynotui.dynamodb.plan.words import plan_text
    from dynotui.dynamodb.schema import parse_schema

    check_args(args)
    prices = prices_from_args(args)
    spec = spec_from_args(
        args, page_size=args.page_size, mode=args.mode, max_rounds=args.max_rounds
    )
    spec.check_options()
    client = make_client(connection_options(args))
    began = time.perf_counter()
    try:
        described = client.describe_table(TableName=spec.table)["Table"]
    except Exception as exc:
        raise translate(exc, table=spec.table) from exc
    schema = parse_schema(described)
    spec.validate(schema)
    facts = export_facts(args, spec, schema) if args.from_export else None
    planner = Planner(
        client,
        spec,
        described=described,
        max_read_units=args.max_read_units,
        segments=args.segments,
        export=facts,
        imagine=not args.no_imagined,
        prices=prices,
        began=began,
        describe_calls=1,  # the DescribeTable above is the plan's
    )
    plan = planner.run()
    if args.json:
        write_line(out, plan.as_json())
    else:
        out.write(plan_text(plan))
    return 0
