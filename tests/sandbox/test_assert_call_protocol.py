"""Assert-style and call-based tests as real datasets write them (issue 15, part 2).

Each case runs a real program through LocalExecutor: LeetCodeDataset rows (a prelude with
ListNode/TreeNode helpers, keyword-argument ``check(candidate)`` tests, ``Solution().method``
entry points), MBPP rows (a function under test named ``check``, classes the solution defines),
expected exceptions, the program's own error in the verdict, and big integers.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from execrl.problems import AssertTest, CallTest
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import Status

_LEETCODE_ROWS = Path(__file__).parents[1] / "fixtures" / "leetcode" / "leetcode.jsonl"
LEETCODE_PRELUDE = json.loads(_LEETCODE_ROWS.read_text().splitlines()[0])["prompt"]
"""LeetCodeDataset's harness prelude (imports, ListNode/TreeNode and their helpers), as the
real-format fixture has it."""


def run(executor, program: str, test, *, prelude: str | None = None, starter: str | None = None):
    request = ExecutionRequest(
        program=textwrap.dedent(program),
        tests=[test],
        prelude=prelude,
        starter_code=starter,
    )
    return executor.execute(request).results[0]


def check_test(code: str, entry_point: str) -> AssertTest:
    return AssertTest(id="t", code=textwrap.dedent(code), entry_point=entry_point)


# --- LeetCodeDataset ------------------------------------------------------------------------

REVERSE_LIST_TEST = check_test(
    """\
    def check(candidate):
        assert is_same_list(candidate(head = list_node([1, 2, 3, 4, 5])), list_node([5, 4, 3, 2, 1]))
        assert is_same_list(candidate(head = list_node([1, 2])), list_node([2, 1]))
        assert candidate(head = list_node([])) is None
    """,  # noqa: E501
    "Solution().reverseList",
)

REVERSE_LIST = """\
class Solution:
    def reverseList(self, head: Optional[ListNode]) -> Optional[ListNode]:
        prev = None
        while head:
            head.next, prev, head = prev, head, head.next
        return prev
"""


def test_leetcode_linked_list_with_prelude_keywords_and_solution_method(executor):
    result = run(executor, REVERSE_LIST, REVERSE_LIST_TEST, prelude=LEETCODE_PRELUDE)
    assert result.status is Status.SUCCESS, result.detail
    wrong = REVERSE_LIST.replace("return prev", "return prev.next if prev else None")
    result = run(executor, wrong, REVERSE_LIST_TEST, prelude=LEETCODE_PRELUDE)
    assert result.status is Status.WRONG_ANSWER, result.detail


def test_leetcode_keyword_arguments_reach_the_solution_method(executor):
    test = check_test(
        """\
        def check(candidate):
            assert candidate(nums = [2, 7, 11, 15], target = 9) == [0, 1]
            assert candidate(target = 6, nums = [3, 2, 4]) == [1, 2]
        """,
        "Solution().twoSum",
    )
    program = """\
    class Solution:
        def twoSum(self, nums: List[int], target: int) -> List[int]:
            seen = {}
            for i, x in enumerate(nums):
                if target - x in seen:
                    return [seen[target - x], i]
                seen[x] = i
    """
    result = run(executor, program, test, prelude=LEETCODE_PRELUDE)
    assert result.status is Status.SUCCESS, result.detail
    renamed = program.replace("nums: List[int], target: int", "numbers, goal")
    result = run(executor, renamed, test, prelude=LEETCODE_PRELUDE)
    assert result.status is Status.RUNTIME_ERROR
    assert "unexpected keyword argument 'nums'" in result.detail


def test_leetcode_trees_cross_both_ways(executor):
    test = check_test(
        """\
        def check(candidate):
            assert is_same_tree(candidate(root = tree_node([4, 2, 7, 1, 3, 6, 9])), tree_node([4, 7, 2, 9, 6, 3, 1]))
            assert candidate(root = None) is None
        """,  # noqa: E501
        "Solution().invertTree",
    )
    program = """\
    class Solution:
        def invertTree(self, root: Optional[TreeNode]) -> Optional[TreeNode]:
            if root:
                root.left, root.right = self.invertTree(root.right), self.invertTree(root.left)
            return root
    """
    result = run(executor, program, test, prelude=LEETCODE_PRELUDE)
    assert result.status is Status.SUCCESS, result.detail


def test_cycles_and_shared_references_survive_the_boundary(executor):
    test = check_test(
        """\
        def check(candidate):
            head = list_node([3, 2, 0, -4])
            tail = head.next.next.next
            tail.next = head.next
            assert candidate(head = head) is True
            assert candidate(head = list_node([1, 2])) is False
            shared = [1, 2]
            node = candidate(head = None, echo = [shared, shared])
            assert node[0] is node[1] and node[0] == [1, 2]
        """,
        "Solution().hasCycle",
    )
    program = """\
    class Solution:
        def hasCycle(self, head, echo=None):
            if echo is not None:
                assert echo[0] is echo[1]
                return echo
            slow = fast = head
            while fast and fast.next:
                slow, fast = slow.next, fast.next.next
                if slow is fast:
                    return True
            return False
    """
    result = run(executor, program, test, prelude=LEETCODE_PRELUDE)
    assert result.status is Status.SUCCESS, result.detail


def test_a_100000_node_linked_list_crosses_without_recursion(executor):
    test = check_test(
        """\
        def check(candidate):
            n = 100_000
            node = candidate(head = list_node(list(range(n))))
            for expected in range(n - 1, -1, -1):
                assert node.val == expected
                node = node.next
            assert node is None
        """,
        "Solution().reverseList",
    )
    result = run(executor, REVERSE_LIST, test, prelude=LEETCODE_PRELUDE)
    assert result.status is Status.SUCCESS, result.detail


# --- MBPP -----------------------------------------------------------------------------------


def test_mbpp_function_under_test_named_check(executor):
    test = check_test(
        """\
        assert check(70) == False
        assert check(23) == False
        assert check(73) == True
        """,
        "check",
    )
    program = """\
    def rev(num):
        rev_num = 0
        while (num > 0):
            rev_num = (rev_num * 10 + num % 10)
            num = num // 10
        return rev_num
    def check(n):
        return (2 * rev(n) == n + 1)
    """
    result = run(executor, program, test)
    assert result.status is Status.SUCCESS, result.detail
    result = run(executor, program.replace("n + 1", "n - 1"), test)
    assert result.status is Status.WRONG_ANSWER, result.detail


def test_a_check_the_test_code_calls_itself_is_not_called_again(executor):
    test = check_test(
        """\
        calls = []
        def check(candidate):
            calls.append(1)
            assert len(calls) == 1, "check ran twice"
            assert candidate(1) == 2
        check(inc)
        """,
        "inc",
    )
    result = run(executor, "def inc(x):\n    return x + 1\n", test)
    assert result.status is Status.SUCCESS, result.detail


MAX_CHAIN = """\
class Pair(object):
    def __init__(self, a, b):
        self.a = a
        self.b = b
