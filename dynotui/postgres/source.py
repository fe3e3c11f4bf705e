"""A PostgreSQL table in one order as a paging source: keyset pages, or OFFSET pages.

The boundary of a keyset page is the sort values of the last row shown (as text, full
precision); of an OFFSET page, the number of rows before it. The generic pager stores
either on its stack and never looks inside.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from dynotui.core.cancel import CancelToken
from dynotui.core.cursor import CursorError
from dynotui.core.errors import ReadCancelled, ServiceError
from dynotui.core.page import EndedBy, HasNext, Page
from dynotui.core.pager import Pager
from dynotui.postgres.advice import PgAdvisor
from dynotui.postgres.connection import PgSession
from dynotui.postgres.cost import PgCost, from_plan
from dynotui.postgres.reach import verify
from dynotui.postgres.sql import PAGE_SETTINGS, PgQuery, page_statement

PgBoundary = list[str | None] | int  # keyset: the last row's sort values; OFFSET: rows
PgRow = dict[str, str | None]  # a row as PostgreSQL's own text, NULL as None
PgPage = Page[PgCost, PgBoundary, PgRow]


def _malformed(detail: str) -> CursorError:
    return CursorError("malformed", f"the cursor's boundary is refused ({detail})")


class PgSource:
    def __init__(
        self,
        session: PgSession,
        query: PgQuery,
        *,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        query.check()  # refuse bad input before any statement
        self.session = session
        self.query = query
        self.clock = clock

    def scope(self) -> str:
        return self.query.scope()

    def read_page(
        self,
        start_key: PgBoundary | None,
        number: int,
        *,
        selectivity: float | None,
        cancel: CancelToken,
    ) -> PgPage:
        cancel.check()
        verify(self.session, self.query.filter, self.query.table.schema, self.query.table.name)
        size = self.query.page_size
        sql, params, keyset = page_statement(self.query, start_key, size + 1)
        began = self.clock()
        withdraw = cancel.on_cancel(lambda: self.session.cancel(cancel))
        try:
            rows, plan = self.session.run(sql, params, cancel, settings=PAGE_SETTINGS)
        except Exception:
            if cancel.cancelled:
                raise ReadCancelled() from None
            raise
        finally:
            withdraw()
        # Not the time spent queued behind another view's statement on the same connection.
        latency = max((self.clock() - began) * 1000 - plan.get("waited_ms", 0.0), 0.0)
        width = len(self.query.shown_columns)
        keys = width + len(self.query.order.columns)
        if keyset is not None and len(keyset.seeks) > 1:
            seeks = [row[keys] for row in rows]
            if seeks != sorted(seeks):
                raise ServiceError(
                    "PostgreSQL returned the seeks of this page out of order; the page is "
                    "not shown (its rows would be out of order)"
                )
            rows = [row[:keys] for row in rows]
        shown_rows = rows[:size]
        names = self.query.shown_columns
        items = [dict(zip(names, row[:width], strict=True)) for row in shown_rows]
        cost = from_plan(plan, len(shown_rows), latency, latency, plan.get("measured", ""))
        cancel.check(cost)
        if len(rows) > size:
            if self.query.mode == "offset":
                skipped = start_key if isinstance(start_key, int) else 0  # None: the start
                next_key: PgBoundary | None = skipped + size
            else:
                next_key = list(shown_rows[-1][width:])
            has_next, ended = HasNext.YES, EndedBy.PAGE_SIZE
        else:
            next_key, has_next, ended = None, HasNext.NO, EndedBy.END
        return Page(
            number=number,
            mode=self.query.mode,
            start_key=start_key,
            items=items,
            shown=len(items),
            next_start_key=next_key,
            has_next=has_next,
            ended_by=ended,
            cost=cost,
            extra={"sql": sql, "keyset": None if keyset is None else keyset.describe()},
        )

    def key_to_json(self, key: PgBoundary) -> Any:
        return key

    def key_from_json(self, data: Any) -> PgBoundary:
        if self.query.mode == "offset":
            if not isinstance(data, int) or isinstance(data, bool) or data < 0:
                raise _malformed("an OFFSET boundary is a whole number of rows")
            return data
        width = len(self.query.order.columns)
        if not isinstance(data, list) or len(data) != width:
            raise _malformed(f"a boundary holds {width} sort value(s)")
        # No length limit of its own: a token is bounded already, and whatever sort value
        # a page ends on must open the next page from a token.
        for value in data:
            if value is not None and not isinstance(value, str):
                raise _malformed("sort values are text")
        return data

    def advisor(self) -> PgAdvisor:
        return PgAdvisor(self.query)

    def with_client(self, session: Any) -> PgSource:
        return PgSource(session, self.query, clock=self.clock)


def pg_pager(
    session: PgSession,
    query: PgQuery,
    *,
    start_key: PgBoundary | None = None,
    cache_pages: int = 20,
) -> Pager[PgBoundary, PgRow, PgCost]:
    return Pager(PgSource(session, query), start_key=start_key, cache_pages=cache_pages)
