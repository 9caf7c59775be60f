"""Running a reference in its own language (issue 31): a C++ reference is built and run as
C++, a Java one as Java, wherever datagen runs references (the check, the §9 builder, the
consensus of generated tests).

- :func:`reference_request` is ``ExecutionRequest.for_problem`` with the reference's code,
  name and language;
- :func:`capture` runs a program once on a stdin, in a language, and reads a sandbox that
  crashed twice as an ``inconclusive`` verdict;
- :func:`unavailable` says why a reference was not judged: its toolchain is not installed
  where it ran (the build's ``language_unavailable``: ``execrl languages`` says which package
  provides it), or the problem's tests call Python functions that a program in another
  language does not have. Such a reference is *skipped*, never a failure.
"""

from __future__ import annotations

import inspect

from execrl.problems.models import Problem, Reference, TestCase
from execrl.sandbox.forkserver import SandboxCrashed
from execrl.sandbox.languages import language as language_row
from execrl.sandbox.limits import ExecutionOptions, Limits
from execrl.sandbox.protocol import ExecutionRequest, Executor
from execrl.sandbox.records import ExecutionRecord, Status, TestResult

PYTHON = "python"
"""The language the fork server runs without a build (CPython)."""
UNAVAILABLE = "language_unavailable"
"""The build status, and the start of a test's detail, of a toolchain that is not installed."""


def language_of(ref: Reference) -> str:
    """The reference's language as the table names it (``python3`` → ``python``, ``c++`` →
    ``cpp``); an unknown name is a UsageError listing the known ones."""
    return language_row(ref.language).name


def program_key(ref: Reference) -> str | list[str]:
    """What identifies a reference's program in a cache key or a duplicate check: its code, and
    its language unless that is Python (so keys written before references had languages stay
    valid, and the same text in two languages is two programs)."""
    lang = language_of(ref)
    return ref.code if lang == PYTHON else [lang, ref.code]


def reference_request(
    problem: Problem,
    ref: Reference,
    *,
    tests: list[TestCase] | None = None,
    limits: Limits | None = None,
    options: ExecutionOptions | None = None,
    program_name: str | None = None,
) -> ExecutionRequest:
    """The judged request of ``ref`` on ``problem`` (its tests unless ``tests`` are given),
    in the reference's language."""
    return ExecutionRequest.for_problem(
        problem,
        ref.code,
        tests=tests,
        limits=limits,
        options=options,
        program_name=ref.name if program_name is None else program_name,
        language=language_of(ref),
    )


def not_runnable(ref: Reference, tests: list[TestCase]) -> str | None:
    """Why ``ref`` cannot run on ``tests`` at all (call and assert tests need a Python
    program's functions), or None."""
    lang = language_of(ref)
    kinds = sorted({t.kind for t in tests if t.kind != "stdio"})
    if lang == PYTHON or not kinds:
        return None
    return f"{' and '.join(kinds)} tests call Python functions; a {lang} program has none"


def unavailable(record: ExecutionRecord) -> str | None:
    """Why a record's program was not judged because its language's toolchain is missing
    where it ran (``language_unavailable: cpp: g++ is not on PATH; install …``), or None."""
    if record.build is not None and record.build.status == UNAVAILABLE:
        return record.build.detail or f"{UNAVAILABLE}: {record.language}"
    for result in record.results:  # (a backend that keeps no build info says it per test)
        if result.status is Status.INCONCLUSIVE and result.detail.startswith(UNAVAILABLE):
            return result.detail
    return None


def capture(
    executor: Executor, program: str, stdin: str, limits: Limits, *, language: str = PYTHON
) -> tuple[TestResult, str]:
    """``executor.capture`` of ``program`` in ``language``: (verdict without comparison,
    stdout), or its ``capture_streams`` where only that takes a language (Ray). A sandbox that
    crashed twice (the local pool raises) reads as an ``inconclusive`` verdict, as the remote
    backends report it; so does a program in another language than Python on a backend that
    captures Python only."""
    lang = language_row(language).name
    try:
        if lang == PYTHON:
            return executor.capture(program, stdin, limits)
        if _takes_language(executor.capture):
            return executor.capture(program, stdin, limits, language=lang)  # type: ignore[call-arg]
        streams = getattr(executor, "capture_streams", None)
        if streams is not None and _takes_language(streams):
            captured = streams(program, stdin, limits, language=lang)
            return captured.result, captured.stdout
        return _inconclusive(
            f"the {executor.backend} executor captures Python programs only; a {lang} "
            "program needs one whose `capture` takes `language` (LocalExecutor, RemoteExecutor)"
        )
    except SandboxCrashed as exc:
        return _inconclusive(str(exc))


def _takes_language(method: object) -> bool:
    try:
        return "language" in inspect.signature(method).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):  # (a callable without a signature)
        return False


def _inconclusive(detail: str) -> tuple[TestResult, str]:
    return TestResult(test_id="capture", status=Status.INCONCLUSIVE, detail=detail), ""
