"""Simulate one environment and reward: the curve from weak to strong and its diagnostics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from execrl.envs.presets import environment as build_environment
from execrl.rewards.compositions import reward as build_reward
from execrl.rewards.scoring import EnvSpec, RewardSpec
from execrl.simulate.diagnostics import DEFAULT_WINDOW, Diagnostics, diagnose, moving_average
from execrl.simulate.engine import CHUNK_ELEMENTS, Engine, chunks
from execrl.simulate.replay import replay_rewards
from execrl.simulate.runs import StoredRuns
from execrl.simulate.schedule import Metric, Schedule, metric_values
from execrl.timing.pool import Calibration

ReplayPath = Literal["vectorised", "replay"]
"""How the rewards are computed: the vectorised engine or execrl's own per-outcome code."""


@dataclass(frozen=True, eq=False)
class Simulation:
    """One (environment, reward) replayed over the schedule."""

    environment: str
    reward: str
    metric: Metric
    x: np.ndarray
    curve: np.ndarray
    """(K,) ``c_i``: the mean of the metric over the samples at each point."""
    window: int
    diagnostics: Diagnostics
    rewards: tuple[np.ndarray, np.ndarray]
    """(even, odd) every pair's reward (NaN: inconclusive or padding)."""

    @property
    def smoothed(self) -> np.ndarray:
        return moving_average(self.curve[np.isfinite(self.curve)], self.window)

    @property
    def centres(self) -> np.ndarray:
        return moving_average(self.x[np.isfinite(self.curve)], self.window)


def simulate(
    runs: StoredRuns,
    env: EnvSpec,
    reward: RewardSpec,
    *,
    schedule: Schedule | None = None,
    metric: Metric = "reward",
    window: int = DEFAULT_WINDOW,
    calibration: Calibration | None = None,
    path: ReplayPath = "vectorised",
) -> Simulation:
    """Replay every reference under ``env`` and ``reward`` (vectorised, or one Outcome at a
    time through execrl's own code with ``path="replay"``), average over the schedule's
    bands and diagnose the curve."""
    environment, reward_fn = build_environment(env), build_reward(reward)
    runs.check_reward(reward_fn)
    schedule = schedule or Schedule.build(runs)
    if path == "replay":
        even, odd = replay_rewards(runs, environment, reward_fn, calibration=calibration)
    else:
        even, odd = np.full(runs.ref_valid.shape, np.nan), np.full(runs.ref_valid.shape, np.nan)
        for chunk in chunks(runs, CHUNK_ELEMENTS):  # problems are independent: bound memory
            engine = Engine(runs.subset(chunk), calibration=calibration)
            even[chunk], odd[chunk] = engine.rewards(environment.config, reward_fn)
    curve = schedule.curve(metric_values(even, metric), metric_values(odd, metric))
    return Simulation(
        environment=environment.name,
        reward=reward_fn.name,
        metric=metric,
        x=schedule.x,
        curve=curve,
        window=window,
        diagnostics=diagnose(schedule.x, curve, window=window),
        rewards=(even, odd),
    )
