"""Replay: every evaluation metric recomputed from stored records, without running anything.

A campaign stores each sample's and each reference's per-test verdicts and durations. A
:class:`ReplaySettings` says how to read them — a lower hard cap (a time budget), an intended
limit on the optimization tests, CPU or wall time, an affine calibration ``Γ(d) = α·d + β`` of
the *references* (never the samples, spec §1) — and :func:`replay` turns every sample into a
:class:`SampleScore` through the same code that scores training rollouts:
:meth:`execrl.envs.Environment.outcome` with QP ranking against the campaign's references.
With the default settings a replay is exactly a fresh scoring of the same records.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from execrl.envs.environment import Environment, EnvironmentConfig, check_counted
from execrl.envs.operators import AbsoluteLimit, CapLimit, Limit
from execrl.envs.outcome import Outcome, describe_timing
from execrl.errors import ExecrlError
from execrl.evaluate.folder import CampaignInfo, EvalFolder
from execrl.problems.models import Problem, ReferenceLabel
from execrl.sandbox.counting import seconds_as
from execrl.sandbox.limits import TIMING_UNITS, TimingMetric, is_counted
from execrl.sandbox.records import ExecutionRecord, Status
from execrl.timing.pool import Calibration, ReferencePool


class ReplaySettings(BaseModel):
    """How stored records are read. The defaults read them as they were executed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cap_s: float | None = Field(default=None, gt=0, le=600)
    """A hard time budget per test, at most the cap the campaign ran under: a success that took
    this long or longer becomes a timeout (correctness tests included). None = as executed."""
    limit: Limit = Field(default_factory=CapLimit)
    """The intended limit λ_t on optimization tests (spec §2): cap, absolute, relative or
    ranked-reference; a success at or over it becomes a timeout."""
    timing: TimingMetric | None = None
    """Which stored duration to use; None = the one the campaign timed by. A counted campaign
    can be read by its native CPU or wall time too; a campaign timed by a clock has no
    counts to read (a clear error)."""
    count_rate: float | None = Field(default=None, gt=0)
    """Counts per CPU second, for a counted timing: the budget, an absolute limit and the cap
    a timeout is charged, all given in seconds, are converted at this rate (None = the
    default rate, ``execrl.sandbox.counting.COUNTS_PER_SECOND``)."""
    alpha: float = Field(default=1.0, gt=0)
    """Slope of the affine calibration of the references, ``Γ(d) = α·d + β``."""
    beta: float = 0.0
    """Offset of the calibration, in the timing's unit (seconds, or a count)."""

    @classmethod
    def with_limit_s(cls, limit_s: float | None, **fields) -> ReplaySettings:
        """Settings with an absolute intended limit of ``limit_s`` seconds (None = the cap)."""
        limit = CapLimit() if limit_s is None else AbsoluteLimit(seconds=limit_s)
        return cls(limit=limit, **fields)

    def calibration(self) -> Calibration | None:
        """Γ for the reference pool (None when it is the identity)."""
        if self.alpha == 1.0 and self.beta == 0.0:
            return None
        alpha, beta = self.alpha, self.beta
        return lambda d: alpha * d + beta

    def describe(self) -> str:
        parts = []
        if self.cap_s is not None:
            parts.append(f"budget {self.cap_s:g} s per test")
        if self.limit.kind != "cap":
            parts.append(f"intended limit {describe_limit(self.limit)}")
        if self.timing is not None:
            parts.append(describe_timing(self.timing))
        if self.count_rate is not None:
            parts.append(f"{self.count_rate:g} counts per second")
        if self.calibration() is not None:
            unit = TIMING_UNITS[self.timing or "cpu"]
            parts.append(f"references Γ(d) = {self.alpha:g}·d {self.beta:+g} {unit}")
        return ", ".join(parts) or "as executed"


def describe_limit(limit: Limit) -> str:
    """A limit operator in words: ``1.2 s``, ``p50 of the references``, ..."""
    if isinstance(limit, AbsoluteLimit):
        return f"{limit.seconds:g} s"
    fields = limit.model_dump(exclude={"kind"})
    return f"{limit.kind}(" + ", ".join(f"{k}={v}" for k, v in fields.items()) + ")"


