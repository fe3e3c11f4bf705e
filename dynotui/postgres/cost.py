"""What reading a PostgreSQL page cost: buffers, rows read and removed, time, the plan.

The figures come from the plan of the very statement that produced the page (via
auto_explain where the server allows it, otherwise EXPLAIN ANALYZE of the same
statement run again, and then said so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class PgCost:
    requests: int = 0
    read: int | None = 0  # rows the filter looked at: returned plus removed
    matched: int = 0  # rows returned
    shared_hit: int = 0
    shared_read: int = 0
    removed: int = 0  # rows removed by a filter
    skipped: int = 0  # rows read past by OFFSET, then thrown away
    execution_ms: float = 0.0
    latency_ms: float = 0.0
    plan: str = ""  # the plan's shape, top node first (only per page)
    measured: str = "auto_explain"  # or "EXPLAIN ANALYZE, one execution"
    retries: int = 0
    sorts_input: bool = False  # a Sort over more than bounded seeks: no index gives the order
    seek_buffers: tuple[int, ...] = ()  # per seek, where a page was read by several

    unit = "buffers"
    estimated = False  # a page's plan as the server ran it: always measured

    def __add__(self, other: PgCost) -> PgCost:
        read = None if self.read is None or other.read is None else self.read + other.read
        return PgCost(
            self.requests + other.requests,
            read,
            self.matched + other.matched,
            self.shared_hit + other.shared_hit,
            self.shared_read + other.shared_read,
            self.removed + other.removed,
            self.skipped + other.skipped,
            self.execution_ms + other.execution_ms,
            self.latency_ms + other.latency_ms,
        )

    @property
    def headline(self) -> float:
        return float(self.shared_hit + self.shared_read)

    @property
    def server_ms(self) -> float | None:
        return self.execution_ms

    def warnings(self) -> list[str]:
        return []

    def fields(self) -> list[tuple[str, str]]:
        lines = [
            ("Buffers", f"{self.shared_hit + self.shared_read:,}"),
            ("  hit", f"{self.shared_hit:,}"),
            ("  read", f"{self.shared_read:,}"),
            ("Removed", f"{self.removed:,} by filter"),
        ]
        if self.skipped:
            lines.append(("Skipped", f"{self.skipped:,} by OFFSET"))
        lines += [
            ("Exec", f"{self.execution_ms:.2f} ms"),
        ]
        if self.plan:
            lines.append(("Plan", self.plan))
        return lines

    def as_json(self) -> dict[str, Any]:
        return {
            "shared_hit": self.shared_hit,
            "shared_read": self.shared_read,
            "rows_removed_by_filter": self.removed,
            "rows_skipped_by_offset": self.skipped,
            "execution_ms": round(self.execution_ms, 3),
            "plan": self.plan,
            "rows_read": self.read,
            "measured_by": self.measured,
        }


def _walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    nodes = [node]
    for child in node.get("Plans", []):
        nodes.extend(_walk(child))
    return nodes


def shape(node: dict[str, Any]) -> str:
    """``Limit > Index Scan using orders_pkey on orders``: the plan's spine."""
    parts = []
    while True:
        words = node.get("Node Type", "?")
        if node.get("Index Name"):
            words += f" using {node['Index Name']}"
        if node.get("Relation Name"):
            words += f" on {node['Relation Name']}"
        parts.append(words)
        children = node.get("Plans", [])
        if not children:
            return " > ".join(parts)
        node = children[0]


def from_plan(
    plan: dict[str, Any],
    returned: int,
    execution_ms: float,
    latency_ms: float,
    measured: str,
) -> PgCost:
    """A page's cost from its JSON plan (``{"Plan": ..., "Execution Time": ...}``)."""
    top = plan["Plan"]
    nodes = _walk(top)
    removed = sum(
        int(node.get("Rows Removed by Filter", 0) * (node.get("Actual Loops", 1) or 1))
        for node in nodes
    )
    skipped = 0
    if top.get("Node Type") == "Limit" and top.get("Plans"):
        # What the Limit's input produced beyond what it let through: the OFFSET's rows.
        skipped = max(
            int(top["Plans"][0].get("Actual Rows", 0)) - int(top.get("Actual Rows", 0)), 0
        )
    return PgCost(
        requests=1,
        read=returned + removed,
        matched=returned,
        shared_hit=int(top.get("Shared Hit Blocks", 0)),
        shared_read=int(top.get("Shared Read Blocks", 0)),
        removed=removed,
        skipped=skipped,
        # auto_explain reports no "Execution Time": the top node's total is the statement's.
        execution_ms=float(plan.get("Execution Time", top.get("Actual Total Time", execution_ms))),
        latency_ms=latency_ms,
        plan=shape(top),
        measured=measured,
        sorts_input=sorts_input(nodes, returned),
        seek_buffers=seek_buffers(top),
    )


def sorts_input(nodes: list[dict[str, Any]], returned: int) -> bool:
    """A Sort (or Incremental Sort) of more than ten pages' worth of rows: the order is not
    given by an index. Sorting the few rows of bounded seeks to merge them, or a small
    group of ties the planner found cheaper to sort, is not that."""
    most = 10 * (returned + 1) + 100
    for node in nodes:
        if node.get("Node Type") in ("Sort", "Incremental Sort"):
            children = node.get("Plans") or []
            if not children:
                return True
            child = children[0]
            if child.get("Actual Rows", 0) * (child.get("Actual Loops", 1) or 1) > most:
                return True
    return False


def seek_buffers(top: dict[str, Any]) -> tuple[int, ...]:
    """Buffers of each branch of the Append (or Merge Append) a multi-seek page reads."""
    node = top
    while node.get("Node Type") not in ("Append", "Merge Append"):
        children = node.get("Plans") or []
        if len(children) != 1:
            return ()
        node = children[0]
    return tuple(
        int(child.get("Shared Hit Blocks", 0)) + int(child.get("Shared Read Blocks", 0))
        for child in node.get("Plans") or []
    )
