"""User-facing errors: one sentence each, saying what went wrong and how to fix it.

``InputError`` is the user's to fix (exit 2 in the CLI); ``ServiceError`` is the
connection's or the database's (exit 1). Each database package turns its driver's
exceptions into one of the two, so no caller has to know a driver's zoo.
"""

from __future__ import annotations

from typing import Any


class DynotuiError(Exception):
    exit_code = 1


class InputError(DynotuiError):
    """Bad input: a spec, an expression, a cursor, a table name."""

    exit_code = 2


class ServiceError(DynotuiError):
    """The request was fine but could not be served: connection, throttling, access."""

    exit_code = 1


class ReadCancelled(DynotuiError):
    """A read stopped because it was cancelled or superseded; no further call was made.

    ``cost`` is what the calls made before it stopped cost (None: nothing was spent),
    because a database bills abandoned reads too.
    """

    def __init__(self, cost: Any = None) -> None:
        super().__init__("the read was cancelled")
        self.cost = cost
