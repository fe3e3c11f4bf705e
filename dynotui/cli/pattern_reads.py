"""A pattern's reads, as ``dynotui pages`` makes them.

Each value tried becomes ``pages``'s own flags, parsed by its parser and checked by its
checks (``check_case``, before anything is read); each is then read by ``pages`` itself
(``read_case``: the same reader, cursors and measures, read-only), and its summary gives
the figures the budget is held to.
"""

from __future__ import annotations

import argparse
import io
import json
import re
from typing import Any

from dynotui.cli import pages_cmd
from dynotui.cli.command_args import command_args, flag_argv
from dynotui.cli.options import connection_options
from dynotui.cli.page_lines import spec_from_args
from dynotui.core.errors import DynotuiError, FieldError, InputError
from dynotui.patterns.budget import Figures
from dynotui.patterns.model import QUERY_KEYS, Case, Pattern, PatternFileError

_FLAG = re.compile(r"--([a-z][a-z-]*)")
# A query form's field (FieldError.field) as the pattern's key.
_FIELD_KEYS = {
    "partition_value": "key_condition_expression",
    "sort_value": "key_condition_expression",
    "filter": "filter_expression",
    "projection": "projection_expression",
    "values": "expression_attribute_values",
    "page_size": "page_size",
    "max_rounds": "max_rounds",
    "mode": "mode",
    "scan": "scan",
    "consistent_read": "consistent_read",
}


def _snake(found: re.Match[str]) -> str:
    key = found.group(1).replace("-", "_")
    return key if key in QUERY_KEYS else found.group(0)


def _key_of(error: DynotuiError, message: str, pattern: Pattern) -> str:
    dropped = re.search(r"drop --([a-z][a-z-]*)", str(error))  # the flag to leave out
    if dropped and dropped.group(1).replace("-", "_") in QUERY_KEYS:
        return dropped.group(1).replace("-", "_")
    for found in _FLAG.finditer(str(error)):
        key = found.group(1).replace("-", "_")
        if key in QUERY_KEYS:
            return key
    if isinstance(error, FieldError) and error.field in _FIELD_KEYS:
        return _FIELD_KEYS[error.field]
    if pattern.is_statement:
        return "parameters" if "parameter" in message else "statement"
    lowered = message.lower()
    if "index" in lowered and "index_name" in pattern.query:
        return "index_name"
    if "table" in lowered:
        return "table_name"
    return "key_condition_expression" if "key_condition_expression" in pattern.query else "scan"


def pattern_error(error: DynotuiError, file: str, pattern: Pattern, case: Case) -> DynotuiError:
    """``error`` as one line naming the file, the pattern, the key (flags written as the
    file's keys) and the values tried; bad input stays bad input (exit 2), a service's
    failure stays one (exit 1)."""
    message = _FLAG.sub(_snake, str(error))
    if case.label is not None:
        message += f" (values tried: {case.label})"
    if isinstance(error, InputError):
        return PatternFileError(file, message, pattern.label, _key_of(error, message, pattern))
    found = type(error)(f"{file}, pattern {pattern.label}: {message}")
    return found


def case_args(
    pattern: Pattern,
    case: Case,
    connection: argparse.Namespace,
    max_read_units: float | None = None,
) -> argparse.Namespace:
    """``pages``'s arguments for one read of the pattern: its pages, no tokens signed."""
    argv = [*flag_argv(case.query), f"--max-pages={pattern.pages}", "--no-tokens"]
    if max_read_units is not None:
        argv.append(f"--max-read-units={max_read_units!r}")
    return command_args("dynotui.cli.pages_cmd", "pages", argv, connection)


def check_case(args: argparse.Namespace) -> None:
    """``pages``'s checks that need no call: flags, expressions, placeholders, statement."""
    if args.statement is not None:
        pages_cmd.check_statement_flags(args)
        from dynotui.dynamodb.partiql import statement_from

        statement_from(args.statement, args.parameters, args.page_size, args.consistent_read)
        return
    if args.parameters is not None:
        raise InputError("--parameters go with --statement")
    spec = spec_from_args(
        args, page_size=args.page_size, mode=args.mode or "raw", max_rounds=args.max_rounds
    )
    spec.check_options()


def _scans(args: argparse.Namespace) -> bool:
    """A Scan: asked for, or a statement DynamoDB runs as one (no = on its partition key)."""
    if args.statement is None:
        return bool(args.scan)
    from dynotui.dynamodb.connection import make_client
    from dynotui.dynamodb.partiql import runs_as_scan, statement_from
    from dynotui.dynamodb.schema import describe_table

    statement = statement_from(args.statement, args.parameters, args.page_size)
    table, _ = statement.target()
    return runs_as_scan(statement, describe_table(make_client(connection_options(args)), table))


def read_case(args: argparse.Namespace, case: Case) -> Figures:
    """One read as ``dynotui pages`` makes it, and the figures of its summary."""
    out = io.StringIO()
    pages_cmd.run(args, out)
    lines: list[dict[str, Any]] = [json.loads(line) for line in out.getvalue().splitlines()]
    summary = lines[-1]["summary"]
    pages = lines[:-1]
    capacity = summary["measures"]["capacity_per_page"]
    totals = summary["totals"]
    reported = capacity.get("pages_reported", 0) == len(pages) and bool(pages)
    ended = not pages or pages[-1]["next_start_key"] is None
    return Figures(
        label=case.label,
        pages=len(pages),
        items=int(totals["count"]),
        scanned=totals["scanned_count"],
        read_units=float(totals["cost"]) if reported else None,
        read_units_per_page=float(capacity["max"]) if reported else None,
        scan=_scans(args),
        calls=int(totals["calls"]),
        complete=ended or len(pages) >= args.max_pages,
    )
