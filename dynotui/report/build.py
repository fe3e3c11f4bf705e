"""The generic half of building a report: a pager's ledger of pages, measures, findings.

The database packages add what only they know (the query in their terms, the cost's
parts, the code that reproduces a page, the connection) and call ``side_from_pager``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from dynotui.core.pager import Pager
from dynotui.report.model import CodeBlock, PageRow, Side

PartsOf = Callable[[Any], tuple[tuple[str, float], ...]]


def boundary_text(key: Any) -> str:
    """A boundary as compact JSON text, as ``dynotui pages`` writes it."""
    return json.dumps(key, ensure_ascii=False, sort_keys=True, default=str)


def page_rows(
    pager: Pager, parts_of: PartsOf, key_json: Callable[[Any], Any]
) -> tuple[PageRow, ...]:
    """The latest fresh read of every page on the stack, in order."""
    rows = []
    for number, _ in pager.stack:
        summary = pager.summary_of(number)
        if summary is None:
            continue  # the next page's boundary is known, the page not read yet
        cost = summary.cost
        rows.append(
            PageRow(
                number=summary.number,
                start_key=boundary_text(key_json(summary.start_key)),
                shown=summary.shown,
                count=summary.count,
                scanned=summary.scanned_count,
                capacity=cost.headline,
                parts=parts_of(cost),
                rounds=cost.requests,
                latency_ms=cost.latency_ms,
                ended_by=summary.ended_by.words,
                has_next=summary.has_next.value,
                empty_with_key=summary.empty_with_key,
            )
        )
    return tuple(rows)


def side_from_pager(
    pager: Pager,
    *,
    name: str,
    query: Sequence[tuple[str, str]],
    parts_of: PartsOf,
    parts_label: str,
    key_json: Callable[[Any], Any],
    code: Sequence[CodeBlock] = (),
    prices: Any = None,
) -> Side:
    rows = page_rows(pager, parts_of, key_json)
    unit = pager.totals.cost.unit if pager.totals.cost is not None else ""
    return Side(
        name=name,
        query=tuple(query),
        scope=pager.scope,
        unit=unit,
        parts_label=parts_label,
        pages=rows,
        measures=pager.measures.snapshot(),
        findings=tuple(pager.advisor.findings()),
        code=tuple(code),
        prices=prices,
        per_item=pager.per_item.value,
    )


def code_pages(pager: Pager, last: int | None = None) -> list[int]:
    """Page 1 and page k (the last read, unless given): the pages whose code is shown."""
    read = [n for n, _ in pager.stack if pager.summary_of(n) is not None]
    if not read:
        return []
    k = last if last is not None and last in read else read[-1]
    return sorted({read[0], k})
