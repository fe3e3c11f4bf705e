"""Pages as lines: a query's spec from the flags, and the loop that reads pages and writes
one JSON line (or the items) each, signing the next page's cursor. Shared by ``pages``,
``report`` and the export source, so none of them imports another command."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import Any, TextIO

from dynotui.cli.export_options import export_items, writer_for
from dynotui.cli.foreign_options import Start, starting_point
from dynotui.cli.output import write_line
from dynotui.cli.summary import summary_json
from dynotui.core import json_input
from dynotui.core.cursor import CursorSigner, check_max_age
from dynotui.core.cursor_secret import lazy_signer
from dynotui.core.errors import InputError
from dynotui.core.export import ItemShape
from dynotui.core.money import PriceList
from dynotui.core.page import Page
from dynotui.core.pager import Pager
from dynotui.core.refusals import CursorRefusals
from dynotui.core.source import Source
from dynotui.dynamodb.dynamo_json import parse_wire_json, plain_item, to_wire
from dynotui.dynamodb.spec import QuerySpec, from_expressions


def _names(text: str | None) -> dict[str, str]:
    if not text:
        return {}
    names = json_input.loads(text, "--expression-attribute-names")
    if not isinstance(names, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v for k, v in names.items()
    ):
        raise InputError('--expression-attribute-names must look like {"#s": "status"}')
    return names


def spec_from_args(args: argparse.Namespace, **options: Any) -> QuerySpec:
    if args.table_name is None:
        raise InputError("--table-name is required for a Query or Scan")
    if not args.table_name.strip():
        raise InputError("--table-name is empty: name the table to read")
    values = {}
    if args.expression_attribute_values:
        values = parse_wire_json(args.expression_attribute_values, "--expression-attribute-values")
    return from_expressions(
        args.table_name,
        index=args.index_name,
        scan=args.scan,
        key_condition=args.key_condition_expression,
        filter=args.filter_expression,
        projection=args.projection_expression,
        names=_names(args.expression_attribute_names),
        values=values,
        forward=not args.no_scan_index_forward,
        consistent_read=args.consistent_read,
        **options,
    )


def dynamo_page_json(page: Page[Any], next_token: str | None, plain: bool) -> dict[str, Any]:
    cost = page.cost
    items = [plain_item(i) for i in page.items] if plain else [to_wire(i) for i in page.items]
    return {
        "page": page.number,
        "mode": page.mode,
        "start_key": to_wire(page.start_key),
        "items": items,
        "shown": page.shown,
        "count": page.count,
        "scanned_count": page.scanned_count,
        "consumed_capacity": cost.capacity.as_json() if cost.capacity else None,
        "calls": cost.requests,
        "retries": cost.retries,
        "call_latency_ms": [round(c.latency_ms, 3) for c in cost.calls],
        "latency_ms": round(cost.latency_ms, 3),
        "last_evaluated_key": to_wire(page.extra.get("last_evaluated_key")),
        "next_start_key": to_wire(page.next_start_key),
        "has_next": page.has_next.as_json(),
        "ended_by": page.ended_by.value,
        "cached": page.cached,
        "next_token": next_token,
    }


def check_paging(args: argparse.Namespace) -> Callable[[], CursorSigner]:
    """The paging flags' own checks, before any call; the signer, made on first use."""
    if args.max_pages is not None and args.max_pages < 1:
        raise InputError("--max-pages must be 1 or more")
    cap = getattr(args, "max_read_units", None)
    if cap is not None and not (math.isfinite(cap) and cap > 0):
        raise InputError("--max-read-units must be a finite number above 0")
    max_age = check_max_age(args.cursor_max_age)
    return lazy_signer(max_age)


def spent(pager: Pager, max_read_units: float | None) -> bool:
    """The pages read so far have cost ``max_read_units`` or more (never, when the
    endpoint reports no capacity: ``--max-pages`` is the cap then)."""
    cost = pager.totals.cost
    headline = cost.headline if cost is not None else None
    return max_read_units is not None and headline is not None and headline >= max_read_units


def emit(
    pager: Pager,
    out: TextIO,
    max_pages: int | None,
    to_json: Callable[[Page[Any], str | None], dict[str, Any]],
    sign: Callable[[Any], str] | None,
    plain: bool,
    mark: dict[str, Any] | None = None,
    max_read_units: float | None = None,
) -> None:
    """Page to the end (or ``max_pages``, or once ``max_read_units`` are spent: a page is
    never cut), one JSON line per page as it arrives; page 1 carries ``foreign_start``
    when a foreign cursor set its start (``mark``)."""
    while (
        pager.can_advance
        and (max_pages is None or pager.number < max_pages)
        and not spent(pager, max_read_units)
    ):
        page = pager.next()
        token = sign(page.next_start_key) if sign and page.next_start_key is not None else None
        line = to_json(page, token)
        if mark is not None and page.number == 1:
            line["foreign_start"] = mark
        write_line(out, line, exact=plain)


def signed(signer: Callable[[], CursorSigner], source: Source, key: Any) -> str:
    return signer().sign(source.key_to_json(key), source.scope())


def page_through(
    source: Source,
    args: argparse.Namespace,
    signer: Callable[[], CursorSigner],
    out: TextIO,
    to_json: Callable[[Page[Any], str | None], dict[str, Any]],
    exact: bool | None = None,
    start: Start | None = None,
    prices: PriceList | None = None,
    refusals: CursorRefusals | None = None,
    shape: Callable[[], ItemShape] | None = None,
) -> int:
    """From ``--starting-token`` (verified against this query's scope), or ``start`` (a
    foreign cursor's), to the end, or ``--max-pages``; each page with a signed token of
    the next, unless ``--no-tokens``; then the summary line, unless ``--no-summary``.
    With ``--format csv`` or ``json`` the items alone, written as ``shape`` says, and the
    summary line on stderr."""
    scope = source.scope()
    refusals = refusals if refusals is not None else CursorRefusals()
    if start is None:
        start = starting_point(args, source, signer, None, what="this read", refusals=refusals)

    def sign(key: Any) -> str:
        return signer().sign(source.key_to_json(key), scope)

    pager = Pager(source, start_key=start.key)
    output = getattr(args, "format", "jsonl")
    if output == "jsonl" or shape is None:
        emit(
            pager,
            out,
            args.max_pages,
            to_json,
            None if args.no_tokens else sign,
            args.plain if exact is None else exact,
            start.mark,
            getattr(args, "max_read_units", None),
        )
    else:
        export_items(pager, args.max_pages, writer_for(output, out, shape()))
    if not getattr(args, "no_summary", False):
        write_line(out if output == "jsonl" else sys.stderr, summary_json(pager, prices, refusals))
    return 0
