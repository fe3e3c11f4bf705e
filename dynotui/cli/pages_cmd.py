"""``dynotui pages``: the pager, headless; one JSON object per page, one per line."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from dynotui.cli.code_option import add_code_option, check_code, print_code
from dynotui.cli.export_options import (
    add_format_option,
    check_format,
    pg_shape,
)
from dynotui.cli.foreign_options import add_foreign_options, dynamo_start, starting_point
from dynotui.cli.number_flags import seconds, whole
from dynotui.cli.options import HelpFormatter, add_connection_options, connection_options
from dynotui.cli.page_lines import (
    check_paging,
    dynamo_page_json,
    page_through,
    signed,
    spec_from_args,
)
from dynotui.cli.postgres_options import add_postgres_options
from dynotui.cli.price_options import add_price_options, prices_from_args
from dynotui.cli.segmented_pages import add_segments_option, check_flags, run_segmented
from dynotui.cli.table_export_options import add_export_options, refuse_export_flags
from dynotui.cli.table_export_options import run_pages as run_export_pages
from dynotui.core.cursor import DEFAULT_MAX_AGE
from dynotui.core.errors import InputError
from dynotui.core.export import ItemShape
from dynotui.core.page import Page
from dynotui.core.refusals import CursorRefusals
from dynotui.dynamodb.connection import make_client
from dynotui.dynamodb.dynamo_json import plain_item, to_wire
from dynotui.dynamodb.foreign import DynamoForeign
from dynotui.dynamodb.item_shape import dynamo_shape
from dynotui.dynamodb.partiql import PartiQLSource, check_consistent_read, statement_from
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import (
    DEFAULT_MAX_ROUNDS,
    DEFAULT_PAGE_SIZE,
    MAX_ROUNDS_LIMIT,
    PAGE_SIZE_MAX,
)

MODES_HELP = (
    "DynamoDB (default: raw). raw: one call per page with Limit = page size, so a filtered "
    "page holds 0 to N items and an empty page with a key is normal; fill: calls until "
    "page size + 1 matches (the extra one proves a next page) or --max-rounds, so pages "
    "hold exactly N items. PostgreSQL (default: keyset). keyset: seeks past the last row "
    "shown; offset: reads and skips every row before the page"
)


def add_query_options(parser: argparse.ArgumentParser, counting: bool = False) -> None:
    """The query's flags, named as in ``aws dynamodb query``; ``counting`` words their help
    for ``dynotui count``."""
    group = parser.add_argument_group("query (as in 'aws dynamodb query')")
    group.add_argument("--table-name", help="the table to read (required for a Query or Scan)")
    group.add_argument("--index-name", help="read this LSI or GSI instead of the base table")
    group.add_argument(
        "--key-condition-expression",
        metavar="EXPRESSION",
        help="the key range to count (a Query), e.g. 'pk = :p'; or --scan"
        if counting
        else "the key range to read (a Query), e.g. 'pk = :p'; or --scan",
    )
    group.add_argument(
        "--filter-expression",
        metavar="EXPRESSION",
        help="what to count: applied after reading, so count holds the matches while "
        "scanned_count and the capacity (the bill) hold every item read"
        if counting
        else "applied after Limit: it shrinks the page, not the bill",
    )
    group.add_argument(
        "--projection-expression",
        metavar="EXPRESSION",
        help="ignored: Select COUNT returns no attributes" if counting else None,
    )
    group.add_argument("--expression-attribute-names", metavar="JSON")
    group.add_argument("--expression-attribute-values", metavar="DYNAMODB_JSON")
    group.add_argument("--no-scan-index-forward", action="store_true", help="descending order")
    group.add_argument("--consistent-read", action="store_true", help="not on a GSI")
    group.add_argument("--scan", action="store_true", help="Scan instead of Query")


def add_statement_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("PartiQL (instead of a Query or Scan)")
    group.add_argument(
        "--statement",
        metavar="SELECT",
        help="a PartiQL SELECT, paged with ExecuteStatement: 'SELECT * FROM \"t\" WHERE pk = ?'",
    )
    group.add_argument(
        "--parameters",
        metavar="DYNAMODB_JSON",
        help='the statement\'s ? values, in order, in DynamoDB JSON: \'[{"S": "a"}]\'',
    )


def add_paging_options(parser: argparse.ArgumentParser, read_units: bool = False) -> None:
    """The paging flags; ``read_units`` adds pages's --max-read-units (report has its own
    --max-capacity for the same stop)."""
    group = parser.add_argument_group("paging")
    group.add_argument(
        "--page-size", type=whole, default=DEFAULT_PAGE_SIZE, help=f"1 to {PAGE_SIZE_MAX}"
    )
    group.add_argument(
        "--mode", choices=("raw", "fill", "keyset", "offset"), default=None, help=MODES_HELP
    )
    group.add_argument(
        "--max-rounds",
        type=whole,
        default=DEFAULT_MAX_ROUNDS,
        help=f"fill mode: calls per page at most (1 to {MAX_ROUNDS_LIMIT})",
    )
    group.add_argument("--max-pages", type=whole, help="stop after this many pages (default: all)")
    if read_units:
        group.add_argument(
            "--max-read-units",
            type=seconds,
            metavar="N",
            help="DynamoDB: stop once the pages read have cost this many read units (a page "
            "is never cut, so one page more at most; the last page's next_token goes on)",
        )
    group.add_argument(
        "--starting-token",
        metavar="TOKEN",
        help="a signed cursor token (next_token) to resume from",
    )
    add_foreign_options(group)
    group.add_argument(
        "--cursor-max-age",
        type=seconds,
        default=DEFAULT_MAX_AGE,
        metavar="SECONDS",
        help="tokens older than this are refused (1 to 604800)",
    )
    group.add_argument(
        "--no-tokens",
        action="store_true",
        help="print next_token as null: no cursor secret is read or made",
    )
    group.add_argument("--plain", action="store_true", help="items as plain JSON")
    group.add_argument(
        "--no-summary",
        action="store_true",
        help='leave out the last line, {"summary": ...}: the measures, totals and price',
    )


def register(sub: Any, help_text: str) -> None:
    parser = sub.add_parser(
        "pages",
        help=help_text,
        formatter_class=HelpFormatter,
        description=(
            "Read pages with dynotui's pager and print one JSON object per page, one per line: "
            "items, Count, ScannedCount, consumed capacity, calls, retries, keys, has_next, "
            "ended_by, cached and a signed token for the next page; then one last line, "
            '{"summary": ...}, with the five measures, the totals and the price estimate '
            "(no page key; --no-summary leaves it out). Bad input exits 2, "
            "connection or throttling failures exit 1, each with one line on stderr."
        ),
    )
    add_query_options(parser)
    add_statement_options(parser)
    add_paging_options(parser, read_units=True)
    add_code_option(parser.add_argument_group("code"))
    add_format_option(parser)
    add_segments_option(parser.add_argument_group("parallel Scan"))
    add_export_options(parser)
    add_price_options(parser)
    add_postgres_options(parser)
    add_connection_options(parser)
    parser.set_defaults(run=run)


def partiql_page_json(page: Page[Any], next_token: str | None, plain: bool) -> dict[str, Any]:
    cost = page.cost
    items = [plain_item(i) for i in page.items] if plain else [to_wire(i) for i in page.items]
    return {
        "page": page.number,
        "start_key": page.start_key,
        "items": items,
        "shown": page.shown,
        "count": page.count,
        "scanned_count": None,  # ExecuteStatement does not report it
        "consumed_capacity": cost.capacity.as_json() if cost.capacity else None,
        "calls": cost.requests,
        "retries": cost.retries,
        "latency_ms": round(cost.latency_ms, 3),
        "next_start_key": page.next_start_key,
        "has_next": page.has_next.as_json(),
        "ended_by": page.ended_by.value,
        "cached": page.cached,
        "next_token": next_token,
    }


def check_statement_flags(args: argparse.Namespace) -> None:
    """What a statement cannot be read with: the flags of a Query, and fill mode."""
    clashing = [
        flag
        for flag, value in (
            ("--table-name", args.table_name),
            ("--key-condition-expression", args.key_condition_expression),
            ("--filter-expression", args.filter_expression),
            ("--scan", args.scan),
            ("--index-name", args.index_name),
        )
        if value
    ]
    if clashing:
        raise InputError(f"--statement reads what its SELECT says: drop {', '.join(clashing)}")
    if args.mode not in (None, "raw"):
        raise InputError("--statement pages as ExecuteStatement does: one call per page (raw)")


def run_statement(args: argparse.Namespace, out: TextIO) -> int:
    check_statement_flags(args)
    signer = check_paging(args)
    prices = prices_from_args(args)
    statement = statement_from(
        args.statement, args.parameters, args.page_size, args.consistent_read
    )
    client = make_client(connection_options(args))
    check_consistent_read(client, statement)
    source = PartiQLSource(client, statement)
    refusals = CursorRefusals()
    start = starting_point(
        args, source, signer, None, what="a PartiQL statement", refusals=refusals
    )
    if args.code:
        return print_code(args, source, start.key, out)

    def shape() -> ItemShape:  # the statement's table's keys lead; DescribeTable for them
        table, index = statement.target()
        return dynamo_shape(describe_table(client, table).cursor_key_names(index), args.plain)

    return page_through(
        source,
        args,
        signer,
        out,
        lambda page, token: partiql_page_json(page, token, args.plain),
        start=start,
        prices=prices,
        refusals=refusals,
        shape=shape,
    )


def pg_page_json(page: Page[Any], next_token: str | None) -> dict[str, Any]:
    """Items as plain JSON with every value as PostgreSQL's text (exact: timestamps keep
    their microseconds, numerics their digits); NULL is null."""
    return {
        "page": page.number,
        "mode": page.mode,
        "start_key": page.start_key,
        "items": list(page.items),
        "shown": page.shown,
        "next_start_key": page.next_start_key,
        "has_next": page.has_next.as_json(),
        "ended_by": page.ended_by.value,
        "cost": page.cost.as_json(),
        "latency_ms": round(page.cost.latency_ms, 3),
        "cached": page.cached,
        "next_token": next_token,
    }


def check_no_prices(args: argparse.Namespace) -> None:
    given = [
        flag
        for flag, value in (
            ("--price-read-million", getattr(args, "price_read_million", None)),
            ("--price-rcu-hour", getattr(args, "price_rcu_hour", None)),
        )
        if value is not None
    ]
    if given:
        raise InputError(f"PostgreSQL buffers are not billed per unit: drop {', '.join(given)}")


def run_postgres(args: argparse.Namespace, out: TextIO) -> int:
    from dynotui.cli.foreign_options import PG_FOREIGN_FLAGS, check_pg_start, pg_start
    from dynotui.cli.postgres_options import (
        check_no_dynamodb_flags,
        connect_from_args,
        query_from_args,
    )
    from dynotui.postgres.foreign import PgForeign
    from dynotui.postgres.source import PgSource

    check_no_dynamodb_flags(args)
    check_pg_start(args)
    check_no_prices(args)
    signer = check_paging(args)
    session = connect_from_args(args)
    try:
        source = PgSource(session, query_from_args(session, args, args.page_size))
        refusals = CursorRefusals()
        start = starting_point(
            args,
            source,
            signer,
            PgForeign(source.query, source.key_from_json),
            resolve=lambda found: pg_start(session, source.query, found),
            flags=PG_FOREIGN_FLAGS,
            refusals=refusals,
        )
        query = source.query
        keys = tuple(c.label for c in query.order.columns if c.label in query.shown_columns)
        return page_through(
            source,
            args,
            signer,
            out,
            pg_page_json,
            exact=False,
            start=start,
            refusals=refusals,
            shape=lambda: pg_shape(keys),
        )
    finally:
        session.close()


def check_max_read_units(args: argparse.Namespace) -> None:
    """--max-read-units stops a DynamoDB read between pages, each printed as a line."""
    if args.max_read_units is None:
        return
    refused = [
        flag
        for flag, given in (
            ("--from-export", args.from_export is not None),
            ("--postgres", getattr(args, "postgres", None) is not None),
            ("--segments", args.segments != 1),
            ("--format", args.format != "jsonl"),
        )
        if given
    ]
    if refused:
        raise InputError(
            f"--max-read-units stops a DynamoDB read between its JSON lines: drop "
            f"{', '.join(refused)} (or --max-read-units)"
        )


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out  # at the call: in-process callers redirect it
    check_code(args)
    check_format(args, out)
    check_max_read_units(args)
    if args.from_export is not None:
        return run_export_pages(args, out)
    refuse_export_flags(args)
    if args.segments != 1:
        check_flags(args)
    if getattr(args, "postgres", None) is not None:
        return run_postgres(args, out)
    if args.mode in ("keyset", "offset"):
        raise InputError(f"--mode {args.mode} is for --postgres; DynamoDB pages raw or fill")
    if args.statement is not None:
        return run_statement(args, out)
    if args.parameters is not None:
        raise InputError("--parameters go with --statement")
    signer = check_paging(args)
    prices = prices_from_args(args)
    spec = spec_from_args(
        args, page_size=args.page_size, mode=args.mode or "raw", max_rounds=args.max_rounds
    )
    spec.check_options()
    if args.segments != 1:
        return run_segmented(
            args,
            spec,
            out,
            None if args.no_tokens else lambda source, key: signed(signer, source, key),
            lambda page, token: dynamo_page_json(page, token, args.plain),
            prices,
        )
    client = make_client(connection_options(args))
    schema = describe_table(client, spec.table)
    source = QuerySource(client, spec, schema)  # a bad query is the first thing to say
    refusals = CursorRefusals()
    start = starting_point(
        args,
        source,
        signer,
        DynamoForeign(schema, spec),
        resolve=lambda f: dynamo_start(source, f),
        refusals=refusals,
    )
    if args.code:
        return print_code(args, source, start.key, out)
    return page_through(
        source,
        args,
        signer,
        out,
        lambda page, token: dynamo_page_json(page, token, args.plain),
        start=start,
        prices=prices,
        refusals=refusals,
        shape=lambda: dynamo_shape(schema.cursor_key_names(spec.index), args.plain),
    )
