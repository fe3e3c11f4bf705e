"""``--from-export``: count, pages and reports read from a table export with DuckDB, with no
read units, every figure carrying the export's time."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, TextIO

from dynotui.cli.number_flags import whole
from dynotui.cli.output import write_line
from dynotui.core.errors import InputError
from dynotui.core.text import visible

if TYPE_CHECKING:
    from dynotui.dynamodb.schema import TableSchema

MAX_PARTITIONS = 10_000


def add_export_options(parser: argparse.ArgumentParser, *, counting: bool = False) -> None:
    group = parser.add_argument_group(
        "table export (read with DuckDB: no read units, the table as it was at export time)"
    )
    group.add_argument(
        "--from-export",
        metavar="PATH",
        help="read a DynamoDB table export (DynamoDB JSON) instead of the table: its folder "
        "(holding manifest-summary.json), on this machine or as s3://bucket/prefix/"
        "AWSDynamoDB/ID (the endpoint from AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, "
        "credentials from the AWS chain); --table-name defaults to the export's table",
    )
    group.add_argument(
        "--key-schema",
        action="append",
        metavar="KEYS",
        help="the table's keys as pk:S,sk:N (and an index's as NAME=pk:S,sk:S, repeated) "
        "when DescribeTable on the live table should not be asked, or cannot answer",
    )
    group.add_argument(
        "--no-cache",
        action="store_true",
        help="read the export's data files every time instead of its copy in the cache "
        "(the first read of an export keeps one: see dynotui exports)",
    )
    if counting:
        group.add_argument(
            "--code",
            choices=("athena",),
            help="print the same question for Athena instead of reading the export: the "
            "aws dynamodb export-table-to-point-in-time command, CREATE EXTERNAL TABLE over "
            "the export's data files, and the SELECT of the count (or the partitions)",
        )
        group.add_argument(
            "--partitions",
            type=whole,
            metavar="N",
            help="also the N largest partitions (by the items' bytes, then items) of the "
            "order read, of the items the filter keeps (a key condition does not narrow "
            "them): items and bytes per partition key value, where hot partitions are",
        )


def refuse_export_flags(args: argparse.Namespace) -> None:
    """The export's own flags, refused without --from-export."""
    given = [
        flag
        for flag, value in (
            ("--key-schema", args.key_schema),
            ("--partitions", getattr(args, "partitions", None)),
            ("--code athena", "athena" if getattr(args, "code", None) == "athena" else None),
            ("--no-cache", True if args.no_cache else None),
        )
        if value is not None
    ]
    if given:
        raise InputError(f"{', '.join(given)} go with --from-export")


def _table_name(args: argparse.Namespace, table: str) -> None:
    if args.table_name is not None and args.table_name != table:
        raise InputError(
            f"--table-name {args.table_name!r} is not the export's table {table!r}: drop it"
        )
    args.table_name = table


def needs_schema(args: argparse.Namespace) -> bool:
    return bool(
        args.key_schema
        or args.key_condition_expression
        or args.index_name
        or getattr(args, "partitions", None)
    )


def export_schema(
    args: argparse.Namespace, opened: Any, *, required: bool = False
) -> TableSchema | None:
    """The key schema when the question needs one: ``--key-schema``, else DescribeTable."""
    from dataclasses import replace

    from dynotui.dynamodb.connection import make_client
    from dynotui.dynamodb.schema import describe_table
    from dynotui.table_export.keys import as_exported, resolve_schema

    if not (required or needs_schema(args)):
        return None
    table = opened.export.table_name

    def describe() -> TableSchema:
        from dynotui.cli.options import connection_options

        options = connection_options(args)
        if options.region is None and opened.export.region:
            options = replace(options, region=opened.export.region)
        return describe_table(make_client(options), table)

    schema = resolve_schema(args.key_schema, table, describe)
    return as_exported(schema, opened.export.item_count, opened.export.export_time)


