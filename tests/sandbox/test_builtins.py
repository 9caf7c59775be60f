"""The interpreter's ordinary built-ins behave as under ``python3 program.py`` (issue 15, part
5): the sandbox runs Python with ``-I -S``, so ``site`` never adds ``exit``/``quit``; the
sandbox defines them itself, and gives the program a script's globals (``__file__`` inside the
scratch directory, ``__spec__``/``__loader__`` None, ``sys.argv[0] == __file__``)."""

from __future__ import annotations

import pytest

from execrl.problems import AssertTest, CallTest, StdioTest
from execrl.sandbox.records import Status

ONE = StdioTest(id="t", input="", output="1\n")


@pytest.mark.parametrize(
    "ending",
    ["exit()", "quit()", "quit(0)", "exit(None)", "import sys\nsys.exit(0)", "raise SystemExit"],
)
def test_a_solution_that_ends_with_exit_is_accepted(executor, ending):
    result = executor.run(f"print(1)\n{ending}\nprint(2)\n", [ONE]).results[0]
    assert result.status is Status.SUCCESS, result.detail


def test_exit_with_a_code_or_message_is_a_runtime_error(executor):
    three = executor.run("print(1)\nexit(3)\n", [ONE]).results[0]
    assert three.status is Status.RUNTIME_ERROR and three.detail == "exit code 3"
    message = executor.run("print(1)\nquit('giving up')\n", [ONE]).results[0]
    assert message.status is Status.RUNTIME_ERROR and message.detail == "giving up"


def test_exit_and_quit_look_like_the_site_ones(executor):
    program = "print(repr(exit), repr(quit), callable(exit), 'exit' in dir(__builtins__))"
    hint = "Use {}() or Ctrl-D (i.e. EOF) to exit"
    expected = f"{hint.format('exit')} {hint.format('quit')} True True\n"
    test = StdioTest(id="t", input="", output=expected)
    result = executor.run(program, [test]).results[0]
    assert result.status is Status.SUCCESS, result.detail


def test_a_scripts_globals(executor):
    program = (
        "import sys, os\n"
        "print(__name__, __file__, __spec__, __loader__, __package__, __doc__)\n"
        "print(sys.argv == [__file__], os.path.dirname(__file__) == os.getcwd())\n"
        "print(type(__builtins__).__name__, __builtins__.__name__)\n"
    )
    expected = "__main__ /tmp/run/program.py None None None None\nTrue True\nmodule builtins\n"
    result = executor.run(program, [StdioTest(id="t", input="", output=expected)]).results[0]
    assert result.status is Status.SUCCESS, result.detail


def test_the_same_globals_in_call_and_assert_tests(executor):
    program = "def f():\n    return [__name__, __file__, callable(quit)]\n"
    expected = ["__main__", "/tmp/run/program.py", True]
    call = CallTest(id="c", fn_name="f", args=[], expected=expected)
    assert executor.run(program, [call]).results[0].status is Status.SUCCESS
    check = AssertTest(id="a", entry_point="f", code=f"assert f() == {expected!r}\n")
    result = executor.run(program, [check]).results[0]
    assert result.status is Status.SUCCESS, result.detail


def test_exit_inside_the_function_under_test_is_not_a_pass(executor):
    check = AssertTest(id="a", entry_point="f", code="assert f() == 1\n")
    result = executor.run("def f():\n    exit(0)\n", [check]).results[0]
    assert result.status is Status.RUNTIME_ERROR
    assert "stopped while serving a call" in result.detail
