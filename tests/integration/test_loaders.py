"""Each loader on fixtures that follow the public schema field by field (tests/fixtures)."""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from pathlib import Path

import pytest

from execrl.errors import LoaderError, UsageError
from execrl.problems import CallTest, StdioTest, TestGroup
from execrl.problems.codecontests import difficulty_name, load_codecontests, normalise_difficulty
from execrl.problems.humaneval import load_humaneval
from execrl.problems.io import load_problems
from execrl.problems.livecodebench import decode_test_cases, load_livecodebench
from execrl.problems.taco import load_taco
from execrl.sandbox import ExecutionRequest, Status

FIXTURES = Path(__file__).parents[1] / "fixtures"


@pytest.fixture
def run_problem(executor):
    """Run a program on all of a problem's tests in the sandbox."""
    return lambda code, problem: executor.execute(ExecutionRequest.for_problem(problem, code))


# --- CodeContests -------------------------------------------------------------------------


def test_codecontests_maps_every_field():
    first, second = load_codecontests(FIXTURES / "codecontests.jsonl")
    assert first.id == "1548_a-sum-of-numbers"
    assert first.title == "1548_A. Sum of Numbers"
    assert first.statement == "Given n integers, print their sum."
    assert [t.id for t in first.tests] == ["public-0", "private-0", "generated-0", "generated-1"]
    assert all(isinstance(t, StdioTest) and t.group is TestGroup.ORIGINAL for t in first.tests)
    assert first.tests[1].input == "1\n-5\n" and first.tests[1].output == "-5\n"
    assert first.time_limit_s == 2.5
    assert first.memory_limit_mb == 256
    assert first.difficulty == "easy"  # letter A with cf_rating 800
    assert first.tags == ["implementation", "math"]
    src = first.source
    assert (src.dataset, src.id, src.difficulty, src.rating) == (
        "codecontests",
        first.title,
        "A",
        800,
    )
    assert src.extra == {
        "platform": "codeforces",
        "cf_contest_id": 1548,
        "cf_index": "A",
        "cf_points": 500.0,
        "is_description_translated": False,
    }
    # Second row: Aizu, unknown difficulty, no time limit, translated description kept.
    assert second.difficulty == "unknown"
    assert second.time_limit_s == 10.0 and second.memory_limit_mb == 1024
    assert second.source.extra["platform"] == "aizu"
    assert second.source.extra["untranslated_description"] == "山の高さ"


def test_codecontests_keeps_every_language_unless_filtered():
    everything = load_codecontests(FIXTURES / "codecontests.jsonl")[0]
    assert [(r.name, r.label.value, r.language) for r in everything.references] == [
        ("correct-0", "correct", "python"),
        ("correct-1", "correct", "cpp"),
        ("correct-2", "correct", "python2"),  # enum 1 is Python 2: never run as Python 3
        ("incorrect-0", "incorrect", "python"),
        ("incorrect-1", "incorrect", "java"),
    ]
    python3 = load_codecontests(FIXTURES / "codecontests.jsonl", languages=["python3"])[0]
    assert [(r.name, r.language) for r in python3.references] == [
        ("correct-0", "python"),
        ("incorrect-0", "python"),
    ]
    cpp_only = load_codecontests(FIXTURES / "codecontests.jsonl", languages="c++")[0]
    assert [(r.name, r.language) for r in cpp_only.references] == [("correct-1", "cpp")]
    rust = load_codecontests(FIXTURES / "codecontests.jsonl", languages=["rust"])[0]
    assert rust.references == []  # a known language no solution is written in
    with pytest.raises(UsageError, match="unknown `languages` 'cobol'"):
        load_codecontests(FIXTURES / "codecontests.jsonl", languages=["cobol"])


def test_codecontests_can_drop_generated_tests():
    problem = load_codecontests(FIXTURES / "codecontests.jsonl", include_generated=False)[0]
    assert [t.id for t in problem.tests] == ["public-0", "private-0"]


