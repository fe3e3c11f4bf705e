"""``dynotui pages --scan --segments N``: a parallel Scan, every segment read to its end at
once, one JSON line per page as it arrives, each naming its segment; then the summary,
with each segment's figures (items, units, retries, throttles, done)."""

from __future__ import annotations

import argparse
import signal
import threading
from typing import Any, TextIO

from dynotui.cli.number_flags import whole
from dynotui.cli.options import connection_options
from dynotui.cli.output import write_line
from dynotui.cli.summary import summary_of
from dynotui.core.cancel import CancelToken
from dynotui.core.errors import InputError
from dynotui.core.money import PriceList
from dynotui.core.page import Page
from dynotui.core.refusals import CursorRefusals
from dynotui.core.segments import Segment
from dynotui.dynamodb.query_form import MAX_SEGMENTS
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.segments import check_segments, segment_clients, segmented_scan
from dynotui.dynamodb.spec import QuerySpec

SIGINT_EXIT = 130


def add_segments_option(group: Any) -> None:
    group.add_argument(
        "--segments",
        type=whole,
        default=1,
        metavar="N",
        help=f"a Scan in N parallel segments (1 to {MAX_SEGMENTS}), each read to its end at "
        "once through its own client; every page line names its segment, --max-pages counts "
        "per segment",
    )


def check_flags(args: argparse.Namespace) -> None:
    """What a segmented read cannot take, refused by name before any call."""
    given = [
        flag
        for flag, value in (
            ("--starting-token", args.starting_token),
            ("--exclusive-start-key", args.exclusive_start_key),
            ("--foreign-token", args.foreign_token),
        )
        if value
    ]
    if given:
        raise InputError(
            f"--segments reads every segment from its start: drop {', '.join(given)} (a "
            "token or start key resumes one read, and a segmented Scan has one per segment)"
        )
    if getattr(args, "format", "jsonl") != "jsonl":
        raise InputError(
            f"--segments writes page lines (jsonl), each naming its segment: drop --format "
            f"{args.format}"
        )
    if getattr(args, "postgres", None) is not None:
        raise InputError("--segments splits a DynamoDB Scan; PostgreSQL pages one keyset read")
    if args.statement is not None:
        raise InputError("--segments splits a Scan; a PartiQL statement pages as one read")


def run_segmented(
    args: argparse.Namespace,
    spec: QuerySpec,
    out: TextIO,
    sign: Any,
    page_json: Any,
    prices: PriceList | None,
) -> int:
    """Read the segments at once and print their pages; ``sign(source, key)`` makes a
    page's next token (None: --no-tokens)."""
    check_segments(args.segments, spec)
    clients = segment_clients(connection_options(args), args.segments)
    schema = describe_table(clients[0], spec.table)
    read = segmented_scan(clients, spec, schema, cache_pages=1)
    lock = threading.Lock()

    def on_page(segment: Segment, page: Page[Any]) -> None:
        key = page.next_start_key
        token = sign(segment.pager.source, key) if sign and key is not None else None
        line = {"segment": segment.index, "total_segments": args.segments}
        line.update(page_json(page, token))
        with lock:
            write_line(out, line, exact=args.plain)

    interrupted = CancelToken()  # Ctrl-C: no further call; the pages read are summed
    stop = CancelToken()  # also set by a segment's failure, which Ctrl-C is not
    interrupted.on_cancel(stop.cancel)
    previous = signal.signal(signal.SIGINT, lambda *_: interrupted.cancel())
    try:
        failures = read.drain(on_page, cancel=stop, max_pages=args.max_pages)
    finally:
        signal.signal(signal.SIGINT, previous)
    if failures:
        raise failures[0]  # every item, or a failure: never fewer items with success
    if not args.no_summary:
        summary = summary_of(read.totals, read.measures, prices, CursorRefusals())
        summary["summary"]["segments"] = [figures.as_json() for figures in read.figures()]
        summary["summary"]["complete"] = read.done
        write_line(out, summary)
    return SIGINT_EXIT if interrupted.cancelled else 0
