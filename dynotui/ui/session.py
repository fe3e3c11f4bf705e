"""What every view of the app shares for as long as it runs: the clock its sources time
calls with, and the counts taken (by query scope). The connection is the adapter's."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from dynotui.ui.query import Clock, Counted


@dataclass
class Session:
    clock: Clock = time.perf_counter
    counts: dict[str, Counted] = field(default_factory=dict)  # by query scope
