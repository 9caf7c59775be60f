"""Instruction counts of native programs (C, C++, Rust): the same job run again under cachegrind.

A Python program is counted on a counted fork server (``execrl.sandbox.counting``). A built
program is a binary the native runner ``execve``s, so it is counted the plain way: for a test
that passed natively, the *same job* runs a second time on the *same worker*, with its argv
prefixed by ``valgrind --tool=cachegrind``. Cachegrind writes its output file and its log into
the scratch directory; the test's ``fetch`` brings both back and the totals are read from the
output file's ``summary:`` line.

- *The overhead figure*: what an empty ``main`` of the same language, toolchain, profile and
  flags counts (the dynamic loader, the C runtime's start-up and exit), measured once per
  process on the first counted test and cached, is subtracted. An empty program counts 0.
- *One process*: the count covers the program's process and its threads. A program that
  started another process (every process under ``--trace-children=yes`` logs on its own) is
  not counted: a process killed at the test's end would report nothing.
- *Deterministic*: the job, its environment and its stdin are the same bytes every run, the
  sandbox's pid namespace gives the same pids, and Valgrind lays out the client's address
  space itself, so a rerun counts the same to the instruction (tests/sandbox/
  test_native_counting.py).
- *The verdict stays native*: the counted run, under limits scaled for Valgrind's slowdown,
  must pass too (the same checker), else the test is ``inconclusive``.

Runtimes that cannot be counted meaningfully (the JVM, Go, V8, PyPy, Python 2 run as a fresh
interpreter) are ``inconclusive`` with the reason (:data:`NOT_COUNTED`), never a figure.

Not guaranteed: a hostile native program can hide work from the count. Valgrind's client
requests run a function on the real CPU, uncounted; a built binary that holds their magic
instruction sequence is refused (:data:`CLIENT_REQUEST_PREAMBLES`), but code generated at run
time is not inspected. A child process that deletes its own log and outlives the program by a
few milliseconds could rewrite the output file. Counts are a measurement of programs that do
not attack the count; the CPU-time verdicts hold their promises regardless.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from execrl.errors import ExecutionError
from execrl.sandbox import builds, counting
from execrl.sandbox.counting import Counters
from execrl.sandbox.languages import LANGUAGES, Language, probe
from execrl.sandbox.limits import Limits
from execrl.sandbox.zygote.native import MAGIC, parse_job
from execrl.sandbox.zygote.scratch import PATH as SCRATCH

if TYPE_CHECKING:
    from execrl.sandbox.forkserver import ForkServer, RawRun
    from execrl.sandbox.protocol import ExecutionRequest
    from execrl.sandbox.records import TestResult

EMPTY_PROGRAMS = {
    "c": "int main(void) { return 0; }\n",
    "cpp": "int main() { return 0; }\n",
    "rust": "fn main() {}\n",
}
"""The empty program of each countable language: its count is the overhead figure."""

NOT_COUNTED = {
    "java": (
        "the JVM under Valgrind counts its own start-up, class loading, JIT compilers and "
        "garbage collector (hundreds of millions of instructions before main) and the JIT's "
        "choices vary between runs, so no figure would be the program's"
    ),
    "go": (
        "Go's runtime (its scheduler threads, signal-based preemption and stack moves) is not "
        "supported reliably under Valgrind"
    ),
    "javascript": (
        "Node.js under Valgrind counts V8's start-up, JIT compilers and garbage collector, "
        "whose work varies between runs"
    ),
    "pypy": "PyPy under Valgrind counts its JIT's tracing and compiling, which varies between runs",
    "python2": (
        "Python 2 runs as a fresh interpreter, not on the counted fork server, so its count "
        "would be mostly interpreter start-up"
    ),
}
"""Why each runtime that is not counted is not: the detail of its ``inconclusive`` tests."""

COUNT_SUFFIX = ".execrl-cachegrind.out"
"""Cachegrind's output file in scratch: ``<pid>`` + this."""
LOG_SUFFIX = ".execrl-valgrind.log"
"""Valgrind's log in scratch, one per process: ``<pid>`` + this."""

EXTRA_OPEN_FILES = 32
"""Descriptors added to a counted run's limit: Valgrind keeps some of its own at the top of
the range (and lowers the program's limit by as many)."""
MIN_FILE_BYTES = 64 * 1024 * 1024
"""The largest file a counted run may write, at least: cachegrind's output file (a line per
function executed) is written under the program's RLIMIT_FSIZE."""
OVERHEAD_TOLERANCE = 20_000
"""How far below the empty program's count a program may land (one that ends by ``_exit``
skips the C runtime's exit path) before its count is refused as impossible; below that it
counts 0."""

CLIENT_REQUEST_PREAMBLES = {
    "x86_64": bytes.fromhex("48c1c70348c1c70d48c1c73d48c1c733"),  # rolq $3,$13,$61,$51, %rdi
    "aarch64": bytes.fromhex("8c0dcc938c35cc938ccdcc938cf5cc93"),  # ror x12, #3, #13, #51, #61
}
"""The instructions that start a Valgrind client request (valgrind.h): one of those requests
runs a function on the real CPU, outside the count."""


