"""Issue 33, item 6: ``multiprocessing`` with the spawn and forkserver methods works inside the
sandbox as under ``python3 prog.py``, and the interpreters it starts stay inside the
program's limits and accounting.

A spawned interpreter is a fresh ``sys.executable`` that re-runs ``__main__.__file__`` (as
``__mp_main__``) to find the program's functions: the sandbox's ``sys.executable`` is the
real interpreter (not a virtualenv's link, which is not in the sandbox's root), and the
program's file is written to scratch, read-only, when ``multiprocessing`` asks for it. Every
case is bounded by the program's CPU limit and a wall bound on the test itself.
"""

from __future__ import annotations

import os
import textwrap
import uuid
from pathlib import Path

import pytest

from execrl.problems import StdioTest
from execrl.sandbox.isolation import SandboxConfig, probe
from execrl.sandbox.limits import Limits
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.records import Status

LIMITS = Limits(cpu_time_s=10.0, memory_mb=256)
NEEDS_CPU_CGROUP = pytest.mark.skipif(
    probe().cpu_cgroup is None, reason="no cpu cgroup here: CPU is RUSAGE_CHILDREN (degraded)"
)
START_METHODS = pytest.mark.parametrize("method", ["spawn", "forkserver"])

POOL = """
import multiprocessing as mp
def square(x):
    return x * x
if __name__ == "__main__":
    with mp.get_context("{method}").Pool(2) as pool:
        print(sum(pool.map(square, range(10))))
"""


@pytest.fixture(scope="module")
def executor():
    with LocalExecutor(workers=1, config=SandboxConfig(strict=False)) as executor:
        yield executor


def run(executor: LocalExecutor, program: str, output: str = "", limits: Limits = LIMITS):
    """The one test's result of ``program`` (dedented) with empty stdin."""
    test = StdioTest(id="t", input="", output=output)
    return executor.run(textwrap.dedent(program), [test], limits).results[0]


@START_METHODS
def test_a_pool_works_as_under_python3(executor, method):
    result = run(executor, POOL.format(method=method), "285\n")
    assert result.status is Status.SUCCESS, result.detail


@START_METHODS
def test_a_process_re_runs_the_program_as_mp_main(executor, method):
    program = f"""
    import multiprocessing as mp
    def name(queue):
        queue.put(__name__)
    if __name__ == "__main__":
        ctx = mp.get_context("{method}")
        queue = ctx.Queue()
        child = ctx.Process(target=name, args=(queue,))
        child.start()
        print(queue.get(timeout=60))
        child.join()
        print(child.exitcode)
    """
    result = run(executor, program, "__mp_main__\n0\n")
    assert result.status is Status.SUCCESS, result.detail


def test_the_program_file_appears_only_when_a_spawn_needs_it_and_is_read_only(executor):
    program = """
    import multiprocessing as mp, os, stat, sys
    print(os.listdir("."), flush=True)
    if __name__ == "__main__":
        main = sys.modules["__main__"]
        with mp.get_context("spawn").Pool(1) as pool:
            pool.map(abs, [1])
        mode = stat.S_IMODE(os.stat(main.__file__).st_mode)
        print(os.listdir("."), oct(mode), os.path.isfile(sys.executable))
    """
    # the spawned interpreter re-runs the program too: its own line comes between ours
    expected = "[]\n['program.py']\n['program.py'] 0o444 True\n"
    result = run(executor, program, expected)
    assert result.status is Status.SUCCESS, result.detail
    assert run(executor, "import os\nprint(os.listdir('.'))", "[]\n").passed  # gone after


@NEEDS_CPU_CGROUP
@START_METHODS
def test_spawned_interpreters_are_charged_their_cpu(executor, method):
    program = f"""
    import multiprocessing as mp, time
    def burn(s):
        t = time.process_time()
        while time.process_time() - t < s:
            pass
        return 1
    if __name__ == "__main__":
        with mp.get_context("{method}").Pool(2) as pool:
            print(sum(pool.map(burn, [0.4, 0.4], chunksize=1)))
    """
    result = run(executor, program, "2\n")
    assert result.status is Status.SUCCESS, result.detail
    assert result.cpu_s >= 0.75, result  # the parent itself burns nothing


@START_METHODS
def test_the_cpu_limit_holds_spawned_interpreters(executor, method):
    program = f"""
    import multiprocessing as mp
    def spin():
        while True:
            pass
    if __name__ == "__main__":
        ctx = mp.get_context("{method}")
        children = [ctx.Process(target=spin) for _ in range(2)]
        for child in children:
            child.start()
        for child in children:
            child.join()
    """
    result = run(executor, program, limits=Limits(cpu_time_s=1.0, memory_mb=256))
    assert result.status is Status.TIMEOUT, result.detail
    assert result.wall_s < 30, result


def test_the_process_limit_holds_spawned_interpreters(executor):
    program = """
    import multiprocessing as mp, time
    if __name__ == "__main__":
        started = 0
        try:
            for _ in range(12):
                mp.get_context("spawn").Process(target=time.sleep, args=(30,), daemon=True).start()
                started += 1
        except OSError as exc:
            print(type(exc).__name__)
        print(started < 12)
    """
    limits = Limits(cpu_time_s=5.0, memory_mb=256, max_processes=4)
    result = run(executor, program, "BlockingIOError\nTrue\n", limits)
    assert result.status is Status.SUCCESS, result.detail


def test_the_memory_limit_holds_spawned_interpreters(executor):
    program = """
    import multiprocessing as mp
    def hog():
        block = bytearray(300 << 20)
        for i in range(0, len(block), 4096):
            block[i] = 1
    if __name__ == "__main__":
        child = mp.get_context("spawn").Process(target=hog)
        child.start()
        child.join()
        print(child.exitcode != 0)
    """
    result = run(executor, program, "True\n", Limits(cpu_time_s=5.0, memory_mb=64))
    assert result.status is Status.SUCCESS, result.detail


def _host_processes_marked(mark: bytes) -> list[int]:
    """Host pids whose environment holds ``mark`` (the spawned interpreters inherit it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@START_METHODS
def test_spawned_interpreters_never_outlive_the_test(executor, method):
    mark = f"EXECRL_SPAWN_MARK={uuid.uuid4().hex}"
    name, value = mark.split("=")
    program = f"""
    import multiprocessing as mp, os, time
    if __name__ == "__main__":
        os.environ["{name}"] = "{value}"
        child = mp.get_context("{method}").Process(target=time.sleep, args=(600,))
        child.start()
        print(child.is_alive(), flush=True)
        os._exit(0)  # no join: the sleeper (and the forkserver) would be orphans
    """
    result = run(executor, program, "True\n")
    assert result.status is Status.SUCCESS, result.detail
    assert result.wall_s < 60, result
    if os.geteuid() == 0:  # (another uid's environ is readable by root only)
        assert _host_processes_marked(mark.encode()) == []
    look = "import os\nprint([p for p in os.listdir('/proc') if p.isdigit()] == [str(os.getpid())])"
    assert run(executor, look, "True\n").passed
