"""The judge: one ExecutionRequest on one worker's fork servers, and the verdicts.

It owns what a request means once a worker is free: each test is wired for the fork server
(expected outputs stay in the host; an assert test's code travels as the secret the candidate
never sees), run with its repeats and retried once when the sandbox crashed, and its raw
outcome turned into the closed set of verdicts — limits, the problem's checker (or a Kattis
output validator), every repeat judged on its own output, the intended limit, and the
instruction count of a counted run. The sandboxed program never sees expected outputs.

It does not own workers, queues, cancellation (it only stops between tests once the server's
``abort`` is cancelled: ``execrl.sandbox.abort``) or the health of fork servers: the pool
(``execrl.sandbox.pool``) takes a free worker, gives it here with that worker's counted server,
and starts, pins and closes them. The request and result types are in
``execrl.sandbox.protocol``.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import signal
import statistics
from collections.abc import Sequence
from typing import Any

from execrl.problems.models import AssertTest, CallTest, Checker, StdioTest, TestCase
from execrl.sandbox import abort, builds, counting, native_counting
from execrl.sandbox.compare import iter_tokens, outputs_match
from execrl.sandbox.forkserver import ForkServer, RawRun, SandboxCrashed
from execrl.sandbox.languages import LANGUAGES
from execrl.sandbox.languages import language as language_row
from execrl.sandbox.limits import ExecutionOptions, Limits, is_counted
from execrl.sandbox.protocol import Captured, ExecutionRequest
from execrl.sandbox.records import ExecutionRecord, Status, TestResult, Timing, program_sha256
from execrl.sandbox.returned import ValueRejected, decode_returned, show
from execrl.sandbox.returned import matches as returned_matches
from execrl.sandbox.wrapping import wrap_stdin_program
from execrl.sandbox.zygote import codec

_wrapped_stdin_program = functools.lru_cache(maxsize=256)(wrap_stdin_program)
"""Parsed once per program, not once per test."""

SETUP_FAILED_EXIT = 121
"""Exit code of a child whose sandbox set-up failed. Only informative: the verdict comes from
the zygote's private status channel (``setup_failed``), never from an exit code or stderr."""

Wired = tuple[str, dict[str, Any], bytes, bytes | None]
"""A test as the fork server runs it: (program, spec, stdin, secret)."""


# -- one request on one worker ----------------------------------------------------------------
def run_request(
    server: ForkServer,
    request: ExecutionRequest,
    *,
    counter: ForkServer | None,
    backend: str,
) -> ExecutionRecord:
    """The record of ``request`` run on ``server``, test by test (stopping at the first failure
    when the options say so). ``counter`` is the same worker's counted fork server when the
    request's timing is an instruction count and the program is Python, else None (a built
    program is counted on ``server``); ``backend`` names the executor. Once the server's
    abort is cancelled, ``Aborted`` is raised between tests: the rest are skipped."""
    results = []
    prepared = prepare_program(server, request)
    for test in request.tests:
        abort.check(server.abort)  # (a build stopped by it looks like a failed build)
        if prepared is not None and prepared.job is None:
            result = build_failure(test, prepared.info)
        else:
            result = run_test(server, request, test, counter, prepared)
        results.append(result)
        if request.options.stop_at_first_failure and not result.passed:
            break
    return ExecutionRecord(
        language=request.language,
        build=prepared.info if prepared is not None else None,
        problem_id=request.problem_id,
        program_sha256=program_sha256(request.program),
        program_name=request.program_name,
        results=results,
        backend=backend,
        isolation=server.protections,
        timing=request.options.timing,
        limits=request.limits.resolved(),
    )


def prepare_program(server: ForkServer, request: ExecutionRequest) -> builds.Prepared | None:
    """A program of another language than the zygote's Python, built (or taken from the
    build cache) once for all its tests; None for a Python program (the fork path)."""
    if request.language == "python":
        return None
    lang = LANGUAGES[request.language]
    return builds.prepare(
        server, lang, request.program, request.build, memory_mb=request.limits.memory_mb
    )


