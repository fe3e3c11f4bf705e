"""Counting over an export: the exact count of a filter over the whole table as it was at
the export's time, no read units, and the bytes read; and the sizes of partitions."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.spec import QuerySpec
from dynotui.table_export.manifest import Export
from dynotui.table_export.predicate import Params, pointer
from dynotui.table_export.query import where
from dynotui.table_export.reading import OpenExport


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class ExportCount:
    export: Export
    scope: str
    count: int
    scanned: int  # every item of the export is read
    bytes_read: int
    seconds: float
    taken_at: datetime = field(default_factory=_now)

    def as_json(self) -> dict[str, Any]:
        return {
            "source": "export",
            "count": self.count,
            "scanned_count": self.scanned,
            "read_units": 0,
            "bytes_read": self.bytes_read,
            "files": len(self.export.files),
            "seconds": round(self.seconds, 3),
            "complete": True,
            "export_time": self.export.export_time.isoformat(),
            "taken_at": self.taken_at.isoformat(timespec="seconds"),
            "export": self.export.as_json(),
        }

    def summary(self) -> str:
        when = self.export.export_time.strftime("%Y-%m-%d %H:%M UTC")
        return (
            f"{self.count:,} matches in the export of {when}, 0 read units, "
            f"{self.bytes_read / 1e6:,.1f} MB read"
        )


def count_export(
    opened: OpenExport,
    spec: QuerySpec,
    schema: TableSchema | None,
    clock: Callable[[], float] = time.monotonic,
) -> ExportCount:
    """Every line of every data file read once; the data's own count held to the
    manifests' (an incomplete copy is refused, never counted short)."""
    began = clock()
    params = Params()
    predicate = where(spec, schema, params)
    if opened.export.files:
        relation = opened.lines()
        item = opened.item
        sql = (
            f"SELECT count(*), count(*) FILTER (WHERE {item}), "
            f"count(*) FILTER (WHERE {item} AND {predicate}) FROM {relation}"
        )
        ((lines, items, matched),) = opened.query(sql, params.values)
    else:
        lines = items = matched = 0
    opened.check_lines(lines, items)
    return ExportCount(
        export=opened.export,
        scope=spec.scope(),
        count=matched,
        scanned=items,
        bytes_read=opened.data_bytes(),
        seconds=clock() - began,
    )


@dataclass(frozen=True)
class PartitionSize:
    key: dict[str, Any]  # the partition key's value, in DynamoDB JSON
    items: int
    json_bytes: int  # the items' DynamoDB JSON text in the export


@dataclass(frozen=True)
class PartitionSizes:
    export: Export
    key_name: str
    order: str
    top: tuple[PartitionSize, ...]
    partitions: int
    items: int
    json_bytes: int

    def as_json(self) -> dict[str, Any]:
        return {
            "source": "export",
            "order": self.order,
            "partition_key": self.key_name,
            "partitions": self.partitions,
            "items": self.items,
            "json_bytes": self.json_bytes,
            "export_time": self.export.export_time.isoformat(),
            "top": [{"key": p.key, "items": p.items, "json_bytes": p.json_bytes} for p in self.top],
        }


def partition_sizes(
    opened: OpenExport, spec: QuerySpec, schema: TableSchema, top: int
) -> PartitionSizes:
    """Items and bytes per partition key value of the spec's order (of the items its
    filter keeps, whatever partition a key condition picks), the ``top`` largest by bytes,
    then items: where hot partitions are."""
    params = Params()
    predicate = where(spec, schema, params, key_condition=False)
    order = schema.order(spec.index)
    key = params.bind(pointer([order.partition_key.name]))
    relation = opened.lines() if opened.export.files else ""
    grouped = (
        f"SELECT CAST(json_extract(doc, {key}) AS VARCHAR) AS k, count(*) AS items, "
        f"sum(strlen(CAST(doc AS VARCHAR))) AS bytes FROM {relation} "
        f"WHERE {opened.item} AND {predicate} GROUP BY k"
    )
    sql = (
        f"WITH g AS ({grouped}) SELECT k, items, bytes, count(*) OVER (), "
        "sum(items) OVER (), sum(bytes) OVER () FROM g "
        "ORDER BY bytes DESC, items DESC, k LIMIT $top"
    )
    rows = opened.query(sql, {**params.values, "top": top}) if opened.export.files else []
    return PartitionSizes(
        export=opened.export,
        key_name=order.partition_key.name,
        order=order.name,
        top=tuple(PartitionSize(json.loads(k), int(n), int(b)) for k, n, b, *_ in rows),
        partitions=int(rows[0][3]) if rows else 0,
        items=int(rows[0][4]) if rows else 0,
        json_bytes=int(rows[0][5]) if rows else 0,
    )
