"""An environment: the three operators of spec §2 and the four signals they produce.

``Environment.plan`` chooses the tests and their intended limits from the problem and its
reference pool; ``Environment.request`` turns a program into the ExecutionRequest to run;
``Environment.outcome`` turns the resulting ExecutionRecord into an Outcome. Everything after
the executor is a pure function of the record, so stored records can be rescored under any
environment without running anything again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from execrl.envs.operators import (
    CapLimit,
    Filter,
    IdentityFilter,
    Limit,
    per_test_percentiles,
    qar,
    qp,
)
from execrl.envs.outcome import Outcome, TestOutcome, Verdict
from execrl.envs.references import Calibration, ReferencePool
from execrl.errors import ExecrlError
from execrl.problems.models import Problem, TestCase, TestGroup
from execrl.sandbox.executor import ExecutionRequest
from execrl.sandbox.limits import ExecutionOptions, Limits
from execrl.sandbox.records import ExecutionRecord, Status, TestResult

VERDICTS = {
    Status.SUCCESS: Verdict.SUCCESS,
    Status.TIMEOUT: Verdict.TIMEOUT,
    Status.INCONCLUSIVE: Verdict.INCONCLUSIVE,
}
"""Sandbox statuses with their own spec state; every other status is a ``failure``."""


class EnvironmentConfig(BaseModel):
    """Everything that defines an environment (spec §2). Presets are instances of this."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "custom"
    correctness: Literal["original", "all"] = "all"
    """T_C: the original tests T0 only (standard RLVR) or T0 ∪ T+."""
    optimization: bool = True
    """Whether the optimization pool T_O is used at all."""
    filter: Filter = Field(default_factory=IdentityFilter)
    limit: Limit = Field(default_factory=CapLimit)
    ranking: Literal["none", "qar", "qp"] = "none"
    tolerance: float = Field(default=1.0, ge=0, le=1)
    """ρ of the timeout gate ``g_to^ρ = 1[φ ≤ ρ]`` (1 = inactive)."""
    gate: float | None = Field(default=None, ge=0, le=1)
    """p of the duration gate ``g_dur^p = 1[q ≤ p]`` on the ranked scalar (None = inactive)."""
    cap_s: float | None = Field(default=None, gt=0, le=600)
    """The hard cap per test; None = the problem's own time limit (the source used 10 s)."""
    drop_unreferenced: bool = True
    """Relative and ranked-reference limits: drop used tests without usable references
    (otherwise they run under the cap)."""
    timing: Literal["cpu", "wall"] | None = None
    """Which duration to use; None = what each record says (CPU time by default)."""

    @property
    def needs_references(self) -> bool:
        """Whether reference durations matter here: the environment ranks against them, or
        filters or limits its optimization tests by them."""
        return self.optimization and (
            self.ranking != "none"
            or self.filter.kind in ("absolute", "relative")
            or self.limit.kind in ("relative", "ranked")
        )


@dataclass(frozen=True)
class Plan:
    """What to run for one problem: T_C, T_O_used with their intended limits, and the pool
    aligned with T_O_used."""

    correctness: tuple[TestCase, ...]
    optimization: tuple[TestCase, ...]
    limits_s: np.ndarray
    pool: ReferencePool
    cap_s: float

    @property
    def tests(self) -> list[TestCase]:
        return [*self.correctness, *self.optimization]


