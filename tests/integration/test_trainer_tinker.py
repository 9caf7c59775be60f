"""tinker-cookbook's code RL recipe against a real ``execrl serve``, the recipe unchanged.

The recipe (``tinker_cookbook.recipes.code_rl``) grades a generation with
``code_grading.sandbox_check_correctness``: LiveCodeBench's harness (``testing_util.py``,
``signal.alarm`` per test, numpy, ``reliability_guard``) and the tests travel as ``files`` of
one ``/run_code`` request that its ``SandboxFusionClient`` posts to ``$SANDBOX_URL``. Here
that URL is a real ``execrl serve`` on 127.0.0.1; nothing of the recipe is replaced.
``DeepcoderReward`` (``deepcoder_tool.py``) and ``code_env.py`` import the ``tinker``
service client (``tinker_cookbook.renderers``), which is not installed, so the reward path is
driven through the calls ``DeepcoderReward.__call__`` makes: ``extract_code_from_model``,
then ``sandbox_check_correctness``.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import time

import pytest

pytest.importorskip(
    "tinker_cookbook.sandbox",
    reason="tinker-cookbook (pip install tinker-cookbook --no-deps; chz, aiohttp) is not installed",
)
from tinker_cookbook.recipes.code_rl import code_grading
from tinker_cookbook.sandbox import SandboxFusionClient

from execrl.errors import ConfigError
from execrl.integrations.rows import resolve_row, row_label, score_rows
from execrl.integrations.tinker import inconclusive, lcb_tests, per_test_timeout_s
from execrl.problems import load_bundled
from execrl.problems.models import ReferenceLabel
from execrl.sandbox.languages import probe
from execrl.sandbox.pool import LocalExecutor
from tests.service._server import running_server

# LiveCodeBench rows as the recipe reads them (DeepCoder's lcbv5 ``tests``): AtCoder stdin
# cases with LCB's own testtype "stdin", and a LeetCode functional case with its func_name.
STDIN_ROW = [
    {"input": "3\n1 2 3\n", "output": "6\n", "testtype": "stdin", "metadata": {}},
    {"input": "2\n-5 5\n", "output": "0\n", "testtype": "stdin", "metadata": {}},
]
SUM_GOOD = "n = int(input())\nprint(sum(map(int, input().split())))\n"
SUM_MAIN = (
    "import sys\n\ndef main():\n    data = sys.stdin.read().split()\n"
    "    print(sum(map(int, data[1:])))\n\nif __name__ == '__main__':\n    main()\n"
)
SUM_WRONG = "n = int(input())\nprint(max(map(int, input().split())))\n"
SUM_CRASH = "n = int(input())\nprint(1 // (n - n))\n"
SUM_SLOW = "n = int(input())\nwhile True:\n    n += 1\n"
SUM_IGNORES_ALARM = "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass\n"  # noqa: E501

FUNCTIONAL_ROW = [
    {"input": "[2,7,11,15]\n9", "output": "[0, 1]", "testtype": "functional",
     "metadata": {"func_name": "twoSum"}},
    {"input": "[3,2,4]\n6", "output": "[1, 2]", "testtype": "functional",
     "metadata": {"func_name": "twoSum"}},
]  # fmt: skip
TWO_SUM = """class Solution:
    def twoSum(self, nums: List[int], target: int) -> List[int]:
        seen = {}
        for i, x in enumerate(nums):
            if target - x in seen:
                return [seen[target - x], i]
            seen[x] = i
