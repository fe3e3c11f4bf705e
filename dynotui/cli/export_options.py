"""``dynotui pages --format``: pages as JSON lines (the default), or the items alone as
CSV or as one JSON array (``core/export.py`` writes them)."""

from __future__ import annotations

import argparse
from typing import TextIO

from dynotui.core.errors import InputError
from dynotui.core.export import CsvItems, ItemShape, ItemWriter, JsonArrayItems, text_shape
from dynotui.core.pager import Pager

FORMATS = ("jsonl", "csv", "json")
FORMAT_HELP = (
    "jsonl: one JSON object per page, then the summary line. csv: the items alone, a header "
    "of every attribute seen (keys first, then as first seen) and a row per item, each value "
    "as its exact text (strings as they are, numbers with DynamoDB's digits, binary as "
    "base64, sets, lists and maps as compact JSON, BOOL as true or false, NULL as null, a "
    "missing attribute empty), written once every page is read. json: the items alone as "
    "one JSON array (DynamoDB JSON; plain with --plain). With csv and json the summary "
    "line goes to stderr"
)


def add_format_option(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("output")
    group.add_argument("--format", choices=FORMATS, default="jsonl", help=FORMAT_HELP)


def check_format(args: argparse.Namespace, out: TextIO) -> None:
    """Before any call: what the format cannot do."""
    if args.format == "csv" and args.plain:
        raise InputError("--plain is for jsonl and json: CSV cells are plain text already")
    if args.format == "csv" and out.isatty():
        # Exact data holds escape sequences as they are: a file's business, not a screen's.
        raise InputError(
            "--format csv writes every value exactly, control characters included: send it "
            "to a file or a pipe (> items.csv), or use --format json to look at it here"
        )


def pg_shape(key_names: tuple[str, ...]) -> ItemShape:
    """PostgreSQL's values are its own text already; NULL is an empty cell."""
    return text_shape(key_names)


def writer_for(output: str, out: TextIO, shape: ItemShape) -> ItemWriter:
    if output == "csv":
        return CsvItems(out, shape.key_names, shape.cell)
    return JsonArrayItems(out, shape.json)


def export_items(pager: Pager, max_pages: int | None, writer: ItemWriter) -> None:
    """Every page's items to ``writer`` (to the end, or ``max_pages``), then finish it; a
    failure on the way leaves ``writer`` unfinished (a CSV writes nothing)."""
    try:
        while pager.can_advance and (max_pages is None or pager.number < max_pages):
            writer.add(pager.next().items)
        writer.finish()
    finally:
        writer.close()
