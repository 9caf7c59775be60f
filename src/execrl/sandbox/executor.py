"""The sandbox executor: run programs on tests in pooled, pinned fork servers and judge them.

``LocalExecutor`` owns one fork server per worker (one worker per core by default), streams
ExecutionRecords for batches with a progress bar, and has asyncio wrappers. Raw outcomes from
the fork server become the closed set of verdicts here, in the host process, where expected
outputs live; the sandboxed program never sees them.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import math
import os
import queue
import signal
import statistics
from collections.abc import AsyncIterator, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from execrl.errors import ConfigError, ExecutionError
from execrl.problems.models import AssertTest, CallTest, Checker, Problem, StdioTest, TestCase
from execrl.sandbox import _zygote, counting
from execrl.sandbox.batch import progress_bar
from execrl.sandbox.compare import iter_tokens, outputs_match
from execrl.sandbox.forkserver import ForkServer, RawRun, SandboxCrashed
from execrl.sandbox.isolation import SandboxConfig
from execrl.sandbox.limits import ExecutionOptions, Limits, is_counted
from execrl.sandbox.protocol import Executor
from execrl.sandbox.records import ExecutionRecord, Status, TestResult, Timing, program_sha256
from execrl.sandbox.returned import ValueRejected, decode_returned, show
from execrl.sandbox.returned import matches as returned_matches
from execrl.sandbox.wrapping import wrap_stdin_program

_wrapped_stdin_program = functools.lru_cache(maxsize=256)(wrap_stdin_program)
"""Parsed once per program, not once per test."""

SETUP_FAILED_EXIT = 121
"""Exit code of a child whose sandbox set-up failed. Only informative: the verdict comes from
the zygote's private status channel (``setup_failed``), never from an exit code or stderr."""


