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
    AbsoluteFilter,
    AbsoluteLimit,
    CapLimit,
    Filter,
    IdentityFilter,
    Limit,
    qar,
    qp,
)
from execrl.envs.outcome import Outcome, TestOutcome, Verdict, format_duration
from execrl.errors import ExecrlError
from execrl.problems.models import Problem, TestCase, TestGroup, TimeLimitS
from execrl.sandbox.counting import seconds_as
from execrl.sandbox.limits import TIMING_UNITS, ExecutionOptions, Limits, TimingMetric, is_counted
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import ExecutionRecord, Status, TestResult
from execrl.timing.percentiles import per_test_percentiles
from execrl.timing.pool import Calibration, ReferencePool

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
    cap_s: TimeLimitS | None = None
    """The hard cap per test; None = the problem's own time limit (the source used 10 s)."""
    drop_unreferenced: bool = True
    """Relative and ranked-reference limits: drop used tests without usable references
    (otherwise they run under the cap)."""
    timing: TimingMetric | None = None
    """Which duration to use: CPU or wall seconds, or a count (``instructions``,
    ``cycles_estimate``); None = what each record says (CPU time by default)."""
    count_rate: float | None = Field(default=None, gt=0)
    """Counts per CPU second, for a counted ``timing``: where a limit given in seconds meets a
    count (the cap a timeout is charged, an absolute limit, an absolute filter's cut-off) it
    is converted at this rate. Pass the machine's fitted rate where there is one; None = the
    default rate (``execrl.sandbox.counting.COUNTS_PER_SECOND``). Unused for cpu and wall."""

    def in_units(self, seconds: float, timing: str) -> float:
        """A limit given in ``seconds`` on ``timing``'s scale (itself for cpu and wall)."""
        return seconds_as(seconds, timing, self.count_rate)

    def operators_in(self, timing: str) -> tuple[Filter, Limit]:
        """The filter and limit on ``timing``'s scale (:func:`operator_in`)."""
        return (
            operator_in(self.filter, timing, self.count_rate),
            operator_in(self.limit, timing, self.count_rate),
        )

    @property
    def needs_references(self) -> bool:
        """Whether reference durations matter here: the environment ranks against them, or
        filters or limits its optimization tests by them."""
        return self.optimization and (
            self.ranking != "none"
            or self.filter.kind in ("absolute", "relative")
            or self.limit.kind in ("relative", "ranked")
        )


def operator_in(operator, timing: str, count_rate: float | None = None):
    """A filter or limit with its threshold in seconds put on ``timing``'s scale (``F_abs``'s
    ``a``, an absolute ``λ``, at ``count_rate``); the others (relative, ranked, length) need
    no conversion and come back as they are."""
    if isinstance(operator, AbsoluteFilter):
        return operator.model_copy(update={"a": seconds_as(operator.a, timing, count_rate)})
    if isinstance(operator, AbsoluteLimit):
        seconds = seconds_as(operator.seconds, timing, count_rate)
        return operator.model_copy(update={"seconds": seconds})
    return operator


