"""The drift monitor: does the calibration still hold on this machine now? (spec §6)

A calibration map Γ carries stored reference durations onto the fresh scale of the machine it
was fitted on. Anything that changes that machine's speed — a kernel or Python upgrade, a
different executor, a neighbour that now shares the cores — silently breaks it. The monitor
reruns a few *sentinel* references now and checks that their fresh durations still land
where Γ predicts:

    per sentinel test   r_t = log(fresh_t / Γ(stored_t))      fresh = mean over the reruns now,
                                                               stored = the stored median
    per sentinel        r = median_t r_t,  ratio = exp(r)     (fresh / predicted, typical test)
    band                |r| ≤ k·σ                             σ = std of the calibration fit's
                                                               residuals in log space
    drifted             any sentinel outside its band

The median over a sentinel's tests keeps one noisy test from raising the alarm; the band uses
the per-triple residual spread σ, so it is wide for a median (few false alarms; a real shift
of the machine's speed moves every test together and still leaves it). Default sentinels: in
each of 3 problems of the stored campaign, its fastest and its slowest correct reference (by
total stored duration), so both ends of the duration range are watched.

Counts (a map fitted with ``timing="instructions"`` or ``"cycles_estimate"``) drift only when
the interpreter, the references or the counting itself change, not with the machine's speed or
load: their band is near 0 wide, so any change of the build shows. The sentinels are rerun
counted, which needs a working Valgrind (a ConfigError before anything runs otherwise).

Not guaranteed: a drift smaller than the band is not reported, and a sentinel whose reruns
all fail now is reported as missing (``ratio`` NaN, not drifted) — fix it or pick another.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from execrl.errors import ExecrlError
from execrl.problems.models import Problem, ReferenceLabel, TestGroup
from execrl.sandbox.counting import require_valgrind
from execrl.sandbox.limits import TimingMetric, is_counted
from execrl.sandbox.pool import LocalExecutor
from execrl.timing.calibration import CalibrationMap, pair_campaigns
from execrl.timing.diagnostics import markdown_table
from execrl.timing.store import Campaign, DurationStore, describe_timing, run_campaign, triples

DEFAULT_K = 3.0
Sentinel = tuple[str, str]
"""(problem id, reference name)."""


class SentinelCheck(BaseModel):
    """One sentinel reference: where its fresh durations landed against Γ's prediction."""

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")

    problem_id: str
    reference: str
    tests: int
    """Tests with a stored and a fresh duration."""
    ratio: float
    """exp(median log(fresh / predicted)): 1.2 = 20 % slower than the calibration says."""
    outside_share: float
    """Share of its tests whose own log ratio leaves the band."""
    drifted: bool


class DriftReport(BaseModel):
    """The drift monitor's verdict."""

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")

    timing: TimingMetric
    band_log: float
    """Half-width of the band in log space (k·σ)."""
    sentinels: list[SentinelCheck]

    @property
    def drifted(self) -> bool:
        return any(s.drifted for s in self.sentinels)

    @property
    def band_ratio(self) -> tuple[float, float]:
        """The band as fresh/predicted ratios."""
        return math.exp(-self.band_log), math.exp(self.band_log)

    def table(self) -> tuple[list[str], list[list[str]]]:
        header = ["problem", "sentinel", "tests", "fresh / predicted", "tests outside", "drifted"]
        rows = [
            [
                s.problem_id,
                s.reference,
                str(s.tests),
                "—" if math.isnan(s.ratio) else f"{s.ratio:.3f}",
                f"{s.outside_share:.0%}",
                "yes" if s.drifted else "no",
            ]
            for s in self.sentinels
        ]
        return header, rows

    def to_markdown(self) -> str:
        low, high = self.band_ratio
        verdict = "DRIFTED" if self.drifted else "within the band"
        return (
            f"{describe_timing(self.timing)}, band fresh/predicted ∈ [{low:.3f}, {high:.3f}]\n\n"
            + markdown_table(*self.table())
            + f"\n\nVerdict: **{verdict}**.\n"
        )


# --------------------------------------------------------------------------------------------
# The band and the sentinels


def residual_log_std(
    calibration: Callable[[np.ndarray], np.ndarray],
    stored: Campaign,
    fresh: Campaign,
    *,
    timing: TimingMetric = "cpu",
) -> float:
    """σ: the std (ddof = 1) of log(fresh / Γ(stored)) over the triples both campaigns share —
    the spread of the calibration fit's residuals in log space."""
    pairs = pair_campaigns(stored, fresh, timing=timing)
    predicted = np.asarray(calibration(pairs.stored_s), dtype=float)
    keep = (predicted > 0) & (pairs.fresh_s > 0)
    if keep.sum() < 2:
        raise ExecrlError(
            f"campaigns {stored.id} and {fresh.id}: fewer than 2 positive duration pairs, "
            "so the calibration has no residual spread to build a band from"
        )
    return float(np.std(np.log(pairs.fresh_s[keep] / predicted[keep]), ddof=1))


def default_sentinels(
    stored: Campaign, *, problems: int = 3, timing: TimingMetric = "cpu"
) -> list[Sentinel]:
    """The fastest and slowest reference (total stored median duration over the tests every
    reference of the problem has) of the first ``problems`` problems with ≥ 2 references."""
    durations = stored.durations(timing)
    out: list[Sentinel] = []
    for pid in sorted(durations):
        refs = durations[pid]
        common = set.intersection(*(set(tests) for tests in refs.values()))
        if len(refs) < 2 or not common:
            continue
        total = {ref: sum(tests[t] for t in common) for ref, tests in refs.items()}
        ranked = sorted(total, key=lambda r: (total[r], r))
        out += [(pid, ranked[0]), (pid, ranked[-1])]
        if len(out) >= 2 * problems:
            break
    if not out:
        raise ExecrlError(
            f"campaign {stored.id} has no problem with 2 references measured on a common "
            "test; name the sentinels yourself"
        )
    return out