class ExecutionRequest(BaseModel):
    """One program on a list of tests, with its limits and options."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    program: str
    tests: list[TestCase]
    checker: Checker = Field(default_factory=Checker)
    limits: Limits = Field(default_factory=Limits)
    options: ExecutionOptions = Field(default_factory=ExecutionOptions)
    problem_id: str = ""
    program_name: str = ""
    starter_code: str | None = None
    """Trusted code the checker of an assert-style test runs before the test code when there
    is no ``prelude`` (HumanEval's prompt, whose helper functions its tests use)."""
    prelude: str | None = None
    """Trusted code run before the program in call and assert tests, and before the test code
    in the checker (LeetCodeDataset's imports and ListNode/TreeNode helpers, MBPP's
    ``test_setup_code``). Instances of the classes it defines can cross between the two."""
    stdin_as_function: bool = False
    """Run stdio programs as the body of a function, as the APPS/TACO harness does (a
    top-level ``return`` then ends the program); see ``execrl.sandbox.wrapping``. The record
    keeps the hash of the program as given."""

    @classmethod
    def of(
        cls,
        program: str,
        tests: list[TestCase],
        limits: Limits | None = None,
        *,
        checker: Checker | None = None,
        options: ExecutionOptions | None = None,
        problem_id: str = "",
    ) -> ExecutionRequest:
        """The request ``Executor.run`` makes of its arguments (defaults for what is None)."""
        return cls(
            program=program,
            tests=tests,
            checker=checker or Checker(),
            limits=limits or Limits(),
            options=options or ExecutionOptions(),
            problem_id=problem_id,
        )

    @classmethod
    def for_problem(
        cls,
        problem: Problem,
        program: str,
        *,
        tests: list[TestCase] | None = None,
        options: ExecutionOptions | None = None,
        limits: Limits | None = None,
        program_name: str = "",
    ) -> ExecutionRequest:
        """A request with the problem's tests, checker and limits: the problem's time limit
        is the CPU-time limit (the wall-clock limit follows Limits' default rule)."""
        return cls(
            program=program,
            tests=problem.tests if tests is None else tests,
            checker=problem.checker,
            limits=limits
            or Limits(cpu_time_s=problem.time_limit_s, memory_mb=problem.memory_limit_mb),
            options=options or ExecutionOptions(),
            problem_id=problem.id,
            program_name=program_name,
            starter_code=problem.starter_code,
            prelude=problem.prelude,
            stdin_as_function=problem.stdin_as_function,
        )


@dataclass(frozen=True)
class Captured:
    """One capture run: the verdict without comparison and what the program wrote."""

    result: TestResult
    stdout: str
    stderr: str
    exit_code: int | None
    """The exit status (``-N`` when a signal ended it; None when it never ran)."""


class LocalExecutor(Executor):
    """A pool of sandboxed fork servers on this machine.

    ``workers`` defaults to one per available core; ``cores`` pins worker i to ``cores[i]``.
    With ``reserve_host_core=True`` the calling process is kept off the workers' cores, so
    timed runs do not share a core with execrl's own bookkeeping (until ``close()``, which
    restores the caller's affinity).
    """

    backend = "local-forkserver"

    def __init__(
        self,
        *,
        workers: int | None = None,
        cores: list[int] | None = None,
        reserve_host_core: bool = False,
        config: SandboxConfig | None = None,
    ) -> None:
        available = sorted(os.sched_getaffinity(0))
        self.config = config or SandboxConfig()
        self._host_affinity: set[int] | None = None  # the caller's own, restored on close
        if reserve_host_core and len(available) > 1:
            host, timed = available[:1], available[1:]
            self._host_affinity = set(available)
            os.sched_setaffinity(0, host)
        else:
            timed = available
        self.cores = cores or timed
        self.workers = workers or len(self.cores)
        self._closed = False
        self._servers: queue.Queue[ForkServer] = queue.Queue()
        self._all: list[ForkServer] = []
        # (worker, timing) -> that worker's counted fork server, started on first use
        self._counters: dict[tuple[int, str], ForkServer] = {}
        for i in range(self.workers):
            server = ForkServer(self.config, worker=i, cpu=self.cores[i % len(self.cores)])
            self._all.append(server)
            self._servers.put(server)
        self._pool = ThreadPoolExecutor(
            max_workers=self.workers, thread_name_prefix="execrl-worker"
        )

    @property
    def uids(self) -> list[int]:
        """The uid each worker's programs run as."""
        return [server.uid for server in self._all]

    @property
    def isolation(self) -> list[str]:
        return self._all[0].protections if self._all else []

    # -- the common case ---------------------------------------------------------------------
    def execute(self, request: ExecutionRequest) -> ExecutionRecord:
        """Run one request on a free worker (blocks until done)."""
        server = self._take()
        try:
            return self._execute_on(server, request)
        finally:
            self._servers.put(server)

    def capture(
        self, program: str, stdin: str, limits: Limits | None = None
    ) -> tuple[TestResult, str]:
        """Run ``program`` on ``stdin`` and return (verdict without comparison, stdout).

        The verdict is ``success`` when the program finished cleanly within its limits; what
        its output means is the caller's business (datagen uses it to build expected outputs).
        """
        captured = self.capture_streams(program, stdin, limits)
        return captured.result, captured.stdout

    def capture_streams(self, program: str, stdin: str, limits: Limits | None = None) -> Captured:
        """``capture`` with the program's stderr and exit status too (SandboxFusion's
        ``/run_code`` answers with both)."""
        probe = StdioTest(id="capture", input=stdin, output="")
        limits = limits or Limits()
        spec, data, _ = _wire_test(probe, None)
        server = self._take()
        try:
            try:
                raw = server.run(program, spec, data, limits)
            except SandboxCrashed:
                raw = server.run(program, spec, data, limits)  # retry once, at once
        finally:
            self._servers.put(server)
        result = judge(probe, raw, Checker(kind="exact"), limits)
        if result.status is Status.WRONG_ANSWER:  # it ran cleanly; there was nothing to compare
            result = result.model_copy(update={"status": Status.SUCCESS, "detail": ""})
        first = raw.runs[0] if raw.runs else {}
        signal_number = first.get("signal")
        return Captured(
            result=result,
            stdout=raw.stdout.decode("utf-8", errors="replace"),
            stderr=raw.stderr.decode("utf-8", errors="replace"),
            exit_code=-signal_number if signal_number else first.get("exit_code"),
        )

    def run_batch(
        self,
        requests: Iterable[ExecutionRequest],
        *,
        progress: bool = True,
        description: str = "executing",
    ) -> Iterator[ExecutionRecord]:
        """Run requests on all workers; yields records in request order as they complete."""
        requests = list(requests)
        with progress_bar(progress) as bar:
            task = bar.add_task(description, total=len(requests))
            for record in self._pool.map(self.execute, requests):
                bar.advance(task)
                yield record

    async def arun(self, request: ExecutionRequest) -> ExecutionRecord:
        """asyncio: run one request without blocking the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, self.execute, request)

    async def arun_batch(
        self, requests: Iterable[ExecutionRequest]
    ) -> AsyncIterator[ExecutionRecord]:
        """asyncio: yields records as they complete (completion order)."""
        for next_done in asyncio.as_completed([self.arun(r) for r in requests]):
            yield await next_done

    def _take(self) -> ForkServer:
        """A free worker; an ``ExecutionError`` once closed (a closed pool must not quietly
        restart fork servers nobody will close)."""
        if self._closed:
            raise ExecutionError("this LocalExecutor is closed; open a new one")
        return self._servers.get()

    def close(self) -> None:
        self._closed = True
        self._pool.shutdown(wait=True)
        for server in [*self._all, *self._counters.values()]:
            server.close()
        self._all.clear()
        self._counters.clear()
        if self._host_affinity is not None:
            os.sched_setaffinity(0, self._host_affinity)
            self._host_affinity = None

    # -- one request on one server -----------------------------------------------------------
    def _execute_on(self, server: ForkServer, request: ExecutionRequest) -> ExecutionRecord:
        if is_counted(request.options.timing):  # (a counted server, or why not, before any work)
            self._counter_for(server, request.options.timing)
        results = []
        for test in request.tests:
            result = self._run_test(server, request, test)
            results.append(result)
            if request.options.stop_at_first_failure and not result.passed:
                break
        return ExecutionRecord(
            problem_id=request.problem_id,
            program_sha256=program_sha256(request.program),
            program_name=request.program_name,
            results=results,
            backend=self.backend,
            isolation=server.protections,
            timing=request.options.timing,
            limits=request.limits.resolved(),
        )

    def _run_test(
        self, server: ForkServer, request: ExecutionRequest, test: TestCase
    ) -> TestResult:
        spec, stdin, secret = _wire_test(test, request.starter_code, request.prelude)
        program = request.program
        if request.stdin_as_function and isinstance(test, StdioTest):
            program = _wrapped_stdin_program(program)
        raw = None
        for _attempt in range(2):  # spec §6: retry an inconclusive execution once, at once
            try:
                raw = server.run(
                    program, spec, stdin, request.limits, request.options.repeats, secret
                )
                break
            except SandboxCrashed as exc:
                failure = str(exc)
        if raw is None:
            return TestResult(test_id=test.id, status=Status.INCONCLUSIVE, detail=_short(failure))
        result = judge(test, raw, request.checker, request.limits)
        result = _validated(server, request, test, raw, result)
        result = apply_intended_limit(result, request.options)
        if result.passed and is_counted(request.options.timing):
            wired = (program, spec, stdin, secret)
            result = self._counted(server, request, test, wired, result)
        return result

    # -- counts: a second run under Valgrind (execrl.sandbox.counting) -----------------------
    def _counted(
        self, server: ForkServer, request: ExecutionRequest, test: TestCase, wired, result
    ) -> TestResult:
        """``result`` (a native pass) with the program's count, from a run on this worker's
        counted server. The verdict stays the native run's: the counted run must pass too
        (under limits scaled for Valgrind's slowdown), else the test is ``inconclusive``."""
        timing = request.options.timing
        counter = self._counter_for(server, timing)
        limits = counting.counted_limits(request.limits)
        program, spec, stdin, secret = wired
        raw = None
        for _attempt in range(2):  # spec §6: an inconclusive execution is retried once, at once
            try:
                raw = counter.run(program, spec, stdin, limits, 1, secret)
                break
            except SandboxCrashed as exc:
                failure = str(exc)
        if raw is None:
            return _uncounted(result, f"the counted run failed: {failure}")
        counted = _validated(server, request, test, raw, judge(test, raw, request.checker, limits))
        run = raw.runs[0] if raw.runs else {}
        if not counted.passed:
            return _uncounted(result, f"the counted run did not pass: {counted.detail}")
        if "counters" not in run:
            return _uncounted(result, f"no count: {run.get('count_error', 'none reported')}")
        counters = run["counters"]
        cycles = counters.cycles_estimate() if timing == "cycles_estimate" else None
        return result.model_copy(update={"instructions": counters.ir, "cycles_estimate": cycles})

    def _counter_for(self, server: ForkServer, timing: str) -> ForkServer:
        """The counted fork server of ``server``'s worker (same core), started on first use; a
        ConfigError (with the install command) where Valgrind cannot count."""
        key = (server.worker, timing)
        counter = self._counters.get(key)
        if counter is None:
            counting.require_valgrind()
            if "seccomp" not in server.protections:  # (it refuses fork and exec to a count)
                raise ConfigError(
                    "timing by instruction count needs the sandbox's seccomp filter, which is "
                    "off or unavailable here: a counted program could hide work in a child "
                    "process (see `execrl doctor`)"
                )
            counter = ForkServer(self.config, worker=server.worker, cpu=server.cpu, counting=timing)
            self._counters[key] = counter
        return counter


def _validated(
    server: ForkServer, request: ExecutionRequest, test: TestCase, raw: RawRun, result: TestResult
) -> TestResult:
    """``result``, or a Kattis-style output validator's verdict where the checker is one."""
    if request.checker.kind != "custom":
        return result
    from execrl.sandbox.validators import revalidate

    return revalidate(server, request.checker, test, raw, result)


def _uncounted(result: TestResult, why: str) -> TestResult:
    """A native pass whose count could not be taken: ``inconclusive`` (the runner failed, not
    the program), with the native times kept."""
    detail = _short(f"passed natively; {why}")
    return result.model_copy(update={"status": Status.INCONCLUSIVE, "detail": detail})


def _wire_test(
    test: TestCase, starter_code: str | None, prelude: str | None = None
) -> tuple[dict[str, Any], bytes, bytes | None]:
    """What the fork server needs to run a test: (spec, stdin, secret). Expected outputs never
    leave the host; an assert test's code travels as the secret the candidate never sees.
    ``prelude`` runs before the program (and in the checker); without one the checker runs
    ``starter_code``."""
    if isinstance(test, StdioTest):
        return {"id": test.id, "kind": "stdio"}, test.input.encode("utf-8"), None
    if isinstance(test, CallTest):
        args = json.dumps(_zygote.encode_value(list(test.args)))
        spec = {"id": test.id, "kind": "call", "fn_name": test.fn_name, "args": args}
        return {**spec, "prelude": prelude or ""}, b"", None
    spec = {
        "id": test.id,
        "kind": "assert",
        "entry_point": test.entry_point,
        "prelude": prelude or "",
        "checker_prelude": (prelude if prelude is not None else starter_code) or "",
    }
    return spec, b"", test.code.encode("utf-8")


def judge(test: TestCase, raw: RawRun, checker: Checker, limits: Limits) -> TestResult:
    """Turn the fork server's raw outcome into a verdict (the closed set of Status)."""
    if raw.compile_error is not None:
        return TestResult(
            test_id=test.id, status=Status.COMPILE_ERROR, detail=_short(raw.compile_error)
        )
    first = raw.runs[0]
    timings = [Timing(cpu_s=r["cpu_s"], wall_s=r["wall_s"]) for r in raw.runs]
    base = {
        "test_id": test.id,
        "cpu_s": statistics.median(t.cpu_s for t in timings),
        "wall_s": statistics.median(t.wall_s for t in timings),
        "max_rss_mb": first["max_rss_mb"],
        "repeats": timings,
    }
    # Every repeat is judged on its own output; the first failing one gives the verdict.
    status, detail, hit = Status.SUCCESS, "", None
    for i, view in enumerate(raw.repeat_views()):
        status, detail = _status(test, view, view.runs[0], checker, limits)
        if status is not Status.SUCCESS:
            hit = _limit_hit(view.runs[0], limits) if status is Status.TIMEOUT else None
            detail = f"repeat {i + 1}: {detail}" if i else detail
            break
    return TestResult(
        status=status,
        detail=_short(detail),
        limit_hit=hit,
        outputs_differ=raw.outputs_differ,
        **base,
    )


def _limit_hit(run: dict, limits: Limits) -> str | None:
    """Which time limit stopped a run: ``cpu``, ``wall`` or none. CPU: the supervisor stopped
    it at the limit, the kernel's RLIMIT_CPU did (SIGXCPU, or SIGKILL at the hard limit), or
    the CPU time measured afterwards over all its processes is over the limit."""
    if run["outcome"] == "timeout":
        return run.get("limit_hit") or "wall"
    if run["outcome"] != "exited":
        return None
    if run.get("limit_hit"):
        return run["limit_hit"]
    sig = run["signal"]
    if sig == signal.SIGXCPU or (
        sig == signal.SIGKILL and run["cpu_s"] >= math.ceil(limits.cpu_time_s)
    ):
        return "cpu"
    return "cpu" if run["cpu_s"] > limits.cpu_time_s else None


def _limit_detail(hit: str, limits: Limits) -> str:
    if hit == "cpu":
        return f"CPU time limit {limits.cpu_time_s:g} s exceeded"
    return f"wall-clock limit {limits.wall_limit_s:g} s exceeded"


def _with_stderr(detail: str, stderr: str) -> str:
    """The verdict's detail with the program's own last stderr line, when it said anything."""
    last = _last_line(stderr)
    return f"{detail}; stderr: {last[:200]}" if last and last != detail else detail


def _status(
    test: TestCase, raw: RawRun, first: dict, checker: Checker, limits: Limits
) -> tuple[Status, str]:
    stderr = raw.stderr.decode("utf-8", errors="replace")
    if first.get("setup_failed"):  # from the zygote's private channel, never the program's
        return Status.INCONCLUSIVE, f"sandbox setup failed: {first['setup_failed']}"
    if first["outcome"] == "output_limit":
        return Status.OUTPUT_LIMIT, "output exceeded max_output_bytes"
    if first.get("memory_exceeded"):  # the kernel's memory accounting (cgroup)
        return Status.MEMORY_LIMIT, _memory_detail(stderr)
    hit = _limit_hit(first, limits)
    if hit is not None:
        return Status.TIMEOUT, _with_stderr(_limit_detail(hit, limits), stderr)
    if first["signal"] is not None:
        sig = first["signal"]
        if sig == signal.SIGXFSZ:
            return Status.OUTPUT_LIMIT, "a file exceeded max_file_bytes"
        return Status.RUNTIME_ERROR, _with_stderr(f"killed by {signal.Signals(sig).name}", stderr)
    if first["exit_code"] != 0:
        if first.get("memory_error"):  # a MemoryError reached the top level (not stderr text)
            return Status.MEMORY_LIMIT, _memory_detail(stderr)
        if "[Errno 27] File too large" in stderr:  # CPython ignores SIGXFSZ: the write fails
            return Status.OUTPUT_LIMIT, "a file exceeded max_file_bytes"
        return Status.RUNTIME_ERROR, _last_line(stderr) or f"exit code {first['exit_code']}"
    if isinstance(test, StdioTest):
        actual, valid_utf8 = _decode_stdout(raw.stdout)
        if outputs_match(actual, test.output, checker):
            return Status.SUCCESS, ""
        return Status.WRONG_ANSWER, _first_difference(actual, test.output, valid_utf8)
    if isinstance(test, CallTest):
        return _judge_call(test, raw.result)
    return _judge_assert(test, raw.result, stderr, first)


def _memory_detail(stderr: str) -> str:
    last = _last_line(stderr)
    return last if "MemoryError" in last else "MemoryError"


def _judge_call(test: CallTest, channel: bytes) -> tuple[Status, str]:
    try:
        payload = json.loads(channel)
        if isinstance(payload, dict) and "not_plain_data" in payload:
            return Status.WRONG_ANSWER, _short(str(payload["not_plain_data"]))
        value = decode_returned(payload)  # bounded work: sets and dicts sorted, not hashed
    except ValueRejected as exc:  # over a limit, or containing itself: never equal to expected
        return Status.WRONG_ANSWER, str(exc)
    except (ValueError, TypeError, KeyError, RecursionError):
        return Status.RUNTIME_ERROR, "the function returned no readable value"
    if any(returned_matches(value, e) for e in (test.expected, *test.also_accept)):
        return Status.SUCCESS, ""
    return Status.WRONG_ANSWER, f"returned {show(value)}, expected {_show(test.expected)}"


def _show(value: Any, limit: int = 120) -> str:
    """A short repr, also for ints too long for str() (over 4,300 digits)."""
    try:
        text = repr(value)
    except ValueError:
        if isinstance(value, int):
            return f"an int of {value.bit_length()} bits"
        return f"a {type(value).__name__} holding ints over 4,300 digits"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _judge_assert(test: AssertTest, channel: bytes, stderr: str, run: dict) -> tuple[Status, str]:
    try:
        report = json.loads(channel)
    except ValueError:
        return Status.RUNTIME_ERROR, _last_line(stderr) or "the test code did not report"
    detail = str(report.get("detail", ""))
    if report.get("passed"):
        return Status.SUCCESS, ""
    if report.get("unsupported"):
        return Status.INCONCLUSIVE, detail
    if report.get("candidate_failed"):
        if report.get("stopped"):  # the program died: its own last words are the verdict
            if run.get("memory_error"):
                return Status.MEMORY_LIMIT, _memory_detail(stderr)
            last = _last_line(stderr)
            return Status.RUNTIME_ERROR, f"{detail}: {last}" if last else detail
        return Status.RUNTIME_ERROR, detail or "the program failed"
    if report.get("candidate_raised"):
        if report.get("memory_error") is True:  # the checker's own finding, not the text
            return Status.MEMORY_LIMIT, detail
        return Status.RUNTIME_ERROR, detail
    if report.get("assertion"):
        return Status.WRONG_ANSWER, detail or "an assertion failed"
    return Status.RUNTIME_ERROR, detail or "the test code failed"


def apply_intended_limit(result: TestResult, options: ExecutionOptions) -> TestResult:
    """Spec §1: a success at or over the intended limit becomes a timeout (times are kept)."""
    limit = options.intended_limit_s
    if (
        limit is None
        or result.status is not Status.SUCCESS
        or result.duration_s(options.timing) < limit
    ):
        return result
    return result.model_copy(
        update={
            "status": Status.TIMEOUT,
            "detail": f"{options.timing} time over the intended {limit} s",
        }
    )


def _decode_stdout(stdout: bytes) -> tuple[str, bool]:
    """(the output as text, whether it was valid UTF-8): one decoding in the common case."""
    try:
        return stdout.decode("utf-8"), True
    except UnicodeDecodeError:
        return stdout.decode("utf-8", errors="replace"), False


def _first_difference(actual: str, expected: str, valid_utf8: bool = True) -> str:
    """The first differing token, or the token counts; read token by token (no lists)."""
    if not valid_utf8:
        return "the output is not valid UTF-8"
    got = want = 0
    actual_tokens, expected_tokens = iter_tokens(actual), iter_tokens(expected)
    while True:  # a batch at a time: list comparison runs in C
        a = list(itertools.islice(actual_tokens, 4096))
        e = list(itertools.islice(expected_tokens, 4096))
        for i, (x, y) in enumerate(zip(a, e, strict=False) if a != e else ()):
            if x != y:
                return f"token {got + i}: got {x[:40]!r}, expected {y[:40]!r}"
        got, want = got + len(a), want + len(e)
        if len(a) != len(e) or not a:
            break
    got += sum(1 for _ in actual_tokens)
    want += sum(1 for _ in expected_tokens)
    return f"got {got} tokens, expected {want}"


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
