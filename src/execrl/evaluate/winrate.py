"""Win rates against a baseline model (spec §5): WR_b and WR_m.

Per problem, each model's *passing* samples (strict correctness) are ordered by their
accumulated duration over all tests; WR_b compares the fastest of each model, WR_m the
median. A win is a problem where the model's pick is faster than the baseline's; draws are
excluded: ``WR = wins / (wins + losses)``.

**[ours]** where the spec is silent:
- the median of an even number of samples is the lower middle one (a real sample, not the
  mean of two);
- a model with a passing sample beats one without; neither passing is a draw;
- equal durations (within ``rel_tol``, default exact) are a draw.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from execrl.errors import ExecrlError

Pick = Literal["best", "median"]
PICKS: dict[str, Pick] = {"WR_b": "best", "WR_m": "median"}
"""The spec's names for the two win rates and the sample each one picks."""

WIN, DRAW, LOSS = 1, 0, -1


def pick_duration(durations: Sequence[float], how: Pick) -> float | None:
    """The fastest (``best``) or median (lower middle) of a model's passing samples'
    accumulated durations on one problem; None when it has no passing sample."""
    if not durations:
        return None
    ordered = sorted(durations)
    if how == "best":
        return ordered[0]
    if how == "median":
        return ordered[(len(ordered) - 1) // 2]
    raise ExecrlError(f"unknown pick {how!r}; use 'best' (WR_b) or 'median' (WR_m)")


def compare(model_s: float | None, baseline_s: float | None, *, rel_tol: float = 0.0) -> int:
    """WIN (+1) if the model's pick is faster, LOSS (−1) if slower, DRAW (0) if equal within
    ``rel_tol`` or if neither model passed; a missing pick loses to any passing one."""
    if model_s is None and baseline_s is None:
        return DRAW
    if baseline_s is None:
        return WIN
    if model_s is None:
        return LOSS
    if math.isclose(model_s, baseline_s, rel_tol=rel_tol, abs_tol=0.0):
        return DRAW
    return WIN if model_s < baseline_s else LOSS


def problem_verdicts(
    model: Mapping[str, Sequence[float]],
    baseline: Mapping[str, Sequence[float]],
    problems: Sequence[str],
    how: Pick,
    *,
    rel_tol: float = 0.0,
) -> np.ndarray:
    """(P,) verdicts (+1 win, 0 draw, −1 loss) on ``problems``; each mapping holds, per
    problem, the accumulated durations of that model's passing samples."""
    return np.array(
        [
            compare(
                pick_duration(model.get(p, ()), how),
                pick_duration(baseline.get(p, ()), how),
                rel_tol=rel_tol,
            )
            for p in problems
        ],
        dtype=float,
    )


def win_rate_statistic(verdicts: np.ndarray) -> np.ndarray:
    """``wins / (wins + losses)`` along the last axis (NaN where every problem is a draw)."""
    wins = (verdicts == WIN).sum(axis=-1)
    decided = (verdicts != DRAW).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(decided > 0, wins / np.maximum(decided, 1), np.nan)


@dataclass(frozen=True)
class WinCount:
    """Wins, losses and draws over problems, and ``wins / (wins + losses)``."""

    wins: int
    losses: int
    draws: int

    @property
    def rate(self) -> float:
        decided = self.wins + self.losses
        return self.wins / decided if decided else math.nan

    @classmethod
    def of(cls, verdicts: np.ndarray) -> WinCount:
        v = np.asarray(verdicts)
        return cls(int((v == WIN).sum()), int((v == LOSS).sum()), int((v == DRAW).sum()))
