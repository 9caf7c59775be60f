"""The CPU-time and wall-clock limits as a judge states them: which one stops a program, what
the verdict says, and that load on the core does not turn a correct program into a timeout.

Timing margins are generous (the machine running these is shared and noisy); every program
is bounded by its limits, so no test can hang.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from execrl.problems import StdioTest
from execrl.problems.models import Problem
from execrl.sandbox.limits import Limits
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import ExecutionRecord, Status, load_records, save_records

FIVE = StdioTest(id="t", input="", output="5\n")
ONE_S = Limits(cpu_time_s=1.0, memory_mb=256)


def run(executor, code, limits=ONE_S):
    return executor.run(textwrap.dedent(code), [FIVE], limits).results[0]


def burn(seconds: float) -> str:
    """A program that uses ``seconds`` of its own CPU time, then prints 5."""
    return (
        "import time\nt = time.process_time()\n"
        f"while time.process_time() - t < {seconds}: pass\nprint(5)\n"
    )


def test_limits_name_both_clocks_and_default_the_wall_limit():
    assert Limits(timeout_s=2).cpu_time_s == 2  # the old name is the CPU limit now
    assert Limits(cpu_time_s=2).timeout_s == 2
    assert Limits(cpu_time_s=1).wall_limit_s == 3  # max(3 × cpu, cpu + 2)
    assert Limits(cpu_time_s=0.5).wall_limit_s == 2.5
    assert Limits(cpu_time_s=10).wall_limit_s == 30
    assert Limits(cpu_time_s=1, wall_time_s=1.5).wall_limit_s == 1.5
    assert Limits(cpu_time_s=1).resolved().wall_time_s == 3
    assert Limits().model_copy(update={"timeout_s": 1.5}).cpu_time_s == 1.5  # old name too


def test_a_busy_loop_is_stopped_at_its_cpu_limit(executor):
    result = run(executor, "while True: pass")
    assert result.status is Status.TIMEOUT and result.limit_hit == "cpu"
    assert result.detail == "CPU time limit 1 s exceeded"
    assert 0.95 <= result.cpu_s < 1.5, result


def test_the_cpu_limit_has_sub_second_precision(executor):
    """0.3 s: far below RLIMIT_CPU's whole second, so the supervisor stopped it."""
    result = run(executor, "while True: pass", Limits(cpu_time_s=0.3, memory_mb=256))
    assert result.status is Status.TIMEOUT and result.limit_hit == "cpu"
    assert result.detail == "CPU time limit 0.3 s exceeded"
    assert 0.28 <= result.cpu_s < 0.7, result


def test_a_program_ignoring_sigxcpu_is_still_stopped(executor):
    code = """
        import signal
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        while True: pass
    """
    result = run(executor, code)
    assert result.status is Status.TIMEOUT and result.limit_hit == "cpu"
    assert result.cpu_s < 2.5, result


def test_threads_burning_cpu_in_parallel_count_together(executor):
    code = """
        import threading
        def spin():
            while True: pass
        for _ in range(3):
            threading.Thread(target=spin, daemon=True).start()
        spin()
    """
    result = run(executor, code)
    assert result.status is Status.TIMEOUT and result.limit_hit == "cpu"
    assert result.cpu_s < 2.0, result


def test_cpu_of_child_processes_counts_against_the_limit(executor):
    """Two children of 0.7 s each: neither reaches the per-process RLIMIT_CPU, but the run's
    CPU time (every process it started) is 1.4 s > 1 s."""
    code = """
        import os, time
        pids = []
        for _ in range(2):
            pid = os.fork()
            if pid == 0:
                t = time.process_time()
                while time.process_time() - t < 0.7: pass
                os._exit(0)
            pids.append(pid)
        for pid in pids:
            os.waitpid(pid, 0)
        print(5)
    """
    result = run(executor, code)
    assert result.status is Status.TIMEOUT and result.limit_hit == "cpu", result
    assert result.cpu_s > 1.0


def test_a_sleeping_program_is_stopped_by_the_wall_limit(executor):
    result = run(executor, "import time\ntime.sleep(10)\nprint(5)")
    assert result.status is Status.TIMEOUT and result.limit_hit == "wall"
    assert result.detail == "wall-clock limit 3 s exceeded"
    assert 2.9 <= result.wall_s < 5.0 and result.cpu_s < 0.5, result


def test_an_explicit_wall_limit_is_used(executor):
    limits = Limits(cpu_time_s=1.0, wall_time_s=0.5, memory_mb=256)
    result = run(executor, "import time\ntime.sleep(3)\nprint(5)", limits)
    assert result.status is Status.TIMEOUT and result.limit_hit == "wall"
    assert result.detail == "wall-clock limit 0.5 s exceeded"
    assert result.wall_s < 2.0


def test_a_program_under_its_cpu_limit_passes(executor):
    result = run(executor, burn(0.5))
    assert result.passed and result.limit_hit is None and result.detail == ""


def test_a_correct_program_on_a_shared_core_passes_under_its_cpu_limit():
    """A busy hog pinned to the worker's core halves the program's share of it: 0.9 s of CPU
    takes ~1.8 s of wall time, which the old wall-clock-only limit called a timeout."""
    core = sorted(os.sched_getaffinity(0))[-1]
    hog_code = (
        f"import os, time\nos.sched_setaffinity(0, {{{core}}})\nt = time.time()\n"
        "while time.time() - t < 30: pass\n"
    )
    hog = subprocess.Popen([sys.executable, "-c", hog_code])
    try:
        with LocalExecutor(workers=1, cores=[core]) as executor:
            result = run(executor, burn(0.9))
    finally:
        hog.kill()
        hog.wait()
    assert result.passed, result
    assert result.cpu_s < 1.0
    assert result.wall_s > 1.0, "the hog did not share the core"


def test_every_record_states_its_limits(executor, tmp_path):
    record = executor.run("print(5)", [FIVE], ONE_S)
    assert record.limits is not None
    assert (record.limits.cpu_time_s, record.limits.wall_time_s) == (1.0, 3.0)
    stopped = executor.run("while True: pass", [FIVE], ONE_S)
    (loaded,) = load_records(save_records([stopped], tmp_path / "r.jsonl"))
    assert loaded.limits == stopped.limits and loaded.results[0].limit_hit == "cpu"
    old_row = {"problem_id": "p", "program_sha256": "x", "results": []}
    assert ExecutionRecord.model_validate(old_row).limits is None  # records from before


def test_a_problems_time_limit_is_the_cpu_limit():
    problem = Problem(id="p", title="p", statement="", time_limit_s=2.0, tests=[FIVE])
    limits = ExecutionRequest.for_problem(problem, "print(5)").limits
    assert (limits.cpu_time_s, limits.wall_limit_s) == (2.0, 6.0)
