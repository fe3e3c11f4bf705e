"""Each row's entity, page by page, for the grid: the scheme decided from the items shown.

The pager shows a page at a time, so the scheme is decided from the first items shown and
decided again as more arrive (each time they have doubled), until ``DECIDE_AFTER`` items
have been seen (a first page of one partition may not show every separator). Names are
unique among the entities seen so far (``names_of``); a table with nothing to tell apart
has no names (None for each row), and the grid shows no entity column for it.
Thread-safe: read-ahead and the UI may ask at once.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from dynotui.dynamodb.entities.scheme import Rule, Scheme, decide, names_of
from dynotui.dynamodb.entities.tally import DECIDE_AFTER, MAX_ENTITIES, REST
from dynotui.dynamodb.what_if.item_size import item_size


class EntityMarker:
    def __init__(self, partition_key: str, sort_key: str | None) -> None:
        self.partition_key = partition_key
        self.sort_key = sort_key
        self._lock = threading.Lock()
        self._scheme: Scheme | None = None
        self._deciding: list[Mapping[str, Any]] = []  # items seen while still deciding
        self._seen: set[int] = set()  # which (by identity): a page shown again adds none
        self._decided_at = 0  # items the scheme was last decided from
        self._rules: dict[Rule, None] = {}  # every rule seen, in order

    @property
    def scheme(self) -> Scheme | None:
        return self._scheme

    def _decide(self, items: Sequence[Mapping[str, Any]]) -> Scheme:
        """The scheme, decided again each time the items seen have doubled, up to
        ``DECIDE_AFTER``: a page shown again adds nothing, and a long session decides a
        dozen times at most."""
        if len(self._deciding) < DECIDE_AFTER:
            fresh = [item for item in items if id(item) not in self._seen]
            self._seen.update(id(item) for item in fresh)
            self._deciding.extend(fresh[: DECIDE_AFTER - len(self._deciding)])
        grown = len(self._deciding) >= 2 * self._decided_at and self._decided_at < DECIDE_AFTER
        if self._scheme is None or grown:
            self._scheme = decide(self._deciding, self.partition_key, self.sort_key)
            self._decided_at = max(len(self._deciding), 1)
            self._rules = {}  # seen again under the scheme as it now is
        return self._scheme

    def names(self, items: Sequence[Mapping[str, Any]]) -> list[str | None]:
        """Each item's entity, or None for each when nothing tells them apart."""
        if not items:
            return []
        with self._lock:
            scheme = self._decide(items)
            rules = []
            for item in items:
                rule = scheme.rule_of(item)
                if rule not in self._rules:
                    if len(self._rules) >= MAX_ENTITIES:
                        rule = REST
                    self._rules[rule] = None
                rules.append(rule)
            named = names_of(self._rules)
        if all(rule.unmarked for rule in self._rules):
            return [None] * len(items)
        return [named[rule] for rule in rules]


def weights(items: Sequence[Mapping[str, Any]]) -> list[int]:
    """Each item's size by DynamoDB's rules: what it weighs in its page's read units."""
    return [item_size(item) for item in items]
