"""``dynotui tables --postgres``: the tables a session may read, or one table's orders,
each as the order picker lists it (a refused order says why, in its own line)."""

from __future__ import annotations

import argparse
from typing import TextIO

from dynotui.cli.output import write_line
from dynotui.core.errors import InputError
from dynotui.core.text import visible


def add_pg_tables_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("PostgreSQL (instead of DynamoDB)")
    group.add_argument(
        "--postgres",
        metavar="URI",
        nargs="?",
        const="",
        help="list PostgreSQL's tables: a libpq URI, or no value to use the PG* variables",
    )
    group.add_argument("--table", help="describe this table's orders (schema.table if not public)")
    group.add_argument(
        "--trust-database-code",
        action="store_true",
        default=None,
        help="list orders as a session that trusts this database's code reads them",
    )


def run_pg_tables(args: argparse.Namespace, out: TextIO) -> int:
    from dynotui.cli.postgres_options import connect_from_args
    from dynotui.postgres.schema import describe_table, list_tables

    if getattr(args, "table_name", None):
        raise InputError("--postgres lists PostgreSQL's tables: --table, not --table-name")
    session = connect_from_args(args)
    try:
        if args.table is not None:
            if not args.table.strip():
                raise InputError("--table names the table to describe")
            table = describe_table(session, args.table)
            if args.json:
                orders = [
                    {"name": o.name, "label": o.describe(), "refused": o.refused or None}
                    for o in table.orders
                ]
                write_line(out, {"table": table.label, "orders": orders})
                return 0
            key = ", ".join(table.primary_key) or "none"
            print(visible(f"{table.label} · primary key: {key}"), file=out, flush=True)
            for order in table.orders:
                print(visible(f"  {order.describe()}"), file=out, flush=True)
        else:
            tables = list_tables(session)
            if args.json:
                write_line(out, {"tables": [{"name": n, "rows": r} for n, r in tables]})
                return 0
            for identifier, rows in tables:
                count = "" if rows is None else f"  ~{rows:,} rows"
                print(visible(f"{identifier}{count}"), file=out, flush=True)
    finally:
        session.close()
    return 0
