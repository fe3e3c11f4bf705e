"""``dynotui demo``: DynamoDB Local, a seeded orders table, and the pager on it."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dynotui.cli.local_cmd import wait_forever
from dynotui.cli.options import add_connection_options, connection_options
from dynotui.cli.tui_cmd import open_app
from dynotui.core.connection import ConnectionOptions, make_client
from dynotui.core.query_form import QueryForm
from dynotui.core.schema import describe_table, summary
from dynotui.local.demo import BIG_CUSTOMER, TABLE, seed_demo
from dynotui.local.runner import DynamoDBLocal
from dynotui.local.tables import require_local


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "demo",
        help="start DynamoDB Local, seed the demo orders table and open the pager on it",
        description=(
            "Start DynamoDB Local (or use --endpoint-url, which must be local), create and seed "
            f"the table '{TABLE}', then open the pager on it. No AWS account needed."
        ),
    )
    parser.add_argument(
        "--no-tui",
        action="store_true",
        help="print the table's summary instead of opening the pager",
    )
    parser.add_argument(
        "--serve",
        action="store_true",
        help="keep DynamoDB Local running after seeding until Ctrl-C, for other commands",
    )
    add_connection_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    options = connection_options(args)
    if options.endpoint_url:
        client = make_client(options)
        require_local(client)
        return _seed_and_show(client, args, endpoint=options.endpoint_url)
    with DynamoDBLocal() as server:
        print(
            f"DynamoDB Local started at {server.endpoint_url} in {server.startup_seconds:.1f} s",
            file=sys.stderr,
        )
        return _seed_and_show(server.client(), args, endpoint=server.endpoint_url)


def _seed_and_show(client: Any, args: argparse.Namespace, endpoint: str) -> int:
    report = seed_demo(client)
    if report.created:
        print(f"Seeded {report.items:,} items in {report.seconds:.1f} s", file=sys.stderr)
    else:
        print(f"Table {report.table} exists already; left as it is.", file=sys.stderr)
    if not args.no_tui and not args.serve:
        form = QueryForm(partition_value=BIG_CUSTOMER)
        return open_app(client, ConnectionOptions(endpoint_url=endpoint), TABLE, form)
    print(summary(describe_table(client, TABLE)))
    if args.serve:
        print(f"export AWS_ENDPOINT_URL_DYNAMODB={endpoint}", flush=True)
        print("Serving until Ctrl-C.", flush=True)
        wait_forever()
    return 0