"""
TWO_SUM_WRONG = TWO_SUM.replace("[seen[target - x], i]", "[i, seen[target - x]]")
TWO_SUM_CRASH = TWO_SUM.replace("seen = {}", "seen = None")
TWO_SUM_SLOW = TWO_SUM.replace("seen = {}", "seen = {}\n        while True:\n            pass")

RUN_RESULT_KEYS = {"status", "execution_time", "return_code", "stdout", "stderr"}


@pytest.fixture(scope="module")
def server():
    with running_server(workers=2) as running:
        yield running


@pytest.fixture
def recipe(server, monkeypatch):
    """The recipe's module, its client reading SANDBOX_URL (it reads it once, when it makes
    its process-wide client: each test starts without one)."""
    monkeypatch.setenv("SANDBOX_URL", f"{server.url}/run_code")
    monkeypatch.setattr(code_grading, "_sandboxfusion_client", None)
    return code_grading


def run_recipe(*calls):
    """Await the recipe's coroutines together in one event loop (aiohttp's session belongs to
    one loop: the recipe's client is made and closed inside it)."""

    async def go():
        code_grading._sandboxfusion_client = None
        try:
            return await asyncio.gather(*calls)
        finally:
            if code_grading._sandboxfusion_client is not None:
                await code_grading._sandboxfusion_client.close()

    return asyncio.run(go())


def run_client(client: SandboxFusionClient, *runs):
    async def go():
        try:
            return await asyncio.gather(*(client.run(**kwargs) for kwargs in runs))
        finally:
            await client.close()

    return asyncio.run(go())


def check(sample, generation, timeout=2):
    return code_grading.sandbox_check_correctness(sample, generation, timeout=timeout)


# -- (a) the recipe's own grading function -----------------------------------------------------


def test_recipe_passes_only_the_correct_stdin_generation(recipe):
    good, main, wrong, crash, slow = run_recipe(
        check(STDIN_ROW, SUM_GOOD),
        check(STDIN_ROW, SUM_MAIN),
        check(STDIN_ROW, SUM_WRONG),
        check(STDIN_ROW, SUM_CRASH),
        check(STDIN_ROW, SUM_SLOW, timeout=1),
    )
    assert [good[0], main[0], wrong[0], crash[0], slow[0]] == [True, True, False, False, False]
    details = good[1]
    assert (details["status"], details["message"], details["compile_result"]) == (
        "Success",
        "",
        None,
    )
    assert set(details["run_result"]) >= RUN_RESULT_KEYS
    assert (details["run_result"]["status"], details["run_result"]["return_code"]) == (
        "Finished",
        0,
    )
    # The harness judged the failures itself: it printed why and exited -1 (255).
    for (_, failed), why in ((wrong, "Wrong Answer"), (crash, "Runtime Error"),
                             (slow, "Time Limit Exceeded")):  # fmt: skip
        assert (failed["status"], failed["run_result"]["status"]) == ("Failed", "Finished")
        assert failed["run_result"]["return_code"] == 255
        assert f"'error_message': '{why}'" in failed["run_result"]["stdout"]
        assert not inconclusive(failed)
    assert "ZeroDivisionError" in crash[1]["run_result"]["stdout"]
    # signal.alarm works in execrl's sandbox: the slow test stopped after its 1 s.
    assert 1.0 <= slow[1]["run_result"]["execution_time"] < 5.0


def test_recipe_passes_only_the_correct_functional_generation(recipe):
    results = run_recipe(
        check(FUNCTIONAL_ROW, TWO_SUM),
        check(FUNCTIONAL_ROW, TWO_SUM_WRONG),
        check(FUNCTIONAL_ROW, TWO_SUM_CRASH),
        check(FUNCTIONAL_ROW, TWO_SUM_SLOW, timeout=1),
    )
    assert [passed for passed, _ in results] == [True, False, False, False]
    wrong, crash, slow = (details["run_result"]["stdout"] for _, details in results[1:])
    assert "'output': '[1, 0]'" in wrong and "Wrong Answer" in wrong
    assert "TypeError" in crash and "Runtime Error" in crash
    assert "Time Limit Exceeded" in slow


