"""How noisy is a campaign? Pure functions over a Campaign, CPU and wall time side by side.

Every number here comes from the reruns a campaign keeps per (problem, test, reference)
(``Measurement.cpu_s`` / ``wall_s``). A rerun that timed out counts at the cap (spec §1); a
rerun that failed or was inconclusive gives no duration and is left out. Standard deviations
are sample standard deviations (ddof = 1) and need at least two reruns; NaN otherwise.

- **per test**: over each reference's reruns on the test, the std (seconds) and the
  coefficient of variation CV = std / mean; summarised per test as the mean over its
  references (and the largest CV).
- **per solution**: the solution's score in rerun ``i`` is its mean per-test percentile (spec
  §2, via ``per_test_percentiles``: its rerun-``i`` duration inserted among the *other*
  references' median durations; ties take the earlier rank), over the tests where every rerun
  of it gave a duration and another reference has one; in percentile points (0–100). Reported:
  the std and the range (max − min) of that score over reruns.
- **variance decomposition** of those scores over all solutions: *between* = the variance of
  the solutions' mean scores, *within* = the mean over solutions of each one's variance across
  reruns (both ddof = 1, points²); ``within_share = within / (between + within)``. A share near
  0 means reruns barely move a solution compared with how far apart solutions are.
- **ordering stability**: per (problem, test, rerun), the Spearman and Kendall (tau-b)
  correlation between the references' rerun durations and their median durations; averaged
  over tests and reruns per problem (correlations undefined for < 3 references or a constant
  side are skipped). 1 = every rerun orders the references as the medians do.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict

from execrl.envs.operators import per_test_percentiles
from execrl.sandbox.records import Status
from execrl.stats import spearman
from execrl.timing.store import Campaign, Measurement, TimingMetric

TIMINGS: tuple[TimingMetric, ...] = ("cpu", "wall")

Reruns = dict[str, dict[str, dict[str, np.ndarray]]]
"""``{problem: {reference: {test: per-rerun seconds (NaN = no duration)}}}``."""


class TestNoise(BaseModel):
    """Rerun noise on one test, summarised over its references."""

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")
    __test__ = False  # not a pytest class

    problem_id: str
    test_id: str
    references: int
    median_cpu_s: float
    cv_cpu: float
    cv_cpu_max: float
    std_cpu_s: float
    median_wall_s: float
    cv_wall: float
    cv_wall_max: float
    std_wall_s: float


class SolutionNoise(BaseModel):
    """How far a solution's mean per-test percentile moves across reruns (points, 0–100)."""

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")

    problem_id: str
    reference: str
    tests: int
    reruns: int
    mean_cpu: float
    std_cpu: float
    range_cpu: float
    mean_wall: float
    std_wall: float
    range_wall: float


class VarianceShare(BaseModel):
    """Between- vs within-solution variance of the mean-percentile scores (points²)."""

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")

    solutions: int
    between: float
    within: float
    within_share: float


class OrderingStability(BaseModel):
    """Mean rank correlation between per-rerun and median orderings of one problem's
    references (NaN when no test had ≥ 3 references with distinct durations)."""

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")

    problem_id: str
    references: int
    spearman_cpu: float
    kendall_cpu: float
    spearman_wall: float
    kendall_wall: float


