"""``dynotui what-if``: what an index that does not exist would cost and save for a query.

It reads the query as ``dynotui pages`` does (or a bounded part of it: --max-read-units),
then estimates the same query on the imagined GSI, the index's writes and storage; or
prints the code that would create the index (--code). It never creates anything.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any, TextIO

from dynotui.cli.number_flags import seconds, whole
from dynotui.cli.options import HelpFormatter, add_connection_options, connection_options
from dynotui.cli.output import write_line
from dynotui.cli.page_lines import spec_from_args
from dynotui.cli.pages_cmd import add_query_options
from dynotui.cli.postgres_options import add_postgres_options
from dynotui.cli.price_options import add_price_options, prices_from_args
from dynotui.core.errors import InputError
from dynotui.dynamodb.spec import (
    DEFAULT_MAX_ROUNDS,
    DEFAULT_PAGE_SIZE,
    MAX_ROUNDS_LIMIT,
    PAGE_SIZE_MAX,
)
from dynotui.dynamodb.what_if.code import LANGUAGES
from dynotui.dynamodb.what_if.estimate import DEFAULT_MAX_READ_UNITS
from dynotui.dynamodb.what_if.rewrite import KEY_TYPES, PROJECTIONS


def register(sub: Any, help_text: str) -> None:
    parser = sub.add_parser(
        "what-if",
        help=help_text,
        formatter_class=HelpFormatter,
        description=(
            "Estimate what a GSI that does not exist would cost and save for a query: the "
            "query rewritten for it (which conditions become its key condition, which stay a "
            "filter), its pages, matches and read units against the query's own (read as "
            "'dynotui pages' reads them), and the index's writes per put and storage, at the "
            "configured prices. Reads at most --max-read-units; a partial read gives ranges. "
            "--code prints the update-table call that would create the index. Nothing is "
            "created or written. With --postgres: the same question for a hypothetical "
            "PostgreSQL index, through the hypopg extension when it is installed."
        ),
    )
    add_query_options(parser)
    group = parser.add_argument_group("paging (as in 'dynotui pages')")
    group.add_argument(
        "--page-size", type=whole, default=DEFAULT_PAGE_SIZE, help=f"1 to {PAGE_SIZE_MAX}"
    )
    group.add_argument(
        "--mode",
        choices=("raw", "fill", "keyset", "offset"),
        default=None,
        help="raw or fill (DynamoDB, default raw); keyset or offset (PostgreSQL)",
    )
    group.add_argument(
        "--max-rounds",
        type=whole,
        default=DEFAULT_MAX_ROUNDS,
        help=f"fill mode: calls per page at most (1 to {MAX_ROUNDS_LIMIT})",
    )
    imagined = parser.add_argument_group("the index to imagine (a GSI)")
    imagined.add_argument(
        "--partition-key", metavar="ATTR", help="its partition key: ATTR, or ATTR:S|N|B"
    )
    imagined.add_argument(
        "--sort-key", metavar="ATTR", help="its sort key (optional): ATTR, or ATTR:S|N|B"
    )
    imagined.add_argument(
        "--partition-key-type",
        choices=KEY_TYPES,
        help="S, N or B (default: the table's definition, or the type the query compares)",
    )
    imagined.add_argument(
        "--sort-key-type",
        choices=KEY_TYPES,
        help="S, N or B (default: the table's definition, the type the query compares, or "
        "the commonest among the items read)",
    )
    imagined.add_argument("--projection", choices=PROJECTIONS, default="ALL")
    imagined.add_argument(
        "--include", metavar="A,B", help="INCLUDE: the non-key attributes to copy"
    )
    imagined.add_argument(
        "--new-index-name", metavar="NAME", help="(default: the keys joined, -index)"
    )
    estimating = parser.add_argument_group("estimating")
    estimating.add_argument(
        "--max-read-units",
        type=seconds,
        default=DEFAULT_MAX_READ_UNITS,
        metavar="N",
        help="read at most this many read units (a page is never cut, so one page more at "
        "most); the output says when it stopped early",
    )
    estimating.add_argument(
        "--table-sample",
        action="store_true",
        help="also read a spread Scan sample of the table, for the index's size over the "
        "whole table (always read when the rewritten query reaches items the query cannot)",
    )
    estimating.add_argument("--json", action="store_true", help="one JSON object")
    from dynotui.cli.what_if_patterns import add_patterns_options

    add_patterns_options(parser.add_argument_group("over a patterns file (dynotui check's)"))
    estimating.add_argument(
        "--code",
        choices=LANGUAGES,
        help="print the code that would create the index (AWS CLI or boto3); nothing is read "
        "but the table's description, and nothing is run",
    )
    estimating.add_argument(
        "--hypothetical-index",
        metavar="COLUMNS",
        help="PostgreSQL: the index to imagine, as columns: 'status, created_at desc'",
    )
    add_price_options(parser)
    prices = parser.add_argument_group("index prices (DynamoDB; [pricing] in config.toml too)")
    prices.add_argument("--price-write-million", metavar="USD", help="on-demand writes")
    prices.add_argument("--price-wcu-hour", metavar="USD", help="provisioned writes")
    prices.add_argument("--price-storage-gb-month", metavar="USD", help="storage")
    add_postgres_options(parser)
    add_connection_options(parser)
    parser.set_defaults(run=run)


def imagined_from_args(args: argparse.Namespace) -> Any:
    from dynotui.dynamodb.what_if.rewrite import ImaginedIndex

    if not args.partition_key:
        raise InputError("--partition-key is required: name the imagined index's partition key")
    include = tuple(a.strip() for a in (args.include or "").split(",") if a.strip())
    partition_key, partition_type = key_and_type(args.partition_key, args.partition_key_type)
    sort_key, sort_type = key_and_type(args.sort_key or None, args.sort_key_type)
    return ImaginedIndex(
        partition_key=partition_key or args.partition_key,
        sort_key=sort_key,
        projection=args.projection,
        include=include,
        name=args.new_index_name,
        partition_type=partition_type,
        sort_type=sort_type,
    )


def key_and_type(name: str | None, kind: str | None) -> tuple[str | None, str | None]:
    """``ATTR:TYPE`` as dynotui's key schemas write a key (``pk:S``), where the key's type
    flag is not given: ``total:N`` was taken as an attribute no item holds, and the index
    imagined empty. With the type flag, the whole is the name (a name may end in ``:N``)."""
    if name and kind is None:
        base, colon, suffix = name.rpartition(":")
        if colon and base and suffix in ("S", "N", "B"):
            return base, suffix
    return name, kind


def check_budget(value: float) -> float:
    if not math.isfinite(value) or value <= 0:
        raise InputError("--max-read-units must be a finite number above 0")
    return value


def run_code(
    args: argparse.Namespace, client: Any, spec: Any, schema: Any, index: Any, out: TextIO
) -> int:
    from dynotui.dynamodb.codegen import code_target
    from dynotui.dynamodb.what_if.code import (
        generate,
        provisioned_throughput,
        update_table_params,
    )
    from dynotui.dynamodb.what_if.rewrite import rewrite

    rewritten = rewrite(spec, index, schema)
    sort_type = rewritten.sort_type or ("S" if index.sort_key is not None else None)
    if index.sort_key is not None and rewritten.sort_type is None and index.sort_type is None:
        raise InputError(
            f"the sort key '{index.sort_key}' is not compared with a value and not defined in "
            "the table: give its type with --sort-key-type S|N|B"
        )
    provisioned = provisioned_throughput(client, spec.table)
    params = update_table_params(
        spec.table, index, rewritten.partition_type, sort_type, provisioned
    )
    out.write(generate(args.code, params, code_target(client)))
    return 0


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out  # at the call: in-process callers redirect it
    if getattr(args, "postgres", None) is not None and args.patterns is None:
        from dynotui.cli.what_if_postgres import run_postgres

        return run_postgres(args, out)
    if args.patterns is not None:
        from dynotui.cli.what_if_patterns import run_patterns

        return run_patterns(args, out, imagined_from_args(args), check_budget(args.max_read_units))
    if args.writes_per_day is not None:
        raise InputError("--writes-per-day goes with --patterns")
    if args.hypothetical_index:
        raise InputError("--hypothetical-index is for --postgres; DynamoDB takes --partition-key")
    if args.mode in ("keyset", "offset"):
        raise InputError(f"--mode {args.mode} is for --postgres; DynamoDB pages raw or fill")
    from dynotui.dynamodb.connection import make_client
    from dynotui.dynamodb.schema import describe_table
    from dynotui.dynamodb.what_if.estimate import WhatIf
    from dynotui.dynamodb.what_if.prices import index_prices

    budget = check_budget(args.max_read_units)
    index = imagined_from_args(args)
    reads = prices_from_args(args)
    writes = index_prices(
        write_per_million=args.price_write_million,
        wcu_hour=args.price_wcu_hour,
        storage_gb_month=args.price_storage_gb_month,
    )
    spec = spec_from_args(
        args, page_size=args.page_size, mode=args.mode or "raw", max_rounds=args.max_rounds
    )
    spec.check_options()
    client = make_client(connection_options(args))
    schema = describe_table(client, spec.table)
    spec.validate(schema)
    index.check(schema)
    if args.code:
        return run_code(args, client, spec, schema, index, out)
    what_if = WhatIf(
        client,
        spec,
        schema,
        index,
        max_read_units=budget,
        table_sample=args.table_sample,
        read_prices_in_force=reads,
        index_prices_in_force=writes,
    )
    estimate = what_if.run()
    if args.json:
        write_line(out, estimate.as_json())
    else:
        from dynotui.cli.what_if_text import estimate_text

        out.write(estimate_text(estimate.as_json()))
    return 0