def why_not_counted(language: str) -> str | None:
    """None when programs of ``language`` are counted here, else why not (a detail)."""
    if language in EMPTY_PROGRAMS:
        return None
    reason = NOT_COUNTED.get(language, "no counting method is defined for this runtime")
    return f"instruction counts are not available for {language}: {reason}"


def count(
    server: ForkServer,
    request: ExecutionRequest,
    job: bytes,
    test_spec: dict,
    stdin: bytes,
    check: Callable[[RawRun, Limits], TestResult],
) -> Counters | str:
    """The counters of ``job`` (a test that passed natively) run again under cachegrind on
    ``server``, less the overhead figure; or why there are none. ``check`` judges the counted
    run (the test's checker) under the limits it ran with: it must pass."""
    why = why_not_counted(request.language)
    if why is None:
        why = _refused_binary(job)
    if why is not None:
        return why
    timing = request.options.timing
    limits = counted_limits(request.limits, LANGUAGES[request.language].processes)
    found = run_counted(server, job, test_spec, stdin, limits, timing)
    if isinstance(found, str):
        return found
    raw, counters = found
    judged = check(raw, limits)
    if not judged.passed:
        return f"the counted run did not pass: {judged.detail}"
    if counters is None:
        return _count_error(raw)
    base = overhead(server, LANGUAGES[request.language], request.build, timing)
    if isinstance(base, str):
        return base
    own = counters - base
    if own.ir < -OVERHEAD_TOLERANCE:
        return f"an impossible count ({own.ir} instructions after the overhead): not trusted"
    return Counters(*(max(0, v) for v in own.as_dict().values()))


def counted_limits(limits: Limits, processes: int = 0) -> Limits:
    """The limits of a counted native run: ``counting.counted_limits`` (time × the slowdown
    cap, more memory), room for Valgrind's descriptors and for cachegrind's output file."""
    scaled = counting.counted_limits(limits)
    return scaled.model_copy(
        update={
            "max_open_files": scaled.max_open_files + EXTRA_OPEN_FILES,
            "max_file_bytes": max(scaled.max_file_bytes, MIN_FILE_BYTES),
            "max_processes": max(scaled.max_processes, processes),
        }
    )


def valgrind_command(timing: str, stack_mb: int) -> list[str]:
    """The prefix of a counted job's argv: cachegrind (cache simulation for
    ``cycles_estimate`` only), its output file and log in scratch, children traced (an exec'd
    image stays under Valgrind and logs on its own), the program's main stack as natively."""
    return [
        valgrind_binary(),
        "--tool=cachegrind",
        f"--cache-sim={'yes' if timing == 'cycles_estimate' else 'no'}",
        "--vgdb=no",
        "--trace-children=yes",
        f"--main-stacksize={stack_mb * 1024 * 1024}",
        f"--cachegrind-out-file={SCRATCH}/%p{COUNT_SUFFIX}",
        f"--log-file={SCRATCH}/%p{LOG_SUFFIX}",
    ]


def valgrind_binary() -> str:
    """Valgrind's own executable: Debian's ``/usr/bin/valgrind`` is a shell script around
    ``valgrind.bin`` (which the sandbox can exec without a shell)."""
    path = os.path.realpath(counting.valgrind_path())
    if os.path.isfile(path + ".bin"):
        return path + ".bin"
    return path


def counted_job(job: bytes, timing: str, stack_mb: int) -> bytes:
    """``job`` with its argv prefixed by cachegrind: the same files, the same environment."""
    header, body = parse_job(job)
    header = {**header, "argv": [*valgrind_command(timing, stack_mb), *header["argv"]]}
    return b"".join([MAGIC, json.dumps(header).encode(), b"\n", body])


def run_counted(
    server: ForkServer,
    job: bytes,
    test_spec: dict,
    stdin: bytes,
    limits: Limits,
    timing: str,
) -> tuple[RawRun, Counters | None] | str:
    """Run ``job`` once under cachegrind on ``server`` (a sandbox crash retried once):
    (the raw run, its counters or None), or why the sandbox could not run it."""
    spec = {
        **test_spec,
        "runner": "native",
        "address_space": "none",  # Valgrind reserves far more address space than it uses
        "fetch": ["*" + COUNT_SUFFIX, "*" + LOG_SUFFIX],
        "fetch_max_bytes": 2 * limits.max_file_bytes,
    }
    program = counted_job(job, timing, limits.stack_mb)
    failure = ""
    for _attempt in range(2):
        try:
            raw = server.run(program, spec, stdin, limits)
        except ExecutionError as exc:  # (SandboxCrashed)
            failure = str(exc)
            continue
        return raw, read_counters(raw.fetched, raw.fetched_sizes)
    return f"the counted run failed: {failure}"


_EVENTS = {
    "Ir": "ir",
    "I1mr": "i1mr",
    "ILmr": "ilmr",
    "D1mr": "d1mr",
    "D1mw": "d1mw",
    "DLmr": "dlmr",
    "DLmw": "dlmw",
}
"""Cachegrind's event names, as :class:`Counters` fields (``Dr`` and ``Dw``, the data
accesses, are not used)."""


