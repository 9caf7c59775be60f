"""Checking a problem set's references, one JSON-ready row per reference (what ``execrl
problems check`` prints and writes): every correct reference must pass every test and every
incorrect one must fail as its label says, each run in its own language. A reference whose
language's toolchain is not installed is *skipped* (its row says why), never a failure; a
correct one that does not build is a failure whose row says what the compiler said. Rows go
to a :class:`~execrl.results.ResultsFile` as each is known, so an interrupted check resumes
with only the references it lacks::

    with ResultsFile("check.jsonl", key=check_key, resume=True) as out:
        for problem in problems:
            rows = check_problem(problem, executor=executor, out=out)
            ok = problem_ok(rows)
"""

from __future__ import annotations

from typing import Any

from execrl.datagen.verify import ALSO_ACCEPTED, ReferenceReport, iter_reference_reports
from execrl.errors import ProblemFormatError
from execrl.problems.io import problem_issues
from execrl.problems.models import Problem, Reference, ReferenceLabel
from execrl.results import ResultsFile, Row
from execrl.sandbox.protocol import Executor


def check_key(row: Row) -> tuple[Any, Any]:
    """What identifies a check row: its problem and reference (None for a problem's issue)."""
    return row.get("problem_id"), row.get("reference")


def check_problem(
    problem: Problem, *, executor: Executor, out: ResultsFile | None = None
) -> list[Row]:
    """The problem's rows, one per reference in its order: those ``out`` already holds (a
    resumed file), then the rest as each is checked (each written to ``out`` as soon as it is
    known). A problem that cannot be checked (no tests) gives one row saying why."""
    issues = problem_issues(problem)
    if issues:
        row = issue_row(problem, "; ".join(issues))
        if out is not None and not out.has(check_key(row)):
            out.write(row)
        return [row]
    resumed = out.rows if out is not None else []
    earlier = {r.get("reference"): r for r in resumed if r.get("problem_id") == problem.id}
    todo = [ref for ref in problem.references if ref.name not in earlier]
    fresh: dict[str, Row] = {}
    for report in iter_reference_reports(problem, executor=executor, references=todo):
        row = reference_row(problem, report)
        if out is not None:
            out.write(row)
        fresh[row["reference"]] = row
    return [fresh.get(ref.name) or earlier[ref.name] for ref in problem.references]


def problem_ok(rows: list[Row]) -> bool:
    """Every reference of the problem that was judged behaved as its label says (and the
    problem could be checked); a skipped reference (its toolchain is missing) does not count."""
    return all(row.get("as_expected") is True or row.get("skipped") for row in rows)


def issue_row(problem: Problem, issue: str) -> Row:
    """The row of a problem that cannot be checked, and why."""
    return {
        "problem_id": problem.id,
        "difficulty": problem.difficulty,
        "reference": None,
        "label": None,
        "as_expected": False,
        "issue": f"problem {issue}",
    }


def reference_row(problem: Problem, report: ReferenceReport) -> Row:
    """One reference's check: its language, its label and what that expects, whether it
    behaved so (None when it was skipped, with ``skipped`` saying why), the verdict counts,
    the mean and largest CPU seconds on the optimization tests, and ``build``: how its build
    failed (None when it built or needs none). ``issue`` says why a reference that did not
    build fails the check."""
    ref = report.reference
    results = report.record.results
    opt_ids = {t.id for t in problem.optimization_tests}
    skipped = report.skipped
    opt = [r.cpu_s for r in results if r.test_id in opt_ids and not skipped]
    build = report.build_failure
    failed_build = build is not None and not report.as_expected and skipped is None
    return {
        "problem_id": problem.id,
        "difficulty": problem.difficulty,
        "reference": ref.name,
        "language": report.language,
        "label": ref.label.value,
        "note": ref.tier or ref.flaw or "",
        "expects": expectation(ref),
        "as_expected": None if skipped else report.as_expected,
        "skipped": skipped,
        "verdicts": report.verdict_counts,
        "passed": sum(r.passed for r in results),
        "tests": len(results),
        "opt_mean_s": sum(opt) / len(opt) if opt else None,
        "opt_max_s": max(opt) if opt else None,
        "failed_tests": [] if skipped else report.failed_test_ids,
        "build": build,
        "issue": f"{ref.name} ({report.language}) did not build: {build}" if failed_build else None,
    }


def expectation(ref: Reference) -> str:
    """What the check requires of a reference: pass all, fail one, or one given verdict."""
    if ref.label is ReferenceLabel.CORRECT:
        return "all success"
    if ref.expected_verdict is None:
        return "≥1 failure"
    return "≥1 " + " or ".join([ref.expected_verdict, *ALSO_ACCEPTED.get(ref.expected_verdict, ())])


def require_usable(problems: list[Problem], source: object) -> None:
    """A ProblemFormatError naming the problems that cannot be used (e.g. without tests), in
    one line, if there are any (or no problems at all)."""
    if not problems:
        raise ProblemFormatError(f"{source}: holds no problems")
    bad = [(p.id, issue) for p in problems for issue in problem_issues(p)]
    if not bad:
        return
    first_id, issue = bad[0]
    others = sorted({pid for pid, _ in bad[1:]} - {first_id})
    more = f"; so do {len(others)} more ({', '.join(others[:5])}{', …' if len(others) > 5 else ''})"
    raise ProblemFormatError(f"{source}: problem {first_id!r} {issue}{more if others else ''}")


CHECK_COLUMNS = ["reference", "language", "label", "tier / flaw", "expects", "verdicts", "passed"]
CHECK_COLUMNS += ["opt mean ms", "opt max ms", "failed tests"]
FAILED_MARK = "✗ "
"""Before the name of a reference that did not behave as its label says."""


def check_table(rows: list[Row]) -> tuple[list[str], list[list[str]]]:
    """The reference rows of one problem as text cells (a problem's issue row is left out:
    it is said under the table, as are skipped references, :func:`skipped_notes`): language,
    verdict counts (``skipped``), tests passed, the optimization tests' mean and largest CPU
    milliseconds, and the first failed tests."""
    cells = []
    for row in rows:
        if row.get("reference") is None:
            continue
        failed = list(row.get("failed_tests") or [])
        shown = row.get("label") == ReferenceLabel.INCORRECT.value or failed
        judged = not row.get("skipped")
        verdicts = dict(row.get("verdicts") or {}) if judged else {"skipped": ""}
        cells.append([
            ("" if row.get("as_expected") or not judged else FAILED_MARK) + str(row["reference"]),
            str(row.get("language", "python")),  # (rows written before languages: Python)
            str(row.get("label", "")),
            str(row.get("note", "")),
            str(row.get("expects", "")),
            ", ".join(f"{status} {n}".strip() for status, n in verdicts.items()),
            f"{row.get('passed', '?')}/{row.get('tests', '?')}" if judged else "—",
            _ms(row.get("opt_mean_s")),
            _ms(row.get("opt_max_s")),
            ", ".join(failed[:4]) + (" …" if len(failed) > 4 else "") if shown else "",
        ])  # fmt: skip
    return CHECK_COLUMNS, cells


def skipped_notes(rows: list[Row]) -> list[str]:
    """One line per skipped reference: its name, language and why it was not judged."""
    return [
        f"{row['reference']} ({row.get('language', 'python')}): {row['skipped']}"
        for row in rows
        if row.get("skipped")
    ]


def _ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1000:.0f}"