def max_chain_length(arr, n):
    max = 0
    mcl = [1 for i in range(n)]
    for i in range(1, n):
        for j in range(0, i):
            if (arr[i].a > arr[j].b and mcl[i] < mcl[j] + 1):
                mcl[i] = mcl[j] + 1
    for i in range(n):
        if (max < mcl[i]):
            max = mcl[i]
    return max
"""


def test_mbpp_objects_of_a_class_the_solution_defines(executor):
    test = check_test(
        """\
        assert max_chain_length([Pair(5, 24), Pair(15, 25),Pair(27, 40), Pair(50, 60)], 4) == 3
        assert max_chain_length([Pair(1, 2), Pair(3, 4),Pair(5, 6), Pair(7, 8)], 4) == 4
        assert max_chain_length([Pair(19, 10), Pair(11, 12),Pair(13, 14), Pair(15, 16), Pair(31, 54)], 5) == 5
        p = Pair(5, 24)
        assert p.a == 5 and p.b + 1 == 25
        """,  # noqa: E501
        "max_chain_length",
    )
    result = run(executor, MAX_CHAIN, test)
    assert result.status is Status.SUCCESS, result.detail
    result = run(executor, MAX_CHAIN.replace("return max", "return max - 1"), test)
    assert result.status is Status.WRONG_ANSWER, result.detail


def test_setup_code_classes_cross_by_state(executor):
    setup = "class Point:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n"
    test = check_test(
        """\
        p = mirror(Point(1, 2))
        assert isinstance(p, Point) and (p.x, p.y) == (2, 1)
        """,
        "mirror",
    )
    program = "def mirror(p):\n    return Point(p.y, p.x)\n"
    result = run(executor, program, test, prelude=setup)
    assert result.status is Status.SUCCESS, result.detail


# --- exceptions and the program's own errors --------------------------------------------------

EXPECTS_VALUE_ERROR = check_test(
    """\
    def check(candidate):
        try:
            candidate(-1)
            assert False, "no exception"
        except ValueError as exc:
            assert "negative" in str(exc)
        assert candidate(4) == 2
    """,
    "root",
)


@pytest.mark.parametrize(
    "raise_line",
    ['raise ValueError("negative input")', 'raise Negative("negative input")'],
)
def test_expected_exceptions_are_raised_in_the_checker(executor, raise_line):
    program = f"""\
class Negative(ValueError):
    pass
def root(x):
    if x < 0:
        {raise_line}
    return int(x ** 0.5)