@dataclass(frozen=True)
class SampleRun:
    """One sample's record in the campaign."""

    model: str
    problem_id: str
    index: int
    record: ExecutionRecord


@dataclass(frozen=True)
class EvalData:
    """An executed evaluation folder, loaded: problems, sample records, reference records."""

    problems: dict[str, Problem]
    """In the order they were sampled."""
    models: list[str]
    samples: list[SampleRun]
    references: dict[str, dict[str, ExecutionRecord]]
    """Per problem, per reference name, its record on the optimization tests."""
    campaign: CampaignInfo
    path: Path | None = None

    def executed_cap(self, problem_id: str) -> float:
        """The hard cap the campaign ran this problem's tests under."""
        return self.campaign.cap_s or self.problems[problem_id].time_limit_s

    @property
    def timing(self) -> TimingMetric:
        return self.campaign.timing


def load_eval(path: str | Path) -> EvalData:
    """Load an executed evaluation folder (after ``execrl eval run``)."""
    folder = EvalFolder(path)
    manifest = folder.manifest()
    info, entries, records = folder.campaign()
    problems = {p.id: p for p in folder.problems()}
    samples, references = [], {}
    for entry, record in zip(entries, records, strict=True):
        if entry.problem_id not in problems:
            raise ExecrlError(f"{path}: a record for unknown problem {entry.problem_id!r}")
        if entry.kind == "sample":
            samples.append(SampleRun(entry.model or "", entry.problem_id, entry.index or 0, record))
        else:
            references.setdefault(entry.problem_id, {})[entry.reference or ""] = record
    order = {pid: i for i, pid in enumerate(problems)}
    samples.sort(key=lambda s: (order[s.problem_id], s.model, s.index))
    models = [m.label for m in manifest.models]
    return EvalData(problems, models, samples, references, info, Path(path))


# --------------------------------------------------------------------------------------------
# References: durations from the campaign's records


def reference_durations(
    records: Mapping[str, ExecutionRecord], timing: str, cap_s: float
) -> dict[str, dict[str, float]]:
    """``{reference: {test: duration}}`` from reference records, as
    :func:`execrl.timing.measure_reference_durations` stores them: a success gives its
    duration, a timeout the cap (``cap_s``, on ``timing``'s scale), anything else nothing (the
    reference is missing there). A counted timing needs counted records."""
    out: dict[str, dict[str, float]] = {}
    for name, record in records.items():
        check_counted(record, timing)
        durations = {}
        for r in record.results:
            if r.status is Status.SUCCESS:
                durations[r.test_id] = r.duration_s(timing)
            elif r.status is Status.TIMEOUT:
                durations[r.test_id] = cap_s
        out[name] = durations
    return out


def with_campaign_durations(
    data: EvalData, problem_id: str, timing: str, count_rate: float | None = None
) -> Problem:
    """The problem whose correct references carry the campaign's durations (``durations_s``),
    ready for :meth:`Environment.pool` — the path fresh scoring takes. A timeout is stored at
    the executed cap, converted to a count at ``count_rate`` for a counted timing."""
    problem = data.problems[problem_id]
    cap = seconds_as(data.executed_cap(problem_id), timing, count_rate)
    stored = reference_durations(data.references.get(problem_id, {}), timing, cap)
    refs = [
        ref.model_copy(update={"durations_s": stored.get(ref.name, {})})
        if ref.label == ReferenceLabel.CORRECT
        else ref
        for ref in problem.references
    ]
    return problem.model_copy(update={"references": refs})


def p_tau_environment(data: EvalData, settings: ReplaySettings) -> Environment:
    """The environment of the p_τ metrics (spec §5): all correctness tests, all optimization
    tests under ``settings.limit``, QP ranking without a gate (τ is applied afterwards, so
    one replay serves every τ), the timeout gate off (ρ = 1: timeouts are allowed)."""
    return Environment(
        EnvironmentConfig(
            name="p_tau",
            correctness="all",
            optimization=True,
            limit=settings.limit,
            ranking="qp",
            gate=None,
            tolerance=1.0,
            cap_s=replay_cap(data, settings),
            timing=replay_timing(data, settings),
            count_rate=settings.count_rate,
        )
    )


