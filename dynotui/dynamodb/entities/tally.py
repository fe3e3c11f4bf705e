"""Items folded into entities as they are read: counts, sizes, attributes, clusters.

Memory is bounded whatever the table holds: sizes are a histogram (an item is at most
400 KB, so at most that many distinct sizes), each entity keeps at most
``MAX_ATTRIBUTES`` attribute names, at most ``MAX_ENTITIES`` entities are told apart (the
rest fold into one "other" group, said so), and the partitions an estimate needs are
kept up to ``MAX_CLUSTERS`` (a complete read needs none of them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dynotui.dynamodb.entities.scheme import Rule, Scheme, decide
from dynotui.dynamodb.what_if.item_size import item_size

DECIDE_AFTER = 2000  # items read before the scheme is decided from them
MAX_ENTITIES = 64
MAX_ATTRIBUTES = 256
MAX_CLUSTERS = 100_000
REST = Rule("rest")


@dataclass
class Tally:
    """One entity's items as read."""

    items: int = 0
    bytes: int = 0
    sizes: Counter[int] = field(default_factory=Counter)
    attributes: Counter[str] = field(default_factory=Counter)
    more_attributes: int = 0  # presences of names past MAX_ATTRIBUTES

    def add(self, item: Mapping[str, Any], size: int) -> None:
        self.items += 1
        self.bytes += size
        self.sizes[size] += 1
        for name in item:
            if name in self.attributes or len(self.attributes) < MAX_ATTRIBUTES:
                self.attributes[name] += 1
            else:
                self.more_attributes += 1


def cluster_key(item: Mapping[str, Any], partition_key: str) -> Any:
    """The partition an item (or a LastEvaluatedKey) is in, as the census keys it."""
    value = item.get(partition_key)
    if not isinstance(value, Mapping) or len(value) != 1:
        return None
    ((kind, inner),) = value.items()
    return kind, bytes(inner) if kind == "B" else inner


class Census:
    """Items of one order, read in any order, into entities. ``scheme`` fixes how items
    are told apart; without it the first ``DECIDE_AFTER`` items decide (``decide``)."""

    def __init__(
        self,
        partition_key: str,
        sort_key: str | None,
        *,
        attribute: str | None = None,
        use_attribute: bool = True,
        scheme: Scheme | None = None,
    ) -> None:
        self.partition_key = partition_key
        self.sort_key = sort_key
        self._attribute = attribute
        self._use_attribute = use_attribute
        self._scheme = scheme
        self._waiting: list[tuple[Mapping[str, Any], int]] = []
        self._waiting_bytes = 0
        self.tallies: dict[Rule, Tally] = {}
        self.clusters: dict[Any, Counter[Rule]] = {}
        self.clusters_dropped = 0  # items of partitions past MAX_CLUSTERS
        self.items = 0
        self.bytes = 0

    @property
    def scheme(self) -> Scheme:
        if self._scheme is None:
            self._scheme = decide(
                [item for item, _ in self._waiting],
                self.partition_key,
                self.sort_key,
                attribute=self._attribute,
                use_attribute=self._use_attribute,
            )
            waiting, self._waiting, self._waiting_bytes = self._waiting, [], 0
            for item, size in waiting:
                self._fold(item, size)
        return self._scheme

    @property
    def seen_items(self) -> int:
        """Items added so far, those waiting for the scheme too."""
        return self.items + len(self._waiting)

    @property
    def seen_bytes(self) -> int:
        return self.bytes + self._waiting_bytes

    def add(self, item: Mapping[str, Any]) -> None:
        size = item_size(item)
        if self._scheme is None:
            self._waiting.append((item, size))
            self._waiting_bytes += size
            if len(self._waiting) >= DECIDE_AFTER:
                _ = self.scheme
            return
        self._fold(item, size)

    def add_all(self, items: Iterable[Mapping[str, Any]]) -> None:
        for item in items:
            self.add(item)

    def _fold(self, item: Mapping[str, Any], size: int) -> None:
        assert self._scheme is not None
        rule = self._scheme.rule_of(item)
        if rule not in self.tallies and len(self.tallies) >= MAX_ENTITIES:
            rule = REST
        self.tallies.setdefault(rule, Tally()).add(item, size)
        self.items += 1
        self.bytes += size
        key = cluster_key(item, self.partition_key)
        cluster = self.clusters.get(key)
        if cluster is None:
            if len(self.clusters) >= MAX_CLUSTERS:
                self.clusters_dropped += 1
                return
            cluster = self.clusters[key] = Counter()
        cluster[rule] += 1

    def cluster_pairs(self, rule: Rule) -> list[tuple[int, int]]:
        """Per partition read: (its items, of them this rule's)."""
        return [(sum(c.values()), c[rule]) for c in self.clusters.values()]

    def closed_part(self, rule: Rule, open_keys: Iterable[Any]) -> tuple[int, int, list[Any]]:
        """(this rule's items, all items, the partitions as ``cluster_pairs``) without the
        partitions in ``open_keys``: those a segment stopped inside, whose items read are
        the first ones by sort key, not a fair share of it (a customer's addresses sort
        before its orders). With every partition read open, everything read."""
        unread = set(open_keys)
        opened = [c for key, c in self.clusters.items() if key in unread]
        if not opened or len(opened) == len(self.clusters):
            return self.tallies[rule].items, self.items, self.cluster_pairs(rule)
        shut = [c for key, c in self.clusters.items() if key not in unread]
        return (
            self.tallies[rule].items - sum(c[rule] for c in opened),
            self.items - sum(sum(c.values()) for c in opened),
            [(sum(c.values()), c[rule]) for c in shut],
        )