class NoiseReport(BaseModel):
    """Every noise diagnostic of one campaign; ``tables()`` / ``to_markdown()`` render it."""

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")

    campaign_id: str
    reruns: int
    tests: list[TestNoise]
    solutions: list[SolutionNoise]
    variance: dict[str, VarianceShare]
    ordering: list[OrderingStability]

    def summary(self, timing: TimingMetric) -> dict[str, float]:
        """Headline numbers for one timing metric."""
        stds = [getattr(s, f"std_{timing}") for s in self.solutions]
        ranges = [getattr(s, f"range_{timing}") for s in self.solutions]
        cvs = [getattr(t, f"cv_{timing}") for t in self.tests]
        return {
            "test_cv_median": _nanmedian(cvs),
            "solution_std_median": _nanmedian(stds),
            "solution_std_mean": _nanmean(stds),
            "solution_std_max": _nanmax(stds),
            "solution_range_mean": _nanmean(ranges),
            "within_share": self.variance[timing].within_share,
            "spearman": _nanmean([getattr(o, f"spearman_{timing}") for o in self.ordering]),
            "kendall": _nanmean([getattr(o, f"kendall_{timing}") for o in self.ordering]),
        }

    def tables(self, *, per_test: bool = True) -> list[tuple[str, list[str], list[list[str]]]]:
        """``(title, header, rows)`` of every table, as strings (shared by the CLI, Markdown
        and HTML renderings)."""
        out = [self._summary_table(), self._ordering_table(), self._solutions_table()]
        if per_test:
            out.append(self._tests_table())
        return out

    def to_markdown(self, *, per_test: bool = True) -> str:
        parts = [f"Campaign `{self.campaign_id}`, {self.reruns} reruns."]
        for title, header, rows in self.tables(per_test=per_test):
            parts.append(f"**{title}**\n\n" + markdown_table(header, rows))
        return "\n\n".join(parts) + "\n"

    def _summary_table(self):
        header = [
            "timing",
            "test CV (median)",
            "solution std: median / mean / max (pts)",
            "solution range: mean (pts)",
            "within-solution share",
            "ordering Spearman / Kendall",
        ]
        rows = []
        for timing in TIMINGS:
            s = self.summary(timing)
            rows.append(
                [
                    timing,
                    _f(s["test_cv_median"], 3),
                    f"{_f(s['solution_std_median'])} / {_f(s['solution_std_mean'])} / "
                    f"{_f(s['solution_std_max'])}",
                    _f(s["solution_range_mean"]),
                    f"{_f(s['within_share'], 3)} (of {self.variance[timing].solutions} solutions)",
                    f"{_f(s['spearman'], 3)} / {_f(s['kendall'], 3)}",
                ]
            )
        return "summary", header, rows

    def _ordering_table(self):
        header = ["problem", "refs", "Spearman cpu", "Kendall cpu", "Spearman wall", "Kendall wall"]
        rows = [
            [
                o.problem_id,
                str(o.references),
                *(_f(getattr(o, f"{c}_{t}"), 3) for t in TIMINGS for c in ("spearman", "kendall")),
            ]
            for o in self.ordering
        ]
        return "ordering stability per problem", header, rows

    def _solutions_table(self):
        header = [
            "problem",
            "reference",
            "tests",
            "mean cpu",
            "std cpu",
            "range cpu",
            "mean wall",
            "std wall",
            "range wall",
        ]
        rows = [
            [
                s.problem_id,
                s.reference,
                str(s.tests),
                *(_f(getattr(s, f"{k}_{t}")) for t in TIMINGS for k in ("mean", "std", "range")),
            ]
            for s in self.solutions
        ]
        return "mean-percentile score per solution across reruns (points)", header, rows

    def _tests_table(self):
        header = [
            "problem",
            "test",
            "refs",
            "median cpu ms",
            "CV cpu",
            "std cpu ms",
            "median wall ms",
            "CV wall",
            "std wall ms",
        ]
        rows = [
            [
                t.problem_id,
                t.test_id,
                str(t.references),
                _f(1000 * t.median_cpu_s, 1),
                _f(t.cv_cpu, 3),
                _f(1000 * t.std_cpu_s, 2),
                _f(1000 * t.median_wall_s, 1),
                _f(t.cv_wall, 3),
                _f(1000 * t.std_wall_s, 2),
            ]
            for t in self.tests
        ]
        return "rerun noise per test (mean over its references)", header, rows


# --------------------------------------------------------------------------------------------
# The diagnostics