@pytest.mark.parametrize(
    ("code", "rating", "name", "level"),
    [
        (1, None, "EASY", "easy"),
        (2, None, "MEDIUM", "medium"),
        (5, None, "HARDEST", "hard"),
        (6, 2100, "EXTERNAL", "hard"),
        (6, 1500, "EXTERNAL", "medium"),
        (7, None, "A", "easy"),
        (9, None, "C", "medium"),
        (11, None, "E", "hard"),
        (0, None, "UNKNOWN_DIFFICULTY", "unknown"),
    ],
)
def test_codecontests_difficulty_mapping(code, rating, name, level):
    assert difficulty_name(code) == name
    assert normalise_difficulty(code, rating) == level


def test_codecontests_parquet_matches_jsonl(tmp_path: Path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = [json.loads(line) for line in (FIXTURES / "codecontests.jsonl").read_text().splitlines()]
    for row in rows:  # Parquet needs one type per column: give the null struct its shape.
        row["time_limit"] = row["time_limit"] or {"seconds": 0, "nanos": 0}
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "cc.parquet")
    from_parquet = load_problems(tmp_path / "cc.parquet", format="codecontests")
    assert from_parquet == load_codecontests(FIXTURES / "codecontests.jsonl")


def test_codecontests_references_run_with_their_verdicts(run_problem):
    problem = load_codecontests(FIXTURES / "codecontests.jsonl", languages=["python"])[0]
    good, bad = problem.references
    assert run_problem(good.code, problem).all_passed
    assert not run_problem(bad.code, problem).all_passed


def test_codecontests_mismatched_tests_are_reported(tmp_path: Path):
    row = json.loads((FIXTURES / "codecontests.jsonl").read_text().splitlines()[0])
    row["public_tests"]["output"] = []
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(LoaderError, match=r"bad\.jsonl:1: public_tests has 1 inputs but 0 outputs"):
        load_codecontests(path)


# --- TACO / APPS --------------------------------------------------------------------------


def test_taco_stdio_rows(run_problem):
    product, _reverse = load_taco(FIXTURES / "taco.jsonl")
    assert product.id == "taco-0" and product.title == "Product"
    assert [(t.input, t.output) for t in product.tests] == [("2 3\n", "6\n"), ("4 5\n", "20\n")]
    assert product.difficulty == "easy"
    assert product.time_limit_s == 1.0 and product.memory_limit_mb == 256
    assert product.tags == ["Mathematics"]
    assert product.source.url == "https://www.codechef.com/problems/PRODUCT"
    assert product.source.extra["Expected Time Complexity"] == "O(1)"
    assert product.source.extra["skill_types"] == ["Basic Math"]
    assert len(product.references) == 2
    for ref in product.references:
        assert run_problem(ref.code, product).all_passed


def test_taco_call_based_rows_unwrap_singleton_outputs(run_problem):
    reverse = load_taco(FIXTURES / "taco.jsonl")[1]
    assert reverse.entry_point == "reverse_list"
    assert reverse.starter_code.startswith("def reverse_list")
    assert reverse.difficulty == "hard"  # MEDIUM_HARD
    first = reverse.tests[0]
    assert isinstance(first, CallTest)
    assert (
        first.args == [[1, 2, 3]]
        and first.expected == [3, 2, 1]
        and first.also_accept == [[[3, 2, 1]]]
    )
    assert run_problem(reverse.references[0].code, reverse).all_passed
    wrong = run_problem("def reverse_list(xs):\n    return xs", reverse)
    assert [r.status for r in wrong.results] == [Status.WRONG_ANSWER, Status.SUCCESS]


def test_apps_rows_detect_stdio_and_call_based(run_problem):
    stdio, call = load_problems(FIXTURES / "apps.jsonl", format="apps")
    assert stdio.id == "apps-4001" and stdio.source.dataset == "apps"
    assert stdio.difficulty == "easy" and call.difficulty == "hard"
    assert stdio.test_kinds == {"stdio"} and call.test_kinds == {"call"}
    assert call.entry_point == "count_vowels"
    for problem in (stdio, call):
        assert run_problem(problem.references[0].code, problem).all_passed


