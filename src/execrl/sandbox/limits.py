"""Limits of one execution: what each bounds, its unit, its default, what the program sees.

See docs/sandbox.md for the full contract, including what is *not* guaranteed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

TimingMetric = Literal["cpu", "wall"]


class Limits(BaseModel):
    """Per-test limits. Every field is a hard bound enforced while the program runs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    timeout_s: float = Field(default=10.0, gt=0, le=600)
    """Hard wall-clock cap per test run (spec §1: 10 s). Exceeded → the whole process tree is
    killed; verdict ``timeout``. Tighter *intended* limits are applied after execution."""
    memory_mb: int = Field(default=1024, gt=0)
    """Address space the program may add on top of the interpreter (RLIMIT_AS, per process).
    Exceeded → allocation fails (``MemoryError``); verdict ``memory_limit``."""
    max_processes: int = Field(default=16, ge=1)
    """Processes and threads of the sandbox user (RLIMIT_NPROC, plus a pids cgroup where
    delegated). Exceeded → ``fork``/``Thread.start`` fail with EAGAIN."""
    max_output_bytes: int = Field(default=64 * 1024 * 1024, gt=0)
    """Stdout (and call results) kept. Exceeded → killed; verdict ``output_limit``."""
    max_file_bytes: int = Field(default=16 * 1024 * 1024, ge=0)
    """Largest file the program may write (RLIMIT_FSIZE). Exceeded → SIGXFSZ; verdict
    ``output_limit``."""
    max_open_files: int = Field(default=64, ge=8)
    """Open descriptors (RLIMIT_NOFILE). Exceeded → ``OSError: Too many open files``."""
    stack_mb: int = Field(default=256, gt=0)
    """Main-thread stack (RLIMIT_STACK), for deeply recursive solutions."""


class ExecutionOptions(BaseModel):
    """How a program is run on its tests (not a bound on the program)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    repeats: int = Field(default=1, ge=1, le=100)
    """Runs per test; each is a fresh fork. Times are reported as the median, with the spread."""
    timing: TimingMetric = "cpu"
    """Which duration rewards use: ``cpu`` (user + system, measured outside the process; robust
    on a loaded machine) or ``wall``."""
    stop_at_first_failure: bool = False
    """Skip the remaining tests once one fails (their results are not reported)."""
    intended_limit_s: float | None = Field(default=None, gt=0)
    """Spec §1: a success whose duration (by ``timing``) is ≥ this becomes ``timeout``."""