def diagnose(campaign: Campaign, *, cap_s: float = 10.0) -> NoiseReport:
    """Every diagnostic of ``campaign`` (timeouts count at ``cap_s``)."""
    data = {timing: rerun_durations(campaign.measurements, timing, cap_s) for timing in TIMINGS}
    scores = {timing: solution_scores(data[timing]) for timing in TIMINGS}
    return NoiseReport(
        campaign_id=campaign.id,
        reruns=max((len(m.statuses) for m in campaign.measurements), default=0),
        tests=per_test_noise(data["cpu"], data["wall"]),
        solutions=solution_noise(scores["cpu"], scores["wall"]),
        variance={
            timing: variance_share(s.points for s in scores[timing].values()) for timing in TIMINGS
        },
        ordering=ordering_stability(data["cpu"], data["wall"]),
    )


def rerun_durations(
    measurements: Iterable[Measurement], timing: TimingMetric, cap_s: float = 10.0
) -> Reruns:
    """Per-rerun durations; a timed-out rerun at ``cap_s``, any other non-success NaN."""
    out: Reruns = {}
    for m in measurements:
        values = [
            cap_s if s is Status.TIMEOUT else d if s is Status.SUCCESS else math.nan
            for s, d in zip(m.statuses, getattr(m, f"{timing}_s"), strict=True)
        ]
        out.setdefault(m.problem_id, {}).setdefault(m.reference, {})[m.test_id] = np.array(values)
    return out


def rerun_cv(values: np.ndarray) -> tuple[float, float]:
    """(std, CV) of one reference's reruns on one test; NaN with < 2 durations."""
    v = values[np.isfinite(values)]
    if v.size < 2:
        return math.nan, math.nan
    std = float(v.std(ddof=1))
    mean = float(v.mean())
    return std, (std / mean if mean > 0 else math.nan)


def per_test_noise(cpu: Reruns, wall: Reruns) -> list[TestNoise]:
    """One row per (problem, test): rerun std and CV, mean over the test's references."""
    rows = []
    for pid in sorted(cpu):
        for tid in sorted({t for tests in cpu[pid].values() for t in tests}):
            row = {}
            for timing, data in (("cpu", cpu), ("wall", wall)):
                runs = [tests[tid] for tests in data[pid].values() if tid in tests]
                stds, cvs = zip(*(rerun_cv(r) for r in runs), strict=True)
                row[f"median_{timing}_s"] = _nanmedian(_median(r) for r in runs)
                row[f"std_{timing}_s"] = _nanmean(stds)
                row[f"cv_{timing}"] = _nanmean(cvs)
                row[f"cv_{timing}_max"] = _nanmax(cvs)
            references = sum(tid in tests for tests in cpu[pid].values())
            rows.append(TestNoise(problem_id=pid, test_id=tid, references=references, **row))
    return rows


class Scored(NamedTuple):
    tests: int
    """How many tests the score averages over."""
    points: np.ndarray
    """(K,) the mean per-test percentile of each rerun, in points."""


def solution_scores(data: Reruns) -> dict[tuple[str, str], Scored]:
    """``{(problem, reference): Scored}``: per rerun, the mean over tests of the spec §2
    percentile of that rerun's duration among the other references' median durations."""
    out = {}
    for pid, refs in sorted(data.items()):
        medians = {ref: {t: _median(v) for t, v in tests.items()} for ref, tests in refs.items()}
        for ref, tests in sorted(refs.items()):
            others = [medians[o] for o in refs if o != ref]
            kept = [
                t
                for t in sorted(tests)
                if np.isfinite(tests[t]).all()
                and any(math.isfinite(o.get(t, math.nan)) for o in others)
            ]
            if not kept:
                continue
            D = np.array([[o.get(t, math.nan) for o in others] for t in kept])  # (T, R−1)
            runs = np.array([tests[t] for t in kept])  # (T, K)
            points = [
                100 * float(np.nanmean(per_test_percentiles(runs[:, i], D)))
                for i in range(runs.shape[1])
            ]
            out[(pid, ref)] = Scored(len(kept), np.array(points))
    return out


