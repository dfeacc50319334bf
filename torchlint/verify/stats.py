"""Timing statistics: per-step times from the step starts a program marked, the median speedup
with a distribution-free confidence interval, and the A/A control that decides whether a
difference is measurable at all."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import List, Optional, Sequence

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """[low, high] holds the median with probability `confidence` (order statistics, no assumption
    about the distribution of the samples)."""

    low: float
    high: float
    confidence: float

    def spread(self) -> float:
        """How far the interval reaches from 1 (for a ratio of two timings of the same program)."""
        return max(abs(self.low - 1), abs(self.high - 1))


@dataclass(frozen=True)
class Timing:
    """Median seconds per step before and after; the median speedup (before/after) and its
    interval; the same for before against itself (A/A); and whether the speedup is measurable."""

    before_s: float
    after_s: float
    speedup: Optional[float]
    interval: Optional[Interval]
    aa: Optional[Interval] = None
    measurable: bool = False


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


def window_times(marks: Sequence[float], warmup: int, window: int) -> List[float]:
    """Seconds per step in consecutive windows of `window` steps, from step starts (`marks`,
    seconds) after the first `warmup` steps; a window needs the start of the step after it."""
    measured = list(marks[warmup:])
    return [
        (measured[start + window] - measured[start]) / window
        for start in range(0, len(measured) - window, window)
    ]


def _ratios(numerators: Sequence[Sequence[float]], denominators: Sequence[Sequence[float]]) -> List[float]:
    """Window-by-window ratios of runs paired by repeat."""
    return [a / b for run_a, run_b in zip(numerators, denominators) for a, b in zip(run_a, run_b)]


def summarize(
    before: Sequence[Sequence[float]], after: Sequence[Sequence[float]], again: Sequence[Sequence[float]] = ()
) -> Timing:
    """Per-step times of each run's windows (before, after, and before run again in the same
    repeat). The speedup is measurable when its interval excludes 1 and lies outside the A/A
    interval (before against before again); without A/A runs, when it excludes 1. No speedup when
    a time is not positive (noise exceeded the effect)."""
    flat_before = [t for run in before for t in run]
    flat_after = [t for run in after for t in run]
    timing = Timing(statistics.median(flat_before), statistics.median(flat_after), None, None)
    if min(*flat_before, *flat_after, *(t for run in again for t in run)) <= 0:
        return timing
    interval = median_interval(_ratios(before, after))
    aa = median_interval(_ratios(before, again)) if again else None
    measurable = (interval.low > 1 or interval.high < 1) and (
        aa is None or interval.low > aa.high or interval.high < aa.low
    )
    speedup = statistics.median(_ratios(before, after))
    return Timing(timing.before_s, timing.after_s, speedup, interval, aa, measurable)
