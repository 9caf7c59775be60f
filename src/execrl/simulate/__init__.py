"""The offline reward simulator (spec §7): keep the environment and the reward exactly as in
training, replace the model's samples with reference solutions drawn from weak to strong
quality bands, and execution with stored per-test verdicts and durations; then ask whether
stronger samples earn more reward without the signal being too sparse, saturated or flat.

    runs = load_runs(problems, campaign=DurationStore().load())   # or synthetic_runs(1000)
    sim = simulate(runs, "qp(p=0.3)", "collapsed")                # one curve + diagnostics
    result = sweep(runs)                                          # the spec §2 grid, ranked
"""

from execrl.simulate.diagnostics import (
    Diagnostics,
    clamped_linear_fit,
    diagnose,
    diagnose_many,
    moving_average,
)
from execrl.simulate.engine import Engine, Signals, reward_values
from execrl.simulate.grid import FAMILIES, REWARD_SHAPES, GridPoint, environment_grid
from execrl.simulate.replay import replay_problem, replay_rewards
from execrl.simulate.runs import (
    ProblemRuns,
    StoredRuns,
    load_runs,
    runs_from_campaign,
    runs_from_records,
)
from execrl.simulate.schedule import Schedule, quality_scores
from execrl.simulate.simulation import Simulation, simulate
from execrl.simulate.sweep import SweepResult, sweep
from execrl.simulate.synthetic import synthetic_runs

__all__ = [
    "FAMILIES",
    "REWARD_SHAPES",
    "Diagnostics",
    "Engine",
    "GridPoint",
    "ProblemRuns",
    "Schedule",
    "Signals",
    "Simulation",
    "StoredRuns",
    "SweepResult",
    "clamped_linear_fit",
    "diagnose",
    "diagnose_many",
    "environment_grid",
    "load_runs",
    "moving_average",
    "quality_scores",
    "replay_problem",
    "replay_rewards",
    "reward_values",
    "runs_from_campaign",
    "runs_from_records",
    "simulate",
    "sweep",
    "synthetic_runs",
]
