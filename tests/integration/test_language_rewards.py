"""Rewards for programs in other languages, through the real sandbox: ``score`` /
``score_batch``, the TRL reward function (a ``language`` column) and verl's ``compute_score``
(``extra_info["language"]``). A program that does not build scores exactly as one that fails
every test; a missing toolchain is inconclusive (no reward), never a wrong answer."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from execrl.envs.outcome import Verdict
from execrl.integrations.trl import ExecrlRewardFunction
from execrl.integrations.verl import compute_score, compute_score_async, compute_score_batch
from execrl.problems.io import save_problems
from execrl.problems.models import Problem, StdioTest
from execrl.rewards import score, score_batch
from execrl.rewards.dense import DenseRewardConfig, PassTensor, dense_rewards
from execrl.rewards.scoring import Group
from execrl.sandbox.languages import probe
from execrl.sandbox.records import Status

PROBLEM = Problem(
    id="a-plus-b",
    statement="Print the sum of two integers.",
    time_limit_s=5,
    tests=[
        StdioTest(id="small", input="1 2\n", output="3\n"),
        StdioTest(id="negative", input="-5 3\n", output="-2\n"),
        StdioTest(id="large", input="1000000000000 1\n", output="1000000000001\n"),
    ],
)
TESTS = tuple(t.id for t in PROBLEM.tests)

CPP_CORRECT = (
    "#include <bits/stdc++.h>\nint main() { long long a, b; std::cin >> a >> b; "
    'std::cout << a + b << "\\n"; }\n'
)
CPP_WRONG = (  # passes no test: prints a - b
    '#include <cstdio>\nint main() { long long a, b; scanf("%lld %lld", &a, &b); '
    'printf("%lld\\n", a - b); }\n'
)
CPP_BROKEN = '#include <cstdio>\nint main() { printf("%d\\n", undefined_name); }\n'
JAVA_CORRECT = (
    "import java.util.*;\npublic class Main {\n  public static void main(String[] args) {\n"
    "    Scanner in = new Scanner(System.in);\n"
    "    System.out.println(in.nextLong() + in.nextLong());\n  }\n}\n"
)
PYTHON_RAISES = "raise ValueError('no idea')\n"
PYTHON_CORRECT = "a, b = map(int, input().split())\nprint(a + b)\n"

java = pytest.mark.skipif(
    not probe("java").installed, reason="no Java toolchain here (apt install openjdk-17-jdk)"
)


def answer(language_tag: str, program: str) -> str:
    """A model's answer: prose, a Python sketch, then the program in the language asked for."""
    return (
        "We read two integers and print their sum. In Python this would be:\n\n"
        f"```python\n{PYTHON_RAISES}```\n\nbut the task asks for {language_tag}:\n\n"
        f"```{language_tag}\n{program}```\n\nThis runs in O(1)."
    )


@pytest.fixture(scope="module")
def scored(executor) -> dict[str, object]:
    """Every program of the module in one batch: a group per (problem, language)."""
    cpp, java_group, python = score_batch(
        [
            Group(PROBLEM, [CPP_CORRECT, CPP_WRONG, CPP_BROKEN], language="cpp"),
            Group(PROBLEM, [JAVA_CORRECT], language="java"),
            Group(PROBLEM, [PYTHON_RAISES]),
        ],
        executor=executor,
        reward="correctness",
        progress=False,
    )
    return {
        "cpp_correct": cpp[0],
        "cpp_wrong": cpp[1],
        "cpp_broken": cpp[2],
        "java_correct": java_group[0],
        "python_raises": python[0],
    }


def test_cpp_programs_are_scored_by_their_verdicts(scored):
    correct, wrong, broken = scored["cpp_correct"], scored["cpp_wrong"], scored["cpp_broken"]
    assert (correct.reward, wrong.reward, broken.reward) == (1.0, -1.0, -1.0)
    assert all(s.record.language == "cpp" for s in (correct, wrong, broken))
    assert [r.status for r in correct.record.results] == [Status.SUCCESS] * 3
    assert [r.status for r in wrong.record.results] == [Status.WRONG_ANSWER] * 3
    assert [r.status for r in broken.record.results] == [Status.COMPILE_ERROR] * 3
    assert "undefined_name" in broken.record.results[0].detail
    assert correct.to_dict()["language"] == "cpp"


@java
def test_a_correct_java_program_earns_the_full_reward(scored):
    one = scored["java_correct"]
    assert one.reward == 1.0 and one.record.language == "java"
    assert one.outcome.c_cor == 1 and one.record.all_passed


