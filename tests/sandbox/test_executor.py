# ruff: noqa: E501
"""The sandbox executor on real programs: verdicts, timing, repeats, pool and degradation."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal

import pytest

from execrl.problems import AssertTest, CallTest, Checker, StdioTest
from execrl.sandbox import forkserver as forkserver_module
from execrl.sandbox.forkserver import ForkServer, SandboxUnavailable
from execrl.sandbox.isolation import SandboxConfig, probe
from execrl.sandbox.limits import ExecutionOptions, Limits
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import Status

ECHO_SUM = StdioTest(id="t", input="2 3\n", output="5\n")
QUICK = Limits(timeout_s=5.0, memory_mb=256)


def verdict(executor, code, test=ECHO_SUM, limits=QUICK, checker=None, options=None):
    record = executor.run(code, [test], limits, checker=checker, options=options)
    return record.results[0]


def test_success_wrong_answer_and_details(executor):
    assert verdict(executor, "print(sum(map(int, input().split())))").status is Status.SUCCESS
    wrong = verdict(executor, "print(6)")
    assert wrong.status is Status.WRONG_ANSWER and "got '6', expected '5'" in wrong.detail
    crash = verdict(executor, "raise ValueError('boom')")
    assert crash.status is Status.RUNTIME_ERROR and crash.detail == "ValueError: boom"
    syntax = verdict(executor, "def f(:\n")
    assert syntax.status is Status.COMPILE_ERROR and "SyntaxError" in syntax.detail


def test_limits(executor):
    assert (
        verdict(executor, "while True: pass", limits=Limits(timeout_s=0.5)).status is Status.TIMEOUT
    )
    assert (
        verdict(executor, "x = bytearray(600 * 1024**2)", limits=Limits(memory_mb=300)).status
        is Status.MEMORY_LIMIT
    )
    flood = "import sys\nwhile True: sys.stdout.write('x' * 65536)"
    assert (
        verdict(executor, flood, limits=Limits(max_output_bytes=1 << 20)).status
        is Status.OUTPUT_LIMIT
    )


def test_each_test_gets_its_own_limits_even_from_a_child_forked_ahead(executor):
    """The child for the next test is forked before that test arrives, with the last limits:
    a test with other limits must get a child with *its* limits, in either direction."""
    hog = "x = bytearray(200 * 1024**2)\nprint(5)"
    roomy, tight = Limits(memory_mb=400), Limits(memory_mb=100)
    for limits, expected in ((roomy, Status.SUCCESS), (tight, Status.MEMORY_LIMIT)) * 2:
        assert verdict(executor, hog, limits=limits).status is expected
    for wall_s, expected in ((0.3, Status.TIMEOUT), (5.0, Status.SUCCESS)):
        sleeper = "import time\ntime.sleep(1)\nprint(5)"
        limits = Limits(cpu_time_s=5.0, wall_time_s=wall_s)
        assert verdict(executor, sleeper, limits=limits).status is expected


def test_cpu_time_is_measured_outside_and_excludes_startup(executor):
    busy = verdict(
        executor,
        "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\nprint(5)",
    )
    idle = verdict(executor, "import time\ntime.sleep(0.3)\nprint(5)")
    trivial = verdict(executor, "print(5)")
    assert busy.cpu_s >= 0.3
    assert idle.cpu_s < 0.1 <= 0.3 <= idle.wall_s
    assert trivial.cpu_s < 0.02  # no interpreter start-up, no compilation in the timed part


def test_programs_get_a_fresh_process_per_test(executor):
    code = "import math\nprint(getattr(math, 'seen', 'fresh'))\nmath.seen = 'stale'"
    record = executor.run(
        code, [StdioTest(id=f"t{i}", input="", output="fresh\n") for i in range(3)], QUICK
    )
    assert record.all_passed


def test_thread_main_idiom_is_waited_for(executor):
    code = "import threading\ndef main():\n    print(sum(map(int, input().split())))\nthreading.Thread(target=main).start()"
    assert verdict(executor, code).status is Status.SUCCESS


def test_float_checker(executor):
    test = StdioTest(id="f", input="", output="0.333333\n")
    assert verdict(executor, "print(1/3)", test).status is Status.WRONG_ANSWER
    assert (
        verdict(executor, "print(1/3)", test, checker=Checker(kind="float")).status
        is Status.SUCCESS
    )


CALL = CallTest(id="c", fn_name="add", args=[2, 3], expected=5)


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("def add(a, b):\n    return a + b", Status.SUCCESS),
        ("def add(a, b):\n    return a - b", Status.WRONG_ANSWER),
        ("class Solution:\n    def add(self, a, b):\n        return a + b", Status.SUCCESS),
        ("def add(a, b):\n    print('noise')\n    return a + b", Status.SUCCESS),
        ("def other(): pass", Status.RUNTIME_ERROR),
        ("def add(a, b):\n    return object()", Status.WRONG_ANSWER),
    ],
)
def test_call_tests(executor, code, status):
    assert verdict(executor, code, CALL).status is status


def test_call_values_keep_their_shape(executor):
    test = CallTest(
        id="c", fn_name="f", args=[[1, 2], {"k": None}], expected=[[2, 1], {"k": None}, 1.5]
    )
    assert (
        verdict(executor, "def f(xs, d):\n    return (xs[::-1], d, 1.5)", test).status
        is Status.SUCCESS
    )
    wrapped = CallTest(id="w", fn_name="f", args=[], expected=3, also_accept=[[3]])
    assert verdict(executor, "def f():\n    return [3]", wrapped).status is Status.SUCCESS


CHECK = AssertTest(
    id="check", entry_point="inc", code="def check(candidate):\n    assert candidate(1) == 2\n"
)


def test_assert_tests(executor):
    assert verdict(executor, "def inc(x):\n    return x + 1", CHECK).status is Status.SUCCESS
    assert verdict(executor, "def inc(x):\n    return x", CHECK).status is Status.WRONG_ANSWER
    helper = ExecutionRequest(
        program="def inc(x):\n    return double(x) - x + 1",
        tests=[CHECK],
        starter_code="def double(x):\n    return 2 * x\n",
    )
    # The starter code is trusted prelude for the checker only; the program must define its own.
    assert executor.execute(helper).results[0].status is Status.RUNTIME_ERROR


def test_repeats_report_median_and_spread(executor):
    result = verdict(executor, "print(5)", options=ExecutionOptions(repeats=5))
    assert len(result.repeats) == 5
    cpus = sorted(t.cpu_s for t in result.repeats)
    assert result.cpu_s == cpus[2]
    assert result.spread_s() == pytest.approx(cpus[-1] - cpus[0])


def test_intended_limit_is_applied_after_execution(executor):
    slow = (
        "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.2: pass\nprint(5)"
    )
    result = verdict(executor, slow, options=ExecutionOptions(intended_limit_s=0.1))
    assert result.status is Status.TIMEOUT
    assert result.cpu_s >= 0.2 and "intended" in result.detail
    assert verdict(executor, "print(5)", options=ExecutionOptions(intended_limit_s=0.1)).passed


def test_stop_at_first_failure(executor):
    tests = [StdioTest(id=f"t{i}", input="", output="1\n" if i != 1 else "2\n") for i in range(4)]
    record = executor.run(
        "print(1)", tests, QUICK, options=ExecutionOptions(stop_at_first_failure=True)
    )
    assert [r.test_id for r in record.results] == ["t0", "t1"]


def test_batch_keeps_request_order_and_records_isolation(executor):
    requests = [
        ExecutionRequest(
            program=f"print({i})", tests=[StdioTest(id="t", input="", output=f"{i}\n")]
        )
        for i in range(6)
    ]
    records = list(executor.run_batch(requests, progress=False))
    assert all(r.all_passed for r in records)
    assert [r.program_sha256 for r in records] == [
        __import__("hashlib").sha256(f"print({i})".encode()).hexdigest() for i in range(6)
    ]
    assert {"network-namespace", "seccomp", "readonly-root"} <= set(records[0].isolation)
    assert records[0].backend == "local-forkserver"


def test_reserving_a_host_core_pins_the_caller_only_while_open():
    before = os.sched_getaffinity(0)
    if len(before) < 2:
        pytest.skip("needs two cores")
    with LocalExecutor(workers=1, reserve_host_core=True) as executor:
        assert os.sched_getaffinity(0) == {min(before)}
        assert executor.cores == sorted(before)[1:]
    assert os.sched_getaffinity(0) == before


def test_asyncio_interface(executor):
    async def main():
        request = ExecutionRequest(
            program="print(5)", tests=[StdioTest(id="t", input="", output="5\n")]
        )
        single = await executor.arun(request)
        many = [r async for r in executor.arun_batch([request] * 3)]
        return single, many

    single, many = asyncio.run(main())
    assert single.all_passed and len(many) == 3 and all(r.all_passed for r in many)


def test_a_dead_fork_server_is_restarted_and_the_test_retried():
    with LocalExecutor(workers=1) as ex:
        server = ex._all[0]
        os.killpg(server._proc.pid, signal.SIGKILL)  # the sandbox dies between tests
        record = ex.run("print(5)", [StdioTest(id="t", input="", output="5\n")])
    assert record.all_passed


def test_strict_mode_refuses_a_machine_without_namespaces(monkeypatch):
    degraded = dataclasses.replace(probe(), namespaces=False, notes=["simulated"])
    monkeypatch.setattr(forkserver_module, "probe", lambda: degraded)
    with pytest.raises(SandboxUnavailable, match="cannot isolate the network"):
        ForkServer(SandboxConfig())
    with ForkServer(SandboxConfig(strict=False)) as server:  # explicit, and recorded
        assert "network-namespace" not in server.protections
        raw = server.run("print(6)", {"id": "t", "kind": "stdio"}, b"", Limits())
        # without a mount namespace the scratch directory is a private one on the host
        where = server.run(
            "import os\nprint(os.getcwd())", {"id": "t", "kind": "stdio"}, b"", Limits()
        )
        scratch = where.stdout.decode().strip()
        assert scratch != "/tmp/run" and os.path.basename(scratch) == "run"
    assert raw.stdout == b"6\n"
    assert not os.path.exists(scratch)  # removed with the server


def test_front_door_and_record_files(tmp_path):
    import execrl
    from execrl.sandbox import load_records, save_records

    record = execrl.run("print(2)", [StdioTest(id="a", input="", output="2\n")], repeats=2)
    assert record.all_passed and len(record.results[0].repeats) == 2
    for name in ("r.jsonl", "r.jsonl.gz", "r.parquet"):
        assert load_records(save_records([record, record], tmp_path / name)) == [record, record]


def test_capture_returns_raw_output(executor):
    result, out = executor.capture("print('a  b')", "")
    assert result.passed and out == "a  b\n"
    failed, _ = executor.capture("raise SystemExit(3)", "")
    assert failed.status is Status.RUNTIME_ERROR


def test_a_read_only_path_under_the_hosts_tmp_is_visible_and_stays_read_only():
    # A virtualenv in /tmp (a fresh clone there, as CI may make) must still be importable
    # from inside the sandbox, whose own private /tmp covers the host's.
    import shutil
    import tempfile
    from pathlib import Path

    shared = Path(tempfile.mkdtemp(prefix="execrl-ro-", dir="/tmp"))
    try:
        shared.chmod(0o755)  # readable by the sandbox's own uid, as a virtualenv is
        (shared / "shared_mod.py").write_text("VALUE = 41\n")
        program = (
            f"import sys\nsys.path.insert(0, {str(shared)!r})\nimport shared_mod\n"
            f"try:\n    open({str(shared / 'x')!r}, 'w')\n    print('wrote')\n"
            "except OSError:\n    print(shared_mod.VALUE + 1)\n"
        )
        with ForkServer(SandboxConfig(readonly_paths=(str(shared),))) as server:
            if "readonly-root" not in server.protections:
                pytest.skip("needs the read-only root (a mount namespace)")
            raw = server.run(program, {"id": "t", "kind": "stdio"}, b"", Limits())
        assert raw.stdout == b"42\n", raw.stderr
        assert not (shared / "x").exists()
    finally:
        shutil.rmtree(shared)


def test_a_closed_local_executor_refuses_work_instead_of_restarting_fork_servers():
    from execrl.errors import ExecutionError
    from execrl.sandbox.pool import LocalExecutor

    executor = LocalExecutor(workers=1)
    executor.close()
    with pytest.raises(ExecutionError, match="closed"):
        executor.capture("print(1)", "")
