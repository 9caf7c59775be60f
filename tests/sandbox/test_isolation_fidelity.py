"""What a judge sees of a program: exceptions in threads, the program's own stderr when it
dies, every repeat's output, and packages made importable with ``extra_site_paths``."""

from __future__ import annotations

import argparse
import subprocess
import sys
import textwrap

import pytest

from execrl.problems import CallTest, StdioTest
from execrl.sandbox.isolation import SandboxConfig, current_site_packages
from execrl.sandbox.limits import ExecutionOptions, Limits
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.records import Status

FIVE = StdioTest(id="t", input="", output="5\n")
QUICK = Limits(cpu_time_s=5.0, memory_mb=512)


def run(executor, code, test=FIVE, limits=QUICK, options=None):
    record = executor.run(textwrap.dedent(code), [test], limits, options=options)
    return record.results[0]


# -- exceptions in threads --------------------------------------------------------------------


def test_a_stack_overflow_in_a_big_stack_thread_is_a_runtime_error(executor):
    code = """
        import sys, threading
        sys.setrecursionlimit(10**6)
        threading.stack_size(64 * 1024 * 1024)
        def depth(n):
            return depth(n + 1)
        def main():
            print(5)
            depth(0)
        t = threading.Thread(target=main)
        t.start()
        t.join()
    """
    result = run(executor, code)
    assert result.status is Status.RUNTIME_ERROR, result
    assert "RecursionError: maximum recursion depth exceeded" in result.detail
    assert result.detail.startswith("uncaught exception in thread Thread-1 (main)")


def test_an_exception_in_a_thread_fails_the_run_even_after_the_right_output(executor):
    code = """
        import threading
        def work():
            raise ValueError("boom")
        print(5)
        threading.Thread(target=work).start()
    """
    result = run(executor, code)
    assert result.status is Status.RUNTIME_ERROR
    assert result.detail.endswith("ValueError: boom"), result.detail


def test_an_exception_in_a_thread_fails_the_run_even_if_main_exits_0(executor):
    code = """
        import sys, threading
        t = threading.Thread(target=lambda: 1 / 0)
        t.start()
        t.join()
        print(5)
        sys.exit(0)
    """
    result = run(executor, code)
    assert result.status is Status.RUNTIME_ERROR
    assert result.detail.endswith("ZeroDivisionError: division by zero"), result.detail


def test_an_exception_in_a_thread_fails_a_call_test(executor):
    code = """
        import threading
        def f(x):
            threading.Thread(target=lambda: 1 / 0).start()
            return x
    """
    result = run(executor, code, CallTest(id="c", fn_name="f", args=[5], expected=5))
    assert result.status is Status.RUNTIME_ERROR
    assert "ZeroDivisionError" in result.detail


def test_threads_that_exit_or_are_handled_are_not_errors(executor):
    code = """
        import sys, threading
        threading.excepthook = lambda args: None  # the program handles its threads itself
        threading.Thread(target=lambda: 1 / 0).start()
        threading.Thread(target=sys.exit).start()
        print(5)
    """
    assert run(executor, code).passed
    assert run(
        executor, "import threading\nthreading.Thread(target=print, args=(5,)).start()"
    ).passed


def test_a_thread_failure_does_not_leak_into_the_next_run(executor):
    failing = "import threading\nthreading.Thread(target=lambda: 1 / 0).start()\nprint(5)"
    assert run(executor, failing).status is Status.RUNTIME_ERROR
    assert run(executor, "print(5)").passed


def test_a_program_starts_with_pythons_own_signal_dispositions(executor):
    """The zygote ignores SIGINT and SIGTERM; a program must not inherit that (a worker of
    multiprocessing.Pool ignoring terminate()'s SIGTERM hung the pool)."""
    code = """
        import signal
        print(signal.getsignal(signal.SIGTERM) is signal.SIG_DFL,
              signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    """
    assert run(executor, code, StdioTest(id="s", input="", output="True True\n")).passed


# -- the program's own stderr in the verdict -------------------------------------------------


def test_a_signal_death_keeps_the_programs_last_stderr_line(executor):
    code = """
        import os, signal, sys
        print("about to crash", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGSEGV)
    """
    result = run(executor, code)
    assert result.status is Status.RUNTIME_ERROR
    assert result.detail == "killed by SIGSEGV; stderr: about to crash"


def test_a_timeout_keeps_the_programs_last_stderr_line(executor):
    code = """
        import sys
        print("stuck in phase 2", file=sys.stderr, flush=True)
        while True: pass
    """
    result = run(executor, code, limits=Limits(cpu_time_s=0.3))
    assert result.status is Status.TIMEOUT
    assert result.detail == "CPU time limit 0.3 s exceeded; stderr: stuck in phase 2"


def test_the_error_after_a_flood_of_stderr_is_kept(executor):
    code = """
        import sys
        for i in range(20000):
            print("noise", i, file=sys.stderr)
        raise ValueError("the real error")
    """
    result = run(executor, code)
    assert result.status is Status.RUNTIME_ERROR
    assert result.detail == "ValueError: the real error"


