"""``dynotui what-if --postgres``: a hypothetical index planned by the server (hypopg)."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any, TextIO

from dynotui.cli.output import write_line
from dynotui.core.errors import InputError
from dynotui.core.text import visible

PG_PAGES = 5  # pages read now, measured


def _dynamodb_flags(args: argparse.Namespace) -> list[str]:
    return [
        flag
        for flag, value in (
            ("--partition-key", args.partition_key),
            ("--sort-key", args.sort_key),
            ("--include", args.include),
            ("--code", args.code),
            ("--table-sample", args.table_sample),
        )
        if value
    ]


def text(result: Any) -> str:
    data = result.as_json()
    now, what_if = data["now"], data["what_if"]
    buffers = what_if["buffers_per_page"]
    each = now["buffers_per_page"]
    rows = [
        ("plan of page 1", now["plan"], what_if["plan"] or "not planned"),
        (
            "buffers per page",
            f"p50 {each['p50']:,.0f} · max {each['max']:,.0f} ({now['pages']} pages read)"
            if each["p50"] is not None
            else "no page",
            "not estimated"
            if buffers is None
            else f"{buffers['low']:,.0f} to {buffers['high']:,.0f} *",
        ),
        (
            "planner cost of page 1",
            "" if now["planner_cost"] is None else f"{now['planner_cost']:,.2f}",
            "" if what_if["planner_cost"] is None else f"{what_if['planner_cost']:,.2f} *",
        ),
    ]
    out = [
        *textwrap.wrap(visible(f"What if {data['table']} had: {data['hypothetical_index']}?"), 80),
        "",
        f"{'':<24}{'now (measured)':<27}  what-if (estimated)",
    ]
    for label, left, right in rows:
        if not left and not right:
            continue
        a = textwrap.wrap(visible(left), 27) or [""]
        b = textwrap.wrap(visible(right), 27) or [""]
        for n in range(max(len(a), len(b))):
            cells = (
                label if n == 0 else "",
                a[n] if n < len(a) else "",
                b[n] if n < len(b) else "",
            )
            out.append(f"{cells[0]:<24}{cells[1]:<27}  {cells[2]}".rstrip())
    if what_if["index_bytes"] is not None:
        out.append(f"{'index size':<24}{'':<27}  {what_if['index_bytes']:,} bytes *")
    for note in data["notes"]:
        out += textwrap.wrap(visible(note), 80, initial_indent="- ", subsequent_indent="  ")
    if data["hypopg_installed"]:
        out.append("* estimated by the server's planner with a hypothetical index (hypopg)")
    return "\n".join(out) + "\n"


def run_postgres(args: argparse.Namespace, out: TextIO) -> int:
    from dynotui.cli.pages_cmd import check_no_prices
    from dynotui.cli.postgres_options import (
        check_no_dynamodb_flags,
        connect_from_args,
        query_from_args,
    )
    from dynotui.postgres.what_if import estimate

    check_no_dynamodb_flags(args)
    check_no_prices(args)
    given = _dynamodb_flags(args)
    if given:
        raise InputError(f"--postgres takes --hypothetical-index: drop {', '.join(given)}")
    if not args.hypothetical_index:
        raise InputError("--postgres needs --hypothetical-index 'column, column'")
    session = connect_from_args(args)
    try:
        query = query_from_args(session, args, args.page_size)
        result = estimate(session, query, args.hypothetical_index, PG_PAGES)
    finally:
        session.close()
    if args.json:
        write_line(out, result.as_json())
    else:
        out.write(text(result))
    return 0
