"""What the code of one page replicates: the plan of the reader's loop for that page, the
request's parameters without its Limit, and the code's title line. Shared by the Python,
AWS CLI and JavaScript writers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dynotui.core.page import EndedBy, PageSummary
from dynotui.dynamodb.reader import fill_limit
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.spec import QuerySpec


@dataclass(frozen=True)
class PagePlan:
    """What the code of one page replicates: the query's page size and mode, and for fill
    mode the reader's loop, with what reading the page told (when it was read)."""

    page_size: int
    fill: bool
    max_rounds: int
    first_limit: int  # the Limit of the first call (sized by earlier pages' selectivity)
    filtered: bool
    key_names: tuple[str, ...]  # a start key on this order: index keys, then table keys
    capped_at: int | None = None  # items shown when the loop ran out of rounds
    scanned: int = 0  # items the page's calls evaluated

    @property
    def need(self) -> int:
        return self.page_size + 1


def page_plan(spec: QuerySpec, schema: TableSchema, read: PageSummary[Any] | None) -> PagePlan:
    """The plan for the page ``read`` (None: a page not read yet, such as the first)."""
    fill = spec.mode == "fill"
    calls = read.cost.calls if read is not None else ()
    first = calls[0].limit if fill and calls else None
    if first is None:
        first = fill_limit(spec.page_size + 1, bool(spec.filter), 0, 0, None, None) if fill else 0
    capped = read is not None and fill and read.ended_by is EndedBy.ROUNDS
    return PagePlan(
        page_size=spec.page_size,
        fill=fill,
        max_rounds=spec.max_rounds,
        first_limit=first or spec.page_size,
        filtered=bool(spec.filter),
        key_names=schema.cursor_key_names(spec.index),
        capped_at=read.shown if capped and read is not None else None,
        scanned=(read.scanned_count or 0) if read is not None else 0,
    )


def request_params(spec: QuerySpec, schema: TableSchema) -> dict[str, Any]:
    params = spec.request(schema, None, spec.page_size)
    params.pop("Limit")
    return params


def calls_text(count: int) -> str:
    return f"{count} call" if count == 1 else f"{count} calls"


def title(spec: QuerySpec, page: int) -> str:
    how = (
        "one call, Limit = page size"
        if spec.mode == "raw"
        else f"dynotui's fill loop: at most {calls_text(spec.max_rounds)} for page size + 1 matches"
    )
    return f"Page {page} of a {spec.operation.capitalize()} on {spec.table} ({how})."