def test_a_program_that_does_not_build_scores_as_one_failing_every_test(scored, executor):
    broken, raises = scored["cpp_broken"], scored["python_raises"]
    assert [r.status for r in raises.record.results] == [Status.RUNTIME_ERROR] * 3
    # The binary (correctness) reward, and the Outcome it is computed from.
    assert broken.reward == raises.reward == -1.0
    for one in (broken, raises):
        assert [t.verdict for t in one.outcome.tests] == [Verdict.FAILURE] * 3
        assert (one.outcome.c_cor, one.outcome.c_strict, one.outcome.inconclusive) == (0, 0, False)
    # Every composition gives the two the same number (additive: ½·(−1) + ½·speed, and with
    # no optimization tests the speed gate is open).
    for reward, expected in (("collapsed", -1.0), ("additive(graded, map=linear)", 0.0)):
        (cpp,) = score(PROBLEM, CPP_BROKEN, executor=executor, reward=reward, language="c++")
        (py,) = score(PROBLEM, PYTHON_RAISES, executor=executor, reward=reward)
        assert cpp.reward == py.reward == expected
    # The pass-rate reward (dense, raw variant: the share of tests passed) is 0 for both, and
    # a correct program in the same group gets 1.
    records = [[broken.record], [raises.record], [scored["cpp_correct"].record]]
    dense = dense_rewards(PassTensor.from_records(records, TESTS), DenseRewardConfig(variant="raw"))
    assert dense.turn_rewards[0].tolist() == [0.0, 0.0, 1.0]
    assert dense.solved.tolist() == [False, False, True]


@pytest.mark.skipif(probe("go").installed, reason="go is installed here")
def test_a_missing_toolchain_is_inconclusive_never_a_wrong_answer(executor):
    (one,) = score(PROBLEM, "package main\nfunc main() {}\n", executor=executor, language="go")
    assert one.reward is None and one.outcome.inconclusive
    assert all(r.status is Status.INCONCLUSIVE for r in one.record.results)
    assert "language_unavailable" in one.record.results[0].detail


def test_the_trl_reward_function_reads_each_rows_language(executor):
    reward_fn = ExecrlRewardFunction(reward="correctness", problems=[PROBLEM], executor=executor)
    completions = [
        answer("cpp", CPP_CORRECT),
        answer("c++", CPP_WRONG),
        answer("cpp", CPP_BROKEN),
        answer("python", PYTHON_CORRECT),  # no language: the row's default, Python
        f"```python\n{PYTHON_CORRECT}```",
    ]
    languages = ["cpp", "c++", "CPP", None, ""]
    rewards = reward_fn(
        prompts=["p"] * 5,
        completions=completions,
        problem_id=[PROBLEM.id] * 5,
        language=languages,
    )
    # The Python answer's last python block is the correct one; the C++ rows' C++ blocks win
    # over the Python sketch (which raises) in the same answer.
    assert rewards == [1.0, -1.0, -1.0, 1.0, 1.0]


@java
def test_the_trl_reward_function_takes_a_default_language(executor):
    reward_fn = ExecrlRewardFunction(
        reward="correctness", problems=[PROBLEM], executor=executor, language="java"
    )
    rewards = reward_fn(
        prompts=["p"], completions=[answer("java", JAVA_CORRECT)], problem_id=[PROBLEM.id]
    )
    assert rewards == [1.0]


def test_verl_compute_score_reads_the_language_of_each_row(executor, tmp_path: Path):
    source = str(save_problems([PROBLEM], tmp_path / "problems.jsonl"))
    truth = json.dumps({"problem_id": PROBLEM.id, "reward": "correctness"})
    infos = [
        {"problem_source": source, "language": "cpp"},
        {"problem_source": source, "language": "cpp"},
        {"problem_source": source, "language": "c++"},
        {"problem_source": source},
    ]
    solutions = [
        answer("cpp", CPP_CORRECT),
        answer("cpp", CPP_WRONG),
        answer("cpp", CPP_BROKEN),
        answer("python", PYTHON_RAISES),
    ]
    results = compute_score_batch(
        ["execrl/test"] * 4, solutions, [truth] * 4, infos, executor=executor
    )
    assert [r["score"] for r in results] == [1.0, -1.0, -1.0, -1.0]
    assert [r["tests_passed_fraction"] for r in results] == [1.0, 0.0, 0.0, 0.0]
    # A broken build and a program raising on every test: the same row, field for field.
    assert results[2] == results[3]
    assert results[2]["inconclusive"] == 0.0


@java
def test_verl_takes_the_language_from_the_ground_truth_or_the_keyword(executor, tmp_path: Path):
    source = str(save_problems([PROBLEM], tmp_path / "problems.jsonl"))
    info = {"problem_source": source}
    truth = {"problem_id": PROBLEM.id, "reward": "correctness", "language": "java"}
    one = compute_score("execrl/test", answer("java", JAVA_CORRECT), truth, info, executor=executor)
    assert one["score"] == 1.0
    plain = {"problem_id": PROBLEM.id, "reward": "correctness"}
    awaited = asyncio.run(
        compute_score_async(
            "execrl/test", answer("cpp", CPP_BROKEN), plain, info, executor=executor, language="cpp"
        )
    )
    assert awaited["score"] == -1.0 and awaited["tests_passed_fraction"] == 0.0


def test_cpp_needs_gcc():
    """C and C++ are required toolchains (issue 31): this suite must not silently skip them."""
    assert shutil.which("g++") is not None