class Environment:
    """An environment built from an :class:`EnvironmentConfig` (see ``execrl.envs.presets``
    for the named ones)."""

    def __init__(self, config: EnvironmentConfig | None = None) -> None:
        self.config = config or EnvironmentConfig()

    @property
    def name(self) -> str:
        return self.config.name

    def __repr__(self) -> str:
        return f"Environment({self.config.name!r})"

    def cap_for(self, problem: Problem) -> float:
        return self.config.cap_s or problem.time_limit_s

    def pool(self, problem: Problem, calibration: Calibration | None = None) -> ReferencePool:
        """The problem's stored reference durations, sanitised under this environment's cap."""
        return ReferencePool.from_problem(
            problem, cap_s=self.cap_for(problem), calibration=calibration
        )

    # -- before execution --------------------------------------------------------------------
    def plan(self, problem: Problem, pool: ReferencePool | None = None) -> Plan:
        cfg = self.config
        cap = self.cap_for(problem)
        if pool is None:
            pool = self.pool(problem)
        elif pool.cap_s != cap:
            raise ExecrlError(
                f"{problem.id}: the reference pool was sanitised with a {pool.cap_s} s cap but "
                f"environment {cfg.name!r} uses {cap} s; build it with Environment.pool(problem)"
            )
        correctness = (
            problem.tests_in(TestGroup.ORIGINAL)
            if cfg.correctness == "original"
            else problem.correctness_tests
        )
        candidates = problem.optimization_tests if cfg.optimization else []
        keep = cfg.filter.keep(candidates, pool.on([t.id for t in candidates]))
        used = [t for t, k in zip(candidates, keep, strict=True) if k]
        used_pool = pool.on([t.id for t in used])
        limits = cfg.limit.limits(used_pool)
        missing = np.isnan(limits)
        if missing.any() and cfg.drop_unreferenced:
            used = [t for t, m in zip(used, missing, strict=True) if not m]
            used_pool = pool.on([t.id for t in used])
            limits = limits[~missing]
        limits = np.minimum(np.where(np.isnan(limits), cap, limits), cap)
        return Plan(tuple(correctness), tuple(used), limits, used_pool, cap)

    def request(
        self,
        problem: Problem,
        program: str,
        *,
        plan: Plan | None = None,
        options: ExecutionOptions | None = None,
        program_name: str = "",
    ) -> ExecutionRequest:
        """The execution a program needs here: T_C and T_O_used under the hard cap (intended
        limits are applied afterwards, in :meth:`outcome`)."""
        plan = plan or self.plan(problem)
        timing = self.config.timing or "cpu"
        return ExecutionRequest.for_problem(
            problem,
            program,
            tests=plan.tests,
            limits=Limits(timeout_s=plan.cap_s, memory_mb=problem.memory_limit_mb),
            options=options or ExecutionOptions(timing=timing),
            program_name=program_name,
        )

    # -- after execution ---------------------------------------------------------------------
    def outcome(
        self,
        problem: Problem,
        record: ExecutionRecord,
        *,
        pool: ReferencePool | None = None,
        plan: Plan | None = None,
    ) -> Outcome:
        """The four signals for one record (spec §2). Tests of the plan missing from the record
        count as failures ("not run")."""
        cfg = self.config
        plan = plan or self.plan(problem, pool)
        timing = cfg.timing or record.timing
        results = {r.test_id: r for r in record.results}
        details = [
            _test_outcome(t.id, "correctness", results.get(t.id), plan.cap_s, plan.cap_s, timing)
            for t in plan.correctness
        ]
        opt = [
            _test_outcome(t.id, "optimization", results.get(t.id), lam, plan.cap_s, timing)
            for t, lam in zip(plan.optimization, plan.limits_s, strict=True)
        ]
        c_cor = int(all(d.verdict is Verdict.SUCCESS for d in details))
        c_strict = c_cor * int(all(d.verdict in (Verdict.SUCCESS, Verdict.TIMEOUT) for d in opt))
        phi = sum(d.verdict is Verdict.TIMEOUT for d in opt) / len(opt) if opt else 0.0
        g_to = int(phi <= cfg.tolerance)

        q_dur, ranked = None, 0
        if opt:
            delta = np.array([d.ranked_duration_s for d in opt], dtype=float)
            D = plan.pool.durations
            percentiles = per_test_percentiles(delta, D)
            ranked = int(np.sum(~np.isnan(percentiles)))
            opt = [_with_percentile(d, p) for d, p in zip(opt, percentiles.tolist(), strict=True)]
            if cfg.ranking == "qar":
                q_dur = qar(delta, D)
            elif cfg.ranking == "qp":
                q_dur = qp(delta, D)
        # [ours] a gate with nothing to rank (no usable references) stays open; q falls back
        # to the timeout fraction.
        g_dur = int(q_dur <= cfg.gate) if (cfg.gate is not None and q_dur is not None) else 1
        tests = (*details, *opt)
        return Outcome(
            c_cor=c_cor,
            c_strict=c_strict,
            g=g_to * g_dur,
            q=q_dur if q_dur is not None else phi,
            timeout_fraction=phi,
            g_to=g_to,
            g_dur=g_dur,
            q_dur=q_dur,
            ranked_tests=ranked,
            inconclusive=any(t.verdict is Verdict.INCONCLUSIVE for t in tests),
            cap_s=plan.cap_s,
            environment=cfg.name,
            tests=tests,
        )


def _test_outcome(
    test_id: str, role: str, result: TestResult | None, limit_s: float, cap_s: float, timing: str
) -> TestOutcome:
    if result is None:
        return TestOutcome(test_id, role, Verdict.FAILURE, None, limit_s, cap_s, detail="not run")
    verdict = VERDICTS.get(result.status, Verdict.FAILURE)
    duration = result.duration_s(timing)
    detail = result.detail
    if verdict is Verdict.SUCCESS and duration >= limit_s:  # spec §1: applied after execution
        verdict, detail = Verdict.TIMEOUT, f"{timing} time {duration:.3f} s ≥ λ = {limit_s:g} s"
    ranked = duration if verdict is Verdict.SUCCESS else cap_s  # timeouts (and failures) at cap
    return TestOutcome(test_id, role, verdict, duration, limit_s, ranked, detail=detail)


def _with_percentile(test: TestOutcome, p: float) -> TestOutcome:
    if p != p:  # NaN: no usable references on this test
        return test
    return TestOutcome(
        test.test_id,
        test.role,
        test.verdict,
        test.duration_s,
        test.limit_s,
        test.ranked_duration_s,
        p,
        test.detail,
    )
