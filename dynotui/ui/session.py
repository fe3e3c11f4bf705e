"""What every view of the app shares: the connection, the clock, what was measured."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dynotui.dynamodb.advice import Measurements
from dynotui.dynamodb.connection import ConnectionOptions

if TYPE_CHECKING:
    from dynotui.dynamodb.count import CountResult


@dataclass
class Session:
    client: Any
    options: ConnectionOptions = field(default_factory=ConnectionOptions)
    label: str = ""
    clock: Callable[[], float] = time.perf_counter
    measurements: Measurements = field(default_factory=Measurements)
    counts: dict[str, CountResult] = field(default_factory=dict)  # by query scope
