"""What every view of the app shares for as long as it runs: the clock its sources time
calls with, the counts taken (by query scope), the session's ledger (every read of every
stack, counts, abandoned reads, cursors refused) and the prices that turn capacity into
money. The connection is the adapter's."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from dynotui.core.ledger import SessionLedger
from dynotui.core.money import PriceList
from dynotui.ui.host import Counted
from dynotui.ui.query import Clock


@dataclass
class Session:
    clock: Clock = time.perf_counter
    counts: dict[str, Counted] = field(default_factory=dict)  # by query scope
    ledger: SessionLedger = field(default_factory=SessionLedger)
    prices: PriceList | None = None  # None: the database bills no read units (PostgreSQL)
    read_ahead: int = 0  # pages read ahead of the one shown (--read-ahead; 0: none)
