"""How work run elsewhere (a thread) ended: ``Done(value)`` or ``Failed(error)``.

Never "a value or an exception" in one untyped field: the receiver matches on the two.
The UI's threads (``ui/background.py``) report with these, and so does whatever runs the
read controller's work in a test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Done(Generic[T]):
    value: T


@dataclass(frozen=True)
class Failed:
    error: BaseException


Outcome = Done[T] | Failed
