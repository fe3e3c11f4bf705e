"""What DynamoDB pages say: waste, better orders, round caps, scans, 1 MB cuts, ties.

Each finding carries its numbers and appears only where its cause is. The advisor
folds each page in once (``add``), so findings cost the same at page 10,000 as at
page 1. Estimates of another order's cost come from measurements only: the
session's ``Measurements`` hold what each order cost under the same conditions, so
two sides of a comparison quote the same two numbers and cannot contradict each other.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dynotui.core.advisor import Finding
from dynotui.core.figures_text import per_item_text
from dynotui.core.page import EndedBy, Page
from dynotui.core.per_item import PerItem
from dynotui.core.text import plural
from dynotui.dynamodb.condition import Tree, conjuncts, tested_names
from dynotui.dynamodb.cost import DynamoCost
from dynotui.dynamodb.schema import SortOrder, TableSchema
from dynotui.dynamodb.spec import QuerySpec

if TYPE_CHECKING:
    from dynotui.dynamodb.what_if.rewrite import ImaginedIndex

MIN_READ = 20  # below this many items read, a ratio says nothing
WASTE_RATIO = 0.5
DIGITS = re.compile(r"\d+")
LABELS = {"table": "the base table", "lsi": "LSI", "gsi": "GSI"}


@dataclass
class Measured:
    """What reading one order under one set of conditions cost so far: items read and
    matched over every read, and the cost per item shown (``core.per_item``)."""

    read: int = 0
    matched: int = 0
    per_item: PerItem = field(default_factory=PerItem)


MeasureKey = tuple[str, str, frozenset[str], bool]


class Measurements:
    """Per (table, order, conditions, scan): the session's measured cost. Shared by every
    view of the app, so the advisor of one order can quote what another order cost."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_key: dict[MeasureKey, Measured] = {}

    def record(self, key: MeasureKey, page: Hashable, cost: DynamoCost, shown: int) -> None:
        """A page read fresh; ``page`` names it across the app's stacks (a stack and its
        page number), so a page read again replaces its own figures."""
        with self._lock:
            measured = self._by_key.setdefault(key, Measured())
            measured.read += cost.read or 0
            measured.matched += cost.matched
        measured.per_item.read(page, cost.headline, shown)

    def get(self, key: MeasureKey) -> Measured | None:
        with self._lock:
            return self._by_key.get(key)


def measure_key(spec: QuerySpec) -> MeasureKey:
    return (spec.table, spec.index or "table", spec.conditions(), spec.scan)


def _order_name(order: SortOrder) -> str:
    return LABELS[order.kind] + ("" if order.kind == "table" else f" `{order.name}`")


def _equalities(tree: Tree | None) -> dict[str, Any]:
    """Top-level ``attribute = value`` conditions: attribute to its typed value."""
    found = {}
    for condition in conjuncts(tree):
        if condition[0] == "compare" and condition[1] == "=":
            left, right = condition[2], condition[3]
            if left[0] == "value":
                left, right = right, left
            if left[0] == "path" and len(left[1]) == 1 and right[0] == "value":
                found[left[1][0]] = right[1]
    return found


def _shown(value: dict[str, Any]) -> str:
    ((kind, inner),) = value.items()
    return repr(inner) if kind == "S" else str(inner)


