"""Checking a problem set's worked responses against the rewards (issue acceptance).

Every reference response must earn the maximum stage-1 reward under both presets; every
incorrect response must not, and must fail for its stated reason:

========================  ===========================================================
stated error              what the run must show
========================  ===========================================================
``format``                a correct answer (the tags are what is wrong)
``extraction``            verdict ``extraction_failed``
``execution``             verdict ``execution_error``
``wrong_answer``          verdict ``wrong_answer``
``timeout``               verdict ``timeout``
========================  ===========================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from execrl.problems.optim import OptimProblem
from execrl.rewards.solver.answers import DEFAULT_CONVENTION, AnswerSpec
from execrl.rewards.solver.execution import run_solver_codes
from execrl.rewards.solver.parsing import parse_response
from execrl.rewards.solver.rewards import (
    SOLVER_PRESETS,
    SolverScore,
    Verdict,
    solver_reward,
)
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import Executor

EXPECTED_VERDICT = {
    "reference": Verdict.CORRECT,
    "format": Verdict.CORRECT,
    "extraction": Verdict.EXTRACTION_FAILED,
    "execution": Verdict.EXECUTION_ERROR,
    "wrong_answer": Verdict.WRONG_ANSWER,
    "timeout": Verdict.TIMEOUT,
}


@dataclass(frozen=True)
class ResponseCheck:
    """One worked response, its scores under each preset, and whether it behaved."""

    problem_id: str
    label: str
    """``reference`` or the stated error of an incorrect response."""
    index: int
    """Position among the problem's incorrect responses (-1 for the reference)."""
    scores: dict[str, SolverScore]
    """Per preset name."""
    problem: str = ""
    """Why it failed the check ("" when it passed)."""

    @property
    def ok(self) -> bool:
        return not self.problem

    @property
    def verdict(self) -> Verdict:
        return next(iter(self.scores.values())).verdict


def check_responses(
    problems: Sequence[OptimProblem],
    *,
    executor: Executor,
    limits: Limits | None = None,
    progress: bool = True,
    answers: AnswerSpec = DEFAULT_CONVENTION,
) -> list[ResponseCheck]:
    """Run every reference and incorrect response once and score it under every preset."""
    items: list[tuple[OptimProblem, str, int, str]] = []
    for problem in problems:
        if problem.reference is not None:
            items.append((problem, "reference", -1, problem.reference))
        for i, wrong in enumerate(problem.incorrect):
            items.append((problem, wrong.error, i, wrong.response))
    parsed = [parse_response(text) for *_, text in items]
    runs = run_solver_codes(
        [p.code for p in parsed],
        executor=executor,
        limits=limits,
        progress=progress,
        description="checking responses",
        answers=answers,
    )
    checks = []
    for (problem, label, index, _), p, run in zip(items, parsed, runs, strict=True):
        scores = {
            name: solver_reward(p, run, problem.answer, config)
            for name, config in SOLVER_PRESETS.items()
        }
        checks.append(ResponseCheck(problem.id, label, index, scores, _problem_with(label, scores)))
    return checks


def _problem_with(label: str, scores: dict[str, SolverScore]) -> str:
    for name, score in scores.items():
        top = SOLVER_PRESETS[name].max_stage1
        if score.reward is None:
            return f"inconclusive under {name}: {score.run.detail}"
        if label == "reference" and score.reward < top:
            return f"{name}: {score.reward:g} < the maximum {top:g} ({_why(score)})"
        if label != "reference" and score.reward >= top:
            return f"{name}: earns the maximum {top:g}"
    score = next(iter(scores.values()))
    expected = EXPECTED_VERDICT[label]
    if score.verdict is not expected:
        return f"verdict {score.verdict.value}, expected {expected.value} ({_why(score)})"
    return ""


def _why(score: SolverScore) -> str:
    parts = []
    if score.parsed.format_errors:
        parts.append("format: " + ", ".join(score.parsed.format_errors))
    if score.run.detail:
        parts.append(score.run.detail)
    elif score.run.answer is not None:
        parts.append(f"reported {score.run.answer}")
    return "; ".join(parts) or score.verdict.value
