"""Plain-language findings from what was measured, for any source.

An advisor is fed each fresh page once (``add``) and folds it into running figures,
so asking for findings costs the same at page 10,000 as at page 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Finding:
    kind: str
    text: str


class Advisor(Protocol):
    def add(self, page: Any) -> None:
        """Fold one freshly read page in: O(size of the page), never O(pages so far)."""

    def findings(self) -> list[Finding]:
        """What the pages so far say, each finding with its numbers."""


class NoAdvice:
    def add(self, page: Any) -> None:
        pass

    def findings(self) -> list[Finding]:
        return []