# --------------------------------------------------------------------------------------------
# Checking


def compare_sentinels(
    stored: Campaign,
    fresh: Campaign,
    calibration: Callable[[np.ndarray], np.ndarray],
    band_log: float,
    sentinels: Sequence[Sentinel],
    *,
    timing: TimingMetric = "cpu",
) -> DriftReport:
    """The pure part: compare the sentinels' ``fresh`` durations (mean over successful reruns)
    with ``calibration`` applied to their ``stored`` medians."""
    stored_of = _by_triple(stored, timing, statistics.median)
    fresh_of = _by_triple(fresh, timing, statistics.fmean)
    checks = []
    for pid, ref in sentinels:
        tests = sorted(
            t for (p, t, r) in fresh_of if (p, r) == (pid, ref) and (p, t, r) in stored_of
        )
        s = np.array([stored_of[pid, t, ref] for t in tests])
        f = np.array([fresh_of[pid, t, ref] for t in tests])
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.log(f / np.asarray(calibration(s), dtype=float)) if tests else np.array([])
        r = r[np.isfinite(r)]
        typical = float(np.median(r)) if r.size else math.nan
        checks.append(
            SentinelCheck(
                problem_id=pid,
                reference=ref,
                tests=int(r.size),
                ratio=math.exp(typical) if r.size else math.nan,
                outside_share=float((np.abs(r) > band_log).mean()) if r.size else 0.0,
                drifted=bool(r.size and abs(typical) > band_log),
            )
        )
    return DriftReport(timing=timing, band_log=band_log, sentinels=checks)


def check_drift(
    problems: Sequence[Problem],
    *,
    stored: Campaign,
    calibration: Callable[[np.ndarray], np.ndarray],
    band_log: float,
    sentinels: Sequence[Sentinel] | None = None,
    reruns: int = 3,
    timing: TimingMetric = "cpu",
    progress: bool = False,
) -> DriftReport:
    """Rerun the sentinels now (on the tests ``stored`` has for them, with ``timing``: counted
    if it is a count) and compare."""
    if is_counted(timing):
        require_valgrind()  # (before the sandbox starts)
    sentinels = list(sentinels or default_sentinels(stored, timing=timing))
    subset = sentinel_problems(problems, stored, sentinels)
    with LocalExecutor(workers=1, reserve_host_core=True) as executor:
        fresh = run_campaign(
            subset,
            executor,
            reruns=reruns,
            note="drift sentinels",
            progress=progress,
            timing=timing,
        )
    return compare_sentinels(stored, fresh, calibration, band_log, sentinels, timing=timing)


def monitor(
    store: DurationStore,
    calibration: CalibrationMap,
    problems: Sequence[Problem],
    *,
    k: float = DEFAULT_K,
    sentinels: Sequence[Sentinel] | None = None,
    reruns: int = 3,
    progress: bool = False,
) -> DriftReport:
    """The front door: the band is ``k`` times the residual log std of ``calibration`` on the
    two campaigns it was fitted on (both read from ``store``)."""
    if len(calibration.fitted_on) != 2:
        raise ExecrlError(
            "this calibration map does not name the two campaigns it was fitted on; fit it "
            "with `execrl timing calibrate`"
        )
    stored, fresh = (store.load(i) for i in calibration.fitted_on)
    sigma = residual_log_std(calibration, stored, fresh, timing=calibration.timing)
    return check_drift(
        problems,
        stored=stored,
        calibration=calibration,
        band_log=k * sigma,
        sentinels=sentinels,
        reruns=reruns,
        timing=calibration.timing,
        progress=progress,
    )


def sentinel_problems(
    problems: Sequence[Problem], stored: Campaign, sentinels: Sequence[Sentinel]
) -> list[Problem]:
    """Copies of the sentinels' problems holding only the sentinel references and, among the
    optimization tests, only those ``stored`` measured them on."""
    by_id = {p.id: p for p in problems}
    measured: dict[str, set[str]] = {}
    for m in stored.measurements:
        if (m.problem_id, m.reference) in set(sentinels):
            measured.setdefault(m.problem_id, set()).add(m.test_id)
    out = []
    for pid in dict.fromkeys(p for p, _ in sentinels):
        if pid not in by_id:
            raise ExecrlError(f"sentinel problem {pid!r} is not in the problem set; load it")
        problem = by_id[pid]
        names = {r for p, r in sentinels if p == pid}
        correct = problem.references_labelled(ReferenceLabel.CORRECT)
        missing = names - {r.name for r in correct}
        if missing:
            raise ExecrlError(
                f"problem {pid!r} has no correct reference {sorted(missing)[0]!r} to use as a "
                "sentinel; `execrl problems show` lists them"
            )
        tests = [
            t
            for t in problem.tests
            if t.group != TestGroup.OPTIMIZATION or t.id in measured.get(pid, set())
        ]
        refs = [r for r in correct if r.name in names]
        out.append(problem.model_copy(update={"tests": tests, "references": refs}))
    return out


def _by_triple(campaign: Campaign, timing: TimingMetric, aggregate) -> dict:
    return {(p, t, r): aggregate(values) for p, t, r, values in triples(campaign, timing) if values}
