"""A simple subprocess runner: one fresh ``python3`` per test, no isolation.

This is the interim runner of the foundation stage. It measures the child's CPU time from
outside (``os.wait4`` rusage) and its wall time, enforces a wall-clock limit, an address-space
limit and an output-size limit, and classifies the closed set of verdicts. It does **not**
isolate hostile code: use it only on trusted programs (the bundled references).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from execrl.problems.models import AssertTest, CallTest, Checker, Problem, StdioTest
from execrl.sandbox.compare import outputs_match, values_match
from execrl.sandbox.records import ExecutionRecord, Status, TestResult, program_sha256

_RESULT_FD_ENV = "EXECRL_RESULT_FD"
"""Names the descriptor on which drivers report call results and assert completion."""

_CALL_DRIVER = r"""
import json, os, sys
_src, _fn = sys.argv[1], sys.argv[2]
_args = json.loads(sys.stdin.read())
_ns = {"__name__": "__main__"}
exec(compile(open(_src, encoding="utf-8").read(), "<program>", "exec"), _ns)
_f = _ns.get(_fn)
if _f is None and isinstance(_ns.get("Solution"), type):
    _f = getattr(_ns["Solution"](), _fn)
if _f is None:
    raise NameError(f"the program does not define {_fn!r}")
_out = _f(*_args)
with os.fdopen(int(os.environ["EXECRL_RESULT_FD"]), "w") as _w:
    _w.write(json.dumps(_out))
"""

_ASSERT_DRIVER = r"""
import os, sys
_src, _test, _entry = sys.argv[1], sys.argv[2], sys.argv[3]
_ns = {"__name__": "__main__"}
exec(compile(open(_src, encoding="utf-8").read(), "<program>", "exec"), _ns)
exec(compile(open(_test, encoding="utf-8").read(), "<test>", "exec"), _ns)
if "check" in _ns:
    _ns["check"](_ns[_entry])
with os.fdopen(int(os.environ["EXECRL_RESULT_FD"]), "w") as _w:
    _w.write("ok")
