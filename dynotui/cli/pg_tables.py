"""``dynotui tables --postgres``: the tables a session may read, or one table's orders,
each as the order picker lists it (a refused order says why, in its own line)."""

from __future__ import annotations

import argparse

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


def run_pg_tables(args: argparse.Namespace) -> int:
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
            key = ", ".join(table.primary_key) or "none"
            print(visible(f"{table.label} · primary key: {key}"), flush=True)
            for order in table.orders:
                print(visible(f"  {order.describe()}"), flush=True)
        else:
            for identifier, rows in list_tables(session):
                count = "" if rows is None else f"  ~{rows:,} rows"
                print(visible(f"{identifier}{count}"), flush=True)
    finally:
        session.close()
    return 0