@dataclass(frozen=True)
class Plan:
    """What to run for one problem: T_C, T_O_used with their intended limits, and the pool
    aligned with T_O_used. Durations, limits and the pool are on ``timing``'s scale (seconds,
    or a count); ``cap_s`` is the hard cap the tests run under, always in seconds."""

    correctness: tuple[TestCase, ...]
    optimization: tuple[TestCase, ...]
    limits_s: np.ndarray
    pool: ReferencePool
    cap_s: float
    timing: str = "cpu"

    @property
    def tests(self) -> list[TestCase]:
        return [*self.correctness, *self.optimization]

    @property
    def cap(self) -> float:
        """The cap on ``timing``'s scale: what a timeout is charged and the pool is clamped to
        (``cap_s`` itself for cpu and wall, ``seconds_as(cap_s, ...)`` for a count)."""
        return self.pool.cap_s


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

    def timing_for(self, timing: str | None = None) -> str:
        """The metric in force: the config's, else ``timing`` (a record's), else CPU time."""
        return self.config.timing or timing or "cpu"

    def pool(
        self,
        problem: Problem,
        calibration: Calibration | None = None,
        *,
        timing: str | None = None,
    ) -> ReferencePool:
        """The problem's stored reference durations, sanitised under this environment's cap
        on the timing's scale; stored durations of the other kind (seconds for a count, or
        counts for seconds) are a DataError."""
        timing = self.timing_for(timing)
        return ReferencePool.from_problem(
            problem,
            cap_s=self.config.in_units(self.cap_for(problem), timing),
            calibration=calibration,
            timing=timing,
        )

    # -- before execution --------------------------------------------------------------------
    def plan(
        self, problem: Problem, pool: ReferencePool | None = None, *, timing: str | None = None
    ) -> Plan:
        """T_C, the used optimization tests and their intended limits for ``problem``, on the
        scale of the timing in force (the config's, else ``timing``, else CPU time)."""
        cfg = self.config
        timing = self.timing_for(timing)
        cap = cfg.in_units(self.cap_for(problem), timing)
        if pool is None:
            pool = self.pool(problem, timing=timing)
        else:
            _check_pool(problem, pool, cap, timing, cfg.name)
        correctness = (
            problem.tests_in(TestGroup.ORIGINAL)
            if cfg.correctness == "original"
            else problem.correctness_tests
        )
        candidates = problem.optimization_tests if cfg.optimization else []
        test_filter, limit = cfg.operators_in(timing)
        keep = test_filter.keep(candidates, pool.on([t.id for t in candidates]))
        used = [t for t, k in zip(candidates, keep, strict=True) if k]
        used_pool = pool.on([t.id for t in used])
        limits = limit.limits(used_pool)
        missing = np.isnan(limits)
        if missing.any() and cfg.drop_unreferenced:
            used = [t for t, m in zip(used, missing, strict=True) if not m]
            used_pool = pool.on([t.id for t in used])
            limits = limits[~missing]
        limits = np.minimum(np.where(np.isnan(limits), cap, limits), cap)
        return Plan(
            tuple(correctness), tuple(used), limits, used_pool, self.cap_for(problem), timing
        )

    def request(
        self,
        problem: Problem,
        program: str,
        *,
        plan: Plan | None = None,
        options: ExecutionOptions | None = None,
        program_name: str = "",
        language: str = "python",
    ) -> ExecutionRequest:
        """The execution a program needs here: T_C and T_O_used under the hard cap (intended
        limits are applied afterwards, in :meth:`outcome`). ``language``: the program's, any
        name ``execrl languages`` knows (``cpp``, ``c++``, ``java``); a program that does not
        build fails every test (``compile_error``), and the outcome does not know which
        language ran."""
        plan = plan or self.plan(problem)
        timing = plan.timing
        return ExecutionRequest.for_problem(
            problem,
            program,
            tests=plan.tests,
            limits=Limits.for_problem(problem, cap_s=plan.cap_s),
            options=options or ExecutionOptions(timing=timing),
            program_name=program_name,
            language=language,
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
        timing = self.timing_for(record.timing)
        plan = plan or self.plan(problem, pool, timing=timing)
        check_same_scale(plan.timing, timing, f"{problem.id}: the plan")
        check_counted(record, timing)
        results = {r.test_id: r for r in record.results}
        details = [
            _test_outcome(t.id, "correctness", results.get(t.id), plan.cap, plan.cap, timing)
            for t in plan.correctness
        ]
        opt = [
            _test_outcome(t.id, "optimization", results.get(t.id), lam, plan.cap, timing)
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
            cap_s=plan.cap,
            environment=cfg.name,
            tests=tests,
            timing=timing,
            seconds_per_unit=1.0 / cfg.in_units(1.0, timing),
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
        verdict, detail = Verdict.TIMEOUT, _over_limit(duration, limit_s, timing)
    ranked = duration if verdict is Verdict.SUCCESS else cap_s  # timeouts (and failures) at cap
    return TestOutcome(test_id, role, verdict, duration, limit_s, ranked, detail=detail)


def _check_pool(problem: Problem, pool: ReferencePool, cap: float, timing: str, env: str) -> None:
    """A pool given to :meth:`Environment.plan` must be on the plan's scale, under its cap."""
    if pool.timing is not None:
        check_same_scale(pool.timing, timing, f"{problem.id}: the reference pool")
    if pool.cap_s != cap:
        unit = TIMING_UNITS.get(timing, "s")
        raise ExecrlError(
            f"{problem.id}: the reference pool was sanitised with a cap of {pool.cap_s:g} {unit} "
            f"but environment {env!r} uses {cap:g} {unit}; build it with Environment.pool(problem)"
        )


def check_same_scale(have: str, want: str, what: str) -> None:
    """Refuse durations of one kind judged on another's scale (seconds against counts, or
    instructions against estimated cycles); cpu and wall share a scale."""
    if have != want and (is_counted(have) or is_counted(want)):
        raise ExecrlError(
            f"{what} is timed by {have} but the durations are {want} "
            f"({TIMING_UNITS.get(want, want)}), and metrics do not mix; build it with "
            f"timing={want!r}"
        )


def check_counted(record: ExecutionRecord, timing: str) -> None:
    """Refuse to read counts a record does not hold: with a counted ``timing`` every passing
    test must carry its count (the executor makes a passing test without one inconclusive),
    so a passing test without one means the record was timed by another metric."""
    if not is_counted(timing):
        return
    for result in record.results:
        if result.passed and getattr(result, timing) is None:
            who = f"{record.problem_id}/{record.program_name or record.program_sha256[:12]}"
            if record.timing == timing:  # (the executor makes such a test inconclusive)
                raise ExecrlError(
                    f"{who}: test {result.test_id} passed without its {timing} count, which "
                    "a counted run always has: the record is incomplete; run it again"
                )
            raise ExecrlError(
                f"{who}: test {result.test_id} passed without an {timing} count (the record "
                f"was timed by {record.timing}); score it with timing={record.timing!r}, or "
                f"rerun it with timing={timing!r}"
            )


def _over_limit(duration: float, limit: float, timing: str) -> str:
    """Why a success became a timeout: ``cpu time 0.600 s ≥ λ = 0.5 s``, or for a count
    ``500,000,000 instructions ≥ λ = 400,000,000 instructions``."""
    if is_counted(timing):
        return f"{format_duration(duration, timing)} ≥ λ = {format_duration(limit, timing)}"
    return f"{timing} time {duration:.3f} s ≥ λ = {limit:g} s"


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