"""


@dataclass(frozen=True, kw_only=True)
class RunLimits:
    """Limits for one test. Units are in the names."""

    timeout_s: float = 10.0
    """Wall-clock limit; the child is killed when it is exceeded (verdict ``timeout``)."""
    memory_mb: int = 1024
    """Address-space limit of the child (verdict ``memory_limit`` on MemoryError)."""
    max_output_bytes: int = 64 * 1024 * 1024
    """Stdout beyond this is not kept and the child is killed (verdict ``output_limit``)."""

    @classmethod
    def for_problem(cls, problem: Problem, *, timeout_scale: float = 1.0) -> RunLimits:
        # The interpreter itself needs address space on top of the problem's memory budget.
        return cls(
            timeout_s=problem.time_limit_s * timeout_scale, memory_mb=problem.memory_limit_mb + 256
        )


@dataclass
class _Completed:
    stdout: bytes
    stderr: bytes
    result_channel: bytes
    returncode: int
    cpu_s: float
    wall_s: float
    max_rss_mb: float
    timed_out: bool
    output_truncated: bool


def run_problem(
    code: str,
    problem: Problem,
    *,
    limits: RunLimits | None = None,
    name: str = "",
    stop_at_first_failure: bool = False,
    tests: list | None = None,
) -> ExecutionRecord:
    """Run ``code`` on ``tests`` (default: all of the problem's tests) one process each."""
    limits = limits or RunLimits.for_problem(problem)
    results: list[TestResult] = []
    for test in problem.tests if tests is None else tests:
        result = run_test(code, test, checker=problem.checker, limits=limits)
        results.append(result)
        if stop_at_first_failure and not result.passed:
            break
    return ExecutionRecord(
        problem_id=problem.id,
        program_sha256=program_sha256(code),
        program_name=name,
        results=results,
    )


def run_test(
    code: str,
    test: StdioTest | CallTest | AssertTest,
    *,
    checker: Checker | None = None,
    limits: RunLimits | None = None,
) -> TestResult:
    """Run ``code`` on one test in a fresh interpreter and return its verdict and times."""
    limits = limits or RunLimits()
    try:
        compile(code, "<program>", "exec")
    except (SyntaxError, ValueError) as exc:
        return TestResult(test_id=test.id, status=Status.COMPILE_ERROR, detail=_short(repr(exc)))
    with tempfile.TemporaryDirectory(prefix="execrl-run-") as tmp:
        workdir = Path(tmp)
        program = workdir / "program.py"
        program.write_text(code, encoding="utf-8")
        try:
            argv, stdin = _command(test, program, workdir)
            done = _execute(argv, stdin, cwd=workdir, limits=limits)
        except OSError as exc:
            return TestResult(
                test_id=test.id, status=Status.INCONCLUSIVE, detail=_short(f"runner failed: {exc}")
            )
    return _verdict(test, done, checker or Checker())


def _command(
    test: StdioTest | CallTest | AssertTest, program: Path, workdir: Path
) -> tuple[list[str], bytes]:
    python = [sys.executable, "-I"]
    if isinstance(test, StdioTest):
        return [*python, str(program)], test.input.encode("utf-8")
    if isinstance(test, CallTest):
        driver = workdir / "driver.py"
        driver.write_text(_CALL_DRIVER, encoding="utf-8")
        return [*python, str(driver), str(program), test.fn_name], json.dumps(test.args).encode()
    driver, test_file = workdir / "driver.py", workdir / "test_code.py"
    driver.write_text(_ASSERT_DRIVER, encoding="utf-8")
    test_file.write_text(test.code, encoding="utf-8")
    return [*python, str(driver), str(program), str(test_file), test.entry_point], b""


def _execute(argv: list[str], stdin: bytes, *, cwd: Path, limits: RunLimits) -> _Completed:
    read_fd, write_fd = os.pipe()
    memory_bytes = limits.memory_mb * 1024 * 1024

    def limit_child() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    start = time.perf_counter()
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            pass_fds=(write_fd,),
            preexec_fn=limit_child,
            start_new_session=True,
            env={
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "LANG": "C.UTF-8",
                _RESULT_FD_ENV: str(write_fd),
            },
        )
    finally:
        os.close(write_fd)
    outputs: dict[str, bytes] = {}
    truncated = threading.Event()
    timed_out = threading.Event()

    def kill() -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)

    def pump(name: str, stream, cap: int) -> None:
        chunks, size = [], 0
        while chunk := stream.read(65536):
            size += len(chunk)
            if size > cap:
                truncated.set()
                kill()
                break
            chunks.append(chunk)
        outputs[name] = b"".join(chunks)

    def feed() -> None:
        try:
            proc.stdin.write(stdin)
            proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass

    result_reader = os.fdopen(read_fd, "rb")
    threads = [
        threading.Thread(target=feed, daemon=True),
        threading.Thread(
            target=pump, args=("stdout", proc.stdout, limits.max_output_bytes), daemon=True
        ),
        threading.Thread(target=pump, args=("stderr", proc.stderr, 1 << 20), daemon=True),
        threading.Thread(
            target=pump, args=("result", result_reader, limits.max_output_bytes), daemon=True
        ),
    ]
    for t in threads:
        t.start()

    def on_deadline() -> None:
        timed_out.set()
        kill()

    timer = threading.Timer(limits.timeout_s, on_deadline)
    timer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall_s = time.perf_counter() - start
    timer.cancel()
    kill()  # no grandchild outlives the test
    proc.returncode = os.waitstatus_to_exitcode(status)
    for t in threads:
        t.join(timeout=5)
    result_reader.close()
    return _Completed(
        stdout=outputs.get("stdout", b""),
        stderr=outputs.get("stderr", b""),
        result_channel=outputs.get("result", b""),
        returncode=proc.returncode,
        cpu_s=usage.ru_utime + usage.ru_stime,
        wall_s=wall_s,
        max_rss_mb=usage.ru_maxrss / 1024,
        timed_out=timed_out.is_set(),
        output_truncated=truncated.is_set(),
    )


