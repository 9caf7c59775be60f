"""The library behind ``execrl problems``: check rows and their table, the build plan of a
bundled problem, and the list table (pure functions; the checks that run programs are in
tests/integration/test_cli.py and tests/bad_inputs/test_problem_data.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from execrl.datagen import build_plan, checking
from execrl.errors import LoaderError, ProblemFormatError, UsageError
from execrl.problems import load_problems, tables
from execrl.problems.bundled import bundled_dir, bundled_problem_ids
from execrl.problems.models import Reference, ReferenceLabel


def reference(label: str, **fields) -> Reference:
    return Reference(name="r", code="", label=ReferenceLabel(label), **fields)


def test_what_a_check_expects_of_each_label():
    assert checking.expectation(reference("correct")) == "all success"
    assert checking.expectation(reference("incorrect")) == "≥1 failure"
    timeout = reference("incorrect", expected_verdict="timeout")
    assert checking.expectation(timeout) == "≥1 timeout"
    crash = reference("incorrect", expected_verdict="runtime_error")
    assert checking.expectation(crash) == "≥1 runtime_error or memory_limit"


def test_check_table_cells():
    ok = {
        "reference": "fast", "label": "correct", "note": "O(n)", "expects": "all success",
        "as_expected": True, "verdicts": {"success": 3}, "passed": 3, "tests": 3,
        "opt_mean_s": 0.0124, "opt_max_s": 0.02, "failed_tests": [],
    }  # fmt: skip
    bad = ok | {
        "reference": "slow", "label": "incorrect", "as_expected": False, "passed": 0,
        "verdicts": {"success": 5}, "failed_tests": [f"t{i}" for i in range(5)], "opt_mean_s": None,
    }  # fmt: skip
    issue = {"problem_id": "p", "reference": None, "as_expected": False, "issue": "problem x"}
    header, cells = checking.check_table([ok, bad, issue])
    assert header[:2] == ["reference", "language"] and header[-1] == "failed tests"
    assert len(header) == 10
    assert cells == [  # (rows without a language were written when every reference was Python)
        ["fast", "python", "correct", "O(n)", "all success", "success 3", "3/3", "12", "20", ""],
        ["✗ slow", "python", "incorrect", "O(n)", "all success", "success 5", "0/3", "—", "20",
         "t0, t1, t2, t3 …"],
    ]  # fmt: skip
    assert checking.problem_ok([ok]) and not checking.problem_ok([ok, bad])
    assert checking.check_key(issue) == ("p", None)


def test_a_problem_without_tests_is_one_issue_row_and_unusable():
    (problem,) = load_problems("bundled")[:1]
    bare = problem.model_copy(update={"tests": []})
    (row,) = checking.check_problem(bare, executor=None)
    assert row["reference"] is None and row["as_expected"] is False
    assert row["issue"].startswith("problem has no tests")
    with pytest.raises(ProblemFormatError, match=f"src: problem '{bare.id}' has no tests"):
        checking.require_usable([problem, bare], "src")
    with pytest.raises(ProblemFormatError, match="src: holds no problems"):
        checking.require_usable([], "src")
    checking.require_usable([problem], "src")  # nothing to say


def test_a_bundled_id_is_copied_out_before_it_is_built(tmp_path):
    pid = bundled_problem_ids()[0]
    plan = build_plan.plan_build(Path(pid), tmp_path)
    assert plan == build_plan.BuildPlan(tmp_path / pid, bundled_dir() / pid)
    build_plan.copy_bundled(plan)
    assert (tmp_path / pid / "problem.yaml").is_file()
    assert build_plan.plan_build(tmp_path / pid, tmp_path) == build_plan.BuildPlan(tmp_path / pid)
    with pytest.raises(UsageError, match="already exists, so bundled problem"):
        build_plan.plan_build(Path(pid), tmp_path)
    with pytest.raises(LoaderError, match="not a problem folder and not a bundled problem id"):
        build_plan.plan_build(Path("no-such-problem"), tmp_path)


def test_list_table_rows():
    problems = load_problems("bundled")
    header, rows = tables.list_table(problems)
    assert header == ["id", "title", "difficulty", "T0", "T+", "T_O", "refs ✓/✗"]
    p = problems[0]
    correct, incorrect = (len(p.references_labelled(x)) for x in ("correct", "incorrect"))
    assert rows[0][0] == p.id and rows[0][-1] == f"{correct}/{incorrect}"
    assert [int(n) for n in rows[0][3:6]] == [
        len(p.tests_in(g)) for g in ("original", "extra", "optimization")
    ]
    assert (
        tables.tests_by_group(p)
        == f"original {rows[0][3]}, extra {rows[0][4]}, optimization {rows[0][5]}"
    )
