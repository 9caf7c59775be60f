"""Adapters that plug execrl's rewards into other training libraries (see docs/integrations.md).

``ExecrlRewardFunction`` is a TRL-style reward function: ``f(prompts, completions, **kwargs)``
returns one reward per completion, scored by running the extracted program in the sandbox.
"""

from execrl.integrations.trl import (
    AsyncExecrlRewardFunction,
    ExecrlRewardFunction,
    SolverRewardFunction,
    execrl_dataset,
    solver_dataset,
)

__all__ = [
    "AsyncExecrlRewardFunction",
    "ExecrlRewardFunction",
    "SolverRewardFunction",
    "execrl_dataset",
    "solver_dataset",
]