class CopyProgress:
    """What making an export's copy says on stderr: on a terminal, the download of an
    export on S3 redrawn in place; then where the copy is kept and its size."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stderr
        self.live = self.out.isatty()

    def fetched(self, done: int, total: int, files: int, count: int) -> None:
        if not self.live:
            return
        line = (
            f"dynotui: downloading the export once: {files}/{count} files, "
            f"{done / 1e6:,.1f} of {total / 1e6:,.1f} MB"
        )
        # Left with the cursor at its start, so whatever comes next is written over it.
        self.out.write("\r\x1b[2K" + ("" if files == count else line + "\r"))
        self.out.flush()

    def said(self, text: str) -> None:
        self.out.write(f"dynotui: {visible(text)}\n")
        self.out.flush()


def open_export(args: argparse.Namespace) -> Any:
    from dynotui.table_export.reading import OpenExport

    progress = CopyProgress()
    opened = OpenExport(
        args.from_export,
        profile=args.profile,
        region=args.region,
        cache=not args.no_cache,
        said=progress.said,
        fetched=progress.fetched,
    )
    _table_name(args, opened.export.table_name)
    return opened


def athena_for(spec: Any, schema: TableSchema | None, export: Any, partitions: bool) -> Any:
    """The Athena code of the spec's count (or its partitions) on the export."""
    from dynotui.table_export.athena import athena_code
    from dynotui.table_export.predicate import Params
    from dynotui.table_export.query import where

    where(spec, schema, Params())  # the same checks as reading the export would make
    order = schema.order(spec.index) if schema is not None else None
    index_keys: tuple[tuple[str, str], ...] = ()
    if order is not None and order.kind != "table":
        index_keys = tuple(
            (key.name, key.type) for key in (order.partition_key, order.sort_key) if key
        )
    key = order.partition_key.name if partitions and order is not None else None
    return athena_code(spec, export, key, index_keys)


def athena_blocks(spec: Any, schema: TableSchema, opened: Any) -> list[Any]:
    """The report's code: the export command and the Athena SQL of the same count, or why
    they are not written."""
    from dynotui.report.model import CodeBlock

    try:
        code = athena_for(spec, schema, opened.export, False)
    except InputError as exc:
        return [CodeBlock("Athena", "sql", f"-- not written: {exc}")]
    return [
        CodeBlock("Make an export · AWS CLI", "sh", code.export_command),
        CodeBlock("Athena · CREATE EXTERNAL TABLE", "sql", code.create_table),
        CodeBlock("Athena · the count", "sql", code.select),
    ]


def partitions_table(found: Any) -> str:
    """The partition sizes as a text table for a person (keys made visible)."""
    rows = [("#", "partition key", "items", "share", "JSON bytes")]
    for rank, part in enumerate(found.top, start=1):
        ((kind, value),) = part.key.items()
        share = part.items / found.items if found.items else 0.0
        rows.append(
            (
                str(rank),
                visible(f"{value} ({kind})"),
                f"{part.items:,}",
                f"{share:.1%}",
                f"{part.json_bytes:,}",
            )
        )
    widths = [min(60, max(len(row[i]) for row in rows)) for i in range(5)]
    lines = [
        "  ".join(
            cell[: widths[i]].ljust(widths[i]) if i == 1 else cell.rjust(widths[i])
            for i, cell in enumerate(row)
        )
        for row in rows
    ]
    order = "the base table" if found.order == "table" else visible(found.order)
    when = found.export.export_time.strftime("%Y-%m-%d %H:%M UTC")
    lines.append(
        f"{found.partitions:,} values of partition key {visible(found.key_name)!r} on {order}, "
        f"{found.items:,} items, in the export of {when} (not live data)"
    )
    return "\n".join(lines)


