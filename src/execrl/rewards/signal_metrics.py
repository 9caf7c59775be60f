"""How much training signal a reward carries (spec dense-rewards.md, "What to report").

- :func:`degenerate_group_ratio`: the share of groups whose rewards are all identical. Such a
  group has zero group-relative advantage and teaches nothing. Works for any reward: binary
  correctness, a composition, or dense turn rewards flattened per group.
- :func:`difficulty_skew`: per problem, the share of tests with pass rate ρ > 0.8 — how much
  of a suite is "easy" and would dominate a plain pass-rate reward.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from execrl.errors import ExecrlError


def degenerate_group_ratio(
    groups_rewards: Sequence[Sequence[float | None]], *, atol: float = 1e-12
) -> float:
    """Fraction of groups whose rewards are all identical (``max − min ≤ atol``).

    ``None`` and NaN entries are left out: ``None`` is an inconclusive reward (not a number
    to compare) and NaN a padded turn of :func:`execrl.rewards.dense.dense_rewards`. A group
    with one reward left is degenerate; a group with none left is not counted. For dense
    rewards pass ``r.turn_rewards[r.mask]`` (or the whole ``r.turn_rewards``) per group.
    """
    degenerate = counted = 0
    for rewards in groups_rewards:
        values = [r for r in rewards if r is not None and not math.isnan(r)]
        if not values:
            continue
        counted += 1
        degenerate += bool(max(values) - min(values) <= atol)
    if counted == 0:
        raise ExecrlError(
            "no group has a reward to compare (every entry None or NaN, or no groups); "
            "pass one sequence of rewards per group"
        )
    return degenerate / counted


@dataclass(frozen=True)
class DifficultySkew:
    """Per problem, the share of tests whose pass rate exceeds the threshold, and its mean."""

    per_problem: tuple[float, ...]
    mean: float


def difficulty_skew(
    pass_rates_per_problem: Sequence[Sequence[float]], *, threshold: float = 0.8
) -> DifficultySkew:
    """For each problem, ``#{j : ρ_j > threshold} / |U|`` (strictly above; spec: ρ > 0.8),
    and the mean of those shares over problems (each problem counts once).

    ``ρ_j`` is a test's pass rate over the group's turns, e.g.
    ``PassTensor.pass_rates()``; each must lie in [0, 1].
    """
    shares = []
    for k, rates in enumerate(pass_rates_per_problem):
        rates = [float(rate) for rate in rates]
        if not rates:
            raise ExecrlError(f"problem {k} has no tests; every problem needs ≥ 1 pass rate")
        if not all(0.0 <= rate <= 1.0 for rate in rates):
            raise ExecrlError(f"problem {k}: pass rates must lie in [0, 1], got {rates}")
        shares.append(sum(rate > threshold for rate in rates) / len(rates))
    if not shares:
        raise ExecrlError("no problems given: pass one sequence of pass rates per problem")
    return DifficultySkew(per_problem=tuple(shares), mean=sum(shares) / len(shares))


__all__ = ["DifficultySkew", "degenerate_group_ratio", "difficulty_skew"]
