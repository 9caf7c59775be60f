"""Scoring named programs as their records come back (``execrl score --programs``): every
program runs on the executor's pool at once, and each :class:`Scored` is yielded as soon as
its record is back, so a caller can write it down before the next one finishes.

The batching rule is a rollout batch's: programs are grouped by problem in the order the
problems first appear, and the group index (the multitask composition alternates on it) is
that order — the same when a run is resumed with some programs already scored.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Protocol

from execrl.envs.environment import Environment
from execrl.problems.models import Problem
from execrl.rewards.compositions import RewardFn
from execrl.rewards.scoring import Scored
from execrl.sandbox.protocol import Executor


class NamedProgram(Protocol):
    """A program to score: the problem it answers, its name in reports, its code; and its
    ``language``, read where the object has one (``python`` where it has none)."""

    @property
    def problem_id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def code(self) -> str: ...


def language_of(program: NamedProgram) -> str:
    """The program's language: its ``language`` attribute, else ``python``."""
    return getattr(program, "language", None) or "python"


def group_indices(programs: Sequence[NamedProgram]) -> dict[str, int]:
    """Each problem's group index: the order in which the problems first appear."""
    return {pid: i for i, pid in enumerate(dict.fromkeys(p.problem_id for p in programs))}


def iter_scored(
    programs: Sequence[NamedProgram],
    problems: Mapping[str, Problem],
    *,
    env: Environment,
    reward_fn: RewardFn,
    executor: Executor,
    group_of: Mapping[str, int] | None = None,
    progress: bool = True,
) -> Iterator[tuple[NamedProgram, Scored]]:
    """Each program with its Scored, grouped by problem in ``group_of``'s order (default:
    :func:`group_indices` of ``programs``; pass the whole run's when scoring part of it)."""
    group_of = group_of or group_indices(programs)
    ordered = sorted(programs, key=lambda p: group_of[p.problem_id])  # (stable)
    plans = {pid: env.plan(problems[pid]) for pid in dict.fromkeys(p.problem_id for p in ordered)}
    requests = [
        env.request(
            problems[p.problem_id],
            p.code,
            plan=plans[p.problem_id],
            program_name=p.name,
            language=language_of(p),
        )
        for p in ordered
    ]
    records = executor.run_batch(requests, progress=progress, description="scoring")
    for program, record in zip(ordered, records, strict=True):
        problem = problems[program.problem_id]
        outcome = env.outcome(problem, record, plan=plans[problem.id])
        value = reward_fn(outcome, group_index=group_of[problem.id])
        yield program, Scored(value, outcome, record, program.code)
