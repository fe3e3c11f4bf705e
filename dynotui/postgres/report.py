"""A report of PostgreSQL pagers: the query in SQL terms, shared buffers in place of
capacity (hit and read), and the SQL and psycopg code of page 1 and page k."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from dynotui.core.ledger import SessionLedger
from dynotui.core.pager import Pager
from dynotui.postgres.codegen import LANGUAGES, generate_pg
from dynotui.postgres.cost import PgCost
from dynotui.postgres.source import PgSource
from dynotui.postgres.sql import param_text
from dynotui.report.build import code_pages, side_from_pager
from dynotui.report.model import CodeBlock, Report, Side

FENCES = {"sql": "sql", "psycopg": "python"}
PARTS_LABEL = "shared buffers: hit, read"


def buffer_parts(cost: PgCost) -> tuple[tuple[str, float], ...]:
    return (("hit", float(cost.shared_hit)), ("read", float(cost.shared_read)))


def query_lines(source: PgSource) -> list[tuple[str, str]]:
    query = source.query
    lines = [
        ("table", query.table.label),
        ("order", query.order.describe()),
        ("mode", query.mode),
        ("page size", str(query.page_size)),
    ]
    if query.where:
        lines.append(("where", query.where))
        lines.append(("params", json.dumps([param_text(p) for p in query.params])))
    if query.projection:
        lines.append(("columns", ", ".join(query.projection)))
    return lines


def _code(
    pager: Pager, source: PgSource, uri: str | None, code_page: int | None
) -> list[CodeBlock]:
    return [
        CodeBlock(
            f"Page {number} · {language}",
            FENCES.get(language, ""),
            generate_pg(language, source.query, pager.start_key_of(number), number, uri),
        )
        for number in code_pages(pager, code_page)
        for language in LANGUAGES
    ]


def pg_side(pager: Pager, uri: str | None, code_page: int | None = None) -> Side:
    source = pager.source
    if not isinstance(source, PgSource):
        raise TypeError(f"not a PostgreSQL source: {type(source).__name__}")
    query = source.query
    return side_from_pager(
        pager,
        name=f"{query.order.name} ({query.mode})",
        query=query_lines(source),
        parts_of=buffer_parts,
        parts_label=PARTS_LABEL,
        key_json=lambda key: key,
        code=_code(pager, source, uri, code_page),
    )


def postgres_report(
    pagers: Sequence[Pager],
    *,
    uri: str | None,
    ledger: SessionLedger | None = None,
    title: str | None = None,
    code_page: int | None = None,
    notes: Sequence[str] = (),
) -> Report:
    """``uri``: the connection string with its password removed (``connection.redacted``)."""
    sides = tuple(pg_side(pager, uri, code_page) for pager in pagers)
    first: Any = pagers[0].source
    connection = [("server", first.session.label), ("table", first.query.table.label)]
    connection += [
        (("left " if i == 0 else "right ") + "order" if len(pagers) > 1 else "order", side.name)
        for i, side in enumerate(sides)
    ]
    return Report(
        title=title or f"dynotui report: {' vs '.join(side.name for side in sides)}",
        made_at=datetime.now(timezone.utc),
        source="PostgreSQL",
        connection=tuple(connection),
        sides=sides,
        session=ledger.figures() if ledger is not None else None,
        notes=(*notes, "Buffers stand in for capacity: PostgreSQL bills no read units."),
    )
