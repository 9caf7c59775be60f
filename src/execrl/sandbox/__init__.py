"""Running untrusted programs safely and judging them.

The common case is one function; ``LocalExecutor`` gives control (workers, cores, batches,
asyncio). See docs/sandbox.md for the threat model, limits and timing.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from execrl.errors import UsageError, deprecated_names, describe_validation_error
from execrl.sandbox.builds import BuildInfo, BuildOptions
from execrl.sandbox.compare import outputs_match, values_match
from execrl.sandbox.executor_source import default_executor
from execrl.sandbox.forkserver import SandboxCrashed, SandboxUnavailable
from execrl.sandbox.isolation import SandboxConfig, probe
from execrl.sandbox.limits import ExecutionOptions, Limits
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import (
    ChatPolicy,
    CompletionSampler,
    Conversation,
    ExecutionRequest,
    Executor,
)
from execrl.sandbox.records import (
    ExecutionRecord,
    Status,
    TestResult,
    Timing,
    load_records,
    save_records,
)


def run(
    program: str,
    tests: list,
    limits: Limits | None = None,
    *,
    language: str = "python",
    build: BuildOptions | None = None,
    **options,
) -> ExecutionRecord:
    """Run ``program`` (in ``language``: ``python``, ``cpp``, ``java``, ... see
    ``execrl languages``) on ``tests`` in a fresh one-worker sandbox and return its record.
    A compiled language is built once in the sandbox (``build``: profile, flags, limits).

    ``options`` are ExecutionOptions fields (``repeats``, ``timing``, ...). For many programs,
    keep a ``LocalExecutor`` open instead: starting a sandbox takes ~0.1 s. A mistake in the
    arguments (no tests, an unknown option, a value out of range) is a UsageError, raised
    before any sandbox starts.
    """
    if isinstance(tests, str | bytes) or not isinstance(tests, Sequence):
        raise UsageError(f"tests: expected a list of tests, got {type(tests).__name__}")
    if not tests:
        raise UsageError(
            "no tests: give at least one, e.g. [StdioTest(id='t1', input='1', output='2')]; "
            "a program run on no tests has no verdict"
        )
    try:
        request = ExecutionRequest(
            program=program,
            tests=list(tests),
            limits=limits if limits is not None else Limits(),
            options=ExecutionOptions(**options),
            language=language,
            build=build or BuildOptions(),
        )
    except ValidationError as exc:
        raise UsageError(f"execrl.run: {describe_validation_error(exc)}") from None
    with default_executor(workers=1) as executor:
        return executor.execute(request)


__getattr__ = deprecated_names(__name__, {"Policy": ("execrl.sandbox.protocol", "ChatPolicy")})

__all__ = [
    "BuildInfo",
    "BuildOptions",
    "ChatPolicy",
    "CompletionSampler",
    "Conversation",
    "ExecutionOptions",
    "ExecutionRecord",
    "ExecutionRequest",
    "Executor",
    "Limits",
    "LocalExecutor",
    "SandboxConfig",
    "SandboxCrashed",
    "SandboxUnavailable",
    "Status",
    "TestResult",
    "Timing",
    "default_executor",
    "load_records",
    "outputs_match",
    "probe",
    "run",
    "save_records",
    "values_match",
]
