"""Benchmark: what the five measures cost per page, at depth, against sorting on redraw.

    python benchmarks/measures.py [--pages 10000] [--repeats 3]

A session can reach 10,000 pages, and the sidebar redraws after every one. Each
contender folds in one page and then reads p50, p99 and the rest, as a redraw does:

- measures: ``QueryMeasures.add`` + ``snapshot`` (a sorted list, O(log n) each);
- baseline: append to a list, then ``sorted()`` it for the percentiles at every redraw,
  the obvious way, O(n log n) per redraw.

Both run in the same process on the same pages (synthetic DynamoDB costs, capacities
drawn from the demo's range); the ratio is baseline / measures, and the last 1,000
redraws are timed apart, since that is where depth would show.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from typing import Any

from dynotui.core.measures import QueryMeasures
from dynotui.core.page import EndedBy, HasNext, PageSummary
from dynotui.dynamodb.cost import Call, Capacity, DynamoCost


def pages(count: int, seed: int = 7) -> list[PageSummary[Any]]:
    rng = random.Random(seed)
    made = []
    for number in range(1, count + 1):
        units = rng.choice([0.5, 1.0, 1.5, 4.0, 12.5, 31.5, 54.0])
        calls = (Call(25, rng.randint(0, 11), 25, Capacity(units, units), 1.0, 0, True),)
        made.append(
            PageSummary(
                number=number,
                mode="fill",
                start_key=None,
                next_start_key={"k": {"S": str(number)}},
                has_next=HasNext.UNKNOWN,
                ended_by=EndedBy.LIMIT,
                cost=DynamoCost.of(calls),
                shown=rng.randint(0, 10),
            )
        )
    return made


def with_measures(read: list[PageSummary[Any]]) -> tuple[float, float]:
    measures = QueryMeasures()
    began = time.perf_counter()
    tail = began
    for i, page in enumerate(read):
        if i == len(read) - 1000:
            tail = time.perf_counter()
        measures.add(page)
        measures.snapshot()
    end = time.perf_counter()
    return end - began, end - tail


def with_sorting(read: list[PageSummary[Any]]) -> tuple[float, float]:
    values: list[float] = []
    began = time.perf_counter()
    tail = began
    for i, page in enumerate(read):
        if i == len(read) - 1000:
            tail = time.perf_counter()
        values.append(page.cost.headline or 0.0)
        ordered = sorted(values)
        n = len(ordered)
        _ = ordered[math.ceil(n * 50 / 100) - 1], ordered[math.ceil(n * 99 / 100) - 1]
    end = time.perf_counter()
    return end - began, end - tail


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    read = pages(args.pages)
    ours: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    for _ in range(args.repeats):  # interleaved, so drift hits both alike
        ours.append(with_measures(read))
        theirs.append(with_sorting(read))
    total = statistics.median(t for t, _ in ours)
    tail = statistics.median(t for _, t in ours)
    base_total = statistics.median(t for t, _ in theirs)
    base_tail = statistics.median(t for _, t in theirs)
    print(f"{args.pages:,} pages, add + redraw after each, median of {args.repeats}")
    print(
        f"measures: {total:.3f} s in all, {tail / 1000 * 1e6:.1f} us per page over the last 1,000"
    )
    print(
        f"baseline: {base_total:.3f} s in all, {base_tail / 1000 * 1e6:.1f} us per page over "
        "the last 1,000"
    )
    ratio, at_depth = base_total / total, base_tail / tail
    print(f"ratio baseline / measures: {ratio:.1f}x in all, {at_depth:.1f}x at depth")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