def test_a_program_that_swallows_the_alarm_is_stopped_by_run_timeout(recipe):
    """The harness's alarm raises inside the program; one that catches it runs on until the
    request's run_timeout, ``(timeout + 1) * tests + 5`` = 7 s: TimeLimitExceeded, as
    SandboxFusion answers it."""
    [(passed, details)] = run_recipe(check(STDIN_ROW[:1], SUM_IGNORES_ALARM, timeout=1))
    assert passed is False
    assert details["status"] == "Failed"
    assert (details["run_result"]["status"], details["run_result"]["return_code"]) == (
        "TimeLimitExceeded",
        None,
    )
    assert details["message"].startswith("timeout: wall-clock limit 7")
    assert not inconclusive(details)


def test_rows_with_many_tests_fit_run_timeout(recipe):
    """100 tests at the recipe's default 6 s ask for run_timeout 705 s (SandboxFusion sets no
    bound; execrl's is 1800 s): judged. Past the bound the request is refused, which the
    recipe reads as a failed program: :func:`inconclusive` tells them apart."""
    many = [{"input": f"1\n{i}\n", "output": f"{i}\n", "testtype": "stdin", "metadata": {}}
            for i in range(100)]  # fmt: skip
    too_many = many * 3  # (6 + 1) * 300 + 5 = 2105 s
    (passed, details), (refused, why) = run_recipe(
        check(many, SUM_GOOD, timeout=6), check(too_many, SUM_GOOD, timeout=6)
    )
    assert (passed, details["status"]) == (True, "Success")
    assert refused is False and why["error"].startswith("HTTP 422")
    assert "run_timeout" in why["error"] and "status" not in why
    assert inconclusive(why)


# -- (b) the reward path, on execrl's rows -----------------------------------------------------


def reference(problem, name: str) -> str:
    return next(r.code for r in problem.references if r.name == name)


def fenced(code: str) -> str:
    return f"I will read the input and sum it.\n\n```python\n{code}```\n"


def test_reward_path_on_execrl_rows_agrees_with_execrl(recipe):
    """``DeepcoderReward``'s steps (extract the last fenced block, grade it) on an execrl row
    turned into the recipe's tests by :func:`lcb_tests`: the recipe's ``correct`` agrees with
    execrl's own verdict for a correct, a wrong and a crashing completion."""
    [problem] = load_bundled(["balanced-brackets"])
    label = row_label(problem)
    correct = reference(problem, "stack-simple")
    completions = [fenced(correct), fenced("print('NO')\n"), fenced("raise SystemExit(3)\n")]
    tests = lcb_tests(label)
    assert len(tests) == len(problem.tests) and tests[0]["testtype"] == "stdin_stdout"
    programs = [code_grading.extract_code_from_model(c) for c in completions]
    assert programs[0] == correct.strip()
    graded = run_recipe(
        *(check(tests, program, timeout=per_test_timeout_s(problem)) for program in programs)
    )
    recipe_correct = [float(passed) for passed, _ in graded]
    with LocalExecutor(workers=2) as executor:
        rows = [resolve_row(label)] * 3
        scores = score_rows(completions, rows, executor=executor)
    assert recipe_correct == [1.0, 0.0, 0.0]
    # The recipe's reward is its own (correct in {0, 1}, minus 0.1 without a fenced block);
    # the verdicts are execrl's (whose default reward, mc/collapsed, is +1 / -1).
    assert [s.passed for s in scores] == [True, False, False]
    assert [s.reward for s in scores] == [1.0, -1.0, -1.0]
    assert code_grading.extract_code_from_model("no fence here") is None  # format term: -0.1


def test_the_harness_fails_a_correct_program_that_reads_stdin_buffer(recipe):
    """A known difference, the harness's and not the server's (SandboxFusion runs the same
    harness): it feeds stdin as a ``StringIO``, which has no ``.buffer``, so a correct program
    reading ``sys.stdin.buffer`` is a Runtime Error there; execrl passes it."""
    [problem] = load_bundled(["balanced-brackets"])
    correct = problem.references_labelled(ReferenceLabel.CORRECT)[0].code
    assert "sys.stdin.buffer" in correct
    [(passed, details)] = run_recipe(check(lcb_tests(problem), correct, timeout=3))
    assert passed is False
    stdout = details["run_result"]["stdout"]
    assert "Runtime Error" in stdout and "StringIO" in stdout and "buffer" in stdout
    with LocalExecutor(workers=1) as executor:
        [score] = score_rows(
            [fenced(correct)], [resolve_row(row_label(problem))], executor=executor
        )
    assert score.reward == 1.0


