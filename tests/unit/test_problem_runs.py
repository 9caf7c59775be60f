"""One program on one problem as library calls (what ``execrl run`` does before and after
the sandbox): the tests in suite order, the request's limits, and the table's cells."""

from __future__ import annotations

import pytest

from execrl.errors import UsageError
from execrl.problems.models import Problem, StdioTest, TestGroup
from execrl.sandbox.limits import ExecutionOptions
from execrl.sandbox.problem_runs import (
    in_suite_order,
    problem_request,
    problem_tests,
    record_table,
)
from execrl.sandbox.records import ExecutionRecord, Status, TestResult


def stdio(tid: str, group: TestGroup) -> StdioTest:
    return StdioTest(id=tid, group=group, input="1\n", output="1\n")


PROBLEM = Problem(
    id="p",
    title="P",
    statement="",
    tests=[
        stdio("o1", TestGroup.OPTIMIZATION),
        stdio("c1", TestGroup.ORIGINAL),
        stdio("x1", TestGroup.EXTRA),
        stdio("c2", TestGroup.ORIGINAL),
    ],
    time_limit_s=2.0,
)


def test_tests_run_original_then_extra_then_optimization():
    assert [t.id for t in in_suite_order(PROBLEM.tests)] == ["c1", "c2", "x1", "o1"]
    assert [t.id for t in problem_tests(PROBLEM, ["optimization", "extra"])] == ["x1", "o1"]


def test_no_tests_of_a_group_names_the_counts():
    bare = PROBLEM.model_copy(update={"tests": PROBLEM.tests[1:2]})
    with pytest.raises(UsageError, match=r"p has no extra tests to run \(its tests: original 1"):
        problem_tests(bare, ["extra"])


def test_the_request_takes_the_problems_limits():
    tests = problem_tests(PROBLEM)
    request = problem_request(PROBLEM, "print(1)", tests, ExecutionOptions(), "a.py")
    assert request.limits.cpu_time_s == 2.0 and request.program_name == "a.py"
    assert [t.id for t in request.tests] == ["c1", "c2", "x1", "o1"]


def test_record_table_cells_with_and_without_a_count():
    record = ExecutionRecord(
        problem_id="p",
        program_sha256="0" * 64,
        results=[
            TestResult(test_id="c1", status=Status.SUCCESS, cpu_s=0.0124, wall_s=0.02,
                       instructions=1234567),
            TestResult(test_id="o1", status=Status.WRONG_ANSWER, cpu_s=0.5, wall_s=0.6,
                       detail="expected 1"),
        ],
    )  # fmt: skip
    header, rows = record_table(record, PROBLEM)
    assert header == ["test", "group", "verdict", "cpu ms", "wall ms", "detail"]
    assert rows == [
        ["c1", "original", "success", "12", "20", ""],
        ["o1", "optimization", "wrong_answer", "500", "600", "expected 1"],
    ]
    header, rows = record_table(record, PROBLEM, "instructions")
    assert header[5:] == ["instructions", "detail"]
    assert [row[5] for row in rows] == ["1,234,567", "—"]
