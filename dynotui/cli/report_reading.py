"""What a report reads: its limits, its two output paths, its start, and the loop that
reads pages until a limit; shared by ``report`` and ``report --from-export``."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dynotui.core.cursor import CursorSigner
from dynotui.core.errors import InputError
from dynotui.core.ledger import SessionLedger
from dynotui.core.pager import Pager
from dynotui.core.refusals import verify_cursor
from dynotui.core.source import Source


def limits(args: argparse.Namespace) -> tuple[int | None, float | None]:
    if args.pages is not None and args.max_pages is not None:
        raise InputError("--pages and --max-pages say the same: give one")
    pages = args.pages if args.pages is not None else args.max_pages
    if pages is not None and pages < 1:
        raise InputError("--pages must be 1 or more")
    capacity = args.max_capacity
    if capacity is not None and (not math.isfinite(capacity) or capacity <= 0):
        raise InputError("--max-capacity must be a finite number above 0")
    return pages, capacity


def output_paths(text: str) -> tuple[Path, Path]:
    if not text.strip():
        raise InputError("--output is empty: name the file to write (without .html)")
    base = Path(text)
    if base.suffix in (".html", ".md"):
        base = base.with_suffix("")
    if base.name in ("", ".", ".."):
        raise InputError(f"--output {text!r} names a folder: add a file name")
    return base.with_name(base.name + ".html"), base.with_name(base.name + ".md")


def read_pages(pager: Pager, max_pages: int | None, max_capacity: float | None) -> None:
    while pager.can_advance and (max_pages is None or pager.number < max_pages):
        spent = pager.totals.cost.headline if pager.totals.cost is not None else None
        if max_capacity is not None and spent is not None and spent >= max_capacity:
            return
        pager.next()


def start_of(
    source: Source,
    args: argparse.Namespace,
    signer: Callable[[], CursorSigner],
    ledger: SessionLedger,
) -> Any:
    if args.starting_token is None:
        return None
    return verify_cursor(
        signer(), args.starting_token, source.scope(), source.key_from_json, ledger.cursors
    )
