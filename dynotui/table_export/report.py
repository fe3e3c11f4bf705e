"""A report of pages read from an export: the query in DynamoDB's terms, the export it came
from and when, no read units, the partition sizes, and the same question for an engine
that reads exports where they lie (Athena), with the command that makes an export."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone

from dynotui.core.pager import Pager
from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.report.build import side_from_pager
from dynotui.report.model import CodeBlock, Report, TableSection
from dynotui.table_export.count import PartitionSizes
from dynotui.table_export.source import ExportCost, ExportSource

PARTS_LABEL = "bytes read from the export"


def _parts(cost: ExportCost) -> tuple[tuple[str, float], ...]:
    return (("bytes read", float(cost.bytes_read)),)


def query_lines(source: ExportSource) -> list[tuple[str, str]]:
    spec = source.spec
    export = source.opened.export
    lines = [
        ("operation", f"{'Scan' if spec.scan else 'Query'} of an export (DuckDB)"),
        ("table", spec.table),
        ("order", source.order.describe()),
        ("export time", f"{export.export_time.isoformat()} (not live data)"),
    ]
    for label, field, text in (
        ("key condition", "key condition", spec.key_condition),
        ("filter", "filter", spec.filter),
        ("projection", "projection", spec.projection),
    ):
        if text:
            lines.append((label, spec.typed.get(field, (None, text))[1]))
    if spec.values:
        lines.append(("values", json.dumps(to_wire(dict(spec.values)), ensure_ascii=False)))
    lines += [
        ("direction", "forward" if spec.forward or spec.scan else "backward"),
        ("page size", str(spec.page_size)),
    ]
    return lines


def partitions_section(found: PartitionSizes) -> TableSection:
    rows = []
    for rank, part in enumerate(found.top, start=1):
        ((kind, value),) = part.key.items()
        share = part.items / found.items if found.items else 0.0
        cells = (f"{value} ({kind})", f"{part.items:,}", f"{share:.1%}", f"{part.json_bytes:,}")
        rows.append((str(rank), *cells))
    order = "the base table" if found.order == "table" else found.order
    return TableSection(
        title=f"The largest partitions ({order}, by bytes)",
        header=("#", f"{found.key_name} (partition key)", "items", "share", "JSON bytes"),
        rows=tuple(rows),
        notes=(
            f"{found.partitions:,} partition key values, {found.items:,} items, "
            f"{found.json_bytes:,} bytes of DynamoDB JSON in the export of "
            f"{found.export.export_time.isoformat()}. Bytes are the items' DynamoDB JSON "
            "text, larger than DynamoDB's own item size, in proportion.",
        ),
    )


def export_report(
    pager: Pager,
    *,
    title: str | None = None,
    partitions: PartitionSizes | None = None,
    code: Sequence[CodeBlock] = (),
) -> Report:
    source = pager.source
    assert isinstance(source, ExportSource)
    export = source.opened.export
    order = source.order
    kind = {"table": "base table", "lsi": "LSI", "gsi": "GSI"}[order.kind]
    name = kind if order.kind == "table" else f"{kind} {order.name}"
    side = side_from_pager(
        pager,
        name=f"{name} · {'Scan' if source.spec.scan else 'Query'} · export",
        query=query_lines(source),
        parts_of=_parts,
        parts_label=PARTS_LABEL,
        key_json=lambda key: None if key is None else source.key_to_json(key),
        code=code,
    )
    return Report(
        title=title or f"dynotui report: {side.name}",
        made_at=datetime.now(timezone.utc),
        source="a DynamoDB table export (read with DuckDB)",
        connection=(
            ("export", export.export_arn),
            ("export time", export.export_time.isoformat()),
            ("location", export.location.root),
            ("table", export.table_name),
            ("index", source.spec.index or "(base table)"),
        ),
        sides=(side,),
        notes=(
            f"Read from a table export taken at {export.export_time.isoformat()}: the table "
            "as it was then, not live data. An export is read without read units; the "
            "first page reads every item of it.",
        ),
        tables=(partitions_section(partitions),) if partitions is not None else (),
    )
