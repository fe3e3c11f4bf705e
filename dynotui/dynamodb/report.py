"""A report of DynamoDB pagers: the query in DynamoDB's terms, capacity by table and index,
and the code that reproduces page 1 and page k. The pagers are handed over as they are
(the CLI's, or the app's two sides of a compare)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from dynotui.core.ledger import SessionLedger
from dynotui.core.money import PriceList
from dynotui.core.pager import Pager
from dynotui.core.text import plural
from dynotui.dynamodb.codegen import LANGUAGES, CodeTarget, code_target, generate
from dynotui.dynamodb.cost import DynamoCost
from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.dynamodb.partiql import PartiQLSource
from dynotui.dynamodb.partiql_codegen import generate_partiql
from dynotui.dynamodb.source import QuerySource
from dynotui.report.build import code_pages, side_from_pager
from dynotui.report.model import CodeBlock, Estimated, Report, Side

FENCES = {"boto3": "python", "aws-cli": "sh", "javascript": "javascript"}
PARTS_LABEL = "capacity by table and index"


def capacity_parts(cost: DynamoCost) -> tuple[tuple[str, float], ...]:
    if cost.capacity is None:
        return ()
    indexes = tuple(sorted(cost.capacity.indexes.items()))
    return (("table", cost.capacity.table), *indexes)


def _typed(source: QuerySource, field: str, text: str | None) -> str | None:
    """The expression as the user wrote it (bare names), else as sent."""
    return source.spec.typed.get(field, (None, text))[1] if text else None


def query_lines(source: QuerySource) -> list[tuple[str, str]]:
    spec = source.spec
    order = source.schema.order(spec.index)
    lines = [
        ("operation", spec.operation.capitalize()),
        ("table", spec.table),
        ("order", order.describe()),
    ]
    for label, field, text in (
        ("key condition", "key condition", spec.key_condition),
        ("filter", "filter", spec.filter),
        ("projection", "projection", spec.projection),
    ):
        typed = _typed(source, field, text)
        if typed:
            lines.append((label, typed))
    if spec.names:
        lines.append(("attribute names", json.dumps(dict(spec.names), ensure_ascii=False)))
    if spec.values:
        lines.append(("values", json.dumps(to_wire(dict(spec.values)), ensure_ascii=False)))
    lines += [
        ("direction", "forward" if spec.forward or spec.scan else "backward"),
        ("mode", spec.mode),
        ("page size", str(spec.page_size)),
    ]
    if spec.mode == "fill":
        lines.append(("round cap", str(spec.max_rounds)))
    lines.append(("consistent read", "strong" if spec.consistent_read else "eventual (half units)"))
    return lines


def statement_lines(source: PartiQLSource) -> list[tuple[str, str]]:
    statement = source.statement
    return [
        ("operation", "ExecuteStatement (PartiQL)"),
        ("statement", statement.text),
        ("parameters", json.dumps(to_wire(list(statement.parameters)), ensure_ascii=False)),
        ("page size", str(statement.page_size)),
        ("mode", "raw (one call per page)"),
    ]


def _code(pager: Pager, target: CodeTarget, code_page: int | None) -> list[CodeBlock]:
    source = pager.source
    blocks = []
    for number in code_pages(pager, code_page):
        summary = pager.summary_of(number)
        start = pager.start_key_of(number)
        for language in LANGUAGES:
            if isinstance(source, PartiQLSource):
                text = generate_partiql(language, source.statement, start, number, target)
            else:
                assert isinstance(source, QuerySource)
                text = generate(
                    language, source.spec, source.schema, start, number, target, summary
                )
            blocks.append(CodeBlock(f"Page {number} · {language}", FENCES[language], text))
    return blocks


def side_name(source: Any) -> str:
    if isinstance(source, PartiQLSource):
        return "PartiQL statement"
    spec = source.spec
    order = source.schema.order(spec.index)
    kind = {"table": "base table", "lsi": "LSI", "gsi": "GSI"}[order.kind]
    name = kind if order.kind == "table" else f"{kind} {order.name}"
    return f"{name} · {'Scan' if spec.scan else 'Query'} · {spec.mode}"


def dynamo_side(pager: Pager, prices: PriceList | None, code_page: int | None = None) -> Side:
    source = pager.source
    if isinstance(source, PartiQLSource):
        lines = statement_lines(source)
    elif isinstance(source, QuerySource):
        lines = query_lines(source)
    else:
        raise TypeError(f"not a DynamoDB source: {type(source).__name__}")
    target = code_target(source.client)
    return side_from_pager(
        pager,
        name=side_name(source),
        query=lines,
        parts_of=capacity_parts,
        parts_label=PARTS_LABEL,
        key_json=lambda key: None if key is None else source.key_to_json(key),
        code=_code(pager, target, code_page),
        prices=prices,
    )


def connection_lines(pagers: Sequence[Pager]) -> list[tuple[str, str]]:
    """Endpoint, region, table and index of each side; never credentials."""
    client = pagers[0].source.client  # type: ignore[attr-defined]
    lines = [
        ("endpoint", client.meta.endpoint_url),
        ("region", client.meta.region_name or "(none)"),
    ]
    for index, pager in enumerate(pagers):
        source = pager.source
        side = ("left " if index == 0 else "right ") if len(pagers) > 1 else ""
        if isinstance(source, QuerySource):
            lines += [
                (f"{side}table", source.spec.table),
                (f"{side}index", source.spec.index or "(base table)"),
            ]
        elif isinstance(source, PartiQLSource):
            table, index_name = source.statement.target()
            lines += [(f"{side}table", table), (f"{side}index", index_name or "(base table)")]
    return lines


def local_notes(pagers: Sequence[Pager]) -> list[str]:
    """Read on DynamoDB Local: its figures are not the service's, and the calls that cost
    more than one call can on the service are counted."""
    costs = [
        summary.cost
        for pager in pagers
        if isinstance(pager.source, QuerySource) and pager.source.schema.counts_live
        for number, _ in pager.stack
        if (summary := pager.summary_of(number)) is not None
    ]
    if not costs:
        return []
    over = [units for cost in costs for units in cost.over_service_max()]
    tops = {cost.local_call_max for cost in costs if cost.local_call_max is not None}
    note = (
        "Read on DynamoDB Local: its capacity figures are its own reckoning, not the "
        "service's (it applies the 1 MB limit after the filter, so one call can read and "
        "bill far more than the service allows)."
    )
    if over:
        note += (
            f" {plural(len(over), 'call')} here reported more than one call can cost on the "
            f"service (at most {max(tops):,.10g} RCU): up to {max(over):,.10g} RCU."
        )
    return [note]


def dynamodb_report(
    pagers: Sequence[Pager],
    *,
    prices: PriceList | None,
    ledger: SessionLedger | None = None,
    title: str | None = None,
    code_page: int | None = None,
    notes: Sequence[str] = (),
    what_if: Estimated | None = None,
) -> Report:
    """One pager, or the two of a compare (left first), as a report."""
    sides = tuple(dynamo_side(pager, prices, code_page) for pager in pagers)
    notes = [*notes, *local_notes(pagers)]
    return Report(
        title=title or f"dynotui report: {' vs '.join(side.name for side in sides)}",
        made_at=datetime.now(timezone.utc),
        source="DynamoDB",
        connection=tuple(connection_lines(pagers)),
        sides=sides,
        session=ledger.figures() if ledger is not None else None,
        notes=tuple(notes),
        what_if=what_if,
    )