def parse_output(text: str) -> Counters | None:
    """The totals in a cachegrind output file (its ``events:`` and ``summary:`` lines), or
    None when it has none (a file cut short)."""
    events = summary = None
    for line in text.splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:"):
            summary = line.split()[1:]
    if events is None or summary is None or len(events) != len(summary):
        return None
    try:
        values = {_EVENTS[e]: int(v) for e, v in zip(events, summary, strict=True) if e in _EVENTS}
    except ValueError:
        return None
    return Counters(**values) if "ir" in values else None


def read_counters(fetched: dict[str, bytes], sizes: dict[str, int]) -> Counters | None:
    """The counters of the one process of a counted run, from its fetched files: None unless
    exactly one process logged and that process wrote a complete output file."""
    logs = [n for n in sizes if n.endswith(LOG_SUFFIX)]
    outputs = [n for n in sizes if n.endswith(COUNT_SUFFIX)]
    if len(logs) != 1 or len(outputs) != 1:
        return None
    pid = logs[0].removesuffix(LOG_SUFFIX)
    if outputs[0].removesuffix(COUNT_SUFFIX) != pid or outputs[0] not in fetched:
        return None
    return parse_output(fetched[outputs[0]].decode("utf-8", "replace"))


def _count_error(raw: RawRun) -> str:
    """Why a counted run that passed has no counters (for the test's detail)."""
    sizes = raw.fetched_sizes
    logs = [n for n in sizes if n.endswith(LOG_SUFFIX)]
    outputs = [n for n in sizes if n.endswith(COUNT_SUFFIX)]
    if len(logs) > 1:
        return (
            f"no count: the program started other processes ({len(logs)} in all); a count "
            "covers one process and its threads"
        )
    if any(size < 0 for size in sizes.values()):
        return "no count: cachegrind's output file was larger than the counted run may fetch"
    if not outputs:
        log = raw.fetched.get(logs[0], b"") if logs else b""
        last = _last_valgrind_line(log.decode("utf-8", "replace"))
        return f"no count: cachegrind wrote no output file{': ' + last if last else ''}"
    return "no count: cachegrind's output file holds no totals"


def _last_valgrind_line(log: str) -> str:
    lines = [line for line in log.splitlines() if re.match(r"^[=-]{2}\d+[=-]{2} \S", line)]
    return lines[-1][:200] if lines else ""


def _refused_binary(job: bytes) -> str | None:
    """Why the job's files cannot be counted (they issue Valgrind client requests), or None."""
    _header, body = parse_job(job)
    data = bytes(body)
    if any(preamble in data for preamble in CLIENT_REQUEST_PREAMBLES.values()):
        return (
            "the program contains Valgrind's client-request instructions, which can run "
            "code outside the count: it is not counted"
        )
    return None


# -- the overhead figure: an empty program, counted once per process -------------------------
_OVERHEADS: dict[tuple, Counters | str] = {}
_OVERHEAD_LOCK = threading.Lock()


def overhead(
    server: ForkServer, lang: Language, options: builds.BuildOptions, timing: str
) -> Counters | str:
    """What an empty program of ``lang`` counts when built with ``options`` (its loader and
    runtime start-up and exit): measured on ``server`` the first time, then cached for the
    process by (language, toolchain, profile, flags, timing, the sandbox's protections). A
    string: why it could not be measured (the test is then inconclusive)."""
    protections = tuple(server.protections)  # (another root file system, another loader path)
    key = (lang.name, probe(lang).version, options.profile, options.flags, timing, protections)
    with _OVERHEAD_LOCK:
        if key not in _OVERHEADS:
            _OVERHEADS[key] = _measure_overhead(server, lang, options, timing)
        return _OVERHEADS[key]


def overhead_figure(
    server: ForkServer, language: str, options: builds.BuildOptions | None = None
) -> int | None:
    """The overhead figure in instructions (for reports and docs), or None."""
    found = overhead(server, LANGUAGES[language], options or builds.BuildOptions(), "instructions")
    return found.ir if isinstance(found, Counters) else None


def _measure_overhead(
    server: ForkServer, lang: Language, options: builds.BuildOptions, timing: str
) -> Counters | str:
    limits = counted_limits(Limits(cpu_time_s=10.0, memory_mb=256), lang.processes)
    prepared = builds.prepare(
        server, lang, EMPTY_PROGRAMS[lang.name], options, memory_mb=limits.memory_mb
    )
    if prepared.job is None:
        return f"the empty program that measures the overhead did not build: {prepared.info.detail}"
    found = run_counted(
        server, prepared.job, {"id": "overhead", "kind": "stdio"}, b"", limits, timing
    )
    if isinstance(found, str):
        return f"measuring the overhead: {found}"
    raw, counters = found
    first = raw.runs[0] if raw.runs else {}
    if first.get("exit_code") != 0 or counters is None:
        why = _count_error(raw) if counters is None else f"exit code {first.get('exit_code')}"
        return f"the empty program that measures the overhead was not counted: {why}"
    return counters
