"""``dynotui count``: count a Query's or Scan's matches, with its forecast and its cost."""

from __future__ import annotations

import argparse
import math
import signal
import sys
import threading
from typing import Any, TextIO

from dynotui.cli.number_flags import seconds, whole
from dynotui.cli.options import HelpFormatter, add_connection_options, connection_options
from dynotui.cli.output import write_line
from dynotui.cli.page_lines import spec_from_args
from dynotui.cli.pages_cmd import add_query_options
from dynotui.cli.table_export_options import add_export_options, refuse_export_flags, run_count
from dynotui.core.cancel import CancelToken
from dynotui.core.errors import InputError
from dynotui.core.text import plural
from dynotui.dynamodb.count import MAX_SEGMENTS, CountProgress, count, forecast
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.segments import check_segments, segment_clients
from dynotui.local.progress import Step


def register(sub: Any, help_text: str) -> None:
    parser = sub.add_parser(
        "count",
        help=help_text,
        formatter_class=HelpFormatter,
        description=(
            "Count the items a Query or Scan matches. DynamoDB keeps no such count, so this "
            "reads with Select: COUNT, following LastEvaluatedKey to its absence, and prints "
            "one JSON object: count, scanned_count, consumed_capacity, calls, seconds, "
            "complete and the forecast made before it ran. A count reads and bills every item "
            "the key condition (or the Scan) covers; concurrent writes make it drift. Ctrl-C "
            "or --max-calls stop it early: complete is then false. On a terminal, stderr shows "
            "one live line of progress."
        ),
    )
    add_query_options(parser, counting=True)
    group = parser.add_argument_group("counting")
    group.add_argument(
        "--segments",
        type=whole,
        default=1,
        help=f"a Scan in this many parallel segments (1 to {MAX_SEGMENTS})",
    )
    group.add_argument(
        "--max-calls",
        type=whole,
        help="stop after this many calls in all, over every segment (default: none)",
    )
    group.add_argument(
        "--max-read-units",
        type=seconds,
        metavar="N",
        help="stop before the next call once the calls made have cost this many read units "
        "(a call is never cut); complete is then false (default: none)",
    )
    group.add_argument(
        "--progress",
        action="store_true",
        help="one JSON line per call on stderr (without it, a terminal gets one live line "
        "of progress and anything else gets none)",
    )
    add_export_options(parser, counting=True)
    add_connection_options(parser)
    parser.set_defaults(run=run)


def progress_line(step: CountProgress, total: int | None) -> str:
    """What the live line says after each call: no percentage, since ItemCount is stale."""
    of = f" of ~{total:,} (ItemCount)" if total else ""
    return (
        f"{plural(step.count, 'match', 'matches')}, {plural(step.scanned, 'item')} read{of}, "
        f"{plural(step.calls, 'call')}, "
        f"{step.capacity:g} RCU"
    )


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out  # at the call: in-process callers redirect it
    if args.from_export is not None:
        return run_count(args, out)
    refuse_export_flags(args)
    if args.max_calls is not None and args.max_calls < 1:
        raise InputError("--max-calls must be 1 or more")
    cap = args.max_read_units
    if cap is not None and not (math.isfinite(cap) and cap > 0):
        raise InputError("--max-read-units must be a finite number above 0")
    spec = spec_from_args(args)
    spec.check_options()
    check_segments(args.segments, spec)
    # A segmented Scan reads each segment through its own client (its own retries).
    clients = segment_clients(connection_options(args), args.segments)
    client = clients[0]
    schema = describe_table(client, spec.table)
    spec.validate(schema)
    prediction = forecast(schema, spec)
    token = CancelToken()
    live = None if args.progress or not sys.stderr.isatty() else Step("Counting")

    def report(step: CountProgress) -> None:
        if live is not None:
            live.update(progress_line(step, prediction.items))
        if args.progress:
            write_line(
                sys.stderr,
                {
                    "calls": step.calls,
                    "count": step.count,
                    "scanned_count": step.scanned,
                    "consumed_capacity": step.capacity,
                    "seconds": round(step.seconds, 3),
                    "items_per_second": round(step.rate, 1),
                },
            )

    def interrupted(signum: int, frame: Any) -> None:
        token.cancel()  # no further call; the partial count is printed

    # Only the main thread may set a handler: a command run by a server's worker (dynotui
    # mcp) is stopped by its caps instead.
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, interrupted) if main else None
    if live is not None:
        live.__enter__()
    try:
        result = count(
            client,
            spec,
            schema,
            segments=args.segments,
            clients=clients,
            cancel=token,
            progress=report,
            max_calls=args.max_calls,
            max_read_units=cap,
            prediction=prediction,
        )
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
        if live is not None:
            ended = "Counting stopped" if token.cancelled else "Counted"
            live.finish(f"{ended}: {live.detail}" if live.detail else ended)
    write_line(out, result.as_json())
    return 130 if token.cancelled else 0
