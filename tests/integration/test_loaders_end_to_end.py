"""Problems from each new loader run through the real sandbox, as their own harness runs them.

These depend on the sandbox's support for what the datasets' tests do (issue 15 part 2 and
5): keyword arguments and ``Solution().method`` entry points in assert tests, a prelude with
ListNode/TreeNode helpers, a function under test named ``check``, objects of classes the
solution defines built by the tests, ``exit()`` at the end of a stdin program, and the
APPS/TACO stdin-function wrapping (``Problem.stdin_as_function``) wired into
``ExecutionRequest.for_problem``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from execrl.problems.io import load_problems
from execrl.problems.kattis import read_kattis_package
from execrl.problems.leetcode import load_leetcode
from execrl.problems.mbpp import load_mbpp
from execrl.problems.taco import load_taco
from execrl.problems.verl_rows import load_deepcoder_rows, load_verl_rows
from execrl.sandbox import ExecutionRequest, Status

FIXTURES = Path(__file__).parents[1] / "fixtures"


@pytest.fixture
def run_problem(executor):
    return lambda code, problem: executor.execute(ExecutionRequest.for_problem(problem, code))


def _statuses(record):
    return [(r.test_id, r.status, r.detail) for r in record.results]


@pytest.mark.parametrize("index", [0, 1], ids=["two-sum", "add-two-numbers"])
def test_leetcode_completion_passes_as_given(run_problem, index):
    problem = load_leetcode(FIXTURES / "leetcode" / "leetcode.jsonl")[index]
    record = run_problem(problem.references[0].code, problem)
    assert record.all_passed, _statuses(record)


def test_leetcode_wrong_solution_is_a_wrong_answer(run_problem):
    problem = load_leetcode(FIXTURES / "leetcode" / "leetcode.jsonl")[0]
    wrong = "class Solution:\n    def twoSum(self, nums, target):\n        return [0, 0]\n"
    record = run_problem(wrong, problem)
    assert [r.status for r in record.results] == [Status.WRONG_ANSWER], _statuses(record)


@pytest.mark.parametrize("index", [0, 1, 2, 3], ids=["plain", "check", "pair-class", "setup"])
def test_mbpp_reference_passes_every_test(run_problem, index):
    problem = load_mbpp(FIXTURES / "mbpp" / "mbpp.jsonl")[index]
    record = run_problem(problem.references[0].code, problem)
    assert record.all_passed, _statuses(record)


def test_mbpp_function_named_check_can_still_fail(run_problem):
    problem = load_mbpp(FIXTURES / "mbpp" / "mbpp.jsonl")[1]
    record = run_problem("def check(n):\n    return True\n", problem)
    assert {r.status for r in record.results} == {Status.SUCCESS, Status.WRONG_ANSWER}


def test_mbpp_sanitized_references_pass(run_problem):
    for problem in load_problems(FIXTURES / "mbpp" / "sanitized-mbpp.json", format="mbpp"):
        record = run_problem(problem.references[0].code, problem)
        assert record.all_passed, (problem.id, _statuses(record))


def test_taco_top_level_return_passes_through_for_problem(run_problem):
    (problem,) = load_taco(FIXTURES / "taco_rows" / "taco_literal_lists.jsonl")
    record = run_problem(problem.references[0].code, problem)
    assert record.all_passed, _statuses(record)


def test_verl_and_deepcoder_rows_run(run_problem):
    stdio, call = load_verl_rows(FIXTURES / "verl" / "verl.jsonl")
    assert run_problem("n = int(input())\nprint(n * n)\n", stdio).all_passed
    assert run_problem("def add(a, b):\n    return a + b\n", call).all_passed
    lcb, prime, taco = load_deepcoder_rows(FIXTURES / "deepcoder" / "deepcoder.jsonl")
    assert run_problem("def maxValue(nums):\n    return max(nums)\n", lcb).all_passed
    assert run_problem("print(input().upper())\n", prime).all_passed
    assert run_problem(taco.references[0].code, taco).all_passed


def test_kattis_accepted_submission_ending_with_exit_passes(run_problem):
    problem = read_kattis_package(FIXTURES / "kattis" / "average")
    (ref,) = [r for r in problem.references if r.name == "accepted-average_exit"]
    record = run_problem(ref.code, problem)
    assert record.all_passed, _statuses(record)


def test_custom_validator_judges_every_repeat(executor):
    from execrl.sandbox.limits import ExecutionOptions

    problem = read_kattis_package(FIXTURES / "kattis" / "pairsum")
    coin = (
        "import random\nn = int(input())\n"
        "print(*((1, n - 1) if random.random() < 0.5 else (0, n)))\n"
    )
    request = ExecutionRequest.for_problem(problem, coin, options=ExecutionOptions(repeats=8))
    record = executor.execute(request)
    assert Status.WRONG_ANSWER in {r.status for r in record.results}, _statuses(record)