def run_count(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    from dynotui.cli.page_lines import spec_from_args
    from dynotui.table_export.count import count_export, partition_sizes

    given = [
        flag
        for flag, value in (
            ("--segments", args.segments != 1),
            ("--max-calls", args.max_calls),
            ("--progress", args.progress),
        )
        if value
    ]
    if given:
        raise InputError(f"an export is read whole, with no calls: drop {', '.join(given)}")
    top = args.partitions
    if top is not None and not 1 <= top <= MAX_PARTITIONS:
        raise InputError(f"--partitions must be 1 to {MAX_PARTITIONS:,}")
    with open_export(args) as opened:
        args.scan = args.scan or not args.key_condition_expression
        spec = spec_from_args(args)
        schema = export_schema(args, opened)
        if args.code is not None:
            out.write(athena_for(spec, schema, opened.export, top is not None).text())
            return 0
        result = count_export(opened, spec, schema).as_json()
        if top is not None:
            assert schema is not None
            found = partition_sizes(opened, spec, schema, top)
            result["partitions"] = found.as_json()
            if sys.stderr.isatty():
                print(partitions_table(found), file=sys.stderr)
    write_line(out, result)
    return 0


def export_page_json(page: Any, next_token: str | None, plain: bool) -> dict[str, Any]:
    """A page of an export in the shape of a live page's line, saying where it came from:
    source ``export``, no read units, no calls, and the export's time."""
    from dynotui.dynamodb.dynamo_json import plain_item, to_wire

    cost = page.cost
    items = [plain_item(i) for i in page.items] if plain else [to_wire(i) for i in page.items]
    return {
        "page": page.number,
        "source": "export",
        "export_time": page.extra.get("export_time"),
        "mode": page.mode,
        "start_key": to_wire(page.start_key),
        "items": items,
        "shown": page.shown,
        "count": page.count,
        "scanned_count": cost.items_read,
        "read_units": 0,
        "consumed_capacity": {"total": 0.0, "table": 0.0, "indexes": {}},
        "calls": 0,
        "retries": 0,
        "bytes_read": cost.bytes_read,
        "latency_ms": round(cost.latency_ms, 3),
        "next_start_key": to_wire(page.next_start_key),
        "has_next": page.has_next.as_json(),
        "ended_by": page.ended_by.value,
        "cached": page.cached,
        "next_token": next_token,
    }


def refuse_for_pages(args: argparse.Namespace) -> None:
    """What pages of an export cannot take, refused by name before anything is read."""
    given = [
        flag
        for flag, value in (
            ("--statement", args.statement),
            ("--parameters", args.parameters),
            ("--mode", args.mode),
            ("--segments", getattr(args, "segments", 1) != 1),
            ("--exclusive-start-key", args.exclusive_start_key),
            ("--foreign-token", args.foreign_token),
            (
                f"--code {getattr(args, 'code', None)}",
                getattr(args, "code", None) not in (None, "athena"),
            ),
        )
        if value
    ]
    if given:
        raise InputError(
            f"pages of an export are exact pages in key order, from their start or a signed "
            f"token: drop {', '.join(given)}"
        )


def export_source(args: argparse.Namespace, opened: Any) -> Any:
    """The Query or Scan the flags ask of the export, as a paging source."""
    from dynotui.cli.page_lines import spec_from_args
    from dynotui.table_export.source import ExportSource

    args.scan = args.scan or not args.key_condition_expression
    spec = spec_from_args(args, page_size=args.page_size)
    schema = export_schema(args, opened, required=True)
    assert schema is not None
    return ExportSource(opened, spec, schema)


def run_pages(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    from dynotui.cli.foreign_options import starting_point
    from dynotui.cli.page_lines import check_paging, page_through
    from dynotui.core.refusals import CursorRefusals
    from dynotui.dynamodb.item_shape import dynamo_shape

    refuse_for_pages(args)
    signer = check_paging(args)
    with open_export(args) as opened:
        source = export_source(args, opened)
        spec, schema = source.spec, source.schema
        refusals = CursorRefusals()
        start = starting_point(args, source, signer, None, what="an export", refusals=refusals)
        return page_through(
            source,
            args,
            signer,
            out,
            lambda page, token: export_page_json(page, token, args.plain),
            start=start,
            refusals=refusals,
            shape=lambda: dynamo_shape(schema.cursor_key_names(spec.index), args.plain),
        )


def run_report(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """``dynotui report --from-export``: pages as ``pages --from-export`` reads them, the
    partition sizes with ``--partitions``, written as HTML and Markdown."""
    from dynotui.cli.page_lines import check_paging
    from dynotui.cli.report_reading import limits, output_paths, read_pages, start_of
    from dynotui.cli.summary import summary_json
    from dynotui.core.ledger import SessionLedger
    from dynotui.core.pager import Pager
    from dynotui.report.files import write_atomically
    from dynotui.report.html import render_html
    from dynotui.report.markdown import render_markdown
    from dynotui.table_export.count import partition_sizes
    from dynotui.table_export.report import export_report

    html_path, markdown_path = output_paths(args.output)
    refuse_for_pages(args)
    compare = [
        flag
        for flag, value in (
            ("--compare-index-name", args.compare_index_name),
            ("--compare-key-condition-expression", args.compare_key_condition_expression),
            ("--compare-filter-expression", args.compare_filter_expression),
            ("--compare-mode", args.compare_mode),
            ("--what-if", getattr(args, "what_if", None)),
        )
        if value is not None
    ]
    if compare:
        raise InputError(f"a report of an export has one side: drop {', '.join(compare)}")
    top = args.partitions
    if top is not None and not 1 <= top <= MAX_PARTITIONS:
        raise InputError(f"--partitions must be 1 to {MAX_PARTITIONS:,}")
    signer = check_paging(args)
    max_pages, _ = limits(args)
    with open_export(args) as opened:
        source = export_source(args, opened)
        spec, schema = source.spec, source.schema
        ledger = SessionLedger()
        pager = Pager(source, start_key=start_of(source, args, signer, ledger), ledger=ledger)
        read_pages(pager, max_pages, None)
        found = partition_sizes(opened, spec, schema, top) if top is not None else None
        report = export_report(
            pager, title=args.title, partitions=found, code=athena_blocks(spec, schema, opened)
        )
    write_atomically(html_path, render_html(report))
    write_atomically(markdown_path, render_markdown(report))
    side = {"name": report.sides[0].name, **summary_json(pager, None, ledger.cursors)["summary"]}
    write_line(out, {"html": str(html_path), "markdown": str(markdown_path), "sides": [side]})
    return 0
