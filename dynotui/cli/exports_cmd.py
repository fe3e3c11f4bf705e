"""``dynotui exports``: the copies of table exports kept in the cache (the first read of an
export keeps one; later reads use it): list them with their place and size, clear them."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from dynotui.cli.options import HelpFormatter
from dynotui.cli.output import write_line
from dynotui.core.errors import InputError
from dynotui.core.text import visible

MAX_DAYS = 36_500


def register(sub: Any, help_text: str) -> None:
    parser = sub.add_parser(
        "exports",
        help=help_text,
        formatter_class=HelpFormatter,
        description=(
            "The first read of a table export (--from-export) keeps a copy of its data as a "
            "DuckDB database in the cache folder ($DYNOTUI_EXPORT_CACHE, else the user cache "
            "folder's dynotui/exports); later counts, pages and partition lists read the "
            "copy. A copy is rebuilt when the export's manifests or data files change."
        ),
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    listing = actions.add_parser(
        "list",
        help="the copies kept: size, table, export time, items, where the export was read",
        formatter_class=HelpFormatter,
    )
    listing.add_argument("--json", action="store_true", help="one JSON object per copy")
    listing.set_defaults(run=run_list)
    clearing = actions.add_parser(
        "clear",
        help="remove the copies (a later read of an export makes its copy again)",
        formatter_class=HelpFormatter,
    )
    clearing.add_argument(
        "--older-than",
        metavar="DAYS",
        help="only the copies made more than DAYS days ago (whole days)",
    )
    clearing.set_defaults(run=run_clear)
    parser.set_defaults(run=run_list)


def _megabytes(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


def run_list(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from dynotui.table_export.cache import cache_folder, list_copies

    out = out or sys.stdout
    folder = cache_folder()
    copies = list_copies(folder)
    if getattr(args, "json", False):
        for copy in copies:
            write_line(out, copy.as_json())
        return 0
    for copy in copies:
        out.write(
            visible(
                f"{_megabytes(copy.size):>10}  {copy.table}  export of {copy.export_time}  "
                f"{copy.items:,} items  made {copy.built_at}  from {copy.location}"
            )
            + "\n"
        )
    total = sum(copy.size for copy in copies)
    count = f"{len(copies)} cop{'y' if len(copies) == 1 else 'ies'}"
    out.write(visible(f"{count}, {_megabytes(total)}, in {folder}") + "\n")
    return 0


def days(text: str | None) -> float | None:
    """``--older-than``: whole days as ASCII digits, 0 to MAX_DAYS."""
    if text is None:
        return None
    text = text.strip()
    if not text or not text.isascii() or not text.isdigit() or len(text) > 6:
        raise InputError(f"--older-than {visible(text)[:40]!r}: whole days, as digits")
    found = int(text)
    if found > MAX_DAYS:
        raise InputError(f"--older-than must be 0 to {MAX_DAYS:,} days")
    return found * 86_400.0


def run_clear(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from dynotui.table_export.cache import cache_folder, clear_copies

    out = out or sys.stdout
    older_than = days(args.older_than)
    folder = cache_folder()
    removed, freed = clear_copies(folder, older_than)
    count = f"{removed} cop{'y' if removed == 1 else 'ies'}"
    out.write(visible(f"removed {count} ({_megabytes(freed)}) from {folder}") + "\n")
    return 0
