"""Limits of one execution: what each bounds, its unit, its default, what the program sees.

See docs/sandbox.md for the full contract, including what is *not* guaranteed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from execrl.problems.models import TimeLimitS

if TYPE_CHECKING:
    from execrl.problems import Problem

TimingMetric = Literal["cpu", "wall", "instructions", "cycles_estimate"]
"""Which measurement a duration is: seconds of CPU (``cpu``) or wall-clock (``wall``) time, or a
count from a run under Valgrind's cachegrind (``instructions``: instructions executed;
``cycles_estimate``: instructions plus weighted cache misses, see ``execrl.sandbox.counting``).
Counts are exact and machine-independent for one Python build; docs/timing.md says which to use."""

COUNTED_TIMINGS: tuple[str, ...] = ("instructions", "cycles_estimate")
"""The timings measured by counting under Valgrind rather than with a clock."""

TIMING_UNITS = {
    "cpu": "s",
    "wall": "s",
    "instructions": "instructions",
    "cycles_estimate": "cycles",
}
"""The unit of each timing's durations (``TestResult.duration_s`` returns it in this unit)."""


def is_counted(timing: str) -> bool:
    """Whether ``timing`` is a count (instructions, estimated cycles) rather than seconds."""
    return timing in COUNTED_TIMINGS


MAX_REPEATS = 100
"""The most runs per test (``ExecutionOptions.repeats``)."""


class Limits(BaseModel):
    """Per-test limits. Every field is a hard bound enforced while the program runs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cpu_time_s: TimeLimitS = Field(  # (0 < s <= 600: the one range of a time limit)
        default=10.0, validation_alias=AliasChoices("cpu_time_s", "timeout_s")
    )
    """CPU-time limit per test run: user + system time of the program, all its threads
    together (spec §1: 10 s; a problem's ``time_limit_s``). Enforced twice: the supervisor
    reads the program's CPU clock every 20 ms (its test cgroup's, counting every process it
    started, where a cpu cgroup is available) and kills its process tree at the limit, and
    the kernel's RLIMIT_CPU (soft limit = this rounded up to whole seconds: SIGXCPU; hard =
    one second more: SIGKILL) stops a process even if the supervisor is starved. A run whose
    CPU time, measured afterwards over every process it started, is over the limit is also a
    timeout. Verdict ``timeout`` with ``limit_hit="cpu"``. Accepted under its old name
    ``timeout_s`` (which, before the CPU limit existed, was the wall-clock cap)."""
    wall_time_s: float | None = Field(default=None, gt=0, le=1800)
    """Wall-clock limit per test run. ``None`` (default) → ``max(3 × cpu_time_s, cpu_time_s +
    2 s)``, so a program that shares its core with others is stopped by its CPU time, not by
    the load. Exceeded → the whole process tree is killed; verdict ``timeout`` with
    ``limit_hit="wall"`` (a sleeping or blocked program is stopped only by this)."""
    memory_mb: int = Field(default=1024, gt=0)
    """Address space the program may add on top of the interpreter (RLIMIT_AS, per process),
    and, where a memory cgroup is available (``memory-cgroup`` in the record), the same bound
    on all memory of the test's processes together, memfd and tmpfs pages included.
    Exceeded → allocation fails (``MemoryError``) or the kernel's OOM killer stops the test;
    verdict ``memory_limit``."""
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

    @classmethod
    def for_problem(cls, problem: Problem, *, cap_s: float | None = None) -> Limits:
        """The limits a problem's programs run under: the CPU-time limit is ``cap_s`` when given
        (a hard cap above the problem's own limit, e.g. for timing), else the problem's
        ``time_limit_s``; the memory limit is its ``memory_limit_mb``; the wall-clock limit
        follows the default rule (:func:`wall_limit_for`); every other field its default.
        The one place a problem becomes Limits."""
        cpu_time_s = problem.time_limit_s if cap_s is None else cap_s
        return cls(cpu_time_s=cpu_time_s, memory_mb=problem.memory_limit_mb)

    @property
    def wall_limit_s(self) -> float:
        """The wall-clock limit in force: ``wall_time_s``, or the default rule above."""
        if self.wall_time_s is not None:
            return self.wall_time_s
        return wall_limit_for(self.cpu_time_s)

    @property
    def timeout_s(self) -> float:
        """The CPU-time limit under its old name (read-only; construct with ``cpu_time_s``)."""
        return self.cpu_time_s

    def model_copy(self, *, update: dict | None = None, deep: bool = False) -> Limits:
        """As pydantic's, with ``timeout_s`` in ``update`` read as ``cpu_time_s`` (pydantic
        would otherwise store it beside the fields, silently changing nothing)."""
        if update and "timeout_s" in update:
            update = {("cpu_time_s" if k == "timeout_s" else k): v for k, v in update.items()}
        return super().model_copy(update=update, deep=deep)

    def resolved(self) -> Limits:
        """These limits with the wall-clock limit written out, as stored in records."""
        return self.model_copy(update={"wall_time_s": self.wall_limit_s})


def wall_limit_for(cpu_time_s: float) -> float:
    """The default wall-clock limit for a CPU-time limit: ``max(3 × cpu, cpu + 2 s)``."""
    return max(3.0 * cpu_time_s, cpu_time_s + 2.0)


class ExecutionOptions(BaseModel):
    """How a program is run on its tests (not a bound on the program)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    repeats: int = Field(default=1, ge=1, le=MAX_REPEATS)
    """Runs per test; each is a fresh fork. Times are reported as the median, with the spread.
    Every repeat is judged: the test passes only if every repeat does (a program whose
    output changes between repeats is caught; ``TestResult.outputs_differ`` says so)."""
    timing: TimingMetric = "cpu"
    """Which duration rewards use: ``cpu`` (user + system, measured outside the process; robust
    on a loaded machine), ``wall``, or a count that no load can move: ``instructions`` or
    ``cycles_estimate`` (each passing test is run a second time under Valgrind to count it;
    the verdict, timeouts included, always comes from the native run; docs/timing.md)."""
    stop_at_first_failure: bool = False
    """Skip the remaining tests once one fails (their results are not reported)."""
    intended_limit_s: TimeLimitS | None = None
    """Spec §1: a success whose duration (by ``timing``) is ≥ this becomes ``timeout``.
    Applied after execution, unlike ``Limits.cpu_time_s``, which stops the program."""