def replay_timing(data: EvalData, settings: ReplaySettings) -> str:
    """The metric to replay by: the settings', else the campaign's. Counts can only be read
    from a campaign that counted by that metric (its records keep the native clocks too)."""
    timing = settings.timing or data.timing
    if is_counted(timing) and timing != data.timing:
        raise ExecrlError(
            f"the campaign was timed by {data.timing}, so it holds no {TIMING_UNITS[timing]}; "
            f"replay it by {data.timing}, or run the campaign again with `timing` {timing}"
        )
    return timing


def replay_cap(data: EvalData, settings: ReplaySettings) -> float | None:
    """The cap to judge under: the budget if one is set (never above what was executed)."""
    if settings.cap_s is None:
        return data.campaign.cap_s
    executed = {pid: data.executed_cap(pid) for pid in data.problems}
    too_long = {pid: cap for pid, cap in executed.items() if settings.cap_s > cap}
    if too_long:
        pid, cap = next(iter(too_long.items()))
        raise ExecrlError(
            f"cannot replay a {settings.cap_s:g} s budget: {pid} ran under a {cap:g} s cap "
            "(programs were stopped there); choose a budget at most the executed cap"
        )
    return settings.cap_s


# --------------------------------------------------------------------------------------------
# Scoring samples


@dataclass(frozen=True)
class SampleScore:
    """What the evaluation metrics need from one sample."""

    model: str
    problem_id: str
    index: int
    c_cor: int
    c_strict: int
    """Strict correctness: every correctness test passed and no optimization test failed."""
    q_qp: float | None
    """Leaderboard percentile among the references (0 fastest); None when no optimization
    test has usable reference durations."""
    duration_s: float
    """Accumulated duration over all tests (timeouts and failures at the cap), in the
    timing's unit (seconds, or a count)."""
    inconclusive: bool

    def passes(self, tau: float) -> bool:
        """Counts under ``p_τ``: strict correctness and ``q_QP ≤ τ/100``. Without usable
        references the ranking gate stays open, as in :class:`execrl.envs.Environment`."""
        return bool(self.c_strict) and (self.q_qp is None or self.q_qp <= tau / 100)


def sample_score(run: SampleRun, outcome: Outcome) -> SampleScore:
    return SampleScore(
        model=run.model,
        problem_id=run.problem_id,
        index=run.index,
        c_cor=outcome.c_cor,
        c_strict=outcome.c_strict,
        q_qp=outcome.q_dur,
        duration_s=sum(t.ranked_duration_s or 0.0 for t in outcome.tests),
        inconclusive=outcome.inconclusive,
    )


@dataclass(frozen=True)
class Replay:
    """Every sample of an evaluation scored under one setting."""

    data: EvalData
    settings: ReplaySettings
    scores: tuple[SampleScore, ...]
    outcomes: tuple[Outcome, ...] = field(repr=False, default=())
    """The full Outcome behind each score, same order."""

    @property
    def problem_ids(self) -> list[str]:
        return list(self.data.problems)

    @property
    def models(self) -> list[str]:
        return self.data.models


def replay(data: EvalData, settings: ReplaySettings | None = None) -> Replay:
    """Score every sample under ``settings`` (default: as executed)."""
    settings = settings or ReplaySettings()
    env = p_tau_environment(data, settings)
    timing = replay_timing(data, settings)
    calibration = settings.calibration()
    plans = {}
    for pid in data.problems:
        problem = with_campaign_durations(data, pid, timing, settings.count_rate)
        plans[pid] = (problem, env.plan(problem, env.pool(problem, calibration)))
    scores, outcomes = [], []
    for run in data.samples:
        problem, plan = plans[run.problem_id]
        outcome = env.outcome(problem, run.record, plan=plan)
        scores.append(sample_score(run, outcome))
        outcomes.append(outcome)
    return Replay(data, settings, tuple(scores), tuple(outcomes))


def reference_pool(data: EvalData, problem_id: str, settings: ReplaySettings) -> ReferencePool:
    """The campaign's reference pool for one problem under ``settings``."""
    env = p_tau_environment(data, settings)
    timing = replay_timing(data, settings)
    problem = with_campaign_durations(data, problem_id, timing, settings.count_rate)
    return env.pool(problem, settings.calibration())
