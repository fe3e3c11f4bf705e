"""What moving a query to its plan's cheapest path would save: the path it uses today,
found among the plan's, and the read units a call of it would save there.

A call reads ``pages`` pages of the path it uses today: a share of that path's drain
(all of it when the drain has no more pages). The same matches on the cheapest path cost
the same share of the cheapest path's drain, so a call saves that share of the difference
of the two drains' read units. Where a figure is a range, the saving is the range its
bounds allow (the least saving from the dearest cheapest path, the most from the
cheapest); a figure unbounded above leaves the most unbounded.
"""

from __future__ import annotations

from dataclasses import dataclass

from dynotui.dynamodb.plan.figures import Plan, PlannedPath
from dynotui.dynamodb.plan.paths import SCAN_PATH, TABLE_PATH
from dynotui.dynamodb.spec import QuerySpec
from dynotui.dynamodb.what_if.figures import Figure


@dataclass(frozen=True)
class Move:
    """A query's path today against its plan's cheapest, and what a call would save."""

    today: str  # the path's name as the plan names it
    cheapest: str | None
    saved_per_call: Figure | None  # read units; None: not worked out (``why``)
    why: str | None = None

    @property
    def moves(self) -> bool:
        return self.cheapest is not None and self.cheapest != self.today


def today_name(spec: QuerySpec) -> str:
    """The plan's name of the path the query is written on: its index, the base table's
    Query, or the base table's Scan."""
    if spec.index is not None:
        return spec.index
    return SCAN_PATH if spec.scan else TABLE_PATH


def _today(spec: QuerySpec, plan: Plan) -> tuple[PlannedPath | None, str | None]:
    name = today_name(spec)
    kind = "scan" if spec.scan else "query"
    found = next((p for p in plan.paths if p.path.name == name), None)
    if found is None:
        return None, f"the plan lists no path {name}"
    if found.path.kind != kind:
        # A Scan of an index whose partition key the filter names: the plan queries it.
        return None, (
            f"it Scans {name}, which the plan Queries instead (the filter names its "
            "partition key): the Scan it runs today is not among the plan's paths"
        )
    if not found.usable:
        return None, f"the plan refuses the path it uses today: {found.why}"
    if found.figures is None:
        return None, f"the path it uses today was not estimated: {found.why}"
    return found, None


def saved_per_call(pages: int, today: PlannedPath, cheapest: PlannedPath) -> Figure | None:
    """Read units a call of ``pages`` pages saves on ``cheapest`` against ``today``."""
    now, best = today.figures, cheapest.figures
    assert now is not None and best is not None
    if best.read_units.high is None:
        return None
    fewest = max(1.0, now.pages.low)
    most = now.pages.high
    shares = [min(1.0, pages / fewest), min(1.0, pages / max(1.0, most)) if most else 0.0]
    least = now.read_units.low - best.read_units.high
    low = min(share * least for share in shares)
    if now.read_units.high is None:
        return Figure(low, None)
    greatest = now.read_units.high - best.read_units.low
    high = max(share * greatest for share in shares)
    return Figure.exact(low) if low == high else Figure(low, high)


def move(spec: QuerySpec, plan: Plan, pages: int) -> Move:
    """The query's path today, its plan's cheapest, and a call's saving in moving."""
    name = today_name(spec)
    today, why = _today(spec, plan)
    if plan.cheapest is None:
        return Move(name, None, None, "the plan estimated no path that exists")
    if today is None:
        return Move(name, plan.cheapest, None, why)
    if plan.cheapest == today.path.name:
        return Move(name, plan.cheapest, Figure.exact(0.0))
    cheapest = plan.path(plan.cheapest)
    saved = saved_per_call(pages, today, cheapest)
    if saved is None:
        return Move(name, plan.cheapest, None, "the cheapest path's read units are unbounded")
    return Move(name, plan.cheapest, saved)
