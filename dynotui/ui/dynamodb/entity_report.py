"""The entity tables in a report: what the entity view (L) read in this session for the
tables (and indexes) the report's queries read, one table of figures each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from dynotui.dynamodb.entities.figures import Entities
from dynotui.dynamodb.entities.words import section_rows
from dynotui.report.model import Report, TableSection


def with_entities(
    report: Report, pagers: Sequence[Any], tables: Mapping[tuple[str, str | None], Entities]
) -> Report:
    sections = []
    keys = []
    for pager in pagers:
        spec = getattr(pager.source, "spec", None)
        if spec is not None and (spec.table, spec.index) not in keys:
            keys.append((spec.table, spec.index))
    for table, index in keys:
        found = tables.get((table, index))
        if found is None:
            continue
        header, rows, notes = section_rows(found)
        where = table + (f" · {index}" if index else "")
        sections.append(TableSection(f"Entities of {where}", header, tuple(rows), tuple(notes)))
    return replace(report, tables=(*report.tables, *sections)) if sections else report
