"""Row loaders of issue 15 on fixtures in each real format (tests/fixtures/make_row_fixtures.py).

These read and check the parsed models only; running the problems is in
tests/integration/test_loaders.py and tests/integration/test_loaders_end_to_end.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execrl.errors import ExecrlError, LoaderError
from execrl.problems import AssertTest, CallTest, StdioTest, TestGroup
from execrl.problems.codecontests import load_codecontests
from execrl.problems.io import FORMATS, load_problems
from execrl.problems.leetcode import load_leetcode
from execrl.problems.mbpp import load_mbpp, mbpp_entry_point
from execrl.problems.taco import load_taco
from execrl.problems.verl_rows import load_deepcoder_rows, load_verl_rows

FIXTURES = Path(__file__).parents[1] / "fixtures"


def test_every_new_format_is_listed():
    for name in ("leetcode", "mbpp", "kattis", "verl", "deepcoder"):
        assert name in FORMATS


# --- LeetCodeDataset ----------------------------------------------------------------------


def test_leetcode_maps_prompt_to_prelude_and_keeps_tests_as_given():
    two_sum, add_two = load_leetcode(FIXTURES / "leetcode" / "leetcode.jsonl")
    assert two_sum.id == "two-sum"
    assert two_sum.difficulty == "easy"
    assert two_sum.tags == ["Array", "Hash Table"]
    assert two_sum.entry_point == "Solution().twoSum"
    assert two_sum.starter_code.startswith("class Solution:\n    def twoSum(")
    assert "class ListNode:" in two_sum.prelude and "def is_same_tree(p, q):" in two_sum.prelude
    (test,) = two_sum.tests
    assert isinstance(test, AssertTest)
    assert test.entry_point == "Solution().twoSum"
    assert "candidate(nums = [2,7,11,15], target = 9) == [0,1]" in test.code  # keyword args
    (ref,) = two_sum.references
    assert ref.name == "completion" and ref.label.value == "correct"
    assert "def twoSum" in ref.code
    assert two_sum.source.dataset == "leetcodedataset"
    assert two_sum.source.id == "1"
    assert two_sum.source.extra["input_output"][2] == {
        "input": "nums = [3,3], target = 6",
        "output": "[0, 1]",
    }
    assert add_two.entry_point == "Solution().addTwoNumbers"
    assert "is_same_list(candidate(l1 = list_node([2,4,3])" in add_two.tests[0].code
    assert add_two.difficulty == "medium"


def test_leetcode_row_without_a_test_names_the_file_and_line(tmp_path: Path):
    rows = tmp_path / "lc.jsonl"
    rows.write_text(json.dumps({"task_id": "x", "entry_point": "Solution().f"}) + "\n")
    with pytest.raises(LoaderError, match=r"lc\.jsonl:1: .*lacks test"):
        load_leetcode(rows)


# --- MBPP ---------------------------------------------------------------------------------


def test_mbpp_original_rows():
    square, check, chain, setup = load_mbpp(FIXTURES / "mbpp" / "mbpp.jsonl")
    assert square.id == "mbpp-17"
    assert square.entry_point == "square_perimeter"
    assert [t.id for t in square.tests] == ["test-0", "test-1", "test-2", "challenge-0"]
    assert [t.group for t in square.tests] == [TestGroup.ORIGINAL] * 3 + [TestGroup.EXTRA]
    assert square.tests[0].code == "assert square_perimeter(10)==40"
    assert "\r\n" in square.references[0].code  # kept as the dataset gives it
    assert square.prelude is None
    # The function under test is named ``check``; ``rev`` is a helper the asserts never call.
    assert check.entry_point == "check"
    assert all(t.entry_point == "check" for t in check.tests)
    # Asserts build ``Pair`` objects: the entry point is the function, not the class.
    assert chain.entry_point == "max_chain_length"
    assert "Pair(5, 24)" in chain.tests[0].code
    assert setup.prelude == "import math\nLIMITS = [1, 2, 3]"


def test_mbpp_sanitized_rows_from_a_json_array():
    similar, sphere = load_problems(FIXTURES / "mbpp" / "sanitized-mbpp.json", format="mbpp")
    assert similar.entry_point == "similar_elements"  # called inside set(...) on the left
    assert similar.statement.startswith("Write a function to find the shared elements")
    assert similar.source.extra == {"source_file": "Benchmark Questions Verification V2.ipynb"}
    assert sphere.prelude == "import math"
    assert sphere.entry_point == "volume_sphere"  # called inside math.isclose(...)


@pytest.mark.parametrize(
    ("code", "tests", "expected"),
    [
        ("def check(n):\n    return n\n", ["assert check(1) == 1"], "check"),
        ("def helper(x): return x\ndef f(x): return helper(x)", ["assert f(2) == 2"], "f"),
        ("class Pair: pass\ndef g(a): return 1", ["assert g([Pair()]) == 1"], "g"),
        ("def f(:\n  pass\ndef g():\n  pass", ["assert g() is None"], "g"),  # Python 2 code
        ("def only(): return 1", ["assert True"], "only"),
    ],
)
def test_mbpp_entry_point(code, tests, expected):
    assert mbpp_entry_point(code, tests, where="row") == expected


# --- verl and rllm/DeepCoder ---------------------------------------------------------------


def test_verl_rows_ground_truth_as_json_string_or_object():
    stdio, call = load_verl_rows(FIXTURES / "verl" / "verl.jsonl")
    assert stdio.id == "codecontests-7"
    assert stdio.statement == "Read n and print n squared."  # the last user message
    assert [(t.input, t.output) for t in stdio.tests] == [("3\n", "9\n"), ("12\n", "144\n")]
    assert all(isinstance(t, StdioTest) for t in stdio.tests)
    assert stdio.checker.kind == "apps" and stdio.stdin_as_function
    assert stdio.source.extra["extra_info"] == {"split": "train", "index": 7}
    assert call.entry_point == "add"
    first = call.tests[0]
    assert isinstance(first, CallTest)
    assert (first.args, first.expected, first.also_accept) == ([1, 2], 3, [[3]])


def test_single_object_json_file_is_one_row():
    (problem,) = load_problems(FIXTURES / "verl" / "one_row.json", format="verl")
    assert problem.id == "apps-0"
    assert problem.statement == "Print the input reversed."
    assert problem.tests[0].output == "cba\n"


def test_deepcoder_rows_in_each_test_form():
    lcb, prime, taco = load_deepcoder_rows(FIXTURES / "deepcoder" / "deepcoder.jsonl")
    assert lcb.entry_point == "maxValue"
    assert lcb.checker.kind == "livecodebench"
    assert [(t.args, t.expected) for t in lcb.tests] == [([[1, 5, 2]], 5), ([[-3]], -3)]
    assert prime.checker.kind == "apps"
    assert [t.output for t in prime.tests] == ["ABC\n", "HI THERE\n"]
    assert taco.tests[0].input == "1 2\n" and taco.stdin_as_function
    assert taco.references[0].label.value == "correct"


def test_verl_row_without_ground_truth_names_the_row(tmp_path: Path):
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([{"reward_model": {"ground_truth": "{}"}}, {"prompt": "x"}]))
    with pytest.raises(LoaderError, match=r"rows\.json\[1\]: verl row has no"):
        load_verl_rows(path)


# --- TACO / APPS, CodeContests: the judge's own checker ------------------------------------


def test_taco_python_literal_list_fields_load():
    (problem,) = load_taco(FIXTURES / "taco_rows" / "taco_literal_lists.jsonl")
    assert problem.tags == ["Sorting", "Greedy algorithms"]
    assert problem.source.extra["raw_tags"] == ["Sorting", "Greedy algorithms"]
    assert problem.source.extra["skill_types"] == ["Sorting", "Greedy algorithms"]
    assert problem.checker.kind == "apps"
    assert problem.stdin_as_function


def test_taco_unreadable_tags_name_file_line_and_field(tmp_path: Path):
    path = tmp_path / "taco.jsonl"
    row = {"question": "q", "input_output": "{}", "tags": "['unterminated"}
    path.write_text("\n" + json.dumps(row) + "\n")
    with pytest.raises(LoaderError, match=r"taco\.jsonl:2: field 'tags' is neither"):
        load_taco(path)


def test_codecontests_sets_the_testers_checker():
    (problem,) = load_codecontests(FIXTURES / "codecontests_rows" / "case_and_floats.jsonl")
    checker = problem.checker
    assert (checker.kind, checker.case_sensitive) == ("float", False)
    assert (checker.abs_tol, checker.rel_tol) == (1e-5, 1e-5)


def test_livecodebench_sets_its_graders_checker():
    (problem, *_) = load_problems(FIXTURES / "livecodebench.jsonl", format="livecodebench")
    assert problem.checker.kind == "livecodebench"


def test_validation_errors_are_one_line_with_file_row_and_field(tmp_path: Path):
    path = tmp_path / "lc.json"
    row = {"task_id": "ok", "entry_point": "Solution().f", "test": "pass", "difficulty": "Easy"}
    path.write_text(json.dumps([row, {**row, "test": 5}]))
    with pytest.raises(ExecrlError) as info:
        load_leetcode(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}[1]: tests[check].code: ")


def test_invalid_json_file_names_the_line(tmp_path: Path):
    path = tmp_path / "rows.json"
    path.write_text('[\n{"a": 1},\n{"a": }\n]')
    with pytest.raises(LoaderError, match=r"rows\.json:3: not valid JSON"):
        load_problems(path, format="verl")


def test_taco_time_limits_in_milliseconds_are_read_as_seconds(tmp_path: Path):
    path = tmp_path / "taco.json"
    rows = [{"question": "q", "time_limit": limit} for limit in ("2 seconds", "1500 milliseconds")]
    path.write_text(json.dumps(rows))
    assert [p.time_limit_s for p in load_taco(path)] == [2.0, 1.5]
