"""The screening grid of spec §2 (environment families × parameter values) and the reward
shapes of spec §4.

Parameter values: limits {0.1, 0.2, 0.5, 1, 2, 5, 10} s, lengths {1e2 … 1e8} characters,
percentiles {10 … 90}, tolerances {0, .01, .02, .05, .1, .2, .5, .9}, gates {0.1 … 0.9}.
Each family is a preset of ``execrl.envs.presets`` with its axes; the ranked-reference limit
is screened with B = max ("ranked-worst", the preset's default) — B = median works in the
simulator too, through the operator's own code, but is too slow for the full grid.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from execrl.envs.environment import EnvironmentConfig
from execrl.envs.presets import PRESETS
from execrl.errors import ExecrlError
from execrl.rewards.compositions import RewardFn, reward

LIMITS_S = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
LENGTHS = (1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8)
PERCENTILES = (10, 20, 30, 40, 50, 60, 70, 80, 90)
TOLERANCES = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.9)
GATES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)

FAMILIES: dict[str, dict[str, tuple]] = {
    "rlvr": {},
    "mc": {},
    "mc_mo": {},
    "abs_filter": {"a": LIMITS_S, "limit": LIMITS_S, "rho": TOLERANCES},
    "len_filter": {"L": LENGTHS, "limit": LIMITS_S, "rho": TOLERANCES},
    "rel_filter": {"r": PERCENTILES, "limit": LIMITS_S, "rho": TOLERANCES},
    "abs_timeout": {"limit": LIMITS_S, "rho": TOLERANCES},
    "rel_timeout": {"p": PERCENTILES, "rho": TOLERANCES},
    "ranked_timeout": {"p": PERCENTILES, "rho": TOLERANCES},
    "qar": {"p": GATES},
    "qp": {"p": GATES},
}
"""Every environment family of spec §2 and the values of its parameters."""

_SHAPED = ("optimization", "collapsed", "two_gate", "additive", "multitask")
_MAPS = ("linear", "bucket", "range_third", "range_half")
REWARD_SHAPES: tuple[str, ...] = (
    "correctness",
    *(
        f"{c}(binary)" if m is None else f"{c}(graded, map={m})"
        for c in _SHAPED
        for m in (None, *_MAPS)
    ),
    "naive(map=linear)",
    "naive(map=log)",
)
"""The 28 reward shapes of spec §4: correctness-only; optimization-only, collapsed, two-gate,
additive and multitask, each binary or graded under the four maps; the naive raw-duration
baselines (over the optimization tests)."""


@dataclass(frozen=True)
class GridPoint:
    """One environment of the grid: its family, parameters and config."""

    family: str
    params: dict[str, Any]
    config: EnvironmentConfig

    @property
    def name(self) -> str:
        return self.config.name


def environment_grid(families: Sequence[str] | None = None) -> list[GridPoint]:
    """Every environment of the chosen families (default: all) at every parameter value."""
    chosen = list(FAMILIES) if families is None else list(families)
    unknown = [f for f in chosen if f not in FAMILIES]
    if unknown:
        raise ExecrlError(f"unknown families {unknown}; choose from {', '.join(FAMILIES)}")
    points = []
    for family in chosen:
        axes = FAMILIES[family]
        for values in itertools.product(*axes.values()):
            params = dict(zip(axes, values, strict=True))
            points.append(GridPoint(family, params, PRESETS[family](**params)))
    return points


def reward_shapes(names: Sequence[str] | None = None) -> list[RewardFn]:
    """The reward objects for ``names`` (default: every shape)."""
    return [reward(name) for name in (REWARD_SHAPES if names is None else names)]


def axes_of(family: str) -> list[str]:
    return list(FAMILIES.get(family, {}))
