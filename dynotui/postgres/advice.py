"""What PostgreSQL pages say: ties at boundaries, orders no index serves, filters doing an
index's job, how keyset seeks read a page, NULLs in the sort key, keys that change,
OFFSET at depth.

Folded in page by page, like the DynamoDB advisor; every finding carries its numbers.
"""

from __future__ import annotations

from typing import Any

from dynotui.core.advisor import Finding
from dynotui.core.page import Page
from dynotui.core.text import plural
from dynotui.postgres.cost import PgCost
from dynotui.postgres.schema import changing
from dynotui.postgres.sql import PgQuery

MIN_READ = 20
WASTE_RATIO = 0.5


class PgAdvisor:
    def __init__(self, query: PgQuery) -> None:
        self.query = query
        self.pages = 0
        self.read = 0
        self.matched = 0
        self.removed = 0
        self.buffers = 0
        self.sorted_pages = 0
        self.last: Page[PgCost] | None = None
        self.first_buffers: int | None = None

    def add(self, page: Page[PgCost]) -> None:
        cost = page.cost
        self.pages += 1
        self.read += cost.read or 0
        self.matched += cost.matched
        self.removed += cost.removed
        buffers = cost.shared_hit + cost.shared_read
        self.buffers += buffers
        if page.number == 1:
            self.first_buffers = buffers
        if cost.sorts_input:  # a Sort, or an Incremental Sort of each group of ties
            self.sorted_pages += 1
        self.last = page

    def findings(self) -> list[Finding]:
        found: list[Finding] = []
        order = self.query.order
        if not order.unique:
            found.append(
                Finding(
                    "not-unique",
                    f"The order ({', '.join(c.label for c in order.columns)}) does not name one "
                    "row: rows that tie at a page boundary are lost or repeated. Add the primary "
                    "key as the last sort column.",
                )
            )
        if order.physical:
            why = self.query.table.why_physical
            found.append(
                Finding(
                    "physical",
                    f"The order ({', '.join(c.label for c in order.columns)}) ends with ctid, "
                    f"where each row lies{f' ({why})' if why else ''}: exact while rows are "
                    "not updated during paging (an updated row moves, and may then be read "
                    "twice or not at all). A primary key names rows for good.",
                )
            )
        if order.cost_note and self.query.mode == "keyset":
            found.append(
                Finding(
                    "not-flat",
                    f"Order {order.name}: {order.cost_note}, as EXPLAIN planned it, so "
                    "a page reads more than its rows. An index that holds every term of "
                    f"({', '.join(c.words() for c in order.columns)}) would seek straight to "
                    "each page.",
                )
            )
        if self.sorted_pages and self.last is not None:
            cost = self.last.cost
            terms = ", ".join(c.words() for c in order.columns)
            read = f"{plural(cost.read or 0, 'row')} read for {self.last.shown:,} shown"
            if order.index is None:
                text = (
                    f"No index serves this order: each page sorts the whole "
                    f"{'filtered ' if self.query.where else ''}result ({read}, plan {cost.plan}). "
                    f"An index on ({terms}) would read only the page."
                )
            else:
                tested = self._filter_columns()
                lead = f"{', '.join(tested)}, " if tested and self.query.where else ""
                text = (
                    f"Index {order.index} does not give rows in this order as they are needed "
                    f"({'its filter, ' if self.query.where else ''}the tie-breaker): each page "
                    f"sorts ({read}, plan {cost.plan}). An index on ({lead}{terms}) would "
                    "seek straight to the page."
                )
            found.append(Finding("no-index", text))
        if self.query.where and self.read >= MIN_READ and self.removed / self.read >= WASTE_RATIO:
            tested = self._filter_columns()
            serving = [
                o.index
                for o in self.query.table.orders
                if o.index and o.columns and o.columns[0].label in tested
            ]
            if serving:
                # The index exists: the order it gives is what reads only the matches.
                remedy = (
                    f"the order of index {serving[0]} (o), which leads with "
                    f"{' or '.join(tested)}, would read only the matching rows"
                )
            else:
                remedy = (
                    "an index whose leading column is "
                    f"{' or '.join(tested) if tested else 'what the filter tests'} would read "
                    "only the matching rows"
                )
            found.append(
                Finding(
                    "filter-waste",
                    f"The filter removed {self.removed / self.read:.0%} of "
                    f"{plural(self.read, 'row')} "
                    f"read ({plural(self.buffers, 'buffer')}): {remedy}.",
                )
            )
        last = self.last
        form = last.extra.get("keyset") if last is not None else None
        if self.query.mode == "keyset" and last is not None and last.cost.seek_buffers and form:
            cost = last.cost
            seeks = ", ".join(f"{b:,}" for b in cost.seek_buffers)
            found.append(
                Finding(
                    "keyset-form",
                    f"Page {last.number} was read by {form}: "
                    f"{plural(cost.shared_hit + cost.shared_read, 'buffer')} in all "
                    f"(per seek: {seeks}). "
                    "Each seek starts at the boundary and stops after a page, and a seek "
                    "is read only when those before it end before the page does, so the "
                    "cost stays flat with depth.",
                )
            )
        nullable = [c for c in order.columns if c.nullable]
        if nullable:
            words = []
            for term in nullable:
                column = next((c for c in self.query.table.columns if c.name == term.label), None)
                frac = column.null_frac if column is not None else None
                if frac is None:
                    held = "no statistics say whether it holds NULLs"
                elif frac == 0:
                    held = "pg_stats found no NULL at the last ANALYZE"
                else:
                    held = f"{frac:.0%} NULL at the last ANALYZE"
                words.append(f"{term.label} ({held})")
            found.append(
                Finding(
                    "nullable",
                    f"Sort column {', '.join(words)} may be NULL: a row comparison does not "
                    "see NULLs, so where they sort after the boundary they are read by a "
                    "seek of their own (exact, one more index descent per page). If the "
                    "column never holds NULL, declaring it NOT NULL saves that seek.",
                )
            )
        moving = [c.label for c in order.columns if changing(c)]
        if moving:
            found.append(
                Finding(
                    "changing-key",
                    f"{', '.join(moving)} changes when a row is updated: rows move across pages "
                    "while someone reads (seen twice, or not at all). That is the order's nature, "
                    "not keyset paging's; read changes by an increasing version instead.",
                )
            )
        if self.query.mode == "offset" and self.last is not None and self.last.number > 1:
            page, cost = self.last, self.last.cost
            skipped = (page.number - 1) * self.query.page_size
            first = f" (page 1: {self.first_buffers:,})" if self.first_buffers is not None else ""
            found.append(
                Finding(
                    "offset-depth",
                    f"OFFSET walked past {plural(skipped, 'row')} to reach page {page.number}: "
                    f"{plural(cost.shared_hit + cost.shared_read, 'buffer')}{first}. The cost "
                    "grows "
                    "with "
                    "depth, and rows written meanwhile shift later pages; keyset reads page "
                    f"{page.number} as it reads page 1.",
                )
            )
        return found

    def _filter_columns(self) -> list[str]:
        """The table's columns the filter tests, as PostgreSQL's parser read them."""
        parsed = self.query.filter
        names = {c.name for c in self.query.table.columns}
        return [name for name in (parsed.columns if parsed else ()) if name in names]


def advise(query: PgQuery, pages: list[Any]) -> list[Finding]:
    advisor = PgAdvisor(query)
    for page in pages:
        advisor.add(page)
    return advisor.findings()
