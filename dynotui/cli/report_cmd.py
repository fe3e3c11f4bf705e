"""``dynotui report``: page through a query as ``pages`` does, then write what it cost as one
self-contained HTML file and the same content as Markdown."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from typing import Any, TextIO

from dynotui.cli.number_flags import seconds, whole
from dynotui.cli.options import HelpFormatter, add_connection_options, connection_options
from dynotui.cli.output import write_line
from dynotui.cli.page_lines import check_paging, spec_from_args
from dynotui.cli.pages_cmd import (
    add_paging_options,
    add_query_options,
    add_statement_options,
    check_no_prices,
)
from dynotui.cli.postgres_options import add_postgres_options
from dynotui.cli.price_options import add_price_options, prices_from_args
from dynotui.cli.report_reading import limits, output_paths, read_pages, start_of
from dynotui.cli.summary import summary_json
from dynotui.cli.table_export_options import add_export_options, refuse_export_flags
from dynotui.cli.table_export_options import run_report as run_export_report
from dynotui.core.cursor import CursorSigner
from dynotui.core.errors import InputError
from dynotui.core.ledger import SessionLedger
from dynotui.core.pager import Pager
from dynotui.core.source import Source
from dynotui.report.files import write_atomically
from dynotui.report.html import render_html
from dynotui.report.markdown import render_markdown
from dynotui.report.model import Report

DEFAULT_OUTPUT = "dynotui-report"


def register(sub: Any, help_text: str) -> None:
    parser = sub.add_parser(
        "report",
        help=help_text,
        formatter_class=HelpFormatter,
        description=(
            "Read pages as 'dynotui pages' does (the same flags), then write OUTPUT.html (one "
            "self-contained file: inline SVG charts, no script, nothing fetched) and OUTPUT.md "
            "(the same content): the connection (no secrets), the query and its scope, the "
            "ledger of every page, charts of capacity and waste per page, the five measures, "
            "the advisor's findings, a price estimate, and the code for page 1 and page k. "
            "Prints one JSON line: the two paths and each side's summary."
        ),
    )
    add_query_options(parser)
    add_statement_options(parser)
    add_paging_options(parser)
    group = parser.add_argument_group("report")
    group.add_argument(
        "--pages", type=whole, metavar="N", help="read at most N pages (default: all)"
    )
    group.add_argument(
        "--max-capacity",
        type=seconds,
        metavar="X",
        help="stop before the next page once the pages read spent X units (RCU, or buffers); "
        "a page is never cut, so the total may pass X by one page",
    )
    group.add_argument(
        "--output",
        default=DEFAULT_OUTPUT,
        metavar="PATH",
        help="write PATH.html and PATH.md",
    )
    group.add_argument(
        "--code-page",
        type=whole,
        metavar="K",
        help="code for page 1 and page K (default: the last)",
    )
    group.add_argument("--title", help="the report's title")
    group.add_argument(
        "--what-if",
        metavar="PATH",
        help="include an estimate saved from 'dynotui what-if --json' (the same table): an "
        "index that does not exist, now against what-if, and the code that would create it",
    )
    group.add_argument(
        "--plan",
        action="store_true",
        help="include the query's plan, as 'dynotui plan' makes it: every path (table, "
        "indexes, Scan, the advisor's index) costed side by side; its reads (at most 1,000 "
        "read units) are in the session's figures",
    )
    compare = parser.add_argument_group(
        "compare (a second side, on the same values; DynamoDB: another order, PostgreSQL: "
        "another mode)"
    )
    compare.add_argument("--compare-index-name", metavar="INDEX", help="'' for the base table")
    compare.add_argument("--compare-key-condition-expression", metavar="EXPRESSION")
    compare.add_argument("--compare-filter-expression", metavar="EXPRESSION")
    compare.add_argument("--compare-mode", choices=("raw", "fill", "keyset", "offset"))
    add_price_options(parser)
    add_postgres_options(parser)
    add_export_options(parser, counting=True)
    add_connection_options(parser)
    parser.set_defaults(run=run)


def compare_spec(args: argparse.Namespace, spec: Any) -> Any:
    """The second side's spec: the first's, with what --compare-* changes."""
    wanted = (
        args.compare_index_name,
        args.compare_key_condition_expression,
        args.compare_filter_expression,
        args.compare_mode,
    )
    if all(value is None for value in wanted):
        return None
    if args.compare_mode in ("keyset", "offset"):
        raise InputError("--compare-mode keyset|offset is for --postgres")
    if args.statement is not None:
        raise InputError("--compare-* compare two Queries; a PartiQL statement has one order")
    other = argparse.Namespace(**vars(args))
    if args.compare_index_name is not None:
        other.index_name = args.compare_index_name or None
    if args.compare_key_condition_expression is not None:
        other.key_condition_expression = args.compare_key_condition_expression
    if args.compare_filter_expression is not None:
        other.filter_expression = args.compare_filter_expression or None
    return spec_from_args(
        other,
        page_size=spec.page_size,
        mode=args.compare_mode or spec.mode,
        max_rounds=spec.max_rounds,
    )


def dynamodb_pagers(
    args: argparse.Namespace, signer: Callable[[], CursorSigner], ledger: SessionLedger
) -> list[Pager]:
    from dynotui.dynamodb.advice import Measurements
    from dynotui.dynamodb.connection import make_client
    from dynotui.dynamodb.partiql import PartiQLSource, check_consistent_read, statement_from
    from dynotui.dynamodb.schema import describe_table
    from dynotui.dynamodb.source import QuerySource

    if args.statement is not None:
        if args.table_name or args.key_condition_expression or args.filter_expression:
            raise InputError("--statement reads what its SELECT says: drop the query flags")
        compare_spec(args, None)  # refuses --compare-* with a statement
        statement = statement_from(
            args.statement, args.parameters, args.page_size, args.consistent_read
        )
        client = make_client(connection_options(args))
        check_consistent_read(client, statement)
        source: Source = PartiQLSource(client, statement)
        return [Pager(source, start_key=start_of(source, args, signer, ledger), ledger=ledger)]
    if args.mode in ("keyset", "offset"):
        raise InputError(f"--mode {args.mode} is for --postgres; DynamoDB pages raw or fill")
    spec = spec_from_args(
        args, page_size=args.page_size, mode=args.mode or "raw", max_rounds=args.max_rounds
    )
    spec.check_options()
    other = compare_spec(args, spec)
    if other is not None:
        other.check_options()
    client = make_client(connection_options(args))
    schema = describe_table(client, spec.table)
    # Shared, so each side's advisor quotes what the other order measured, as in the app.
    measured = Measurements()
    source = QuerySource(client, spec, schema, measurements=measured)
    pagers = [Pager(source, start_key=start_of(source, args, signer, ledger), ledger=ledger)]
    if other is not None:
        other_source = QuerySource(client, other, schema, measurements=measured)
        pagers.append(Pager(other_source, ledger=ledger))
    return pagers


def run_dynamodb(args: argparse.Namespace) -> tuple[Report, list[Pager], Any]:
    from dynotui.dynamodb.report import dynamodb_report

    signer = check_paging(args)
    prices = prices_from_args(args)
    max_pages, max_capacity = limits(args)
    saved = None
    if args.what_if is not None:
        from dynotui.cli.what_if_report import load_what_if

        saved = load_what_if(args.what_if, args.table_name)
    ledger = SessionLedger()
    pagers = dynamodb_pagers(args, signer, ledger)
    for pager in pagers:
        read_pages(pager, max_pages, max_capacity)
    what_if = None
    if saved is not None:
        from dynotui.cli.what_if_report import what_if_section

        what_if = what_if_section(saved, pagers[0])
    tables = (plan_of(pagers[0], prices, ledger),) if args.plan else ()
    report = dynamodb_report(
        pagers,
        prices=prices,
        ledger=ledger,
        title=args.title,
        code_page=args.code_page,
        what_if=what_if,
    )
    return dataclasses.replace(report, tables=(*report.tables, *tables)), pagers, prices


def plan_of(pager: Pager, prices: Any, ledger: SessionLedger) -> Any:
    """The plan of the report's query as a section; what it read billed to the session."""
    from types import SimpleNamespace

    from dynotui.dynamodb.cost import DynamoCost
    from dynotui.dynamodb.plan.planner import Planner
    from dynotui.dynamodb.plan.report_section import plan_section
    from dynotui.dynamodb.source import QuerySource

    source = pager.source
    if not isinstance(source, QuerySource):
        raise InputError("--plan costs the paths of a Query or Scan: drop it for --statement")
    planner = Planner(source.client, source.spec, prices=prices)
    plan = planner.run()
    calls = tuple(planner.calls())
    ledger.what_if_done(
        SimpleNamespace(cost=DynamoCost.of(calls) if calls else DynamoCost(), complete=True)
    )
    return plan_section(plan)


