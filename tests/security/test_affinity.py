"""A program cannot leave its worker's core: sched_setaffinity is refused by seccomp, so a
program cannot widen its affinity onto a neighbour's timed core. What programs commonly do
around affinity (read it, count CPUs, start a multiprocessing pool) still works."""

from __future__ import annotations

import os
import textwrap

import pytest

from execrl.problems import StdioTest
from execrl.sandbox.isolation import probe
from execrl.sandbox.limits import Limits
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.records import Status

pytestmark = pytest.mark.skipif(not probe().seccomp, reason="needs seccomp")

CORE = sorted(os.sched_getaffinity(0))[0]

WIDEN = """
    import os
    before = sorted(os.sched_getaffinity(0))
    try:
        os.sched_setaffinity(0, range(os.cpu_count()))
        outcome = "changed"
    except PermissionError:
        outcome = "refused"
    try:
        os.sched_setaffinity(0, {before[0]})  # even narrowing (to the same core) is refused
        narrow = "changed"
    except PermissionError:
        narrow = "refused"
    print(outcome, narrow, before, sorted(os.sched_getaffinity(0)))
"""


@pytest.fixture(scope="module")
def pinned():
    with LocalExecutor(workers=1, cores=[CORE]) as pool:
        yield pool


def run(executor, code: str, output: str):
    test = StdioTest(id="t", input="", output=output)
    return executor.run(textwrap.dedent(code), [test], Limits(cpu_time_s=5)).results[0]


def test_a_program_cannot_widen_its_affinity(pinned):
    result = run(pinned, WIDEN, f"refused refused [{CORE}] [{CORE}]\n")
    assert result.passed, result.detail


def test_a_child_thread_or_process_cannot_either(pinned):
    code = """
        import os, threading
        errors = []
        def widen():
            try:
                os.sched_setaffinity(0, range(os.cpu_count()))
            except PermissionError:
                errors.append("thread")
        t = threading.Thread(target=widen)
        t.start()
        t.join()
        pid = os.fork()
        if pid == 0:
            try:
                os.sched_setaffinity(0, range(os.cpu_count()))
                os._exit(0)
            except PermissionError:
                os._exit(7)
        _, status = os.waitpid(pid, 0)
        print(errors, os.waitstatus_to_exitcode(status), sorted(os.sched_getaffinity(0)))
    """
    assert run(pinned, code, f"['thread'] 7 [{CORE}]\n").passed


def test_reading_the_affinity_and_a_process_pool_still_work(pinned):
    code = """
        import os
        from multiprocessing import Pool
        if __name__ == "__main__":
            with Pool(2) as pool:
                print(sum(pool.map(abs, [-2, -3])), len(os.sched_getaffinity(0)))
    """
    for _ in range(8):  # (terminate() used to hang on workers now and then)
        result = run(pinned, code, "5 1\n")
        assert result.status is Status.SUCCESS, result.detail
