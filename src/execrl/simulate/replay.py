"""Replay through execrl's own per-outcome code: for every problem and correct reference,
``Environment.outcome`` on the reference's stored record against the pool of the *other*
references, then the reward — nothing is executed.

This is the reference path the vectorised engine is tested against, and the one to use for
an environment or reward the engine does not know (any object with the same interface).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rich.progress import track

from execrl.envs.environment import Environment
from execrl.envs.outcome import Outcome
from execrl.envs.presets import environment as build_environment
from execrl.rewards.compositions import RewardFn
from execrl.rewards.compositions import reward as build_reward
from execrl.rewards.scoring import EnvSpec, RewardSpec
from execrl.simulate.runs import ProblemRuns, StoredRuns
from execrl.timing.pool import Calibration


def replay_problem(
    runs: ProblemRuns,
    env: EnvSpec,
    reward: RewardSpec,
    *,
    calibration: Calibration | None = None,
) -> list[tuple[str, float | None, float | None, Outcome]]:
    """(reference, reward for an even group index, for an odd one, Outcome) for every
    correct reference of one problem, each scored against the others."""
    environment = on_scale_of(build_environment(env), runs)
    reward_fn: RewardFn = build_reward(reward)
    problem = runs.problem
    pool = environment.pool(problem, calibration, timing=runs.timing)
    rows = []
    for name, record in runs.records.items():
        outcome = environment.outcome(problem, record, pool=pool.without(name))
        rows.append((name, reward_fn(outcome, 0), reward_fn(outcome, 1), outcome))
    return rows


def on_scale_of(environment: Environment, runs: ProblemRuns) -> Environment:
    """The environment converting its seconds at the runs' count rate, as the engine does
    (one it already sets is kept: the engine refuses one that differs)."""
    if environment.config.count_rate is not None or runs.count_rate is None:
        return environment
    return Environment(environment.config.model_copy(update={"count_rate": runs.count_rate}))


def replay_rewards(
    runs: StoredRuns,
    env: EnvSpec,
    reward: RewardSpec,
    *,
    calibration: Calibration | None = None,
    problems: Sequence[int] | None = None,
    progress: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """(even, odd) rewards of every pair in the layout of ``runs`` (NaN where None or
    padding), computed one Outcome at a time; ``problems`` restricts it to some rows."""
    shape = runs.ref_valid.shape
    even, odd = np.full(shape, np.nan), np.full(shape, np.nan)
    rows = range(len(runs)) if problems is None else problems
    environment, reward_fn = build_environment(env), build_reward(reward)
    for p in track(rows, description="replaying", disable=not progress):
        index = {name: h for h, name in enumerate(runs.references[p])}
        for name, r_even, r_odd, _ in replay_problem(
            runs.problem_runs(p), environment, reward_fn, calibration=calibration
        ):
            h = index[name]
            even[p, h] = np.nan if r_even is None else r_even
            odd[p, h] = np.nan if r_odd is None else r_odd
    return even, odd
