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


class FieldError(InputError):
    """Bad input in one named field of a query form (``field`` is the form's own name for
    it), so a form shows the error beside that field and nobody reads the sentence."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class ServiceError(DynotuiError):
    """The request was fine but could not be served: connection, throttling, access."""

    exit_code = 1


class NoProgressError(ServiceError):
    """A page ends on a boundary where a page already read began: reading on would repeat
    pages without end. The walk stops; the stack and the pages read stay as they were."""


class ThrottledError(ServiceError):
    """The database said to slow down, and the driver's own retries did not get through:
    the same read may well succeed after a wait."""


class ReadCancelled(DynotuiError):
    """A read stopped because it was cancelled or superseded; no further call was made.

    ``cost`` is what the calls made before it stopped cost (None: nothing was spent),
    because a database bills abandoned reads too.
    """

    def __init__(self, cost: Any = None) -> None:
        super().__init__("the read was cancelled")
        self.cost = cost


def error_words(error: BaseException) -> str:
    """An error as the user reads it: dynotui's own sentence, else the exception's type and
    text (a driver's or the machine's words, which may say what no sentence here foresaw)."""
    if isinstance(error, DynotuiError):
        return str(error)
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