def _verdict(
    test: StdioTest | CallTest | AssertTest, done: _Completed, checker: Checker
) -> TestResult:
    def result(status: Status, detail: str = "") -> TestResult:
        return TestResult(
            test_id=test.id,
            status=status,
            cpu_s=done.cpu_s,
            wall_s=done.wall_s,
            max_rss_mb=done.max_rss_mb,
            detail=_short(detail),
        )

    stderr = done.stderr.decode("utf-8", errors="replace")
    if done.timed_out:
        return result(Status.TIMEOUT)
    if done.output_truncated:
        return result(Status.OUTPUT_LIMIT)
    if done.returncode != 0:
        last_line = (
            stderr.strip().splitlines()[-1] if stderr.strip() else f"exit code {done.returncode}"
        )
        status = Status.MEMORY_LIMIT if "MemoryError" in stderr else Status.RUNTIME_ERROR
        return result(status, last_line)
    if isinstance(test, StdioTest):
        actual = done.stdout.decode("utf-8", errors="replace")
        if outputs_match(actual, test.output, checker):
            return result(Status.SUCCESS)
        return result(Status.WRONG_ANSWER, _first_difference(actual, test.output))
    if isinstance(test, CallTest):
        try:
            value = json.loads(done.result_channel)
        except ValueError:
            return result(Status.RUNTIME_ERROR, "the function returned no JSON-serialisable value")
        if any(values_match(value, e) for e in (test.expected, *test.also_accept)):
            return result(Status.SUCCESS)
        return result(Status.WRONG_ANSWER, f"returned {value!r}, expected {test.expected!r}")
    if done.result_channel != b"ok":
        return result(Status.RUNTIME_ERROR, "the test code did not run to completion")
    return result(Status.SUCCESS)


def _first_difference(actual: str, expected: str) -> str:
    got, want = actual.split(), expected.split()
    for i, (a, e) in enumerate(zip(got, want, strict=False)):
        if a != e:
            return f"token {i}: got {a!r}, expected {e!r}"
    return f"got {len(got)} tokens, expected {len(want)}"


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def capture_stdout(
    code: str, stdin: str, *, limits: RunLimits | None = None
) -> tuple[TestResult, str]:
    """Run ``code`` on ``stdin`` and return (verdict without comparison, stdout).

    The verdict is ``success`` when the program exited normally within the limits; the caller
    decides what its output means (used to compute expected outputs from references).
    """
    limits = limits or RunLimits()
    probe = StdioTest(id="capture", input=stdin, output="")
    try:
        compile(code, "<program>", "exec")
    except (SyntaxError, ValueError) as exc:
        return TestResult(
            test_id=probe.id, status=Status.COMPILE_ERROR, detail=_short(repr(exc))
        ), ""
    with tempfile.TemporaryDirectory(prefix="execrl-run-") as tmp:
        program = Path(tmp) / "program.py"
        program.write_text(code, encoding="utf-8")
        try:
            done = _execute(
                [sys.executable, "-I", str(program)],
                stdin.encode("utf-8"),
                cwd=Path(tmp),
                limits=limits,
            )
        except OSError as exc:
            return TestResult(test_id=probe.id, status=Status.INCONCLUSIVE, detail=str(exc)), ""
    stdout = done.stdout.decode("utf-8", errors="replace")
    verdict = _verdict(probe, done, Checker(kind="exact"))
    if verdict.status is Status.WRONG_ANSWER:  # nothing to compare against: it ran cleanly
        verdict = verdict.model_copy(update={"status": Status.SUCCESS, "detail": ""})
    return verdict, stdout
