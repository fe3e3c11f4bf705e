"""Entities of a table export: every item read once, exact, with no read units.

The lines stream out of DuckDB in batches and are folded into the same ``Census`` as a
live read's pages; the lines and items counted are held to the manifests' (an incomplete
copy is refused, never counted short). On an index, an item is in it when it holds the
index's keys, and counts as its index entry: the attributes the index projects.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from dynotui.core.cancel import NEVER, CancelToken
from dynotui.core.errors import InputError, ReadCancelled
from dynotui.dynamodb.dynamo_json import Item, from_wire
from dynotui.dynamodb.entities.figures import Entities, entities_of
from dynotui.dynamodb.entities.tally import Census
from dynotui.dynamodb.schema import TableSchema
from dynotui.table_export.reading import OpenExport, duckdb_error

BATCH = 1000  # lines fetched at a time


def _item(doc: str) -> Item | None:
    """The line's item, None for a line that holds none (counted, and refused later)."""
    try:
        line = json.loads(doc)
    except RecursionError:
        raise InputError("an item of the export is nested too deeply") from None
    except ValueError as exc:
        raise InputError(f"a line of the export is not JSON: {exc}") from None
    if not isinstance(line, dict) or not isinstance(line.get("Item"), dict):
        return None
    return from_wire(line["Item"], "an item of the export")


def _entry(schema: TableSchema, index: str | None) -> Callable[[Item], Item | None]:
    """What an item is on the order read: itself, or its index entry (None: not in it)."""
    order = schema.order(index)
    if order.kind == "table":
        return lambda item: item
    keys = order.key_names
    table_keys = schema.table_key_names

    def entry(item: Item) -> Item | None:
        if any(name not in item for name in keys):
            return None  # a sparse index holds only the items with its keys
        return {n: v for n, v in item.items() if order.projects(n, table_keys)}

    return entry


def export_entities(
    opened: OpenExport,
    schema: TableSchema,
    *,
    index: str | None = None,
    attribute: str | None = None,
    use_attribute: bool = True,
    cancel: CancelToken = NEVER,
    progress: Callable[[int], None] | None = None,
) -> Entities:
    order = schema.order(index)
    census = Census(
        order.partition_key.name,
        order.sort_key.name if order.sort_key else None,
        attribute=attribute,
        use_attribute=use_attribute,
    )
    entry = _entry(schema, index)
    lines = items = 0
    if opened.export.files:
        with opened.lock:
            try:
                # The export's copy in the cache where there is one (made now if not),
                # else its data files: what every other read of the export reads.
                cursor = opened.engine.execute(
                    f"SELECT CAST(doc AS VARCHAR) FROM {opened.lines()}", opened.parameters()
                )
                while batch := cursor.fetchmany(BATCH):
                    cancel.check()
                    for (doc,) in batch:
                        lines += 1
                        item = _item(doc)
                        if item is None:
                            continue
                        items += 1
                        found = entry(item)
                        if found is not None:
                            census.add(found)
                    if progress is not None:
                        progress(lines)
            except (InputError, ReadCancelled):
                raise
            except Exception as exc:
                raise duckdb_error(exc, "the export's data") from None
    opened.check_lines(lines, items)
    return entities_of(
        census,
        table=schema.name,
        index=index,
        complete=True,
        read_units=0.0,
        source="export",
        export_time=opened.export.export_time,
    )
