"""``dynotui tables``: list tables, or one table's sort orders."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from dynotui.cli.options import HelpFormatter, add_connection_options, connection_options
from dynotui.cli.output import write_line
from dynotui.core.text import visible
from dynotui.dynamodb.connection import make_client
from dynotui.dynamodb.schema import describe_table, list_tables, schema_json, summary


def register(sub: Any, help_text: str) -> None:
    parser = sub.add_parser(
        "tables",
        help=help_text,
        formatter_class=HelpFormatter,
        description="List every table (ListTables followed to the end), or describe one.",
    )
    parser.add_argument("--table-name", help="describe this table's sort orders")
    parser.add_argument(
        "--json",
        action="store_true",
        help='one JSON object: {"tables": [...]}, or the table\'s key schema and orders',
    )
    add_connection_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out  # at the call: in-process callers redirect it
    client = make_client(connection_options(args))
    if args.json:
        if args.table_name:
            write_line(out, schema_json(describe_table(client, args.table_name)))
        else:
            write_line(out, {"tables": list_tables(client)})
        return 0
    if args.table_name:
        for line in summary(describe_table(client, args.table_name)).splitlines():
            print(visible(line), file=out, flush=True)
    else:
        for name in list_tables(client):
            print(visible(name), file=out, flush=True)
    return 0
