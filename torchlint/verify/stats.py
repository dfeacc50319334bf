"""Timing statistics: medians, and a distribution-free confidence interval for the median speedup."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Optional, Sequence

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """[low, high] holds the median with probability `confidence` (order statistics, no assumption
    about the distribution of the samples)."""

    low: float
    high: float
    confidence: float


@dataclass(frozen=True)
class Timing:
    """Median seconds per step before and after, the median speedup and its interval."""

    before_s: float
    after_s: float
    speedup: Optional[float]
    interval: Optional[Interval]


def median_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """The narrowest symmetric order-statistic interval whose coverage of the median reaches
    `confidence`; with too few values, the full range and the coverage it has."""
    ordered = sorted(values)
    n = len(ordered)

    def coverage(rank: int) -> float:  # P(x(rank) <= median <= x(n + 1 - rank))
        return 1 - 2 * sum(math.comb(n, i) for i in range(rank)) / 2**n

    rank = 1
    while rank + 1 <= n // 2 and coverage(rank + 1) >= confidence:
        rank += 1
    return Interval(ordered[rank - 1], ordered[n - rank], coverage(rank))


def summarize(before: Sequence[float], after: Sequence[float]) -> Timing:
    """Medians of the per-step samples; the speedup is the median of each repeat's before/after
    ratio, with its interval. No speedup when a sample is not positive (noise exceeded the effect)."""
    timing = Timing(statistics.median(before), statistics.median(after), None, None)
    if min(*before, *after) <= 0:
        return timing
    ratios = [b / a for b, a in zip(before, after)]
    return Timing(timing.before_s, timing.after_s, statistics.median(ratios), median_interval(ratios))
