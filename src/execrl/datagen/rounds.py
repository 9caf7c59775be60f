"""Spec §9's two filter rounds on one problem's runs: which tests and solutions survive.

Every labelled solution has run on every test (the originals in the verify stage, the
generated ones after generation). From that table, the correctness round filters the
correctness tests (the originals and the generated small/edge ones, group ``extra``) over the
verified correct solutions, then judges every solution on what is left; the optimization round
filters the generated large tests (group ``optimization``) over the correct solutions that
survived. The rules and their constants are :mod:`execrl.datagen.filters`; this module only
builds their inputs from the runs and applies them in the spec's order.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from execrl.datagen.filters import (
    FilterResult,
    KeepDecision,
    Round,
    SolutionLevel,
    SolutionOutcome,
    TestOutcomes,
    duration_filterable,
    false_positive_rate,
    filter_tests,
    keep_problem,
    length_filterable,
    solution_level,
)
from execrl.problems.models import ReferenceLabel, TestGroup
from execrl.sandbox.records import Status

FAILURES = frozenset({
    Status.WRONG_ANSWER,
    Status.RUNTIME_ERROR,
    Status.MEMORY_LIMIT,
    Status.OUTPUT_LIMIT,
    Status.COMPILE_ERROR,
    Status.COMPILE_TIMEOUT,
})  # fmt: skip
"""What spec §9 calls "raise or answer wrong": every failing verdict but the timeout."""


@dataclass(frozen=True)
class Run:
    """One solution on one test: its verdict and CPU seconds."""

    status: Status
    cpu_s: float


@dataclass(frozen=True)
class TestInfo:
    __test__ = False

    id: str
    group: TestGroup
    generated: bool


@dataclass(frozen=True)
class ProblemRuns:
    """Everything the rounds read: the tests in order, the solutions that ran conclusively on
    the original tests (verified correct ones, every incorrect one), and their runs."""

    tests: list[TestInfo]
    correct: list[str]
    incorrect: list[str]
    runs: Mapping[str, Mapping[str, Run]]
    """Solution name → test id → its run (a missing test is a run that never happened)."""
    code_lengths: Mapping[str, int]

    def ids(self, *groups: TestGroup) -> list[str]:
        return [t.id for t in self.tests if t.group in groups]


@dataclass(frozen=True)
class Rounds:
    """The two rounds' results and the problem's keep decision."""

    correctness: FilterResult
    optimization: FilterResult
    solutions: SolutionLevel
    """The correctness round's solution level (dropped correct ones, false positives)."""
    false_positive_rate_before: float | None
    """Of the incorrect solutions, on the original tests alone."""
    optimization_references: list[str]
    """The surviving correct solutions that pass every kept optimization test."""
    keep_correctness: KeepDecision
    keep_optimization: KeepDecision
    per_test_mean_s: dict[str, float]
    """Kept optimization test → the mean CPU seconds of the optimization references."""
    robust_cv: float
    duration_filterable: bool
    length_cv: float
    length_filterable: bool

    @property
    def kept(self) -> bool:
        return self.keep_correctness.keep and self.keep_optimization.keep

    @property
    def reasons(self) -> list[str]:
        return [*self.keep_correctness.reasons, *self.keep_optimization.reasons]

    @property
    def kept_tests(self) -> list[str]:
        return [*self.correctness.kept, *self.optimization.kept]


def test_outcomes(problem: ProblemRuns, test_ids: Sequence[str], solutions: Sequence[str]):
    """Each test's timeouts and failures over ``solutions`` (inconclusive runs left out)."""
    generated = {t.id: t.generated for t in problem.tests}
    outcomes = []
    for test_id in test_ids:
        runs = [problem.runs.get(name, {}).get(test_id) for name in solutions]
        statuses = [r.status for r in runs if r is not None and r.status is not Status.INCONCLUSIVE]
        outcomes.append(
            TestOutcomes(
                test_id=test_id,
                generated=generated[test_id],
                runs=len(statuses),
                timeouts=sum(s is Status.TIMEOUT for s in statuses),
                failures=sum(s in FAILURES for s in statuses),
            )
        )
    return outcomes