def build_failure(test: TestCase, info: builds.BuildInfo) -> TestResult:
    """A test of a program that did not build: the build's verdict (a missing toolchain is
    inconclusive, never the program's fault)."""
    status = {
        "compile_error": Status.COMPILE_ERROR,
        "compile_timeout": Status.COMPILE_TIMEOUT,
    }.get(info.status, Status.INCONCLUSIVE)
    return TestResult(test_id=test.id, status=status, detail=_short(info.detail))


def native_limits(request: ExecutionRequest) -> Limits:
    """The request's limits, with the processes its runtime needs (the JVM's threads)."""
    needed = LANGUAGES[request.language].processes
    if request.limits.max_processes >= needed:
        return request.limits
    return request.limits.model_copy(update={"max_processes": needed})


_OUT_OF_MEMORY = (
    "std::bad_alloc",  # C++
    "java.lang.OutOfMemoryError",  # the JVM
    "memory allocation of",  # Rust: "memory allocation of N bytes failed"
    "runtime: out of memory",  # Go
    "JavaScript heap out of memory",  # V8
    "MemoryError",  # PyPy, Python 2
)


def run_test(
    server: ForkServer,
    request: ExecutionRequest,
    test: TestCase,
    counter: ForkServer | None,
    prepared: builds.Prepared | None = None,
) -> TestResult:
    """One test of ``request``: run (with its repeats), judged, validated, held to the
    intended limit, and counted on ``counter`` when it passed and there is one. A program of
    another language runs as ``prepared``'s job on the native runner."""
    spec, stdin, secret = _wire_test(test, request.starter_code, request.prelude)
    program: str | bytes = request.program
    limits = request.limits
    if prepared is not None and prepared.job is not None:
        program, limits = prepared.job, native_limits(request)
        spec = {**spec, "runner": "native"}
        spec["address_space"] = LANGUAGES[request.language].address_space
    elif request.stdin_as_function and isinstance(test, StdioTest):
        program = _wrapped_stdin_program(program)
    wired = (program, spec, stdin, secret)
    raw, failure = _run_retried(server, wired, limits, request.options.repeats)
    if raw is None:
        return TestResult(test_id=test.id, status=Status.INCONCLUSIVE, detail=_short(failure))
    if prepared is not None:
        _flag_runtime_out_of_memory(raw)
    result = judge(test, raw, request.checker, request.limits)
    result = _validated(server, request, test, raw, result)
    result = apply_intended_limit(result, request.options)
    if result.passed and prepared is not None and is_counted(request.options.timing):
        return _counted_native(server, request, test, wired, result)
    if result.passed and counter is not None:
        result = _counted(server, counter, request, test, wired, result)
    return result


def _flag_runtime_out_of_memory(raw: RawRun) -> None:
    """A runtime's own out-of-memory report (a failed run whose stderr names it) is the
    memory limit, as Python's MemoryError is."""
    stderr = raw.stderr[-4096:].decode("utf-8", "replace")
    for run in raw.runs:
        failed = run.get("exit_code") not in (0, None) or run.get("signal") is not None
        if failed and any(marker in stderr for marker in _OUT_OF_MEMORY):
            run["memory_error"] = True


def _run_retried(
    server: ForkServer, wired: Wired, limits: Limits, repeats: int
) -> tuple[RawRun | None, str]:
    """(the raw run, "") or (None, why the sandbox failed twice): spec §6 retries an
    inconclusive execution once, at once."""
    program, spec, stdin, secret = wired
    failure = ""
    for _attempt in range(2):
        try:
            return server.run(program, spec, stdin, limits, repeats, secret), ""
        except SandboxCrashed as exc:
            failure = str(exc)
    return None, failure


