"""Run every reference of a problem on every test and summarise what the suite catches.

This is the check behind the bundled set's promise (every correct reference passes every test,
every incorrect one fails at least one) and behind the ``execrl score`` job. Programs run in
the sandbox (``execrl.sandbox``), so the reported CPU times are the programs' own work.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Iterator
from dataclasses import dataclass

from execrl.datagen.reference_runs import (
    language_of,
    not_runnable,
    reference_request,
    unavailable,
)
from execrl.problems.models import Problem, Reference, ReferenceLabel, TestGroup
from execrl.sandbox.executor_source import given_or_default
from execrl.sandbox.protocol import Executor
from execrl.sandbox.records import ExecutionRecord, Status, TestResult

ALSO_ACCEPTED = {Status.RUNTIME_ERROR.value: (Status.MEMORY_LIMIT.value,)}
"""Verdicts that also meet an ``expected_verdict``: a Kattis ``run_time_error`` submission
that runs out of memory crashed (its runtime's allocation failure, e.g. ``std::bad_alloc``,
is read as ``memory_limit``)."""


@dataclass
class ReferenceReport:
    """One reference's results on the problem's tests."""

    reference: Reference
    record: ExecutionRecord
    test_groups: dict[str, TestGroup]
    """The group of each test id, to summarise times per group."""
    not_runnable: str | None = None
    """Why it was not run at all (its language cannot run the problem's kind of tests)."""

    @property
    def label(self) -> ReferenceLabel:
        return self.reference.label

    @property
    def language(self) -> str:
        return language_of(self.reference)

    @property
    def skipped(self) -> str | None:
        """Why it was not judged, or None: its toolchain is not installed where it ran
        (``language_unavailable: …``), or it cannot run on the problem's tests. A skipped
        reference is neither as expected nor a failure."""
        return self.not_runnable or unavailable(self.record)

    @property
    def build_failure(self) -> str | None:
        """``compile_error: <the compiler's stderr tail>`` (or ``compile_timeout: …``) when
        its program did not build, else None."""
        build = self.record.build
        if build is None or build.status in ("ok", "language_unavailable"):
            return None
        return f"{build.status}: {build.detail}" if build.detail else build.status

    @property
    def failed_test_ids(self) -> list[str]:
        return [r.test_id for r in self.record.failed()]

    @property
    def as_expected(self) -> bool:
        """Correct references pass everything; incorrect ones fail at least one test, with
        their ``expected_verdict`` when they name one (a Kattis ``time_limit_exceeded``
        submission must time out on some test, not merely fail; a ``run_time_error`` one may
        also run out of memory). False for a skipped reference (see :attr:`skipped`)."""
        if self.skipped is not None:
            return False
        if self.label is ReferenceLabel.CORRECT:
            return self.record.all_passed
        expected = self.reference.expected_verdict
        if expected is None:
            return bool(self.failed_test_ids)
        accepted = {expected, *ALSO_ACCEPTED.get(expected, ())}
        return any(r.status.value in accepted for r in self.record.results)

    @property
    def verdict_counts(self) -> dict[str, int]:
        """How many tests got each verdict, most frequent first."""
        counts: dict[str, int] = {}
        for result in self.record.results:
            counts[result.status.value] = counts.get(result.status.value, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: -kv[1]))

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
        """Every reference that was judged behaved as its label says (a skipped one, whose
        toolchain is missing, neither passes nor fails the problem)."""
        return all(r.as_expected or r.skipped is not None for r in self.references)

    @property
    def skipped(self) -> list[ReferenceReport]:
        return [r for r in self.references if r.skipped is not None]

    def labelled(self, label: ReferenceLabel) -> list[ReferenceReport]:
        return [r for r in self.references if r.label is label]


def verify_problem(
    problem: Problem,
    *,
    executor: Executor | None = None,
    workers: int | None = None,
    show_progress: bool = True,
    references: list[Reference] | None = None,
) -> ProblemReport:
    """Run each reference on every test of ``problem`` in the sandbox, all workers busy.
    ``executor``: None opens ``execrl.sandbox.default_executor(workers)`` for this call."""
    reports = iter_reference_reports(
        problem,
        executor=executor,
        workers=workers,
        show_progress=show_progress,
        references=references,
    )
    return ProblemReport(problem, list(reports))


def iter_reference_reports(
    problem: Problem,
    *,
    executor: Executor | None = None,
    workers: int | None = None,
    show_progress: bool = True,
    references: list[Reference] | None = None,
) -> Iterator[ReferenceReport]:
    """As :func:`verify_problem`, one reference's report at a time, in order, each as soon
    as its last test is done (so a caller can write it before the next one finishes). Each
    reference runs in its own language; one that cannot run on the problem's tests at all
    (a C++ program on call tests) is reported skipped without running."""
    refs = problem.references if references is None else references
    tests = problem.tests
    why_not = {ref.name: not_runnable(ref, tests) for ref in refs}
    # One request per (reference, test): the pool stays balanced even when one reference is
    # quadratic; each fork server compiles a Python program once, and a native build is
    # cached by content, so a C++ reference is compiled once for all its tests.
    requests = [
        reference_request(problem, ref, tests=[test])
        for ref in refs
        if why_not[ref.name] is None
        for test in tests
    ]
    groups = {t.id: t.group for t in tests}
    with given_or_default(executor, workers) as pool:
        records = pool.run_batch(
            requests, progress=show_progress, description=f"checking {problem.id}"
        )
        for ref in refs:
            if why_not[ref.name] is not None:
                empty = ExecutionRecord(
                    problem_id=problem.id,
                    program_sha256="",
                    program_name=ref.name,
                    language=language_of(ref),
                )
                yield ReferenceReport(ref, empty, groups, why_not[ref.name])
                continue
            mine = list(itertools.islice(records, len(tests)))
            results = [result for record in mine for result in record.results]
            record = (
                mine[0].model_copy(update={"results": results})
                if mine
                else ExecutionRecord(
                    problem_id=problem.id, program_sha256="", program_name=ref.name
                )
            )
            yield ReferenceReport(ref, record, groups)