class DynamoAdvisor:
    def __init__(
        self, schema: TableSchema, spec: QuerySpec, measurements: Measurements | None = None
    ) -> None:
        self.schema = schema
        self.spec = spec
        self.current = schema.order(spec.index)
        self.measurements = measurements or Measurements()
        self.key = measure_key(spec)
        key_tree, self.filter_tree = spec.trees()
        self.key_tree = key_tree
        self.pages = 0
        self.read = 0
        self.matched = 0
        self.capacity = 0.0
        self.per_item = PerItem()  # as the pager's: each page's latest read, items shown
        self._stack = object()  # this stack, among every stack the measurements hear of
        self.capped = 0
        self.cut_pages = 0
        self.cut_read = 0
        self.cut_capacity = 0.0
        self.ties = 0
        self.digits_only = True
        # (a, b, partition value): a sorts before b by bytes, after it by number
        self.digit_pair: tuple[str, str, Any] | None = None
        self._digit_partition: Any = None
        self._digit_max: str | None = None
        self._digit_min: str | None = None
        self._suggested: tuple[ImaginedIndex | None] | None = None  # worked out once

    # -- folding pages in ----------------------------------------------------------------

    def add(self, page: Page[DynamoCost]) -> None:
        cost = page.cost
        self.measurements.record(self.key, (self._stack, page.number), cost, page.shown)
        self.per_item.read(page.number, cost.headline, page.shown)
        self.pages += 1
        self.read += cost.read or 0
        self.matched += cost.matched
        units = cost.capacity.total if cost.capacity else 0.0
        self.capacity += units
        if page.ended_by is EndedBy.ROUNDS:
            self.capped += 1
        if cost.size_cuts:
            self.cut_pages += 1
            self.cut_read += cost.read or 0
            self.cut_capacity += units
        self.ties += tied_rows(page.items, self.current)
        self._fold_digits(page.items)

    def _fold_digits(self, items: Any) -> None:
        key = self.current.sort_key
        if key is None or key.type != "S" or not self.digits_only or self.digit_pair:
            return
        partition_key = self.current.partition_key.name
        for item in items:
            value = item.get(key.name, {}).get("S")
            if value is None:
                continue
            if not DIGITS.fullmatch(value):
                self.digits_only = False
                return
            # Sort-key order holds within one partition only: a Scan moves from partition
            # to partition, and values of two partitions are never compared.
            partition = item.get(partition_key)
            if partition != self._digit_partition:
                self._digit_partition = partition
                self._digit_max = self._digit_min = None
            # An inversion (byte order puts a first, number order puts it last) is found
            # against the extremes seen so far in this partition.
            for other in (self._digit_max, self._digit_min):
                if other is None or other == value:
                    continue
                a, b = sorted((other, value), key=str.encode)
                if int(a) > int(b):
                    self.digit_pair = (a, b, partition)
                    return
            if self._digit_max is None or int(value) > int(self._digit_max):
                self._digit_max = value
            if self._digit_min is None or int(value) < int(self._digit_min):
                self._digit_min = value

    # -- findings -------------------------------------------------------------------------

    def findings(self) -> list[Finding]:
        return [
            *self._waste(),
            *self._better_orders(),
            *self._what_if(),
            *self._round_cap(),
            *self._scan(),
            *self._digit_strings(),
            *self._size_cuts(),
            *self._ties(),
        ]

    def _wasteful(self) -> bool:
        return bool(
            self.spec.filter
            and self.read >= MIN_READ
            and 1 - self.matched / self.read >= WASTE_RATIO
        )

    def _waste(self) -> list[Finding]:
        if not self._wasteful():
            return []
        discarded = 1 - self.matched / self.read
        kept = f"{self.matched:,} matched" if self.matched else "none matched yet"
        return [
            Finding(
                "filter-waste",
                f"The filter discarded {discarded:.0%} of {plural(self.read, 'item')} read "
                f"({self.capacity:g} RCU; {kept}): capacity is charged for everything read.",
            )
        ]

    def _here_per_match(self) -> str:
        here = self.per_item.value
        if here is None or not self.matched:
            return f"no match among the {plural(self.read, 'item')} read here yet"
        return f"{per_item_text(here)} RCU per item shown here"

    def _better_orders(self) -> list[Finding]:
        if not self._wasteful():
            return []
        findings = []
        sort = self.current.sort_key
        if sort and not self.spec.scan and sort.name in tested_names(self.filter_tree):
            findings.append(
                Finding(
                    "use-key-condition",
                    f"`{sort.name}` is the sort key of this order: test it in the key condition "
                    "and DynamoDB reads only the matching range.",
                )
            )
        if self.spec.scan:
            return findings  # _scan names each order a Query could use, once
        equal = _equalities(self.filter_tree)
        for order in self.schema.orders:
            if order is self.current or order.partition_key.name not in equal:
                continue
            attribute = order.partition_key.name
            condition = f"`{attribute} = {_shown(equal[attribute])}`"
            measured = self._measured_there(order)
            if measured:
                text = (
                    f"`{attribute}` is the partition key of {_order_name(order)}: with "
                    f"{condition} as its key condition (and the rest as a filter) it cost "
                    f"{measured}."
                )
            else:
                text = (
                    f"`{attribute}` is the partition key of {_order_name(order)}: a Query there "
                    f"with {condition} reads only items with that value, and the rest of this "
                    f"key condition becomes its filter ({self._here_per_match()}). "
                    "Compare both with w to measure the cost per match."
                )
            findings.append(Finding("index-for-filter", text))
        return findings

    @property
    def suggested(self) -> ImaginedIndex | None:
        """The GSI this query's filter points at (``what_if.suggest``), if any."""
        if self._suggested is None:
            # What-if loads when a page is first advised on, not with the app's start.
            from dynotui.dynamodb.what_if.suggest import suggested_index

            self._suggested = (suggested_index(self.spec, self.schema),)
        return self._suggested[0]

    def _what_if(self) -> list[Finding]:
        """A wasteful filter that an index would serve: estimate it before making it."""
        index = self.suggested if self._wasteful() else None
        if index is None:
            return []
        from dynotui.dynamodb.what_if.suggest import command_words

        keys = f"`{index.partition_key}` as its partition key" + (
            f" and `{index.sort_key}` as its sort key" if index.sort_key else ""
        )
        return [
            Finding(
                "index-what-if",
                f"A GSI with {keys} would read only the matching items, "
                f"not the {self.read:,} read here: W estimates what it would cost and save "
                f"before it is made (from the shell: {command_words(index)}).",
            )
        ]

    def _measured_there(self, order: SortOrder) -> str | None:
        """What a Query on ``order`` cost per match on the same conditions, beside the cost
        here, when both were measured; else None."""
        there = self.measurements.get((self.spec.table, order.name, self.key[2], False))
        here = self.per_item.value
        if not (there and there.read >= MIN_READ and here):
            return None
        elsewhere = there.per_item.value
        if elsewhere is None:
            return None
        return (
            f"{per_item_text(elsewhere)} RCU per item shown, measured on the same conditions, "
            f"against {per_item_text(here)} here: {elsewhere / here:.2g}x"
        )

    def _round_cap(self) -> list[Finding]:
        if self.spec.mode != "fill" or self.pages < 2:
            return []
        if self.capped < 2 or self.capped * 2 < self.pages:
            return []
        instead = (
            "query an index whose partition key the filter tests instead of scanning"
            if self.spec.scan
            else "move the condition into the key condition or onto an index"
        )
        return [
            Finding(
                "round-cap",
                f"The filter used up the round cap ({self.spec.max_rounds}) on {self.capped} of "
                f"{plural(self.pages, 'page')}: {instead}.",
            )
        ]

    def _scan(self) -> list[Finding]:
        if not self.spec.scan:
            return []
        current = self.current
        whole = "table" if current.kind == "table" else f"index `{current.name}`"
        total = current.item_count if current.kind != "table" else self.schema.item_count
        of = (
            f" of {self.schema.item_count_text(total)} ({self.schema.item_count_note()})"
            if total
            else ""
        )
        findings = [
            Finding(
                "scan",
                f"A Scan reads the whole {whole}: {plural(self.read, 'item')} read so far{of}, "
                f"{self.capacity:g} RCU.",
            )
        ]
        equal = _equalities(self.filter_tree)
        for order in self.schema.orders:
            attribute = order.partition_key.name
            if attribute in equal:
                measured = self._measured_there(order)
                findings.append(
                    Finding(
                        "query-instead",
                        f"The filter tests `{attribute} = {_shown(equal[attribute])}`, the "
                        f"partition key of {_order_name(order)}: a Query there reads only the "
                        "matching items instead of everything"
                        + (
                            f"; measured, it cost {measured}."
                            if measured
                            else f" ({self._here_per_match()}). Compare both with w to "
                            "measure the cost per match."
                        ),
                    )
                )
        return findings

    def _digit_strings(self) -> list[Finding]:
        if not self.digits_only or self.digit_pair is None:
            return []
        a, b, partition = self.digit_pair
        name = self.current.sort_key.name if self.current.sort_key else "?"
        # A Scan crosses partitions: name the one the pair is from (a Query reads one).
        where = (
            f" within `{self.current.partition_key.name}` = {_shown(partition)}"
            if self.spec.scan and isinstance(partition, dict) and len(partition) == 1
            else ""
        )
        return [
            Finding(
                "digit-strings",
                f"Sort key `{name}` holds strings of digits, so '{a}' sorts before '{b}'"
                f"{where} (UTF-8 bytes, not numbers): pad them to one width or use a number (N).",
            )
        ]

    def _size_cuts(self) -> list[Finding]:
        if not self.cut_pages:
            return []
        per_item = self.cut_capacity / self.cut_read if self.cut_read else 0.0
        return [
            Finding(
                "size-cut",
                f"{self.cut_pages} of {plural(self.pages, 'page')} were cut by the 1 MB limit "
                "before "
                f"Limit: items here are large ({per_item:.1f} RCU per item read).",
            )
        ]

    def _ties(self) -> list[Finding]:
        if not self.ties:
            return []
        return [
            Finding(
                "gsi-ties",
                f"{self.ties} rows read share their index key values with a neighbour: a GSI "
                "gives them no defined order; add a unique suffix to its sort key if order "
                "matters.",
            )
        ]


def tied_rows(items: Any, order: SortOrder) -> int:
    """Rows whose index key values equal a neighbour's: on a GSI their order is undefined."""
    if order.kind != "gsi":
        return 0
    keys = [tuple(str(item.get(k)) for k in order.key_names) for item in items]
    return sum(
        1
        for i, key in enumerate(keys)
        if (i > 0 and keys[i - 1] == key) or (i + 1 < len(keys) and keys[i + 1] == key)
    )
