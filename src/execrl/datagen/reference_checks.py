"""Checking a problem set's references into a results file (what ``execrl score`` without
programs does): every correct and incorrect reference runs on every test
(:func:`execrl.datagen.verify.verify_problem`), one row per reference written (and
flushed) as it finishes, and an interrupted run resumed from the rows it kept.

    from execrl.datagen.reference_checks import check_references
    from execrl.problems import load_bundled
    from execrl.sandbox import LocalExecutor

    problems = load_bundled(["edit-distance"])
    with LocalExecutor(workers=2) as executor:
        checks = check_references(problems, "runs/references.jsonl", executor=executor)
    print([(r.problem.id, r.ok) for r in checks.reports])   # [('edit-distance', True)]

A problem is as expected when every correct reference passes every test and every incorrect
one fails at least one (:attr:`execrl.datagen.verify.ProblemReport.ok`). Each reference runs
in its own language; one whose toolchain is not installed is skipped (its row's ``skipped``
says why), neither as expected nor a failure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from execrl.datagen.reference_runs import not_runnable
from execrl.datagen.verify import ProblemReport, ReferenceReport, verify_problem
from execrl.errors import UsageError
from execrl.problems.models import Problem
from execrl.results import ResultsFile, Row
from execrl.sandbox.executor_source import ExecutorSource, executor_in_use
from execrl.sandbox.protocol import Executor
from execrl.sandbox.records import ExecutionRecord

REFERENCE_ROW = ("problem_id", "reference", "language", "label", "as_expected", "skipped", "record")
"""The fields of a row of the reference check."""
_REQUIRED = ("problem_id", "reference", "label", "as_expected", "record")
"""The fields a resumed row must have (rows written before references had languages lack
``language`` and ``skipped``: they were Python, and judged)."""


class NotReferenceChecks(UsageError):
    """A file resumed as a reference check holds other rows (a program-scoring run's)."""


@dataclass(frozen=True)
class ReferenceChecks:
    """A reference check's reports, one per problem in order, and its results file."""

    path: Path
    reports: list[ProblemReport]
    resumed: int
    """How many rows an earlier (interrupted) run had written."""

    @property
    def failed(self) -> list[str]:
        """The ids of the problems not as expected."""
        return [r.problem.id for r in self.reports if not r.ok]


def check_references(
    problems: Sequence[Problem],
    out: str | Path,
    *,
    executor: ExecutorSource,
    resume: bool = False,
    progress: bool = True,
    on_problem: Callable[[ProblemReport], None] | None = None,
) -> ReferenceChecks:
    """Run every reference of ``problems`` on every test on ``executor`` and write one row per
    reference to the JSONL file ``out`` as each finishes. With ``resume`` the references
    already in ``out`` are read back instead of run again (a file of other rows is a
    :class:`NotReferenceChecks` error, raised before anything runs). ``on_problem`` is called
    with each problem's report as soon as it is complete. ``executor``: open, or a function
    that opens one (after ``out`` is checked)."""
    reports = []
    with ResultsFile(out, key=reference_key, resume=resume) as results:  # fails now if unwritable
        if any(set(_REQUIRED) - row.keys() for row in results.rows):
            raise NotReferenceChecks(
                f"{results.path}: its rows are not reference checks (the rows "
                "check_references writes); resume it with the call that wrote it, or pass "
                "another out"
            )
        with executor_in_use(executor) as pool:
            for problem in problems:
                report = check_resumable(problem, results, pool, progress=progress)
                reports.append(report)
                if on_problem is not None:
                    on_problem(report)
    return ReferenceChecks(results.path, reports, results.resumed)


def reference_key(row: Row) -> tuple:
    return (row.get("problem_id"), row.get("reference"))


def check_resumable(
    problem: Problem, results: ResultsFile, executor: Executor, *, progress: bool = True
) -> ProblemReport:
    """The problem's report: references already in ``results`` (an earlier run) are read
    back, the others run now and are written as each finishes."""
    groups = {t.id: t.group for t in problem.tests}
    kept = {row["reference"]: row for row in results.rows if row["problem_id"] == problem.id}
    done = {
        name: ReferenceReport(
            ref,
            ExecutionRecord.model_validate(kept[name]["record"]),
            groups,
            not_runnable(ref, problem.tests),
        )
        for ref in problem.references
        if (name := ref.name) in kept
    }
    for ref in problem.references:
        if ref.name not in done:  # one reference at a time: each row is written as it finishes
            (report,) = verify_problem(
                problem, executor=executor, show_progress=progress, references=[ref]
            ).references
            results.write(reference_row(problem.id, report))
            done[ref.name] = report
    return ProblemReport(problem, [done[r.name] for r in problem.references])


def reference_row(problem_id: str, report: ReferenceReport) -> Row:
    return {
        "problem_id": problem_id,
        "reference": report.reference.name,
        "language": report.language,
        "label": report.label.value,
        "as_expected": report.as_expected,
        "skipped": report.skipped,
        "record": report.record.model_dump(mode="json"),
    }