def test_taco_invalid_json_field_is_named(tmp_path: Path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"question": "q", "input_output": "{oops"}) + "\n")
    with pytest.raises(LoaderError, match=r"t\.jsonl:1: field 'input_output' is not valid JSON"):
        load_taco(path)


# --- LiveCodeBench ------------------------------------------------------------------------


def test_livecodebench_stdin_with_compressed_private_tests(run_problem):
    double, _add = load_livecodebench(FIXTURES / "livecodebench.jsonl")
    assert double.id == "lcb-atcoder-abc300_a" and double.title == "Double It"
    assert [t.id for t in double.tests] == ["public-0", "private-0", "private-1"]
    assert double.tests[2].input == "-7\n" and double.tests[2].output == "-14\n"
    assert double.difficulty == "easy"
    assert double.source.extra == {
        "platform": "atcoder",
        "contest_id": "abc300",
        "contest_date": "2023-04-29T00:00:00",
    }
    assert run_problem("print(2 * int(input()))", double).all_passed


def test_livecodebench_functional_tests_become_calls(run_problem):
    add = load_livecodebench(FIXTURES / "livecodebench.jsonl")[1]
    assert add.entry_point == "addNumbers"
    assert add.starter_code.startswith("class Solution")
    first = add.tests[0]
    assert isinstance(first, CallTest) and first.args == [1, 2] and first.expected == 3
    solution = "class Solution:\n    def addNumbers(self, a, b):\n        return a + b\n"
    assert run_problem(solution, add).all_passed


def test_livecodebench_refuses_pickles_that_are_not_strings():
    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))

    payload = base64.b64encode(zlib.compress(pickle.dumps(Evil()))).decode()
    with pytest.raises(LoaderError, match="neither JSON nor compressed"):
        decode_test_cases(payload, where="row", field="private_test_cases")


# --- HumanEval ----------------------------------------------------------------------------


def test_real_humaneval_problems_load_from_the_package():
    problems = load_humaneval()
    assert len(problems) == 164
    first = problems[0]
    assert first.id == "HumanEval/0" and first.entry_point == "has_close_elements"
    assert first.test_kinds == {"assert"}
    assert "def check(candidate)" in first.tests[0].code
    assert first.references[0].code.startswith(first.statement)


def test_humaneval_canonical_passes_and_a_corruption_fails(run_problem):
    problem = load_humaneval()[2]  # truncate_number
    canonical = problem.references[0].code
    assert run_problem(canonical, problem).all_passed
    corrupted = problem.statement + "    return number\n"
    assert not run_problem(corrupted, problem).all_passed


@pytest.mark.slow
def test_every_real_humaneval_canonical_solution_passes(run_problem):
    failures = [
        p.id for p in load_humaneval() if not run_problem(p.references[0].code, p).all_passed
    ]
    assert failures == []


# --- issue 15: each loader's checker is its judge's, run in the sandbox ----------------------


def test_codecontests_correct_program_passes_with_other_case_and_float_format(run_problem):
    (problem,) = load_codecontests(FIXTURES / "codecontests_rows" / "case_and_floats.jsonl")
    good, bad = problem.references
    record = run_problem(good.code, problem)  # prints 0.5 for 0.5000000000, yes for YES
    assert [r.status for r in record.results] == [Status.SUCCESS] * 3
    floor_division = [r.status for r in run_problem(bad.code, problem).results]
    assert floor_division == [Status.WRONG_ANSWER, Status.SUCCESS, Status.WRONG_ANSWER]  # 4 // 2


def test_taco_solution_with_top_level_return_passes_once_wrapped(run_problem):
    from execrl.sandbox.wrapping import wrap_stdin_program

    (problem,) = load_taco(FIXTURES / "taco_rows" / "taco_literal_lists.jsonl")
    early_return = problem.references[0].code
    assert problem.stdin_as_function
    as_python3 = problem.model_copy(update={"stdin_as_function": False})
    unwrapped = run_problem(early_return, as_python3)
    assert {r.status for r in unwrapped.results} == {Status.COMPILE_ERROR}
    assert run_problem(early_return, problem).all_passed  # wrapped by the executor
    assert run_problem(wrap_stdin_program(early_return), as_python3).all_passed
    assert run_problem(wrap_stdin_program(problem.references[1].code), problem).all_passed


