"""``dynotui plan --postgres``: a filter's matches in each of the table's orders, costed by
the server's planner (EXPLAIN, never ANALYZE), with the flags of ``pages --postgres``."""

from __future__ import annotations

import argparse
import time
from typing import TextIO

from dynotui.cli.output import write_line
from dynotui.core.errors import InputError

# plan's DynamoDB-only flags, with the value that means "not given".
PLAN_DYNAMODB_FLAGS = (
    ("from_export", None, "--from-export"),
    ("segments", 1, "--segments"),
    ("no_imagined", False, "--no-imagined"),
    ("consistent_read", False, "--consistent-read"),
    ("no_scan_index_forward", False, "--no-scan-index-forward"),
    ("expression_attribute_names", None, "--expression-attribute-names"),
)


def check_flags(args: argparse.Namespace, default_read_units: float) -> None:
    """Refuse DynamoDB's flags by name (``default_read_units``: --max-read-units unset)."""
    from dynotui.cli.pages_cmd import check_no_prices
    from dynotui.cli.postgres_options import check_no_dynamodb_flags
    from dynotui.dynamodb.spec import DEFAULT_MAX_ROUNDS
    from dynotui.postgres.plan.planner import refuse_offset

    check_no_dynamodb_flags(args)
    check_no_prices(args)
    given = [flag for name, unset, flag in PLAN_DYNAMODB_FLAGS if getattr(args, name) != unset]
    if args.max_read_units != default_read_units:
        given.append("--max-read-units")
    if args.max_rounds not in (None, DEFAULT_MAX_ROUNDS):  # None: not given
        given.append("--max-rounds")
    if args.mode in ("raw", "fill"):
        given.append(f"--mode {args.mode}")
    if given:
        raise InputError(f"--postgres plans PostgreSQL: drop {', '.join(given)}")
    refuse_offset(args.mode)
    if not args.table or not args.table.strip():
        raise InputError("--table is required with --postgres: name the table to plan")


def run_postgres(args: argparse.Namespace, out: TextIO, default_read_units: float) -> int:
    from dynotui.cli.postgres_options import connect_from_args
    from dynotui.dynamodb.spec import DEFAULT_PAGE_SIZE  # the page size pages takes too
    from dynotui.postgres.plan.planner import CountingSession, make_plan
    from dynotui.postgres.plan.words import plan_text
    from dynotui.postgres.schema import describe_table
    from dynotui.postgres.sql import parse_params

    check_flags(args, default_read_units)
    params = parse_params(args.params)
    columns = tuple(c.strip() for c in (args.columns or "").split(",") if c.strip())
    began = time.perf_counter()
    session = connect_from_args(args)
    try:
        counting = CountingSession(session)
        table = describe_table(counting, args.table)
        asked = None
        if args.order:
            asked = table.order(args.order)
            asked = asked.reversed() if args.reverse else asked
        plan = make_plan(
            session,
            table,
            where=args.where,
            params=params,
            projection=columns,
            page_size=DEFAULT_PAGE_SIZE if args.page_size is None else args.page_size,
            asked=asked,
            reverse=bool(args.reverse),
            calls=counting.calls,  # describing the table
            began=began,
        )
    finally:
        session.close()
    if args.json:
        write_line(out, plan.as_json())
    else:
        out.write(plan_text(plan))
    return 0
