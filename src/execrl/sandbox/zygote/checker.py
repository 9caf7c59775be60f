"""The checker of an assert test: the trusted test code runs here, in its own process,
holding every expected value; the function under test is a ``Remote`` in the candidate's
process, so nothing the test compares with is ever sent to the candidate."""

from __future__ import annotations

import builtins
import io
import json
import os
import sys

from .calls import CallChannel, CandidateFailed, Remote, UnsupportedTest, prelude_classes
from .compiler import exception_line, trusted_code, trusted_failure_line
from .syscalls import PR_SET_DUMPABLE, libc
from .wire import write_all


def run_checker(test: dict, prelude, test_code) -> None:
    """Checker side of an assert test: run the prelude and the test code (``trusted_code``
    items; the prelude's None when there is none) with proxies that forward each call to the
    candidate process; report the outcome on fd 3. Exits."""
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # same uid as the candidate: keep /proc/<pid>/mem shut
    sys.stdout = sys.stderr = io.StringIO()
    sys.setrecursionlimit(1000)
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    entry_point = test["entry_point"]
    channel = None
    try:
        try:
            if prelude is not None:
                exec(trusted_code(prelude, "<prelude>"), namespace)
            test_code = trusted_code(test_code, "<test>")
        except BaseException as exc:
            detail = f"the prelude or test code failed: {trusted_failure_line(exc)}"
            raise UnsupportedTest(detail) from None
        channel = CallChannel(prelude_classes(namespace))
        candidate = Remote(channel, None, entry_point)
        _bind_program_names(namespace, test_code, channel.hello(), channel, entry_point)
        if entry_point.isidentifier():
            namespace[entry_point] = candidate
        exec(test_code, namespace)
        check = namespace.get("check")
        code = getattr(check, "__code__", None)
        # HumanEval-style test code only defines check(candidate): call it, unless the test code
        # already exercised the candidate itself (or `check` is the function under test).
        if channel.entry_calls == 0 and code is not None and code.co_filename == "<test>":
            check(candidate)
        report = {"passed": True}
    except CandidateFailed as exc:
        report = {"candidate_failed": True, "stopped": exc.stopped, "detail": str(exc)}
    except UnsupportedTest as exc:
        report = {"unsupported": True, "detail": str(exc)}
    except BaseException as exc:
        if getattr(exc, "_execrl_from_program", False):
            detail = f"the program raised {exception_line(exc)}"
            # (a built-in MemoryError of the candidate, not a class of its own of that name)
            memory = isinstance(exc, MemoryError)
            report = {"candidate_raised": True, "detail": detail, "memory_error": memory}
        elif isinstance(exc, AssertionError):
            report = {"assertion": True, "detail": exception_line(exc)}
        else:
            report = {"detail": f"test code raised {exception_line(exc)}"}
    report["requests"] = channel.requests if channel is not None else 0
    write_all(3, json.dumps(report).encode())
    os._exit(0)


_BUILTIN_NAMES = frozenset(dir(builtins)) | {"exit", "quit"}  # (those two: set in children)
"""Computed once in the zygote (``dir`` of the builtins costs a checker ~0.1 ms per test)."""


def _bind_program_names(namespace, test_code, names: dict, channel, entry_point: str) -> None:
    """Names the test code uses that neither the prelude nor the built-ins define, but the
    program does (MBPP's ``Pair``): bound to Remote handles, exception classes to stand-ins.
    Built-ins and the prelude's names are never shadowed by the program's."""
    used, codes = set(), [test_code]
    while codes:
        code = codes.pop()
        used.update(code.co_names)
        codes.extend(c for c in code.co_consts if isinstance(c, type(test_code)))
    for name in used - namespace.keys() - _BUILTIN_NAMES - {entry_point}:
        if name not in names:
            continue
        if names[name] is not None:
            namespace[name] = channel.stand_in(name, names[name])
        else:
            namespace[name] = Remote(channel, name, name)