def capture_on(
    server: ForkServer,
    program: str,
    stdin: str,
    limits: Limits,
    *,
    language: str = "python",
    build: builds.BuildOptions | None = None,
    files: dict[str, bytes] | None = None,
    fetch: Sequence[str] = (),
) -> Captured:
    """``program`` run once on ``stdin`` on ``server``: ``success`` when it finished cleanly
    within its limits (there is nothing to compare), with what it wrote and its exit status.
    A program in another language (or one given ``files`` or asked to leave ``fetch``) is
    built and exec'd (CPython as ``python3 main.py``). A sandbox crash is retried once; a
    second one is raised."""
    probe = StdioTest(id="capture", input=stdin, output="")
    spec, data, _ = _wire_test(probe, None)
    code: str | bytes = program
    prepared = None
    lang = language_row(language)
    if lang.name != "python" or files or fetch:
        options = build or builds.BuildOptions()
        prepared = builds.prepare(
            server, lang, program, options, memory_mb=limits.memory_mb, files=files
        )
        abort.check(server.abort)
        if prepared.job is None:
            return Captured(build_failure(probe, prepared.info), "", "", None, {}, prepared.info)
        code = prepared.job
        spec = {**spec, "runner": "native", "address_space": lang.address_space}
        if fetch:
            spec["fetch"] = list(fetch)
            spec["fetch_max_bytes"] = limits.max_file_bytes
        if limits.max_processes < lang.processes:
            limits = limits.model_copy(update={"max_processes": lang.processes})
    try:
        raw = server.run(code, spec, data, limits)
    except SandboxCrashed:
        raw = server.run(code, spec, data, limits)  # retry once, at once
    if prepared is not None:
        _flag_runtime_out_of_memory(raw)
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
        files=raw.fetched,
        build=prepared.info if prepared is not None else None,
    )


# -- counts: a second run under Valgrind (execrl.sandbox.counting) ---------------------------
def _counted(
    server: ForkServer,
    counter: ForkServer,
    request: ExecutionRequest,
    test: TestCase,
    wired: Wired,
    result: TestResult,
) -> TestResult:
    """``result`` (a native pass) with the program's count, from a run on this worker's
    counted server. The verdict stays the native run's: the counted run must pass too
    (under limits scaled for Valgrind's slowdown), else the test is ``inconclusive``."""
    limits = counting.counted_limits(request.limits)
    raw, failure = _run_retried(counter, wired, limits, 1)
    if raw is None:
        return _uncounted(result, f"the counted run failed: {failure}")
    counted = _validated(server, request, test, raw, judge(test, raw, request.checker, limits))
    run = raw.runs[0] if raw.runs else {}
    if not counted.passed:
        return _uncounted(result, f"the counted run did not pass: {counted.detail}")
    if "counters" not in run:
        return _uncounted(result, f"no count: {run.get('count_error', 'none reported')}")
    return _with_counts(result, run["counters"], request.options.timing)


def _counted_native(
    server: ForkServer, request: ExecutionRequest, test: TestCase, wired: Wired, result: TestResult
) -> TestResult:
    """``result`` (a native pass of a built program) with its count: the same job run again
    under cachegrind on this same worker (``execrl.sandbox.native_counting``)."""

    def check(raw: RawRun, limits: Limits) -> TestResult:
        return _validated(server, request, test, raw, judge(test, raw, request.checker, limits))

    job, spec, stdin, _secret = wired
    found = native_counting.count(server, request, job, spec, stdin, check)
    if isinstance(found, str):
        return _uncounted(result, found)
    return _with_counts(result, found, request.options.timing)


def _with_counts(result: TestResult, counters: counting.Counters, timing: str) -> TestResult:
    cycles = counters.cycles_estimate() if timing == "cycles_estimate" else None
    return result.model_copy(update={"instructions": counters.ir, "cycles_estimate": cycles})


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
        args = json.dumps(codec.encode_value(list(test.args)))
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
    if first.get("memory_error") and first["signal"] is not None:  # (a runtime's abort)
        return Status.MEMORY_LIMIT, _memory_detail(stderr)
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
    if "MemoryError" in last:
        return last
    said = next((m for m in _OUT_OF_MEMORY if m in stderr), None)
    return f"out of memory ({said})" if said else "MemoryError"


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
