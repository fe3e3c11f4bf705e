"""A what-if estimate run off the UI thread, as a count is: one call at a time, stoppable
at any call, each step reported; what it read is known however it ends (complete,
stopped by Esc, or failed), so the session is billed for it every time.

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
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.spec import QuerySpec
from dynotui.dynamodb.what_if.code import provisioned_throughput
from dynotui.dynamodb.what_if.estimate import Progress, WhatIf
from dynotui.dynamodb.what_if.imagined import Imagined
from dynotui.ui.dynamodb.what_if_form import WhatIfAsk


@dataclass(frozen=True)
class WhatIfMade:
    """An estimate, complete or stopped: its JSON (``what-if --json``'s shape), the
    imagined index as pages, and what reading for it cost."""

    data: dict[str, Any]
    imagined: Imagined
    provisioned: tuple[int, int] | None  # the table's units, when provisioned
    cost: DynamoCost
    stopped: bool  # by Esc: the figures are ranges

    @property
    def complete(self) -> bool:
        return bool(self.data["sample"]["complete"])


@dataclass(frozen=True)
class WhatIfBroken:
    """An estimate a failure ended: what it had read is billed all the same."""

    error: Exception
    cost: DynamoCost

    complete = False


def run(
    client: Any,
    spec: QuerySpec,
    schema: TableSchema,
    ask: WhatIfAsk,
    prices: PriceList | None,
    cancel: CancelToken,
    report: Callable[[Progress], None],
    clock: Callable[[], float],
) -> WhatIfMade | WhatIfBroken:
    """The estimate of ``ask.index`` for the query, read call by call until done or
    ``cancel``; ``report`` hears each step's progress."""
    what_if = WhatIf(
        client,
        spec,
        schema,
        ask.index,
        max_read_units=ask.max_read_units,
        table_sample=ask.table_sample,
        read_prices_in_force=prices,
        clock=clock,
    )
    stopped = False
    provisioned = None
    try:
        provisioned = provisioned_throughput(client, spec.table)
        while not what_if.done:
            what_if.step(cancel)
            report(what_if.progress())
    except ReadCancelled:
        stopped = True
    except Exception as error:  # said on the screen; what was read is still billed
        return WhatIfBroken(error, what_if.cost())
    return WhatIfMade(
        data=what_if.estimate().as_json(),
        imagined=what_if.imagined(),
        provisioned=provisioned,
        cost=what_if.cost(),
        stopped=stopped,
    )
