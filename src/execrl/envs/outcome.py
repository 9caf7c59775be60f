"""What an environment makes of one execution: the four signals and the per-test details."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from execrl.sandbox.limits import TIMING_UNITS, is_counted


class Verdict(StrEnum):
    """The spec's per-test states (§1). Every sandbox status maps onto one of them:
    wrong answer, runtime error, memory/output limit and compile error are ``failure``."""

    SUCCESS = "success"
    TIMEOUT = "timeout"
    FAILURE = "failure"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True, slots=True)
class TestOutcome:
    test_id: str
    role: str
    """``correctness`` (T_C) or ``optimization`` (T_O_used)."""
    verdict: Verdict
    duration_s: float | None
    """The measured duration in the timing's unit (CPU or wall seconds, or a count: see
    ``Outcome.timing``); None if the test did not run."""
    limit_s: float
    """The intended limit λ_t the verdict was judged under (the cap for correctness tests),
    in the same unit."""
    ranked_duration_s: float | None = None
    """δ_t used for ranking: the measured duration, or the cap for a timeout or failure."""
    percentile: float | None = None
    """p_t(y) among the references (optimization tests with usable references)."""
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The four signals of spec §2 plus everything needed to inspect how they came about."""

    c_cor: int
    """1 iff every correctness test succeeded."""
    c_strict: int
    """c̃_cor: c_cor and no optimization test *failed* (timeouts allowed)."""
    g: int
    """The hard optimization gate ``g_to^ρ · g_dur^p`` (inactive factors are 1)."""
    q: float
    """Graded quality in [0, 1], 0 best: ``q_dur`` with ranking, else the timeout fraction."""
    timeout_fraction: float
    g_to: int
    g_dur: int
    q_dur: float | None
    """The ranked scalar (QAR or QP) when ranking is active and possible, else None."""
    ranked_tests: int
    """Optimization tests that had usable references (contributed to ``q_dur``)."""
    inconclusive: bool
    """Some test's execution failed for infrastructure reasons: no reward should be derived."""
    cap_s: float = 10.0
    """The hard cap the tests ran under (durations are ranked and capped against it), in the
    timing's unit: seconds, or the cap converted to a count."""
    environment: str = ""
    tests: tuple[TestOutcome, ...] = field(default=())
    timing: str = "cpu"
    """The metric of every duration here (``execrl.sandbox.limits.TimingMetric``)."""
    seconds_per_unit: float = 1.0
    """Seconds one unit of those durations is worth: 1 for cpu and wall, 1 / the count rate
    for a count (for the few rewards on an absolute scale of seconds)."""

    @property
    def correctness_tests(self) -> list[TestOutcome]:
        return [t for t in self.tests if t.role == "correctness"]

    @property
    def optimization_tests(self) -> list[TestOutcome]:
        return [t for t in self.tests if t.role == "optimization"]

    def signals(self) -> dict[str, Any]:
        """The scalar signals as a flat dict (for tables and JSONL)."""
        return {k: v for k, v in asdict(self).items() if k != "tests"}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def format_duration(value: float, timing: str) -> str:
    """A duration with its unit: ``0.123 s`` for cpu and wall, ``1,234,567 instructions`` or
    ``1.2e+11 cycles`` for a count (never "s" next to a count)."""
    if not is_counted(timing):
        return f"{value:.3f} s"
    shown = f"{value:,.0f}" if abs(value) < 1e12 else f"{value:.3g}"
    return f"{shown} {TIMING_UNITS[timing]}"


def describe_timing(timing: str) -> str:
    """How a report names ``timing``'s durations: "cpu time", "wall time", "instructions",
    "cycles" (a count is never called a time)."""
    return TIMING_UNITS[timing] if is_counted(timing) else f"{timing} time"