def test_a_memory_limit_keeps_the_programs_message(executor):
    code = "x = bytearray(600 * 1024**2)"
    result = run(executor, code, limits=Limits(cpu_time_s=5, memory_mb=100))
    assert result.status is Status.MEMORY_LIMIT and result.detail == "MemoryError"


def test_a_runtime_error_names_the_exception(executor):
    result = run(executor, "import not_a_module_anywhere")
    assert result.status is Status.RUNTIME_ERROR
    assert result.detail == "ModuleNotFoundError: No module named 'not_a_module_anywhere'"


# -- repeats ---------------------------------------------------------------------------------

RANDOM_ANSWER = "import random\nprint(random.choice([5, 6]))"
"""Right half of the time: over 16 repeats it is wrong at least once (all but 2^-16)."""


def test_every_repeat_is_judged(executor):
    result = run(executor, RANDOM_ANSWER, options=ExecutionOptions(repeats=16))
    assert result.status is Status.WRONG_ANSWER, result
    assert result.outputs_differ
    assert "got '6', expected '5'" in result.detail


def test_equal_repeats_pass_and_do_not_differ(executor):
    result = run(executor, "print(5)", options=ExecutionOptions(repeats=4))
    assert result.passed and not result.outputs_differ and len(result.repeats) == 4


def test_a_call_test_returning_a_random_value_is_judged_on_every_repeat(executor):
    code = "import random\ndef f(x):\n    return random.choice([x, x + 1])"
    test = CallTest(id="c", fn_name="f", args=[5], expected=5)
    result = run(executor, code, test, options=ExecutionOptions(repeats=16))
    assert result.status is Status.WRONG_ANSWER and result.outputs_differ


def test_a_later_repeat_that_crashes_fails_the_test(executor):
    code = """
        import random
        if random.random() < 0.5:
            raise ValueError("unlucky")
        print(5)
    """
    result = run(executor, code, options=ExecutionOptions(repeats=16))
    assert result.status is Status.RUNTIME_ERROR
    assert result.detail.endswith("ValueError: unlucky")


# -- extra site paths ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def with_site_packages():
    pytest.importorskip("sortedcontainers")
    config = SandboxConfig(extra_site_paths=current_site_packages())
    with LocalExecutor(workers=1, config=config) as pool:
        yield pool


SORTED = "from sortedcontainers import SortedList\nprint(SortedList([5, 1, 3])[-1])"


def test_extra_site_paths_make_packages_importable(with_site_packages):
    assert run(with_site_packages, SORTED).passed
    numpy = "import numpy\nprint(int(numpy.arange(3).sum()) + 2)"
    assert run(with_site_packages, numpy).passed


def test_without_extra_site_paths_the_package_is_missing(executor):
    result = run(executor, SORTED)
    assert result.status is Status.RUNTIME_ERROR
    assert result.detail == "ModuleNotFoundError: No module named 'sortedcontainers'"


def test_extra_site_paths_are_read_only(with_site_packages):
    code = """
        import os, sortedcontainers
        target = os.path.join(os.path.dirname(sortedcontainers.__file__), "planted.py")
        try:
            open(target, "w").write("x = 1")
        except OSError as exc:
            print(5 if exc.errno == 30 else exc)  # EROFS
    """
    assert run(with_site_packages, code).passed


def test_extra_site_paths_must_be_directories(tmp_path):
    with pytest.raises(ValueError, match="not a directory"):
        SandboxConfig(extra_site_paths=(str(tmp_path / "missing"),))


def test_the_cli_flag_builds_the_config(monkeypatch, tmp_path):
    from execrl.cli._executor import SITE_PATHS_ENV, add_sandbox_arguments, sandbox_config
    from execrl.errors import ExecrlError

    parser = add_sandbox_arguments(argparse.ArgumentParser())
    monkeypatch.setenv(SITE_PATHS_ENV, str(tmp_path))
    config = sandbox_config(parser.parse_args(["--site-path", "@current"]), strict=False)
    assert config.extra_site_paths == (str(tmp_path.resolve()), *current_site_packages())
    assert not config.strict
    monkeypatch.delenv(SITE_PATHS_ENV)
    with pytest.raises(ExecrlError, match="--site-path: extra site path"):
        sandbox_config(parser.parse_args(["--site-path", str(tmp_path / "nope")]))


def test_execrl_run_takes_site_paths(built_sum_problem_dir, tmp_path):
    pytest.importorskip("sortedcontainers")
    program = tmp_path / "sorted.py"
    program.write_text(
        "from sortedcontainers import SortedList\ninput()\n"
        "print(sum(SortedList(map(int, input().split()))))\n"
    )
    argv = [sys.executable, "-m", "execrl.cli.main", "run", "sum-list", str(program)]
    argv += ["--source", str(built_sum_problem_dir.parent), "--group", "original"]
    with_site = subprocess.run([*argv, "--site-path", "@current"], capture_output=True, text=True)
    assert with_site.returncode == 0, with_site.stdout + with_site.stderr
    assert "limits: CPU 2 s, wall-clock 6 s" in with_site.stdout
    without = subprocess.run(argv, capture_output=True, text=True)
    assert without.returncode == 1 and "ModuleNotFoundError" in without.stdout
