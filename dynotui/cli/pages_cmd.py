"""``dynotui pages``: the pager, headless; one JSON object per page, one per line."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from dynotui.cli.options import add_connection_options, connection_options
from dynotui.core.connection import make_client
from dynotui.core.cursor import CursorSigner
from dynotui.core.cursor_secret import default_signer
from dynotui.core.dynamo_json import parse_wire_json, plain_item, to_wire
from dynotui.core.errors import InputError
from dynotui.core.page import Page
from dynotui.core.pager import Pager
from dynotui.core.schema import describe_table
from dynotui.core.spec import DEFAULT_MAX_ROUNDS, DEFAULT_PAGE_SIZE, QuerySpec, from_expressions


def add_query_options(parser: argparse.ArgumentParser) -> None:
    """The query's flags, named as in ``aws dynamodb query``."""
    group = parser.add_argument_group("query (as in 'aws dynamodb query')")
    group.add_argument("--table-name", required=True)
    group.add_argument("--index-name")
    group.add_argument("--key-condition-expression")
    group.add_argument("--filter-expression")
    group.add_argument("--projection-expression")
    group.add_argument("--expression-attribute-names", metavar="JSON")
    group.add_argument("--expression-attribute-values", metavar="DYNAMODB_JSON")
    group.add_argument("--no-scan-index-forward", action="store_true", help="descending order")
    group.add_argument("--consistent-read", action="store_true")
    group.add_argument("--scan", action="store_true", help="Scan instead of Query")


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "pages",
        help="page through a Query or Scan headless: one JSON object per page",
        description=(
            "Read pages with dynotui's pager and print one JSON object per page, one per line: "
            "items, Count, ScannedCount, consumed capacity, calls, keys, has_next, ended_by "
            "and a signed token for the next page."
        ),
    )
    add_query_options(parser)
    group = parser.add_argument_group("paging")
    group.add_argument("--page-size", type=int, default=DEFAULT_PAGE_SIZE, help="1 to 1000")
    group.add_argument("--mode", choices=("raw", "fill"), default="raw")
    group.add_argument("--max-rounds", type=int, default=DEFAULT_MAX_ROUNDS, help="fill mode")
    group.add_argument("--max-pages", type=int, help="stop after this many pages")
    group.add_argument("--starting-token", help="a signed cursor token to resume from")
    group.add_argument(
        "--cursor-max-age", type=float, default=15 * 60, metavar="SECONDS", help="default 900"
    )
    group.add_argument("--plain", action="store_true", help="items as plain JSON")
    add_connection_options(parser)
    parser.set_defaults(run=run)


def spec_from_args(args: argparse.Namespace, **options: Any) -> QuerySpec:
    names: dict[str, str] = {}
    if args.expression_attribute_names:
        try:
            names = json.loads(args.expression_attribute_names)
        except json.JSONDecodeError as exc:
            raise InputError(f"--expression-attribute-names is not valid JSON: {exc.msg}") from exc
        if not isinstance(names, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in names.items()
        ):
            raise InputError('--expression-attribute-names must look like {"#s": "status"}')
    values = {}
    if args.expression_attribute_values:
        values = parse_wire_json(args.expression_attribute_values, "--expression-attribute-values")
    return from_expressions(
        args.table_name,
        index=args.index_name,
        scan=args.scan,
        key_condition=args.key_condition_expression,
        filter=args.filter_expression,
        projection=args.projection_expression,
        names=names,
        values=values,
        forward=not args.no_scan_index_forward,
        consistent_read=args.consistent_read,
        **options,
    )


def page_json(page: Page, signer: CursorSigner, scope: str, plain: bool) -> dict[str, Any]:
    items = [plain_item(i) for i in page.items] if plain else [to_wire(i) for i in page.items]
    return {
        "page": page.number,
        "mode": page.mode,
        "start_key": to_wire(page.start_key),
        "items": items,
        "shown": len(page.items),
        "count": page.count,
        "scanned_count": page.scanned_count,
        "consumed_capacity": page.capacity.as_json(),
        "calls": len(page.calls),
        "call_latency_ms": [round(c.latency_ms, 3) for c in page.calls],
        "latency_ms": round(page.latency_ms, 3),
        "last_evaluated_key": to_wire(page.last_evaluated_key),
        "next_start_key": to_wire(page.next_start_key),
        "has_next": page.has_next.as_json(),
        "ended_by": page.ended_by.value,
        "cached": page.cached,
        "next_token": signer.sign(page.next_start_key, scope) if page.next_start_key else None,
    }


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    if args.max_pages is not None and args.max_pages < 1:
        raise InputError("--max-pages must be 1 or more")
    if args.cursor_max_age <= 0:
        raise InputError("--cursor-max-age must be a positive number of seconds")
    spec = spec_from_args(
        args, page_size=args.page_size, mode=args.mode, max_rounds=args.max_rounds
    )
    spec.check_options()
    client = make_client(connection_options(args))
    schema = describe_table(client, spec.table)
    spec.validate(schema)  # before the token: a bad query is the first thing to say
    signer = default_signer(max_age=args.cursor_max_age)
    scope = spec.scope()
    start = signer.verify(args.starting_token, scope) if args.starting_token else None
    pager = Pager(client, spec, schema, start_key=start)
    while pager.can_advance and (args.max_pages is None or pager.number < args.max_pages):
        page = pager.next()
        out.write(json.dumps(page_json(page, signer, scope, args.plain), ensure_ascii=False))
        out.write("\n")
        out.flush()
    return 0
