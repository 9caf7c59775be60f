"""Run every reference of a problem on every test and summarise what the suite catches.

This is the check behind the bundled set's promise (every correct reference passes every test,
every incorrect one fails at least one) and behind the ``execrl score`` job.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from execrl.problems.models import Problem, Reference, ReferenceLabel, TestGroup
from execrl.sandbox.batch import parallel_map
from execrl.sandbox.records import ExecutionRecord, TestResult, program_sha256
from execrl.sandbox.subprocess_runner import RunLimits, run_test


@dataclass
class ReferenceReport:
    """One reference's results on the problem's tests."""

    reference: Reference
    record: ExecutionRecord
    test_groups: dict[str, TestGroup]
    """The group of each test id, to summarise times per group."""

    @property
    def label(self) -> ReferenceLabel:
        return self.reference.label

    @property
    def failed_test_ids(self) -> list[str]:
        return [r.test_id for r in self.record.failed()]

    @property
    def as_expected(self) -> bool:
        """Correct references pass everything; incorrect ones fail at least one test."""
        if self.label is ReferenceLabel.CORRECT:
            return self.record.all_passed
        return bool(self.failed_test_ids)

    def mean_cpu_s(self, group: TestGroup = TestGroup.OPTIMIZATION) -> float | None:
        """Mean CPU seconds over the group's tests (``None`` when the group is empty)."""
        times = [r.cpu_s for r in self._results_in(group)]
        return statistics.fmean(times) if times else None

    def _results_in(self, group: TestGroup) -> list[TestResult]:
        return [r for r in self.record.results if self.test_groups.get(r.test_id) is group]


@dataclass
class ProblemReport:
    problem: Problem
    references: list[ReferenceReport]

    @property
    def ok(self) -> bool:
        return all(r.as_expected for r in self.references)

    def labelled(self, label: ReferenceLabel) -> list[ReferenceReport]:
        return [r for r in self.references if r.label is label]


def verify_problem(
    problem: Problem,
    *,
    jobs: int | None = None,
    show_progress: bool = True,
    references: list[Reference] | None = None,
) -> ProblemReport:
    """Run each reference on every test of ``problem`` in parallel."""
    limits = RunLimits.for_problem(problem)
    refs = problem.references if references is None else references
    pairs = [(ref, test) for ref in refs for test in problem.tests]
    results = list(
        parallel_map(
            lambda pair: run_test(pair[0].code, pair[1], checker=problem.checker, limits=limits),
            pairs,
            jobs=jobs,
            description=f"checking {problem.id}",
            show_progress=show_progress,
        )
    )
    groups = {t.id: t.group for t in problem.tests}
    reports = []
    for i, ref in enumerate(refs):
        mine = results[i * len(problem.tests) : (i + 1) * len(problem.tests)]
        record = ExecutionRecord(
            problem_id=problem.id,
            program_sha256=program_sha256(ref.code),
            program_name=ref.name,
            results=mine,
        )
        reports.append(ReferenceReport(ref, record, groups))
    return ProblemReport(problem, reports)
