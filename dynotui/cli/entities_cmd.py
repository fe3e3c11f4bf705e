"""``dynotui entities``: a single-table design seen by entity, from the live data or an
export: per entity its count, shares, sizes, attributes and read units."""

from __future__ import annotations

import argparse
import re
import signal
import sys
import threading
from typing import Any, TextIO

from dynotui.cli.options import HelpFormatter, add_connection_options, connection_options
from dynotui.cli.output import write_line
from dynotui.cli.table_export_options import add_export_options, refuse_export_flags
from dynotui.core.cancel import CancelToken
from dynotui.core.errors import InputError
from dynotui.dynamodb.entities.marks import KNOWN_NAMES
from dynotui.dynamodb.entities.sample import DEFAULT_MAX_READ_UNITS, DEFAULT_SEGMENTS
from dynotui.dynamodb.query_form import MAX_SEGMENTS

MAX_READ_UNITS = 10**9
SIGINT_EXIT = 130


def whole_number(low: int, high: int) -> Any:
    """An argparse type: ASCII digits only, from ``low`` to ``high``."""

    def parse(text: str) -> int:
        if not re.fullmatch(r"[0-9]{1,12}", text):
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (digits 0-9)")
        value = int(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not {low:,} to {high:,}")
        return value

    return parse


def register(sub: Any, help_text: str) -> None:
    parser = sub.add_parser(
        "entities",
        help=help_text,
        formatter_class=HelpFormatter,
        description=(
            "Tell a single-table design's entities apart from its own data: by an entity "
            f"attribute a library writes ({', '.join(KNOWN_NAMES)}, or --entity-attribute), "
            "else by the prefixes of the partition and sort keys before a separator "
            "(# | : _, found from the data), else one entity. Per entity: its count (exact "
            "when every item is read, else an estimate with its 95% range), its share of "
            "items and bytes, item size p50/p99, its attributes with how often each is "
            "present, and what reading its items costs. Reads a bounded parallel Scan "
            "(--max-read-units), or a table export exactly with no read units "
            "(--from-export). Nothing is written."
        ),
    )
    group = parser.add_argument_group("what to read")
    group.add_argument("--table-name", help="the table (default with --from-export: its table)")
    group.add_argument(
        "--index-name", help="an index instead of the base table (an overloaded GSI's entities)"
    )
    group.add_argument(
        "--max-read-units",
        type=whole_number(1, MAX_READ_UNITS),
        metavar="N",
        help=f"read at most N read units (default {DEFAULT_MAX_READ_UNITS}): no call starts "
        "once they are spent, and segments read at once only as many pages as the budget "
        "left pays for, so it is passed by about a page at most; a read that stops before "
        "the end says so, and its counts are estimates",
    )
    group.add_argument(
        "--segments",
        type=whole_number(1, MAX_SEGMENTS),
        default=DEFAULT_SEGMENTS,
        metavar="N",
        help=f"parallel Scan segments (1 to {MAX_SEGMENTS}), read a page each in turn",
    )
    telling = parser.add_argument_group("telling entities apart")
    telling.add_argument(
        "--entity-attribute",
        metavar="NAME",
        help="the attribute that names each item's entity (default: the first of the known "
        "names the items carry)",
    )
    telling.add_argument(
        "--no-entity-attribute",
        action="store_true",
        help="ignore entity attributes: tell entities apart by key prefixes only",
    )
    telling.add_argument("--json", action="store_true", help="one JSON object")
    add_export_options(parser)
    add_connection_options(parser)
    parser.set_defaults(run=run)


def check_args(args: argparse.Namespace) -> None:
    if args.entity_attribute is not None:
        if args.no_entity_attribute:
            raise InputError("--entity-attribute and --no-entity-attribute: give one")
        if not 1 <= len(args.entity_attribute) <= 255:
            raise InputError("--entity-attribute must be an attribute name of 1 to 255 characters")
    if args.from_export is not None:
        given = [
            flag
            for flag, value in (
                ("--max-read-units", args.max_read_units is not None),
                ("--segments", args.segments != DEFAULT_SEGMENTS),
            )
            if value
        ]
        if given:
            raise InputError(
                f"an export is read whole, with no read units: drop {', '.join(given)}"
            )
    else:
        refuse_export_flags(args)
        if not args.table_name:
            raise InputError("--table-name is required (or --from-export PATH)")


def _from_export(args: argparse.Namespace, cancel: CancelToken) -> Any:
    from dynotui.cli.table_export_options import export_schema, open_export
    from dynotui.table_export.entities import export_entities

    # export_schema reads the query flags of the commands it was written for.
    args.key_condition_expression = None
    with open_export(args) as opened:
        schema = export_schema(args, opened, required=True)
        assert schema is not None
        return export_entities(
            opened,
            schema,
            index=args.index_name,
            attribute=args.entity_attribute,
            use_attribute=not args.no_entity_attribute,
            cancel=cancel,
        )


def _from_table(args: argparse.Namespace, cancel: CancelToken) -> Any:
    from dynotui.dynamodb.entities.sample import sample_entities
    from dynotui.dynamodb.schema import describe_table
    from dynotui.dynamodb.segments import segment_clients

    clients = segment_clients(connection_options(args), args.segments)
    schema = describe_table(clients[0], args.table_name)
    schema.order(args.index_name)  # an unknown index is named before any read
    budget = args.max_read_units if args.max_read_units is not None else DEFAULT_MAX_READ_UNITS
    return sample_entities(
        clients,
        schema,
        index=args.index_name,
        max_read_units=budget,
        attribute=args.entity_attribute,
        use_attribute=not args.no_entity_attribute,
        cancel=cancel,
    )


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out  # at the call: in-process callers redirect it
    check_args(args)
    token = CancelToken()  # Ctrl-C: no further call; what was read is counted
    # Only the main thread may set a handler: run by a server's worker (dynotui mcp), the
    # read is stopped by its cap instead.
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, lambda *_: token.cancel()) if main else None
    try:
        if args.from_export is not None:
            entities = _from_export(args, token)
        else:
            entities = _from_table(args, token)
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
    if args.json:
        write_line(out, entities.as_json())
    else:
        from dynotui.dynamodb.entities.words import entities_text

        out.write(entities_text(entities))
    return SIGINT_EXIT if token.cancelled else 0