def solution_noise(
    cpu: dict[tuple[str, str], Scored], wall: dict[tuple[str, str], Scored]
) -> list[SolutionNoise]:
    """One row per solution: mean, std and range of its scores over reruns, CPU and wall."""
    rows = []
    for pid, ref in sorted(cpu.keys() & wall.keys()):
        row = {}
        for timing, scored in (("cpu", cpu[pid, ref]), ("wall", wall[pid, ref])):
            p = scored.points
            row[f"mean_{timing}"] = float(p.mean())
            row[f"std_{timing}"] = float(p.std(ddof=1)) if p.size > 1 else math.nan
            row[f"range_{timing}"] = float(p.max() - p.min())
        tests, reruns = cpu[pid, ref].tests, cpu[pid, ref].points.size
        rows.append(SolutionNoise(problem_id=pid, reference=ref, tests=tests, reruns=reruns, **row))
    return rows


def variance_share(scores: Iterable[np.ndarray]) -> VarianceShare:
    """Between- vs within-solution variance over solutions with ≥ 2 reruns (module docstring)."""
    kept = [s for s in scores if s.size >= 2]
    if len(kept) < 2:
        return VarianceShare(
            solutions=len(kept), between=math.nan, within=math.nan, within_share=math.nan
        )
    between = float(np.var([s.mean() for s in kept], ddof=1))
    within = float(np.mean([s.var(ddof=1) for s in kept]))
    total = between + within
    return VarianceShare(
        solutions=len(kept),
        between=between,
        within=within,
        within_share=within / total if total > 0 else math.nan,
    )


def ordering_stability(cpu: Reruns, wall: Reruns) -> list[OrderingStability]:
    rows = []
    for pid in sorted(cpu):
        values = {}
        for timing, data in (("cpu", cpu), ("wall", wall)):
            sp, kd = problem_orderings(data[pid])
            values[f"spearman_{timing}"], values[f"kendall_{timing}"] = sp, kd
        rows.append(OrderingStability(problem_id=pid, references=len(cpu[pid]), **values))
    return rows


def problem_orderings(refs: dict[str, dict[str, np.ndarray]]) -> tuple[float, float]:
    """Mean (Spearman, Kendall tau-b) over (test, rerun) of one problem's references' rerun
    durations against their median durations."""
    tests = sorted({t for tests in refs.values() for t in tests})
    spearmans, kendalls = [], []
    for tid in tests:
        runs = np.array([tests_[tid] for tests_ in refs.values() if tid in tests_])  # (R, K)
        medians = np.array([_median(r) for r in runs])
        for i in range(runs.shape[1]):
            spearmans.append(spearman(runs[:, i], medians))
            kendalls.append(kendall(runs[:, i], medians))
    return _nanmean(spearmans), _nanmean(kendalls)


def kendall(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall tau-b over the pairs where both are finite; NaN with fewer than 3 pairs or a
    constant side."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    both = np.isfinite(x) & np.isfinite(y)
    x, y = x[both], y[both]
    if x.size < 3:
        return math.nan
    i, j = np.triu_indices(x.size, k=1)
    dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    pairs = i.size
    denominator = math.sqrt((pairs - (dx == 0).sum()) * (pairs - (dy == 0).sum()))
    return float((dx * dy).sum() / denominator) if denominator > 0 else math.nan


# --------------------------------------------------------------------------------------------
# Small helpers


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _median(values: np.ndarray) -> float:
    v = values[np.isfinite(values)]
    return float(np.median(v)) if v.size else math.nan


def _finite(values: Iterable[float]) -> list[float]:
    return [v for v in values if v is not None and math.isfinite(v)]


def _nanmean(values: Iterable[float]) -> float:
    v = _finite(values)
    return statistics.fmean(v) if v else math.nan


def _nanmedian(values: Iterable[float]) -> float:
    v = _finite(values)
    return statistics.median(v) if v else math.nan


def _nanmax(values: Iterable[float]) -> float:
    v = _finite(values)
    return max(v) if v else math.nan


def _f(value: float, digits: int = 2) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"