def solution_outcomes(
    problem: ProblemRuns, test_ids: Sequence[str], names: Sequence[str], label: ReferenceLabel
) -> list[SolutionOutcome]:
    """Each solution's failed tests among ``test_ids`` (an inconclusive run is not a failure:
    it says nothing about the program)."""
    outcomes = []
    for name in names:
        runs = problem.runs.get(name, {})
        failed = frozenset(
            t
            for t in test_ids
            if t in runs and runs[t].status not in (Status.SUCCESS, Status.INCONCLUSIVE)
        )
        outcomes.append(SolutionOutcome(name=name, label=label, failed=failed))
    return outcomes


def run_rounds(problem: ProblemRuns) -> Rounds:
    """The correctness round, then the optimization round, then the keep rules."""
    correctness_ids = problem.ids(TestGroup.ORIGINAL, TestGroup.EXTRA)
    original_ids = problem.ids(TestGroup.ORIGINAL)
    correctness = filter_tests(
        test_outcomes(problem, correctness_ids, problem.correct), Round.CORRECTNESS
    )
    solutions = [
        *solution_outcomes(problem, correctness_ids, problem.correct, ReferenceLabel.CORRECT),
        *solution_outcomes(problem, correctness_ids, problem.incorrect, ReferenceLabel.INCORRECT),
    ]
    level = solution_level(solutions, correctness.kept)
    before = false_positive_rate(
        [s for s in solutions if s.label is ReferenceLabel.INCORRECT], original_ids
    )
    optimization_ids = problem.ids(TestGroup.OPTIMIZATION)
    optimization = filter_tests(
        test_outcomes(problem, optimization_ids, level.kept_correct), Round.OPTIMIZATION
    )
    timed = [
        s.name
        for s in solution_outcomes(
            problem, optimization.kept, level.kept_correct, ReferenceLabel.CORRECT
        )
        if not s.failed
    ]
    keep_c = keep_problem(
        Round.CORRECTNESS,
        correct_before=len(problem.correct),
        correct_after=len(level.kept_correct),
        false_positive_rate=level.false_positive_rate,
    )
    keep_o = _keep_optimization(optimization, level.kept_correct, timed)
    means = _per_test_means(problem, optimization.kept, timed)
    cv, filterable = duration_filterable(list(means.values()))
    length_cv, length_ok = length_filterable([problem.code_lengths[n] for n in level.kept_correct])
    return Rounds(
        correctness=correctness,
        optimization=optimization,
        solutions=level,
        false_positive_rate_before=before,
        optimization_references=timed,
        keep_correctness=keep_c,
        keep_optimization=keep_o,
        per_test_mean_s=means,
        robust_cv=cv,
        duration_filterable=filterable,
        length_cv=length_cv,
        length_filterable=length_ok,
    )


def _keep_optimization(
    optimization: FilterResult, survivors: Sequence[str], timed: Sequence[str]
) -> KeepDecision:
    """Spec §9's optimization keep rule (at least one correct solution passes every kept
    optimization test), and a timeable problem needs at least one optimization test."""
    decision = keep_problem(
        Round.OPTIMIZATION,
        correct_before=len(survivors),
        correct_after=len(timed),
        false_positive_rate=None,
    )
    if optimization.kept:
        return decision
    reason = "no optimization test survived (nothing to time)"
    return KeepDecision(keep=False, reasons=[*decision.reasons, reason])


def _per_test_means(
    problem: ProblemRuns, test_ids: Sequence[str], names: Sequence[str]
) -> dict[str, float]:
    """d̄_t: each kept optimization test's mean CPU seconds over the timed references."""
    means = {}
    for test_id in test_ids:
        times = [
            problem.runs[n][test_id].cpu_s
            for n in names
            if problem.runs[n].get(test_id) is not None
            and problem.runs[n][test_id].status is Status.SUCCESS
        ]
        if times:
            means[test_id] = statistics.fmean(times)
    return means


def duration_percentiles_ms(means: Mapping[str, float]) -> dict[str, float] | None:
    """p10, p50 and p90 of the per-test mean durations, in milliseconds (None without any)."""
    if not means:
        return None
    values = np.asarray(list(means.values())) * 1000
    p10, p50, p90 = np.percentile(values, [10, 50, 90])
    return {"p10": float(p10), "p50": float(p50), "p90": float(p90)}
