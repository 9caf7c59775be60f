"""The machine's own CPU-time noise floor: how much the CPU time of *identical* work varies
on this machine, with no sandbox, no process creation and no other program involved.

A fixed pure-Python workload runs back to back in one thread pinned to one core, and each
run's thread CPU time is recorded. Whatever varies here varies under every timing a reward
uses: the sandbox measures the same clock, so no executor setting can make percentile scores
steadier than this floor. On shared cloud machines it is often large and slow-moving (other
tenants on the same physical core or memory bus): the lag-1 autocorrelation says how slowly,
and a slow drift is what calibration against fresh reference reruns corrects.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Callable, Sequence

from pydantic import BaseModel

from execrl.sandbox.machine import MachineFingerprint

FLOOR_TARGET_CV = 0.05
"""Below this CPU-time CV for identical work, a machine is quiet enough for speed rewards
on tests of a few milliseconds and more."""


class FloorReport(BaseModel):
    """Statistics of ``runs`` CPU-time samples (seconds) of one fixed workload."""

    machine: MachineFingerprint
    core: int | None
    runs: list[float]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.runs)

    @property
    def cv(self) -> float:
        """Coefficient of variation (population std / mean)."""
        return statistics.pstdev(self.runs) / self.mean if self.mean > 0 else math.nan

    @property
    def spread(self) -> float:
        """Slowest over fastest run."""
        return max(self.runs) / min(self.runs) if min(self.runs) > 0 else math.inf

    @property
    def lag1(self) -> float:
        """Correlation of each run with the next: near 0 for independent noise, near 1 when
        the machine's speed drifts slowly (runs in a row are slow or fast together)."""
        return lag1_autocorrelation(self.runs)

    def table(self) -> tuple[list[str], list[list[str]]]:
        header = ["runs", "mean ms", "min ms", "median ms", "max ms", "CV", "max/min", "lag-1"]
        ms = [x * 1000 for x in self.runs]
        row = [
            str(len(ms)),
            f"{statistics.fmean(ms):.2f}",
            f"{min(ms):.2f}",
            f"{statistics.median(ms):.2f}",
            f"{max(ms):.2f}",
            f"{self.cv:.3f}",
            f"{self.spread:.2f}",
            f"{self.lag1:+.2f}",
        ]
        return header, [row]

    def verdict(self) -> str:
        if self.cv <= FLOOR_TARGET_CV:
            return (
                f"quiet: identical work varies by {self.cv:.1%} (CV) in CPU time here, "
                f"under the {FLOOR_TARGET_CV:.0%} a speed reward can live with"
            )
        drift = (
            "; it drifts slowly (runs in a row are slow or fast together), so durations "
            "measured together agree better than durations measured apart: measure references "
            "with the candidates (`execrl score --references measure`) and recalibrate stored "
            "ones (`execrl timing drift`)"
            if self.lag1 >= 0.5
            else ""
        )
        return (
            f"noisy: identical work varies by {self.cv:.1%} (CV) in CPU time here, above the "
            f"{FLOOR_TARGET_CV:.0%} a speed reward can live with; no executor setting makes "
            f"percentile scores steadier than this{drift}"
        )


def lag1_autocorrelation(values: Sequence[float]) -> float:
    """Pearson correlation of ``values[:-1]`` with ``values[1:]`` (NaN when undefined)."""
    if len(values) < 3:
        return math.nan
    a, b = values[:-1], values[1:]
    try:
        return statistics.correlation(a, b)
    except statistics.StatisticsError:  # a constant series
        return math.nan


def _workload(n: int) -> int:
    """Interpreter-bound work: integer arithmetic and a small dict, as typical solutions do."""
    total, seen = 0, {}
    for i in range(n):
        total += i * i % 7
        seen[i & 255] = total
    return total + len(seen)


def measure_floor(
    seconds: float = 10.0,
    *,
    run_ms: float = 20.0,
    core: int | None = None,
    work: Callable[[int], object] = _workload,
    progress: Callable[[float], None] | None = None,
) -> FloorReport:
    """Repeat ``work`` (sized to ~``run_ms`` of CPU) for ~``seconds`` in this thread, pinned
    to ``core`` (default: the last core this process may use; the affinity is restored)."""
    if seconds <= 0 or run_ms <= 0:
        raise ValueError(f"`seconds` {seconds:g} and `run_ms` {run_ms:g}: both must be positive")
    allowed = os.sched_getaffinity(0)
    if core is None:
        core = max(allowed)
    elif core not in allowed:
        raise ValueError(f"`core` {core}: not available to this process ({sorted(allowed)})")
    os.sched_setaffinity(0, {core})  # this thread only (Linux affinity is per thread)
    try:
        n = _calibrate(work, run_ms / 1000)
        runs: list[float] = []
        end = time.perf_counter() + seconds
        while time.perf_counter() < end or len(runs) < 3:
            start = time.thread_time()
            work(n)
            runs.append(time.thread_time() - start)
            if progress is not None:
                progress(min(1.0, 1 - (end - time.perf_counter()) / seconds))
    finally:
        os.sched_setaffinity(0, allowed)
    return FloorReport(machine=MachineFingerprint.current(), core=core, runs=runs)


def _calibrate(work: Callable[[int], object], target_s: float) -> int:
    """An ``n`` for which ``work(n)`` takes about ``target_s`` of CPU (the median of 5 runs at
    the first estimate sets the final size: one run can land in a slow spell)."""

    def took(n: int) -> float:
        start = time.thread_time()
        work(n)
        return max(time.thread_time() - start, 1e-9)

    n = 1000
    while (first := took(n)) < target_s / 4 and n < 1 << 30:
        n *= 4
    n = max(1, round(n * target_s / first))
    return max(1, round(n * target_s / statistics.median(took(n) for _ in range(5))))
