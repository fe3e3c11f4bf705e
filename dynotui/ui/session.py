"""What every view of the app shares for as long as it runs: the clock its sources time
calls with, and the counts taken (by query scope). The connection is the adapter's."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from dynotui.core.page import Cost
from dynotui.ui.query import Clock, Counted


@dataclass
class Session:
    clock: Clock = time.perf_counter
    counts: dict[str, Counted] = field(default_factory=dict)  # by query scope
    refusals: Counter[str] = field(default_factory=Counter)  # cursors refused, by reason
    # Reads outside any stack (passing over a foreign cursor's items): what, and the cost.
    spent_elsewhere: list[tuple[str, Cost]] = field(default_factory=list)
