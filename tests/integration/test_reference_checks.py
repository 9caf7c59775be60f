"""The library behind ``execrl score`` without programs: :func:`check_references` called
directly, on the real sandbox, with the sum-list problem (tests/conftest.py)."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

import pytest

from execrl.datagen.reference_checks import REFERENCE_ROW, NotReferenceChecks, check_references
from execrl.datagen.verify import ProblemReport
from execrl.errors import UsageError
from execrl.problems.io import load_problem
from execrl.problems.models import Problem, ReferenceLabel
from execrl.sandbox.protocol import Executor

PROBLEM = "sum-list"


@pytest.fixture(scope="module")
def problem(built_sum_problem_dir: Path) -> Problem:
    return load_problem(built_sum_problem_dir.parent, PROBLEM)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_reference_is_checked_and_written(problem, executor, tmp_path):
    out = tmp_path / "references.jsonl"
    told: list[ProblemReport] = []
    checks = check_references(
        [problem], out, executor=executor, progress=False, on_problem=told.append
    )
    assert checks.path == out and checks.resumed == 0 and checks.failed == []
    (report,) = checks.reports
    assert told == [report] and report.ok
    rows = lines(out)
    assert [(r["reference"], r["label"]) for r in rows] == [
        ("loop", "correct"),
        ("builtin", "correct"),
        ("drops-last", "incorrect"),
    ]
    assert all(tuple(r) == REFERENCE_ROW and r["as_expected"] for r in rows)


def test_a_wrong_label_fails_the_problem(problem, executor, tmp_path):
    refs = [r.model_copy(update={"label": ReferenceLabel.CORRECT}) for r in problem.references]
    mislabelled = problem.model_copy(update={"references": refs})
    checks = check_references(
        [mislabelled], tmp_path / "references.jsonl", executor=executor, progress=False
    )
    assert checks.failed == [PROBLEM]
    (report,) = checks.reports
    assert [r.as_expected for r in report.references] == [True, True, False]


def test_resume_reads_finished_references_back(problem, executor, tmp_path):
    out = tmp_path / "references.jsonl"
    first = check_references([problem], out, executor=executor, progress=False)
    lines_before = lines(out)
    out.write_text("".join(json.dumps(r) + "\n" for r in lines_before[:2]))  # interrupted
    resumed = check_references([problem], out, executor=executor, resume=True, progress=False)
    assert resumed.resumed == 2 and resumed.failed == []
    assert lines(out)[:2] == lines_before[:2] and len(lines(out)) == 3
    (report,) = resumed.reports
    assert [r.as_expected for r in report.references] == [
        r.as_expected for r in first.reports[0].references
    ]


def test_a_file_of_other_rows_is_refused_before_anything_runs(problem, executor, tmp_path):
    out = tmp_path / "scores.jsonl"
    out.write_text(json.dumps({"problem_id": PROBLEM, "reward": 1.0}) + "\n")
    before = out.read_bytes()
    calls: list[int] = []

    def opener() -> AbstractContextManager[Executor]:
        calls.append(1)
        return nullcontext(executor)

    with pytest.raises(NotReferenceChecks, match="not reference checks") as caught:
        check_references([problem], out, executor=opener, resume=True)
    assert isinstance(caught.value, UsageError) and "--" not in str(caught.value)
    assert calls == [] and out.read_bytes() == before
