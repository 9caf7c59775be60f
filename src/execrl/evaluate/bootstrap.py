"""Bootstrap confidence intervals over problems (spec §5: test-time uncertainty).

Problems are the unit of resampling: a benchmark is a sample of problems, and the samples of
one problem are not independent draws of the benchmark. ``bootstrap_indices`` draws the
``(B, P)`` index matrix once, from a seed, so every metric computed with the same seed and the
same problem order is resampled identically (paired intervals: two models' estimates move
together). Intervals are percentile intervals of the resampled statistic.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from execrl.errors import ExecrlError

Statistic = Callable[[np.ndarray], np.ndarray]
"""Maps a ``(B, P)`` array of resampled per-problem values to ``(B,)`` statistics."""


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its bootstrap interval, over ``problems`` problems."""

    value: float
    low: float
    high: float
    problems: int

    def __str__(self) -> str:
        return self.format()

    def format(self, digits: int = 3) -> str:
        if math.isnan(self.value):
            return "—"
        return f"{self.value:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    def to_dict(self) -> dict[str, float | int | None]:
        def clean(x: float) -> float | None:
            return None if math.isnan(x) else x

        return {
            "value": clean(self.value),
            "low": clean(self.low),
            "high": clean(self.high),
            "problems": self.problems,
        }


def bootstrap_indices(problems: int, *, resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """``(resamples, problems)`` indices drawn with replacement from a seeded generator."""
    if resamples < 1:
        raise ExecrlError(f"resamples must be >= 1, got {resamples}")
    rng = np.random.default_rng(seed)
    return rng.integers(0, max(problems, 1), size=(resamples, problems))


def mean_statistic(values: np.ndarray) -> np.ndarray:
    """The mean over problems, for each resample."""
    return values.mean(axis=-1)


def bootstrap_ci(
    per_problem: np.ndarray,
    *,
    statistic: Statistic = mean_statistic,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> Estimate:
    """The statistic of ``per_problem`` (shape ``(P,)``) and its percentile interval over
    ``resamples`` resamples of the problems. NaN entries are problems the metric is not
    defined on (e.g. fewer than k samples): they are dropped before resampling. A statistic
    that is undefined on a resample (NaN) is left out of the interval."""
    if not 0 < level < 1:
        raise ExecrlError(f"the confidence level must lie in (0, 1), got {level}")
    values = np.asarray(per_problem, dtype=float)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    point = float(statistic(values[None, :])[0])
    indices = bootstrap_indices(values.size, resamples=resamples, seed=seed)  # (B, P)
    stats = statistic(values[indices])  # (B,)
    stats = stats[~np.isnan(stats)]
    if stats.size == 0:
        return Estimate(point, math.nan, math.nan, int(values.size))
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(stats, [tail, 100 - tail])
    return Estimate(point, float(low), float(high), int(values.size))
