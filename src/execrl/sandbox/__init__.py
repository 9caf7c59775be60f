"""Running untrusted programs safely and judging them.

The common case is one function; ``LocalExecutor`` gives control (workers, cores, batches,
asyncio). See docs/sandbox.md for the threat model, limits and timing.
"""

from __future__ import annotations

from execrl.sandbox.compare import outputs_match, values_match
from execrl.sandbox.executor import ExecutionRequest, LocalExecutor
from execrl.sandbox.forkserver import SandboxCrashed, SandboxUnavailable
from execrl.sandbox.isolation import SandboxConfig, probe
from execrl.sandbox.limits import ExecutionOptions, Limits
from execrl.sandbox.records import (
    ExecutionRecord,
    Status,
    TestResult,
    Timing,
    load_records,
    save_records,
)


def run(program: str, tests: list, limits: Limits | None = None, **options) -> ExecutionRecord:
    """Run ``program`` on ``tests`` in a fresh one-worker sandbox and return its record.

    ``options`` are ExecutionOptions fields (``repeats``, ``timing``, ...). For many programs,
    keep a ``LocalExecutor`` open instead: starting a sandbox takes ~0.1 s.
    """
    with LocalExecutor(workers=1) as executor:
        return executor.run(program, tests, limits, options=ExecutionOptions(**options))


__all__ = [
    "ExecutionOptions",
    "ExecutionRecord",
    "ExecutionRequest",
    "Limits",
    "LocalExecutor",
    "SandboxConfig",
    "SandboxCrashed",
    "SandboxUnavailable",
    "Status",
    "TestResult",
    "Timing",
    "load_records",
    "outputs_match",
    "probe",
    "run",
    "save_records",
    "values_match",
]
