"""A plan made off the UI thread, as a what-if is: one call at a time, stoppable at any
call (Esc: the plan of what was read), each step reported; what it read is known however
it ends, so the session is billed for it every time.

No Textual here: the screen posts what ``run`` reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import ReadCancelled
from dynotui.core.money import PriceList
from dynotui.dynamodb.cost import DynamoCost
from dynotui.dynamodb.plan.figures import Plan
from dynotui.dynamodb.plan.planner import Planner, Progress
from dynotui.dynamodb.spec import QuerySpec


@dataclass(frozen=True)
class PlanMade:
    plan: Plan
    cost: DynamoCost
    stopped: bool  # by Esc: figures of what was not read whole are ranges or missing

    @property
    def complete(self) -> bool:
        return not self.stopped and self.plan.stopped_by is None


@dataclass(frozen=True)
class PlanBroken:
    error: Exception
    cost: DynamoCost

    complete = False


def run(
    client: Any,
    spec: QuerySpec,
    prices: PriceList | None,
    cancel: CancelToken,
    report: Callable[[Progress], None],
    clock: Callable[[], float],
) -> PlanMade | PlanBroken:
    planner: Planner | None = None
    try:
        planner = Planner(client, spec, prices=prices, clock=clock)
        stopped = False
        try:
            while planner.step(cancel):
                report(planner.progress())
        except ReadCancelled:
            stopped = True
        return PlanMade(planner.plan(), _cost(planner), stopped)
    except Exception as error:  # said on the screen; what was read is still billed
        return PlanBroken(error, _cost(planner) if planner is not None else DynamoCost())


def _cost(planner: Planner) -> DynamoCost:
    calls = tuple(planner.calls())
    return DynamoCost.of(calls) if calls else DynamoCost()
