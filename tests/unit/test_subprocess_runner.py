from __future__ import annotations

import pytest

from execrl.problems import AssertTest, CallTest, Checker, StdioTest
from execrl.sandbox.records import Status
from execrl.sandbox.subprocess_runner import RunLimits, capture_stdout, run_test

ECHO_SUM = StdioTest(id="t", input="2 3\n", output="5\n")
FAST = RunLimits(timeout_s=5.0)


def verdict(code: str, test=ECHO_SUM, limits=FAST, checker=None):
    return run_test(code, test, limits=limits, checker=checker)


def test_success_and_wrong_answer():
    assert verdict("print(sum(map(int, input().split())))").status is Status.SUCCESS
    wrong = verdict("print(6)")
    assert wrong.status is Status.WRONG_ANSWER
    assert "got '6', expected '5'" in wrong.detail


def test_runtime_error_keeps_the_exception_line():
    result = verdict("raise ValueError('boom')")
    assert result.status is Status.RUNTIME_ERROR
    assert result.detail == "ValueError: boom"


def test_syntax_error_is_a_compile_error_without_running():
    result = verdict("def f(:\n")
    assert result.status is Status.COMPILE_ERROR
    assert result.cpu_s == 0.0


def test_timeout_kills_the_program():
    result = verdict("while True: pass", limits=RunLimits(timeout_s=0.5))
    assert result.status is Status.TIMEOUT
    assert 0.5 <= result.wall_s < 3.0


def test_memory_limit():
    result = verdict(
        "x = bytearray(600 * 1024 * 1024)", limits=RunLimits(timeout_s=5, memory_mb=300)
    )
    assert result.status is Status.MEMORY_LIMIT


def test_output_limit():
    result = verdict(
        "import sys\nwhile True: sys.stdout.write('x' * 65536)",
        limits=RunLimits(timeout_s=5, max_output_bytes=1 << 20),
    )
    assert result.status is Status.OUTPUT_LIMIT


def test_cpu_time_is_measured_from_outside():
    busy = verdict(
        "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\nprint(5)"
    )
    idle = verdict("import time\ntime.sleep(0.3)\nprint(5)")
    assert busy.status is idle.status is Status.SUCCESS
    assert busy.cpu_s >= 0.3
    assert idle.cpu_s < 0.2 and idle.wall_s >= 0.3


def test_environment_is_scrubbed():
    result, stdout = capture_stdout("import os\nprint(sorted(os.environ))", "")
    assert result.passed
    assert "HOME" not in stdout and "PYTHONPATH" not in stdout


def test_float_checker_is_applied():
    test = StdioTest(id="f", input="", output="0.333333\n")
    code = "print(1/3)"
    assert verdict(code, test).status is Status.WRONG_ANSWER
    assert verdict(code, test, checker=Checker(kind="float")).status is Status.SUCCESS


CALL = CallTest(id="c", fn_name="add", args=[2, 3], expected=5)


def test_call_test_compares_json_values():
    assert verdict("def add(a, b):\n    return a + b", CALL).status is Status.SUCCESS
    assert verdict("def add(a, b):\n    return a - b", CALL).status is Status.WRONG_ANSWER


def test_call_test_supports_leetcode_solution_classes():
    code = "class Solution:\n    def add(self, a, b):\n        return a + b\n"
    assert verdict(code, CALL).status is Status.SUCCESS


def test_call_test_output_on_stdout_does_not_interfere():
    code = "def add(a, b):\n    print('noise')\n    return a + b"
    assert verdict(code, CALL).status is Status.SUCCESS


def test_call_test_also_accept():
    wrapped = CallTest(id="c", fn_name="f", args=[], expected=3, also_accept=[[3]])
    assert verdict("def f():\n    return [3]", wrapped).status is Status.SUCCESS
    assert verdict("def f():\n    return 3", wrapped).status is Status.SUCCESS
    assert verdict("def f():\n    return [4]", wrapped).status is Status.WRONG_ANSWER


def test_call_test_rigged_equality_gains_nothing():
    code = "class E:\n    def __eq__(self, o):\n        return True\ndef add(a, b):\n    return E()"
    assert verdict(code, CALL).status is Status.RUNTIME_ERROR


def test_missing_function_is_a_runtime_error():
    result = verdict("def other(): pass", CALL)
    assert result.status is Status.RUNTIME_ERROR
    assert "does not define 'add'" in result.detail


CHECK = AssertTest(
    id="check", entry_point="inc", code="def check(candidate):\n    assert candidate(1) == 2\n"
)


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("def inc(x):\n    return x + 1", Status.SUCCESS),
        ("def inc(x):\n    return x", Status.RUNTIME_ERROR),
        # Exiting before the asserts run must not look like a pass.
        ("import sys\nsys.exit(0)\ndef inc(x):\n    return x", Status.RUNTIME_ERROR),
        ("import os\ndef inc(x):\n    os._exit(0)", Status.RUNTIME_ERROR),
    ],
)
def test_assert_tests(code, status):
    assert verdict(code, CHECK).status is status


def test_capture_stdout_returns_raw_output():
    result, out = capture_stdout("print('a  b')", "")
    assert result.passed and out == "a  b\n"
    failed, _ = capture_stdout("raise SystemExit(3)", "")
    assert failed.status is Status.RUNTIME_ERROR
