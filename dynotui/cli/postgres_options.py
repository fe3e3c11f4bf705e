"""Command-line options for reading PostgreSQL (``--postgres``) instead of DynamoDB."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any

from dynotui.cli.number_flags import seconds
from dynotui.core.errors import InputError

MODES = ("keyset", "offset")
# DynamoDB flags that mean nothing on PostgreSQL: refused rather than ignored.
DYNAMODB_FLAGS = (
    ("table_name", "--table-name"),
    ("index_name", "--index-name"),
    ("key_condition_expression", "--key-condition-expression"),
    ("filter_expression", "--filter-expression"),
    ("projection_expression", "--projection-expression"),
    ("expression_attribute_values", "--expression-attribute-values"),
    ("partition_value", "--partition-value"),
    ("statement", "--statement"),
    ("scan", "--scan"),
    ("endpoint_url", "--endpoint-url"),
    ("profile", "--profile"),
    ("read_ahead", "--read-ahead"),
)


def add_postgres_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("PostgreSQL (instead of DynamoDB; the postgres extra)")
    group.add_argument(
        "--postgres",
        metavar="URI",
        nargs="?",
        const="",
        help="read PostgreSQL: a libpq URI (postgresql://user@host/db), or no value to use "
        "the PG* variables; the session is read-only",
    )
    group.add_argument("--table", help="the table to read (schema.table if not in public)")
    group.add_argument(
        "--order",
        metavar="NAME_OR_COLUMNS",
        help="'primary key', an index's name, or columns like 'created_at desc, id' "
        "(default: the primary key); the primary key is appended where it is not unique",
    )
    group.add_argument("--reverse", action="store_true", help="read the order backwards")
    group.add_argument("--where", metavar="SQL", help="a WHERE fragment: status = $1")
    group.add_argument(
        "--params", metavar="JSON", help="the $n values, a JSON list: '[\"RETURNED\", 100]'"
    )
    group.add_argument(
        "--columns", metavar="LIST", help="columns to show, comma-separated (default: all)"
    )
    group.add_argument(
        "--trust-database-code",
        action="store_true",
        default=None,
        help="let a filter run this database's own functions, operators, types, views and "
        "row-level policies (default: only PostgreSQL's built-ins and the table's columns, "
        "no sub-selects). This gives up the guarantee that no code the database's owners "
        "wrote runs: dynotui cannot see inside it. Still refused: VOLATILE and denied "
        "functions; the session stays read-only. Also: trust_database_code = true under "
        "[postgres] in config.toml",
    )
    group.add_argument(
        "--statement-timeout",
        metavar="SECONDS",
        type=seconds,
        default=None,
        help="PostgreSQL stops a statement of dynotui's after this long (default 30)",
    )


def wants_postgres(args: argparse.Namespace) -> bool:
    return getattr(args, "postgres", None) is not None


def check_no_dynamodb_flags(args: argparse.Namespace) -> None:
    given = [flag for name, flag in DYNAMODB_FLAGS if getattr(args, name, None)]
    if given:
        raise InputError(f"--postgres reads PostgreSQL: drop {', '.join(given)}")


def pg_mode(args: argparse.Namespace) -> str:
    mode = getattr(args, "mode", None) or "keyset"
    if mode not in MODES:
        raise InputError(f"--mode {mode} is DynamoDB's; PostgreSQL pages by keyset or offset")
    return mode


TRUST_KEY = "trust_database_code"
TRUST_NOTE = (
    "trusting this database's code: a filter may run its own functions, operators, types, "
    "views and policies (never a VOLATILE or denied function); dynotui cannot see inside them"
)


def configured_trust(settings: Mapping[str, Any] | None = None) -> bool:
    """``trust_database_code`` under ``[postgres]`` in config.toml (default false)."""
    from dynotui.core import config  # read when asked, not when options are parsed

    table = config.table("postgres", settings)
    where = f"in the settings file {config.config_path()}"
    unknown = sorted(set(table) - {TRUST_KEY})
    if unknown:
        raise InputError(
            f"[postgres] {where} has no setting {', '.join(unknown)} (it takes {TRUST_KEY})"
        )
    value = table.get(TRUST_KEY, False)
    if not isinstance(value, bool):
        raise InputError(f"[postgres] {TRUST_KEY} {where} must be true or false, got {value!r}")
    return value


def trusts_database_code(args: argparse.Namespace | None = None) -> bool:
    """The flag, else the config key; a note on stderr says what trusting gives up."""
    trusted = bool(getattr(args, "trust_database_code", None)) or configured_trust()
    if trusted:
        print(f"dynotui: {TRUST_NOTE}", file=sys.stderr)
    return trusted


def connect_from_args(args: argparse.Namespace) -> Any:
    from dynotui.postgres.connection import PgOptions, connect

    timeout = getattr(args, "statement_timeout", None)
    trusted = trusts_database_code(args)
    if timeout is None:
        return connect(PgOptions(uri=args.postgres or None, trust_database_code=trusted))
    if not 0.001 <= timeout <= 86_400:
        raise InputError(f"--statement-timeout is 0.001 to 86400 seconds, got {timeout:g}")
    return connect(
        PgOptions(uri=args.postgres or None, statement_timeout=timeout, trust_database_code=trusted)
    )


def query_from_args(session: Any, args: argparse.Namespace, page_size: int = 25) -> Any:
    """The PgQuery the flags describe, checked against the table's catalogue."""
    from dynotui.postgres.schema import describe_table
    from dynotui.postgres.sql import PgQuery, parse_params

    if not args.table or not args.table.strip():
        raise InputError("--table is required with --postgres: name the table to read")
    table = describe_table(session, args.table)
    order = table.order(args.order) if args.order else table.default_order()
    if args.reverse:
        order = order.reversed()
    columns = tuple(c.strip() for c in (args.columns or "").split(",") if c.strip())
    query = PgQuery(
        table,
        order,
        where=args.where or None,
        params=parse_params(args.params),
        projection=columns,
        page_size=page_size,
        mode=pg_mode(args),  # type: ignore[arg-type]
        descending=bool(args.reverse),
    )
    query.check()
    return query
