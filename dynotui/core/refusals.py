"""Cursor refusals over a session: how many tokens were presented, refused, and why.

The fifth of the article's measures: a jump in refusals mostly means a forgotten secret
rotation, or someone probing the endpoint. Every token offered (pasted, given with
``--starting-token``, verified) goes through ``verify_cursor``, which feeds the tally
whatever the outcome. The reasons are ``CursorError.reason``: signature, scope, expired,
malformed (a boundary the source refuses counts as malformed, as it is reported).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dynotui.core.cursor import CursorError, CursorSigner

REASONS = ("signature", "scope", "expired", "malformed")


@dataclass(frozen=True, slots=True)
class RefusalFigures:
    presented: int
    refused: int
    by_reason: tuple[tuple[str, int], ...]  # in REASONS order, only those seen
    last_message: str | None  # what the latest refusal said

    @property
    def rate(self) -> float | None:
        return self.refused / self.presented if self.presented else None

    def as_json(self) -> dict[str, Any]:
        return {
            "presented": self.presented,
            "refused": self.refused,
            "rate": None if self.rate is None else round(self.rate, 6),
            "by_reason": dict(self.by_reason),
        }


class CursorRefusals:
    """The session's cursor checks; safe to feed from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._presented = 0
        self._reasons: Counter[str] = Counter()
        self._last: str | None = None

    def accepted(self) -> None:
        with self._lock:
            self._presented += 1

    def refused(self, error: CursorError) -> None:
        with self._lock:
            self._presented += 1
            self._reasons[error.reason] += 1
            self._last = str(error)

    def figures(self) -> RefusalFigures:
        with self._lock:
            known = [(r, self._reasons[r]) for r in REASONS if self._reasons[r]]
            other = sorted((r, n) for r, n in self._reasons.items() if r not in REASONS)
            return RefusalFigures(
                presented=self._presented,
                refused=sum(self._reasons.values()),
                by_reason=tuple(known + other),
                last_message=self._last,
            )


def verify_cursor(
    signer: CursorSigner,
    token: Any,
    scope: str,
    key_from_json: Callable[[Any], Any],
    refusals: CursorRefusals | None,
) -> Any:
    """The boundary a token opens on this query (verified, then checked by the source),
    with the outcome counted; a refusal is re-raised as it was."""
    try:
        key = key_from_json(signer.verify(token, scope))
    except CursorError as error:
        if refusals is not None:
            refusals.refused(error)
        raise
    if refusals is not None:
        refusals.accepted()
    return key
