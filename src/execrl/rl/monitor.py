"""Spec §6 monitoring of a training step: how many tests were resolved where they were sent,
how many took the fallback or stayed unknown, and whether that burst.

Per training step, :class:`StepMonitor` reports the share of tests resolved without fallback,
the fallback, unknown and timeout rates, the reward distribution, the chance a group of
rollouts contains a fallback (:func:`exposure`), and flags bursts: counting hard errors alone
misses them. The fallback policy itself (what a record says after a fallback run) is
:mod:`execrl.service.fallback`'s; this module only reads the records it made. The trainer
keeps one monitor in its state (``TrainState.monitor``) and logs its report every step.
"""

from __future__ import annotations

import statistics
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

from execrl.sandbox.records import ExecutionRecord, Status


def exposure(f: float, n: int) -> float:
    """``1 − (1 − f)**n``: the chance that a group of ``n`` rollouts contains at least one
    fallback when each rollout falls back with probability ``f`` independently."""
    if not 0.0 <= f <= 1.0 or n < 0:
        raise ValueError(f"exposure needs 0 <= f <= 1 and n >= 0, got f={f}, n={n}")
    return 1.0 - (1.0 - f) ** n


@dataclass(frozen=True)
class RewardSummary:
    """The distribution of one step's rewards."""

    count: int
    mean: float
    std: float
    min: float
    p10: float
    p50: float
    p90: float
    max: float

    @classmethod
    def of(cls, rewards: Sequence[float]) -> RewardSummary:
        values = sorted(float(r) for r in rewards)
        if not values:
            raise ValueError("a reward summary needs at least one reward")
        return cls(
            count=len(values),
            mean=statistics.fmean(values),
            std=statistics.pstdev(values),
            min=values[0],
            p10=_quantile(values, 0.1),
            p50=_quantile(values, 0.5),
            p90=_quantile(values, 0.9),
            max=values[-1],
        )


def _quantile(ordered: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True)
class StepCounts:
    """Per-test and per-rollout counts of one step's records."""

    tests: int = 0
    resolved: int = 0
    """Tests with a verdict measured where they were sent (``fallback=False``)."""
    fallback: int = 0
    """Tests whose verdict came from a fallback run elsewhere."""
    unknown: int = 0
    """Tests still ``inconclusive``."""
    timeout: int = 0
    rollouts: int = 0
    rollouts_with_fallback: int = 0
    rollouts_unknown: int = 0

    @classmethod
    def of(cls, records: Iterable[ExecutionRecord]) -> StepCounts:
        tests = resolved = fell_back = unknown = timeout = rollouts = with_fb = with_unk = 0
        for record in records:
            rollouts += 1
            statuses = [(r.status, r.fallback) for r in record.results]
            tests += len(statuses)
            unknown_here = sum(s is Status.INCONCLUSIVE for s, _ in statuses)
            fallback_here = sum(fb and s is not Status.INCONCLUSIVE for s, fb in statuses)
            unknown += unknown_here
            fell_back += fallback_here
            resolved += len(statuses) - unknown_here - fallback_here
            timeout += sum(s is Status.TIMEOUT for s, _ in statuses)
            with_fb += fallback_here > 0
            with_unk += unknown_here > 0
        return cls(tests, resolved, fell_back, unknown, timeout, rollouts, with_fb, with_unk)


@dataclass(frozen=True)
class StepReport:
    """One training step as the monitor saw it. Rates are shares of the step's tests; the
    rollout rates are shares of its records."""

    step: int
    counts: StepCounts
    resolved_rate: float
    fallback_rate: float
    unknown_rate: float
    timeout_rate: float
    rollout_fallback_rate: float
    """``f``: the share of rollouts with at least one fallback test."""
    group_size: int
    exposure: float
    """``exposure(rollout_fallback_rate, group_size)``."""
    rewards: RewardSummary | None = None
    bursts: list[str] = field(default_factory=list)
    """The rates that burst this step (``fallback``, ``unknown``); empty when none did."""

    @property
    def burst(self) -> bool:
        return bool(self.bursts)

    def to_dict(self) -> dict:
        """A flat dict for a metrics log (``monitor/...`` keys, as trainers log them)."""
        flat = {
            "step": self.step,
            "monitor/tests": self.counts.tests,
            "monitor/resolved_rate": self.resolved_rate,
            "monitor/fallback_rate": self.fallback_rate,
            "monitor/unknown_rate": self.unknown_rate,
            "monitor/timeout_rate": self.timeout_rate,
            "monitor/rollout_fallback_rate": self.rollout_fallback_rate,
            "monitor/exposure": self.exposure,
            "monitor/burst": int(self.burst),
        }
        if self.rewards is not None:
            flat |= {f"monitor/reward_{k}": v for k, v in asdict(self.rewards).items()}
        return flat


BURST_KINDS = ("fallback", "unknown")


class StepMonitor:
    """Spec §6 monitoring, one call per training step: ``monitor.observe(records, rewards)``.

    Burst rule: a step's fallback (or unknown) rate ``r`` bursts when ``r ≥ floor`` **and**
    ``r > factor × median`` of that rate over the previous ``window`` steps. The floor keeps a
    near-zero baseline from flagging single events; the relative test catches a jump that a
    fixed error threshold would miss on a noisy machine. The first step is judged against a
    baseline of 0 (any rate over the floor bursts).
    """

    def __init__(
        self,
        *,
        group_size: int = 8,
        window: int = 20,
        factor: float = 3.0,
        floor: float = 0.02,
    ) -> None:
        if group_size < 1 or window < 1 or factor <= 0 or not 0 <= floor <= 1:
            raise ValueError(
                "StepMonitor needs group_size >= 1, window >= 1, factor > 0 and 0 <= floor <= 1"
            )
        self.group_size = group_size
        self.factor = factor
        self.floor = floor
        self._history: dict[str, deque[float]] = {k: deque(maxlen=window) for k in BURST_KINDS}
        self.reports: list[StepReport] = []

    def observe(
        self, records: Iterable[ExecutionRecord], rewards: Sequence[float] | None = None
    ) -> StepReport:
        """Report one step from its records (and the rewards given for them)."""
        counts = StepCounts.of(records)
        rates = _rates(counts)
        f = counts.rollouts_with_fallback / counts.rollouts if counts.rollouts else 0.0
        report = StepReport(
            step=len(self.reports),
            counts=counts,
            resolved_rate=rates["resolved"],
            fallback_rate=rates["fallback"],
            unknown_rate=rates["unknown"],
            timeout_rate=rates["timeout"],
            rollout_fallback_rate=f,
            group_size=self.group_size,
            exposure=exposure(f, self.group_size),
            rewards=RewardSummary.of(rewards) if rewards else None,
            bursts=[k for k in BURST_KINDS if self._bursts(k, rates[k])],
        )
        for kind in BURST_KINDS:
            self._history[kind].append(rates[kind])
        self.reports.append(report)
        return report

    def _bursts(self, kind: str, rate: float) -> bool:
        history = self._history[kind]
        baseline = statistics.median(history) if history else 0.0
        return rate >= self.floor and rate > self.factor * baseline


def _rates(counts: StepCounts) -> dict[str, float]:
    total = counts.tests or 1  # a step without tests has every rate 0
    return {
        "resolved": counts.resolved / total if counts.tests else 0.0,
        "fallback": counts.fallback / total,
        "unknown": counts.unknown / total,
        "timeout": counts.timeout / total,
    }