def run_postgres(args: argparse.Namespace) -> tuple[Report, list[Pager], Any]:
    from dynotui.cli.postgres_options import (
        check_no_dynamodb_flags,
        connect_from_args,
        query_from_args,
    )
    from dynotui.postgres.connection import redacted
    from dynotui.postgres.report import postgres_report
    from dynotui.postgres.source import PgSource

    check_no_dynamodb_flags(args)
    check_no_prices(args)
    if args.what_if is not None:
        raise InputError("--what-if holds a DynamoDB estimate; drop it with --postgres")
    given = [
        flag
        for flag, value in (
            ("--compare-index-name", args.compare_index_name),
            ("--compare-key-condition-expression", args.compare_key_condition_expression),
            ("--compare-filter-expression", args.compare_filter_expression),
        )
        if value is not None
    ]
    if given:
        raise InputError(f"--postgres compares modes (--compare-mode): drop {', '.join(given)}")
    if args.compare_mode in ("raw", "fill"):
        raise InputError("--compare-mode raw|fill is DynamoDB's; PostgreSQL compares keyset|offset")
    signer = check_paging(args)
    max_pages, max_capacity = limits(args)
    ledger = SessionLedger()
    session = connect_from_args(args)
    try:
        query = query_from_args(session, args, args.page_size)
        source = PgSource(session, query)
        pagers = [Pager(source, start_key=start_of(source, args, signer, ledger), ledger=ledger)]
        if args.compare_mode is not None:
            other = dataclasses.replace(query, mode=args.compare_mode)
            pagers.append(Pager(PgSource(session, other), ledger=ledger))
        for pager in pagers:
            read_pages(pager, max_pages, max_capacity)
        report = postgres_report(
            pagers,
            uri=redacted(args.postgres or None),
            ledger=ledger,
            title=args.title,
            code_page=args.code_page,
        )
    finally:
        session.close()
    return report, pagers, None


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out  # at the call: in-process callers redirect it
    if args.plan and (args.from_export is not None or getattr(args, "postgres", None)):
        raise InputError("--plan costs the paths of a live DynamoDB table: drop it here")
    if args.from_export is not None:
        return run_export_report(args, out)
    refuse_export_flags(args)
    html_path, markdown_path = output_paths(args.output)
    if args.code_page is not None and args.code_page < 1:
        raise InputError("--code-page must be 1 or more")
    if getattr(args, "postgres", None) is not None:
        report, pagers, prices = run_postgres(args)
    else:
        report, pagers, prices = run_dynamodb(args)
    ledger = pagers[0].ledger
    assert ledger is not None
    write_atomically(html_path, render_html(report))
    write_atomically(markdown_path, render_markdown(report))
    write_line(
        out,
        {
            "html": str(html_path),
            "markdown": str(markdown_path),
            "sides": [
                {"name": side.name, **summary_json(pager, prices, ledger.cursors)["summary"]}
                for side, pager in zip(report.sides, pagers, strict=True)
            ],
        },
    )
    return 0