"""
    result = run(executor, program, EXPECTS_VALUE_ERROR)
    assert result.status is Status.SUCCESS, result.detail


def test_an_exception_class_the_program_defines_can_be_caught_by_name(executor):
    test = check_test(
        """\
        try:
            root(-1)
        except Negative as exc:
            assert type(exc).__name__ == "Negative" and isinstance(exc, ValueError)
        else:
            assert False
        """,
        "root",
    )
    program = "class Negative(ValueError):\n    pass\ndef root(x):\n    raise Negative('no')\n"
    result = run(executor, program, test)
    assert result.status is Status.SUCCESS, result.detail


def test_an_unexpected_exception_is_the_programs_runtime_error(executor):
    program = "def root(x):\n    raise TypeError('bad type ' + str(x))\n"
    result = run(executor, program, EXPECTS_VALUE_ERROR)
    assert result.status is Status.RUNTIME_ERROR
    assert result.detail == "the program raised TypeError: bad type -1"


def test_the_programs_own_error_is_in_the_detail_when_it_dies(executor):
    program = "import nonexistent_module_xyz\ndef root(x):\n    return x\n"
    result = run(executor, program, EXPECTS_VALUE_ERROR)
    assert result.status is Status.RUNTIME_ERROR
    assert "ModuleNotFoundError: No module named 'nonexistent_module_xyz'" in result.detail
    assert "stopped while serving a call" in result.detail


def test_a_failing_prelude_is_inconclusive_not_the_programs_fault(executor):
    result = run(executor, "def root(x):\n    return x\n", EXPECTS_VALUE_ERROR, prelude="1/0")
    assert result.status is Status.INCONCLUSIVE
    assert "ZeroDivisionError" in result.detail


def test_without_a_prelude_the_checker_still_runs_the_starter_code(executor):
    test = check_test("def check(candidate):\n    assert candidate(3) == double(3) + 1\n", "f")
    starter = "def double(x):\n    return 2 * x\n"
    result = run(executor, "def f(x):\n    return 2 * x + 1\n", test, starter=starter)
    assert result.status is Status.SUCCESS, result.detail


# --- call-based tests -------------------------------------------------------------------------


def test_call_test_non_plain_return_says_what_it_was(executor):
    test = CallTest(id="c", fn_name="f", args=[1], expected=1)
    result = run(executor, "class Box:\n    pass\ndef f(x):\n    return Box()\n", test)
    assert result.status is Status.WRONG_ANSWER
    assert "Box" in result.detail and "only plain data" in result.detail


def test_call_tests_resolve_solution_methods_and_run_the_prelude(executor):
    test = CallTest(id="c", fn_name="Solution().add", args=[2, 3], expected=5)
    program = (
        "class Solution:\n    def add(self, a: Optional[int], b) -> int:\n        return a + b\n"
    )
    result = run(executor, program, test, prelude="from typing import *\n")
    assert result.status is Status.SUCCESS, result.detail


BIG = 10**100_000


def test_big_integers_in_call_tests_both_ways(executor):
    returns = CallTest(id="c", fn_name="f", args=[100_000], expected=BIG)
    assert run(executor, "def f(n):\n    return 10 ** n\n", returns).status is Status.SUCCESS
    wrong = run(executor, "def f(n):\n    return 10 ** n + 1\n", returns)
    assert wrong.status is Status.WRONG_ANSWER
    assert "an int of" in wrong.detail
    takes = CallTest(id="c", fn_name="g", args=[BIG], expected=BIG + 1)
    assert run(executor, "def g(x):\n    return x + 1\n", takes).status is Status.SUCCESS


def test_big_integers_in_assert_tests_both_ways(executor):
    test = check_test(
        """\
        def check(candidate):
            big = 10 ** 100_000
            assert candidate(big) == big + 1
            assert candidate(-big) == -big + 1
        """,
        "g",
    )
    result = run(executor, "def g(x):\n    return x + 1\n", test)
    assert result.status is Status.SUCCESS, result.detail
    result = run(executor, "def g(x):\n    return x\n", test)
    assert result.status is Status.WRONG_ANSWER, result.detail


def test_generators_and_objects_convert_as_in_one_process(executor):
    """Conversions whose result the checker then compares (list(), str(), len(), bool())
    run in the candidate; the comparison itself runs in the checker."""
    test = check_test(
        """\
        def check(candidate):
            assert list(candidate(3)) == [0, 1, 2]
            assert [x for x in candidate(2)] == [0, 1]
            box = candidate(-1)
            assert box and len(box) == 7 and str(box) == "Box!" and int(box) == 7
            assert box.size == 7
        """,
        "f",
    )
    program = """\
    class Box:
        size = 7
        def __len__(self): return 7
        def __str__(self): return "Box!"
        def __int__(self): return 7
    def f(n):
        return Box() if n < 0 else (i for i in range(n))
    """
    result = run(executor, program, test)
    assert result.status is Status.SUCCESS, result.detail
    result = run(executor, program.replace("range(n)", "range(n + 1)"), test)
    assert result.status is Status.WRONG_ANSWER, result.detail
