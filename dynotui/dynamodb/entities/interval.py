"""An entity's count from a sample, with its range; and percentiles of sizes.

The sample is the start of every segment of a parallel Scan. Segments split the table by
the hash of the partition key, so the sample is spread over the key space, not the first
partitions in one order; but it is a sample of *partitions*: a customer's profile, orders
and addresses come together, one partition at a time. Counting its items as independent
draws would make the range too narrow. So the share of an entity gets a Wilson score
interval over an *effective* sample size: the items read divided by the design effect of
reading whole partitions, the variance of the share between partitions (a ratio
estimator's, partitions as clusters) against a simple random sample's.

That variance is itself measured from the sample, and for an entity in a few large
clumps (or one missing from a few large partitions) the sample holds few partitions
that tell its spread: its estimate of the spread is often too small. So the quantile is
Student's t with as many degrees of freedom as the *fewer* of the partitions read that
hold the entity and that do not, less one (a rare entity seen in two partitions knows
its spread from two; one in every partition read, from all of them), at the quantile of
a 97.5 % interval. The range is said to be a 95 % range (``LEVEL``) because that is what
it was measured to hold (tests/test_entities_inference.py): on customers' partitions of
2 to 15 items mixed with a few product partitions of up to 30, it held the truth at
least 95 % of the time for every entity, from 10 to 320 partitions read (before: 33 %
for products with 10 partitions read, 76 % with 40). Its price is width on small samples: read more
(``--max-read-units``) to narrow it. Where every partition read is all of one entity
(an overloaded GSI), there is no spread to measure and each partition counts as one
draw, not each item.

The share's range is scaled to the table's item count (DescribeTable's ItemCount, which
the service refreshes about every six hours: its staleness is not in the range), and no
bound falls below the items of the entity actually seen. The partition a segment stopped
inside is left out of the share (``Census.closed_part``): its items read are its first
by sort key, not a fair share of it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95 % interval
Z975 = 2.241402727604947  # ... of a two-sided 97.5 % interval: what the ranges use
LEVEL = 0.95  # how often the ranges were measured to hold the truth, at least


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion seen ``successes`` times in ``n``."""
    if n <= 0:
        return 0.0, 1.0
    p = min(1.0, max(0.0, successes / n))
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def t_quantile(degrees: int, z: float = Z95) -> float:
    """Student's t quantile matching the normal ``z``, by the Cornish-Fisher expansion
    (within 0.01 of the table from 3 degrees of freedom on): a sample of few partitions
    knows its own spread less well."""
    if degrees <= 0:
        return z * 6  # one partition: nothing is known of the spread
    v = float(degrees)
    z3, z5, z7 = z**3, z**5, z**7
    return (
        z
        + (z3 + z) / (4 * v)
        + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v)
        + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v**3)
    )


def design_effect(clusters: Iterable[tuple[int, int]], share: float) -> float:
    """How much reading whole clusters (items, of them this entity's) widens the share's
    variance, at least 1. With one cluster there is nothing to measure: the sample counts
    as that many clusters' worth of items (see ``effective_size``)."""
    pairs = [(n, k) for n, k in clusters if n]
    m = len(pairs)
    total = sum(n for n, _ in pairs)
    if m < 2 or total == 0:
        return 1.0
    if share <= 0 or share >= 1:
        # Every partition read is all this entity (or none of it): no spread to measure,
        # and the data are what whole-partition entities give (an overloaded GSI, one
        # entity a partition). Each partition counts as one draw, not each item: at 1 the
        # range claimed 1,784 to 2,013 of an index's 2,013 entries for an entity of 222.
        return total / m
    spread = sum((k - share * n) ** 2 for n, k in pairs) * m / (m - 1) / (total * total)
    simple = share * (1 - share) / total
    return max(1.0, spread / simple)


def effective_size(items: int, clusters: int, effect: float) -> float:
    if clusters < 2:
        return float(min(items, max(clusters, 1)))
    return max(1.0, items / effect)


@dataclass(frozen=True, slots=True)
class CountEstimate:
    """An entity's count: exact, or the estimate with its range (``LEVEL``)."""

    items: int
    low: int
    high: int
    exact: bool

    def as_json(self) -> list[int]:
        return [self.low, self.high]


def exact(count: int) -> CountEstimate:
    return CountEstimate(count, count, count, True)


def spread_degrees(pairs: list[tuple[int, int]]) -> int:
    """Degrees of freedom the sample has on an entity's spread: the fewer of the
    partitions that hold it and that do not, less one; an entity in every partition read
    varies with the partitions' sizes alone, which every one of them tells."""
    holding = sum(1 for n, k in pairs if n and k)
    lacking = sum(1 for n, k in pairs if n and not k)
    return (holding if lacking == 0 else min(holding, lacking)) - 1


def estimate_count(
    seen: int,
    sample: int,
    population: int,
    clusters: Iterable[tuple[int, int]],
    *,
    floor: int | None = None,
) -> CountEstimate:
    """The count of an entity seen ``seen`` times among ``sample`` items read (in these
    clusters: items read, of them this entity's), in a table of ``population`` items;
    no bound below ``floor`` (the entity's items read, by default ``seen``)."""
    pairs = list(clusters)
    floor = seen if floor is None else floor
    population = max(population, sample, floor)
    share = seen / sample if sample else 0.0
    effect = design_effect(pairs, share)
    n = effective_size(sample, len(pairs), effect)
    low, high = wilson(share * n, n, t_quantile(spread_degrees(pairs), Z975))
    return CountEstimate(
        items=max(floor, round(share * population)),
        low=max(floor, math.floor(low * population)),
        high=max(floor, math.ceil(high * population)),
        exact=False,
    )


def percentile(sizes: Mapping[int, int] | Counter[int], fraction: float) -> int:
    """The nearest-rank percentile of sizes held as a histogram (size: how many)."""
    total = sum(sizes.values())
    if total == 0:
        return 0
    rank = max(1, math.ceil(fraction * total))
    seen = 0
    for size in sorted(sizes):
        seen += sizes[size]
        if seen >= rank:
            return size
    return max(sizes)  # pragma: no cover - the ranks add up to the total