KATTIS = FIXTURES / "kattis"


def test_kattis_custom_validator_judges_in_the_sandbox(run_problem):
    from execrl.problems.kattis import read_kattis_package

    problem = read_kattis_package(KATTIS / "pairsum")
    accepted, wrong = problem.references
    # Any valid pair passes, not only the judge's answer (1 4 for 5).
    assert run_problem("n = int(input())\nprint(1, n - 1)\n", problem).all_passed
    assert run_problem(accepted.code, problem).all_passed
    record = run_problem(wrong.code, problem)
    assert {r.status for r in record.results} == {Status.WRONG_ANSWER}
    assert "not both positive" in record.results[0].detail  # the validator's judgemessage
    # A crashing program is the program's fault, judged before the validator runs.
    crash = run_problem("raise SystemExit(3)\n", problem)
    assert {r.status for r in crash.results} == {Status.RUNTIME_ERROR}


def test_kattis_validator_failure_is_inconclusive_never_wrong(run_problem):
    from execrl.problems.kattis import read_kattis_package

    problem = read_kattis_package(KATTIS / "pairsum")
    for broken in ("import sys\nsys.exit(0)\n", "raise ValueError('validator bug')\n"):
        checker = problem.checker.model_copy(update={"validator": broken})
        record = run_problem("print(1, 1)\n", problem.model_copy(update={"checker": checker}))
        assert {r.status for r in record.results} == {Status.INCONCLUSIVE}
        assert "output validator failed" in record.results[0].detail


def _execrl(*args: str):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "execrl.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_problems_check_holds_kattis_submissions_to_their_folders_verdicts(tmp_path):
    # Python only: tests/integration/test_kattis_polyglot.py checks C, C++ and Java ones.
    out = tmp_path / "check.jsonl"
    argv = ["problems", "check", str(KATTIS), "--jobs", "2", "--languages", "python"]
    done = _execrl(*argv, "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["reference"]: row for row in map(json.loads, out.read_text().splitlines())}
    for name, expects in [
        ("accepted-average-py", "all success"),
        ("time_limit_exceeded-spin", "≥1 timeout"),
        ("run_time_error-no_zero", "≥1 runtime_error"),
        ("wrong_answer-zero", "≥1 wrong_answer"),
    ]:
        assert rows[name]["as_expected"] is True, rows[name]
        assert rows[name]["expects"].startswith(expects), rows[name]


def test_problems_check_fails_when_a_submission_is_in_the_wrong_folder(tmp_path):
    import shutil

    package = shutil.copytree(KATTIS / "hello2023", tmp_path / "hello2023")
    submissions = package / "submissions"
    (submissions / "run_time_error").mkdir()
    shutil.move(submissions / "wrong_answer" / "two_spaces.py", submissions / "run_time_error")
    done = _execrl("problems", "check", str(package))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAILED" in done.stdout and "runtime_error" in done.stdout  # (the table wraps)


@pytest.mark.skipif(__import__("shutil").which("g++") is None, reason="needs g++")
def test_kattis_cpp_validator_is_compiled_once_and_run_in_the_sandbox(run_problem):
    from execrl.problems.kattis import read_kattis_package

    problem = read_kattis_package(FIXTURES / "kattis_cpp" / "pairsum_cpp")
    accepted, wrong = problem.references
    other_pair = "n = int(input())\nprint(2, n - 2) if n > 3 else print(1, n - 1)\n"
    assert run_problem(other_pair, problem).all_passed
    assert run_problem(accepted.code, problem).all_passed
    record = run_problem(wrong.code, problem)
    assert {r.status for r in record.results} == {Status.WRONG_ANSWER}
    assert record.results[0].detail == "validator: not both positive"
    broken = problem.checker.model_copy(update={"validator": "int main() { return }"})
    record = run_problem("print(1, 1)\n", problem.model_copy(update={"checker": broken}))
    assert {r.status for r in record.results} == {Status.INCONCLUSIVE}
    assert "g++ could not compile the output validator" in record.results[0].detail
