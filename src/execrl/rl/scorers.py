"""Scorers: what execution makes of each group's completions (``reward.kind`` picks one).

Every scorer runs its programs on the executor it was built with (the trainer's) and returns
one frozen :class:`Scores` per group; none mutates what it is given. ``passed`` answers the
held-out question (every correctness test passed, or the right optimum) for pass@1. An
inconclusive execution (the sandbox failed, not the program) has reward None.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from execrl.errors import ExecrlError
from execrl.extract import extract_code
from execrl.problems.io import load_problems
from execrl.problems.optim import load_optim_problems
from execrl.rewards.dense import PassTensor, dense_rewards
from execrl.rewards.scoring import Group, Scored, score_batch
from execrl.rewards.solver import Verdict, score_solver_responses, solver_sandbox_config
from execrl.rl.config import RewardConfig
from execrl.sandbox.protocol import Executor
from execrl.sandbox.records import ExecutionRecord
from execrl.service.open import open_executor, parse_executor_spec

NOT_EXECUTION_FAILURES = frozenset({"success", "wrong_answer", "inconclusive"})
"""Test statuses that are not a failure of the program's execution (crash, timeout, limit)."""


@dataclass(frozen=True)
class Scores:
    """What execution made of one group's rollouts, one entry per rollout."""

    rewards: list[float | None]
    """Rewards; None: inconclusive (left out of the update, never scored as a failure)."""
    passed: list[bool]
    """Whether each rollout solved the problem (every test, or the right optimum)."""
    failed_execution: list[bool]
    """The program crashed, timed out or hit a limit on some test (not a wrong answer)."""
    records: list[ExecutionRecord | None]
    """The ExecutionRecord each reward came from (None for solver rewards): what the step's
    spec §6 monitor counts."""
    advantages: list[float | None] | None = None
    """Advantages the scorer defines itself (dense rewards, per group); None: estimated."""


@dataclass
class ProgramScorer:
    """Scores extracted programs with ``score_batch`` under an environment and a reward."""

    config: RewardConfig
    problems: dict[str, Any]
    executor: Executor

    @staticmethod
    def load_problems(source: str) -> list[Any]:
        """The problems ``data.problems`` names (code problems with tests)."""
        return load_problems(source)

    @staticmethod
    def open_executor(spec: str | None, workers: int | None) -> Executor:
        """The executor ``spec`` names (``execrl.service.open``), with ``workers``."""
        return open_executor(spec, workers=workers)

    def score(self, problem_ids: Sequence[str], texts: Sequence[Sequence[str]]) -> list[Scores]:
        """One :class:`Scores` per group (``texts[i]``: group i's completions)."""
        scored = self._run(problem_ids, texts, self.config.env, self.config.reward)
        return [_program_scores(group) for group in scored]

    def passed(self, problem_ids: Sequence[str], texts: Sequence[str]) -> list[bool]:
        """Whether each completion passes every correctness test of its problem."""
        scored = self._run(problem_ids, [[t] for t in texts], "mc", "correctness")
        return [group[0].record.all_passed for group in scored]

    def _run(
        self, problem_ids: Sequence[str], texts: Sequence[Sequence[str]], env: Any, reward: Any
    ) -> list[list[Scored]]:
        batch = [
            Group(problem, [extract_code(t, problem.entry_point) for t in group])
            for pid, group in zip(problem_ids, texts, strict=True)
            for problem in [self.problems[pid]]
        ]
        return score_batch(batch, env=env, reward=reward, executor=self.executor, progress=False)


class DenseScorer(ProgramScorer):
    """Density-calibrated partial success over every correctness test (no early stop); the
    advantages are the group's dense ``A(i)``."""

    def score(self, problem_ids: Sequence[str], texts: Sequence[Sequence[str]]) -> list[Scores]:
        scored = self._run(problem_ids, texts, "mc", "correctness")
        return [self._dense(pid, group) for pid, group in zip(problem_ids, scored, strict=True)]

    def _dense(self, problem_id: str, group: list[Scored]) -> Scores:
        plain = _program_scores(group)
        if any(r is None for r in plain.rewards):  # a pass tensor needs every verdict
            return Scores([None] * len(group), plain.passed, plain.failed_execution, plain.records)
        rewards, advantages = self.turns(problem_id, [[s.record] for s in group])
        return Scores(
            rewards[0], plain.passed, plain.failed_execution, plain.records, advantages[0]
        )

    def turns(
        self, problem_id: str, episodes: Sequence[Sequence[ExecutionRecord]]
    ) -> tuple[list[list[float | None]], list[list[float | None]]]:
        """(rewards, advantages) per turn t and episode i, ``[t][i]``, from each episode's
        records; all None when a verdict is inconclusive (no pass tensor)."""
        suite = [t.id for t in self.problems[problem_id].correctness_tests]
        turns = max(len(e) for e in episodes)
        try:
            out = dense_rewards(PassTensor.from_records(episodes, suite), self.config.dense)
        except ExecrlError:  # an inconclusive verdict somewhere
            empty = [[None] * len(episodes) for _ in range(turns)]
            return empty, empty
        return out.turn_rewards.tolist(), out.advantages.tolist()


class SolverScorer(ProgramScorer):
    """Solver-verified rewards on optimisation word problems (the response's code runs with
    open-source solvers; the optimum it reports is compared with the answer)."""

    @staticmethod
    def load_problems(source: str) -> list[Any]:
        """Optimisation word problems (``execrl.problems.optim``)."""
        return load_optim_problems(source)

    @staticmethod
    def open_executor(spec: str | None, workers: int | None) -> Executor:
        """Sandboxes that can import the solvers; a server must have them installed itself
        (its own sandbox settings apply)."""
        parsed = parse_executor_spec(spec)
        config = None if parsed.kind == "remote" else solver_sandbox_config()
        return open_executor(parsed, workers=workers, config=config)

    def score(self, problem_ids: Sequence[str], texts: Sequence[Sequence[str]]) -> list[Scores]:
        flat = [t for group in texts for t in group]
        answers = [
            self.problems[p].answer
            for p, group in zip(problem_ids, texts, strict=True)
            for _ in group
        ]
        scores = score_solver_responses(
            flat, answers, reward=self.config.solver, executor=self.executor
        )
        out, k = [], 0
        for group in texts:
            mine, k = scores[k : k + len(group)], k + len(group)
            failed = [s.verdict in (Verdict.EXECUTION_ERROR, Verdict.TIMEOUT) for s in mine]
            out.append(
                Scores(
                    [s.reward for s in mine], [s.correct for s in mine], failed, [None] * len(mine)
                )
            )
        return out

    def passed(self, problem_ids: Sequence[str], texts: Sequence[str]) -> list[bool]:
        return [s.passed[0] for s in self.score(problem_ids, [[t] for t in texts])]


SCORERS: dict[str, type[ProgramScorer]] = {
    "score": ProgramScorer,
    "dense": DenseScorer,
    "multiturn": DenseScorer,  # episodes score their turns with the same dense rewards
    "solver": SolverScorer,
}
"""The scorer of each ``reward.kind``, chosen once when the trainer starts."""


def _program_scores(group: list[Scored]) -> Scores:
    return Scores(
        rewards=[s.reward for s in group],
        passed=[s.record.all_passed for s in group],
        failed_execution=[
            any(t.status not in NOT_EXECUTION_FAILURES for t in s.record.results) for s in group
        ],
        records=[s.record for s in group],
    )