def test_lcb_tests_agree_with_the_recipes_taco_conversion():
    """A TACO/APPS label (``inputs``/``outputs``/``fn_name``) gives the tests the recipe's
    own ``taco_to_lcb_format`` (how ``code_env.py`` reads DeepCoder's TACO rows) gives."""
    stdio = {"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]}
    calls = {"inputs": [[[1, 2], 3], [[5], 5]], "outputs": [[1], [0]], "fn_name": "find"}
    ours = lcb_tests(stdio)
    theirs = code_grading.taco_to_lcb_format(stdio)
    assert [(t["input"], t["output"], t["testtype"]) for t in ours] == [
        (t["input"], t["output"], t["testtype"]) for t in theirs
    ]
    assert lcb_tests(calls) == [
        {"input": "[1, 2]\n3", "output": "1", "testtype": "functional",
         "metadata": {"func_name": "find"}},
        {"input": "[5]\n5", "output": "0", "testtype": "functional",
         "metadata": {"func_name": "find"}},
    ]  # fmt: skip


def test_rows_the_harness_cannot_judge_are_refused_with_a_reason():
    [problem] = load_bundled(["balanced-brackets"])
    with pytest.raises(ConfigError, match="`language` is 'cpp'"):
        lcb_tests(row_label(problem, language="cpp"))
    with pytest.raises(ConfigError, match="solver answer"):
        lcb_tests({"answer": 42.0})
    assert_test = {"kind": "assert", "id": "a", "code": "assert f()", "entry_point": "f"}
    asserting = type(problem).model_validate(
        {**problem.model_dump(mode="json"), "tests": [assert_test], "entry_point": "f"}
    )
    with pytest.raises(ConfigError, match="assert tests"):
        lcb_tests(asserting)


# -- (c) the recipe's client in other languages ------------------------------------------------

PROGRAMS = {
    "cpp": """#include <fstream>
#include <iostream>
int main() { std::ifstream in("in.txt"); long a, b; in >> a >> b; std::cout << a + b << "\\n"; }
""",
    "java": """import java.nio.file.*;
public class Main { public static void main(String[] x) throws Exception {
  String[] p = Files.readString(Path.of("in.txt")).trim().split(" ");
  System.out.println(Long.parseLong(p[0]) + Long.parseLong(p[1])); } }
""",
    "rust": """fn main() { let s = std::fs::read_to_string("in.txt").unwrap();
  let v: Vec<i64> = s.split_whitespace().map(|t| t.parse().unwrap()).collect();
  println!("{}", v[0] + v[1]); }
""",
    "go": """package main
import ("fmt"; "os")
func main() { f, _ := os.Open("in.txt"); var a, b int64; fmt.Fscan(f, &a, &b); fmt.Println(a + b) }
""",
    "nodejs": """const text = require("fs").readFileSync("in.txt", "utf8");
const [a, b] = text.trim().split(" ").map(Number);
console.log(a + b);
""",
}
BROKEN = {
    "cpp": "int main( {\n",
    "java": "class Main {",
    "rust": "fn main( {",
    "go": "package main\nfunc main( {",
}


def installed(language: str) -> bool:
    return probe("javascript" if language == "nodejs" else language).installed


@pytest.mark.parametrize("language", list(PROGRAMS))
def test_client_runs_other_languages_as_sandboxfusion_answers(server, language):
    if not installed(language):
        pytest.skip(f"{language}: {probe(language).why_not}")
    client = SandboxFusionClient(url=f"{server.url}/run_code")
    runs = [dict(code=PROGRAMS[language], files={"in.txt": "20 22"}, timeout=60, language=language)]
    if language in BROKEN:
        runs.append(dict(code=BROKEN[language], files={}, timeout=60, language=language))
    results = run_client(client, *runs)
    ok, response = results[0]
    assert ok is True, response
    assert (response["status"], response["run_result"]["stdout"]) == ("Success", "42\n")
    assert response["run_result"]["return_code"] == 0
    if language == "nodejs":
        assert response["compile_result"] is None
        return
    assert response["compile_result"]["return_code"] == 0
    failed, answer = results[1]
    assert failed is False and answer["status"] == "Failed" and answer["run_result"] is None
    assert answer["compile_result"]["status"] == "Finished"
    assert answer["compile_result"]["return_code"] != 0 and answer["compile_result"]["stderr"]
    assert answer["message"].startswith("compile_error")
    assert not inconclusive(answer)


# -- (d) concurrency, (e) a token in the URL ---------------------------------------------------


def test_eight_runs_at_once_through_a_client_of_concurrency_four(server, monkeypatch):
    monkeypatch.setenv("SANDBOX_URL", f"{server.url}/run_code")
    monkeypatch.setenv("SANDBOX_MAX_CONCURRENCY", "4")
    client = SandboxFusionClient()
    assert client._max_concurrency == 4
    code = "import time\ntime.sleep(0.2)\nprint(open('n.txt').read() * 2)"
    runs = [dict(code=code, files={"n.txt": str(i)}, timeout=10) for i in range(8)]
    results = run_client(client, *runs)
    assert [(ok, r["run_result"]["stdout"]) for ok, r in results] == [
        (True, f"{i}{i}\n") for i in range(8)
    ]


def test_a_token_reaches_the_server_only_through_sandbox_url(monkeypatch):
    token = secrets.token_urlsafe(16)
    with running_server(workers=1, token=token) as server:
        host = server.url.removeprefix("http://")
        urls = {
            "basic": f"http://execrl:{token}@{host}/run_code",
            "path": f"http://{host}/t/{token}/run_code",
            "none": f"http://{host}/run_code",
            "wrong": f"http://execrl:not-{token}@{host}/run_code",
        }
        answers = {}
        for form, url in urls.items():
            monkeypatch.setenv("SANDBOX_URL", url)
            [answers[form]] = run_client(
                SandboxFusionClient(), dict(code="print(6 * 7)", files={}, timeout=10)
            )
    for form in ("basic", "path"):
        ok, response = answers[form]
        assert (ok, response["run_result"]["stdout"]) == (True, "42\n")
    for form in ("none", "wrong"):
        ok, response = answers[form]
        assert ok is False and response["error"].startswith("HTTP 401")
        assert token not in response["error"] and inconclusive(response)


# -- timing, for docs/integrations.md ----------------------------------------------------------


def test_wall_time_of_twenty_gradings(recipe, capsys):
    """Prints the wall time of 20 ``sandbox_check_correctness`` calls (2 tests each): one
    after another, and gathered through the recipe's client (4 connections by default)."""
    start = time.perf_counter()
    for _ in range(20):
        [(passed, _)] = run_recipe(check(STDIN_ROW, SUM_GOOD))
        assert passed
    sequential_s = time.perf_counter() - start
    start = time.perf_counter()
    results = run_recipe(*(check(STDIN_ROW, SUM_GOOD) for _ in range(20)))
    gathered_s = time.perf_counter() - start
    assert all(passed for passed, _ in results)
    with capsys.disabled():
        print(
            f"\n20 sandbox_check_correctness calls via execrl serve ({os.cpu_count()} cores, "
            f"2 workers): {sequential_s:.2f} s one by one, {gathered_s:.2f} s gathered "
            f"({json.dumps(results[0][1]['run_result']['execution_time'])} s in the sandbox each)"
        )
