"""Plain-language findings from the schema and the pages read so far, with their numbers.

Every finding is computed from what was measured; none is shown unless the data
behind it is there.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from dynotui.core.expressions import placeholders
from dynotui.core.page import EndedBy, Page, Totals
from dynotui.core.schema import SortOrder, TableSchema
from dynotui.core.spec import QuerySpec

MIN_READ = 20  # below this many items read, a ratio says nothing
WASTE_RATIO = 0.5
DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Finding:
    kind: str
    text: str


def filter_attributes(spec: QuerySpec) -> list[str]:
    names = placeholders(spec.filter)[0]
    return sorted({spec.names.get(n, n) for n in names})


def _waste(spec: QuerySpec, totals: Totals) -> list[Finding]:
    if not spec.filter or totals.scanned < MIN_READ:
        return []
    discarded = 1 - totals.count / totals.scanned
    if discarded < WASTE_RATIO:
        return []
    return [
        Finding(
            "filter-waste",
            f"The filter discarded {discarded:.0%} of {totals.scanned:,} items read "
            f"({totals.capacity.total:g} RCU): capacity is charged for everything read.",
        )
    ]


def _better_orders(
    schema: TableSchema, spec: QuerySpec, current: SortOrder, totals: Totals
) -> list[Finding]:
    if not spec.filter or totals.scanned < MIN_READ:
        return []
    selectivity = totals.count / totals.scanned
    if 1 - selectivity < WASTE_RATIO:
        return []
    share = f"~{selectivity:.0%}" if selectivity >= 0.01 else "under 1%"
    findings = []
    for attribute in filter_attributes(spec):
        if current.sort_key and current.sort_key.name == attribute and not spec.scan:
            findings.append(
                Finding(
                    "use-key-condition",
                    f"`{attribute}` is the sort key of this order: test it in the key condition "
                    "and DynamoDB reads only the matching range.",
                )
            )
        for order in schema.orders:
            if order is current:
                continue
            label = {"table": "the base table", "lsi": "LSI", "gsi": "GSI"}[order.kind]
            name = "" if order.kind == "table" else f" `{order.name}`"
            if order.partition_key.name == attribute:
                findings.append(
                    Finding(
                        "index-for-filter",
                        f"`{attribute}` is the partition key of {label}{name}: querying it with "
                        f"`{attribute} = ...` reads {share} as much as this "
                        f"(only matching items).",
                    )
                )
            elif (
                order.sort_key
                and order.sort_key.name == attribute
                and order.partition_key.name == current.partition_key.name
                and not spec.scan
            ):
                findings.append(
                    Finding(
                        "index-for-filter",
                        f"`{attribute}` is the sort key of {label}{name}, which has the same "
                        "partition key: a key condition there reads only the matching range.",
                    )
                )
    return findings


def _round_cap(spec: QuerySpec, pages: Sequence[Page]) -> list[Finding]:
    if spec.mode != "fill" or len(pages) < 2:
        return []
    capped = sum(1 for p in pages if p.ended_by is EndedBy.ROUNDS)
    if capped < 2 or capped * 2 < len(pages):
        return []
    return [
        Finding(
            "round-cap",
            f"The filter used up the round cap ({spec.max_rounds}) on {capped} of {len(pages)} "
            "pages: move the condition into the key condition or onto an index.",
        )
    ]


def _digit_strings(current: SortOrder, pages: Sequence[Page]) -> list[Finding]:
    key = current.sort_key
    if key is None or key.type != "S":
        return []
    values = [item[key.name]["S"] for page in pages for item in page.items if key.name in item]
    if len(values) < 2 or not all(DIGITS.fullmatch(v) for v in values):
        return []
    # A pair that byte order puts first but number order puts last proves the point.
    ordered = sorted(set(values), key=str.encode)
    pair = next(((a, b) for a, b in itertools.pairwise(ordered) if int(a) > int(b)), None)
    if pair is None:
        return []
    a, b = pair
    return [
        Finding(
            "digit-strings",
            f"Sort key `{key.name}` holds strings of digits, so '{a}' sorts before '{b}' "
            "(UTF-8 bytes, not numbers): pad them to one width or use a number (N).",
        )
    ]


def _scan(
    schema: TableSchema, spec: QuerySpec, current: SortOrder, totals: Totals
) -> list[Finding]:
    if not spec.scan:
        return []
    whole = "table" if current.kind == "table" else f"index `{current.name}`"
    total = current.item_count if current.kind != "table" else schema.item_count
    of = f" of ~{total:,} (a count up to six hours stale)" if total else ""
    findings = [
        Finding(
            "scan",
            f"A Scan reads the whole {whole}: {totals.scanned:,} items read so far{of}, "
            f"{totals.capacity.total:g} RCU.",
        )
    ]
    for attribute in filter_attributes(spec):
        for order in schema.orders:
            if order.partition_key.name == attribute:
                name = (
                    "the base table"
                    if order.kind == "table"
                    else f"{order.kind.upper()} `{order.name}`"
                )
                findings.append(
                    Finding(
                        "query-instead",
                        f"The filter tests `{attribute}`, the partition key of {name}: a Query "
                        "there reads only the matching items instead of everything.",
                    )
                )
    return findings


def _size_cuts(pages: Sequence[Page]) -> list[Finding]:
    cut = [p for p in pages if any(c.last_evaluated_key and c.scanned < c.limit for c in p.calls)]
    if not cut:
        return []
    scanned = sum(p.scanned_count for p in cut)
    units = sum(p.capacity.total for p in cut)
    per_item = units / scanned if scanned else 0.0
    return [
        Finding(
            "size-cut",
            f"{len(cut)} of {len(pages)} pages were cut by the 1 MB limit before Limit: items "
            f"here are large ({per_item:.1f} RCU per item read).",
        )
    ]


def tied_rows(page: Page, order: SortOrder) -> int:
    """Rows whose index key values equal a neighbour's: on a GSI their order is undefined."""
    if order.kind != "gsi":
        return 0
    keys = [tuple(str(item.get(k)) for k in order.key_names) for item in page.items]
    return sum(
        1
        for i, key in enumerate(keys)
        if (i > 0 and keys[i - 1] == key) or (i + 1 < len(keys) and keys[i + 1] == key)
    )


def _ties(current: SortOrder, pages: Sequence[Page]) -> list[Finding]:
    tied = sum(tied_rows(page, current) for page in pages)
    if not tied:
        return []
    return [
        Finding(
            "gsi-ties",
            f"{tied} rows read share their index key values with a neighbour: a GSI gives them "
            "no defined order; add a unique suffix to its sort key if order matters.",
        )
    ]


def advise(
    schema: TableSchema, spec: QuerySpec, pages: Sequence[Page], totals: Totals
) -> list[Finding]:
    """Findings for the pages read so far (the latest fresh read of each)."""
    current = schema.order(spec.index)
    return [
        *_waste(spec, totals),
        *_better_orders(schema, spec, current, totals),
        *_round_cap(spec, pages),
        *_scan(schema, spec, current, totals),
        *_digit_strings(current, pages),
        *_size_cuts(pages),
        *_ties(current, pages),
    ]
