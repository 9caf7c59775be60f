"""The function a trainer calls: programs in, rewards and Outcomes out.

``score(problem, programs, executor=..., env=..., reward=...)`` plans the execution for the
environment, runs every program on the executor, and returns one :class:`Scored` per program.
``score_batch`` does the same for a whole rollout batch — every (problem, group of programs)
pair — with all executions spread over the executor's pool at once. Both take the executor
as an argument and never open one (the backend is chosen at the edge: a CLI flag or a
config field), so the same call runs on a local pool, ``execrl serve`` servers or Ray.
``rescore`` recomputes rewards from stored records without running anything (replay).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from execrl.envs.environment import Environment, EnvironmentConfig, Plan
from execrl.envs.outcome import Outcome
from execrl.envs.presets import environment
from execrl.errors import UsageError
from execrl.problems.models import Problem
from execrl.rewards.compositions import RewardFn
from execrl.rewards.compositions import reward as build_reward
from execrl.sandbox.limits import ExecutionOptions
from execrl.sandbox.protocol import Executor
from execrl.sandbox.records import ExecutionRecord
from execrl.timing.pool import ReferencePool

EnvSpec = str | dict | EnvironmentConfig | Environment
RewardSpec = str | dict | RewardFn


@dataclass(frozen=True)
class Scored:
    """One program's reward, with the Outcome and the ExecutionRecord it came from."""

    reward: float | None
    """In [−1, 1]; None when the execution was inconclusive (infrastructure failure)."""
    outcome: Outcome
    record: ExecutionRecord
    program: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "problem_id": self.record.problem_id,
            "program_sha256": self.record.program_sha256,
            "program_name": self.record.program_name,
            "language": self.record.language,
            "reward": self.reward,
            **self.outcome.signals(),
        }


@dataclass(frozen=True)
class Group:
    """One prompt's rollouts: a problem and the G programs sampled for it, all in one
    ``language`` (any name ``execrl languages`` knows; a batch mixes languages by group)."""

    problem: Problem
    programs: Sequence[str]
    names: Sequence[str] = ()
    pool: ReferencePool | None = None
    language: str = "python"


def score(
    problem: Problem,
    programs: str | Sequence[str],
    *,
    executor: Executor,
    env: EnvSpec = "mc",
    reward: RewardSpec = "collapsed",
    pool: ReferencePool | None = None,
    names: Sequence[str] = (),
    group_index: int = 0,
    options: ExecutionOptions | None = None,
    progress: bool = False,
    language: str = "python",
) -> list[Scored]:
    """Score one program (or a group of G programs for one prompt) on ``problem``, running
    them on ``executor``. ``language``: the programs' (``"cpp"``, ``"java"``...); one that
    does not build scores as a program failing every test."""
    require_executor(executor, "score")  # (the error names what the caller called)
    single = isinstance(programs, str)
    group = Group(problem, [programs] if single else list(programs), names, pool, language)
    (scored,) = score_batch(
        [group],
        env=env,
        reward=reward,
        executor=executor,
        options=options,
        progress=progress,
        first_group_index=group_index,
    )
    return scored


def score_batch(
    groups: Sequence[Group | tuple[Problem, Sequence[str]]],
    *,
    executor: Executor,
    env: EnvSpec = "mc",
    reward: RewardSpec = "collapsed",
    options: ExecutionOptions | None = None,
    progress: bool = True,
    first_group_index: int = 0,
) -> list[list[Scored]]:
    """Score a rollout batch: every group's programs run concurrently on the executor's pool.
    Group i gets ``group_index = first_group_index + i`` (the multitask composition alternates
    on it)."""
    require_executor(executor, "score_batch")
    environment_ = environment(env)
    reward_fn = build_reward(reward)
    groups = [g if isinstance(g, Group) else Group(*g) for g in groups]
    plans = [environment_.plan(g.problem, g.pool) for g in groups]
    requests = [
        environment_.request(
            g.problem,
            program,
            plan=plan,
            options=options,
            program_name=g.names[i] if i < len(g.names) else "",
            language=g.language,
        )
        for g, plan in zip(groups, plans, strict=True)
        for i, program in enumerate(g.programs)
    ]
    records = list(executor.run_batch(requests, progress=progress, description="scoring"))
    out, k = [], 0
    for index, (g, plan) in enumerate(zip(groups, plans, strict=True)):
        scored = []
        for program in g.programs:
            record = records[k]
            k += 1
            outcome = environment_.outcome(g.problem, record, plan=plan)
            value = reward_fn(outcome, group_index=first_group_index + index)
            scored.append(Scored(value, outcome, record, program))
        out.append(scored)
    return out


def rescore(
    problem: Problem,
    records: Sequence[ExecutionRecord],
    *,
    env: EnvSpec = "mc",
    reward: RewardSpec = "collapsed",
    pool: ReferencePool | None = None,
    plan: Plan | None = None,
    group_index: int = 0,
) -> list[tuple[float | None, Outcome]]:
    """Rewards and Outcomes from stored records, without running anything. The records must
    hold the tests the environment uses (a record of all tests can be rescored under any
    environment)."""
    environment_ = environment(env)
    reward_fn = build_reward(reward)
    plan = plan or environment_.plan(problem, pool)
    rows = []
    for record in records:
        outcome = environment_.outcome(problem, record, plan=plan)
        rows.append((reward_fn(outcome, group_index=group_index), outcome))
    return rows


def require_executor(executor: Executor | None, caller: str) -> None:
    """A UsageError unless ``executor`` is one: code that runs programs never opens its own
    pool, so a missing executor is the caller's to fix (and not silently a fresh pool)."""
    if executor is None:
        raise UsageError(
            f"{caller} needs an executor to run the programs: pass executor= (e.g. "
            "`with execrl.sandbox.LocalExecutor() as executor:`, or "
            "execrl.service.open_executor('local' | 'http://host:port' | 'ray'))"
        )
