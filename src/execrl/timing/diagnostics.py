"""How noisy is a campaign? Pure functions over a Campaign, CPU and wall time side by side, and
the campaign's count beside them when it was run with a counted timing (``instructions`` or
``cycles_estimate``: the ``*_count`` fields, named by ``NoiseReport.counted``).

Every number here comes from the reruns a campaign keeps per (problem, test, reference)
(``Measurement.cpu_s`` / ``wall_s``, and its counts). Counts are in their own unit
(``TIMING_UNITS``), never seconds; a count that is the same on every rerun has std and CV 0.
A rerun that timed out counts at the cap (spec §1; for a count, the cap at a count rate:
``seconds_as``); a rerun that failed or was inconclusive gives no duration and is left out.
Standard deviations are sample standard deviations (ddof = 1) and need at least two reruns;
NaN otherwise.

- **per test**: over each reference's reruns on the test, the std (seconds, or a count) and
  the coefficient of variation CV = std / mean; summarised per test as the mean over its
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

from execrl.sandbox.counting import seconds_as
from execrl.sandbox.limits import TimingMetric, is_counted
from execrl.sandbox.records import Status
from execrl.stats import spearman
from execrl.timing.percentiles import per_test_percentiles
from execrl.timing.store import Campaign, Measurement

TIMINGS: tuple[TimingMetric, ...] = ("cpu", "wall")
"""The clock timings every campaign has; a counted campaign adds its count."""

Reruns = dict[str, dict[str, dict[str, np.ndarray]]]
"""``{problem: {reference: {test: per-rerun durations (NaN = no duration)}}}``."""


def field_key(timing: str) -> str:
    """The suffix of ``timing``'s fields in these rows: ``cpu``, ``wall`` or ``count``."""
    return "count" if is_counted(timing) else timing


def _unit_suffix(timing: str) -> str:
    return "" if is_counted(timing) else "_s"


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
    median_count: float | None = None
    """The counted timing's median (in its unit); None in a campaign without counts."""
    cv_count: float | None = None
    cv_count_max: float | None = None
    std_count: float | None = None


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
    mean_count: float | None = None
    """Scores from the counted timing's durations; None in a campaign without counts."""
    std_count: float | None = None
    range_count: float | None = None


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
    spearman_count: float | None = None
    kendall_count: float | None = None


class NoiseReport(BaseModel):
    """Every noise diagnostic of one campaign; ``tables()`` / ``to_markdown()`` render it."""

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")

    campaign_id: str
    reruns: int
    tests: list[TestNoise]
    solutions: list[SolutionNoise]
    variance: dict[str, VarianceShare]
    ordering: list[OrderingStability]
    counted: TimingMetric | None = None
    """The count the ``*_count`` fields hold (``instructions`` or ``cycles_estimate``); None
    for a campaign timed by a clock only."""

    @property
    def timings(self) -> tuple[TimingMetric, ...]:
        """The timings reported: cpu, wall, and the count if there is one."""
        return TIMINGS + ((self.counted,) if self.counted else ())

    def summary(self, timing: TimingMetric) -> dict[str, float]:
        """Headline numbers for one timing metric."""
        k = field_key(timing)
        stds = [getattr(s, f"std_{k}") for s in self.solutions]
        ranges = [getattr(s, f"range_{k}") for s in self.solutions]
        cvs = [getattr(t, f"cv_{k}") for t in self.tests]
        return {
            "test_cv_median": _nanmedian(cvs),
            "solution_std_median": _nanmedian(stds),
            "solution_std_mean": _nanmean(stds),
            "solution_std_max": _nanmax(stds),
            "solution_range_mean": _nanmean(ranges),
            "within_share": self.variance[timing].within_share,
            "spearman": _nanmean([getattr(o, f"spearman_{k}") for o in self.ordering]),
            "kendall": _nanmean([getattr(o, f"kendall_{k}") for o in self.ordering]),
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
        for timing in self.timings:
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
        header = ["problem", "refs"]
        header += [f"{c} {t}" for t in self.timings for c in ("Spearman", "Kendall")]
        keys = [f"{c}_{field_key(t)}" for t in self.timings for c in ("spearman", "kendall")]
        rows = [
            [o.problem_id, str(o.references), *(_f(getattr(o, k), 3) for k in keys)]
            for o in self.ordering
        ]
        return "ordering stability per problem", header, rows

    def _solutions_table(self):
        header = ["problem", "reference", "tests"]
        header += [f"{k} {t}" for t in self.timings for k in ("mean", "std", "range")]
        keys = [f"{k}_{field_key(t)}" for t in self.timings for k in ("mean", "std", "range")]
        rows = [
            [s.problem_id, s.reference, str(s.tests), *(_f(getattr(s, k)) for k in keys)]
            for s in self.solutions
        ]
        return "mean-percentile score per solution across reruns (points)", header, rows

    def _tests_table(self):
        header = ["problem", "test", "refs"]
        for timing in self.timings:
            unit = "" if is_counted(timing) else " ms"  # (a count's name is its unit)
            header += [f"median {timing}{unit}", f"CV {timing}", f"std {timing}{unit}"]
        rows = [
            [
                t.problem_id,
                t.test_id,
                str(t.references),
                *(cell for timing in self.timings for cell in _test_cells(t, timing)),
            ]
            for t in self.tests
        ]
        return "rerun noise per test (mean over its references)", header, rows


def _test_cells(t: TestNoise, timing: str) -> list[str]:
    """Median, CV and std of one test under one timing: seconds shown in ms, counts whole."""
    k, u = field_key(timing), _unit_suffix(timing)
    median, cv, std = getattr(t, f"median_{k}{u}"), getattr(t, f"cv_{k}"), getattr(t, f"std_{k}{u}")
    if is_counted(timing):
        return [_count(median), _f(cv, 3), _count(std)]
    return [_f(1000 * median, 1), _f(cv, 3), _f(1000 * std, 2)]


# --------------------------------------------------------------------------------------------
# The diagnostics


def diagnose(
    campaign: Campaign, *, cap_s: float = 10.0, per_second: float | None = None
) -> NoiseReport:
    """Every diagnostic of ``campaign`` (timeouts count at ``cap_s``; a count's cap is that at
    ``per_second`` counts per CPU second, see ``seconds_as``). A counted campaign that holds
    its counts is reported under its count too."""
    counted = campaign.timing if _holds_counts(campaign) else None
    timings = TIMINGS + ((counted,) if counted else ())
    data = {t: rerun_durations(campaign.measurements, t, cap_s, per_second) for t in timings}
    scores = {t: solution_scores(data[t]) for t in timings}
    return NoiseReport(
        campaign_id=campaign.id,
        reruns=max((len(m.statuses) for m in campaign.measurements), default=0),
        tests=per_test_noise(data),
        solutions=solution_noise(scores),
        variance={t: variance_share(s.points for s in scores[t].values()) for t in timings},
        ordering=ordering_stability(data),
        counted=counted,
    )


def _holds_counts(campaign: Campaign) -> bool:
    timing = campaign.timing
    return is_counted(timing) and any(m.has(timing) for m in campaign.measurements)


def rerun_durations(
    measurements: Iterable[Measurement],
    timing: TimingMetric,
    cap_s: float = 10.0,
    per_second: float | None = None,
) -> Reruns:
    """Per-rerun durations in ``timing``'s unit; a timed-out rerun at the cap (``cap_s``, as a
    count at ``per_second``), any other non-success (or a success without a count) NaN."""
    cap = seconds_as(cap_s, timing, per_second)
    out: Reruns = {}
    for m in measurements:
        values = [
            cap if s is Status.TIMEOUT else d if s is Status.SUCCESS else math.nan
            for s, d in zip(m.statuses, m.values(timing), strict=True)
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


def per_test_noise(data: dict[str, Reruns]) -> list[TestNoise]:
    """One row per (problem, test): rerun std and CV per timing of ``data`` (``cpu`` and
    ``wall``, and a count), mean over the test's references."""
    cpu = data["cpu"]
    rows = []
    for pid in sorted(cpu):
        for tid in sorted({t for tests in cpu[pid].values() for t in tests}):
            row = {}
            for timing, reruns in data.items():
                row |= _test_noise(reruns[pid], tid, timing)
            references = sum(tid in tests for tests in cpu[pid].values())
            rows.append(TestNoise(problem_id=pid, test_id=tid, references=references, **row))
    return rows


def _test_noise(refs: dict[str, dict[str, np.ndarray]], tid: str, timing: str) -> dict:
    k, u = field_key(timing), _unit_suffix(timing)
    runs = [tests[tid] for tests in refs.values() if tid in tests]
    stds, cvs = zip(*(rerun_cv(r) for r in runs), strict=True)
    return {
        f"median_{k}{u}": _nanmedian(_median(r) for r in runs),
        f"std_{k}{u}": _nanmean(stds),
        f"cv_{k}": _nanmean(cvs),
        f"cv_{k}_max": _nanmax(cvs),
    }


class RerunScores(NamedTuple):
    """One solution's spec §2 score in each rerun of a campaign."""

    tests: int
    """How many tests the score averages over."""
    points: np.ndarray
    """(K,) the mean per-test percentile of each rerun, in points."""


def solution_scores(data: Reruns) -> dict[tuple[str, str], RerunScores]:
    """``{(problem, reference): RerunScores}``: per rerun, the mean over tests of the spec §2
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
            out[(pid, ref)] = RerunScores(len(kept), np.array(points))
    return out


def solution_noise(scores: dict[str, dict[tuple[str, str], RerunScores]]) -> list[SolutionNoise]:
    """One row per solution scored under every timing of ``scores``: mean, std and range of
    its scores over reruns."""
    rows = []
    for pid, ref in sorted(set.intersection(*(set(s) for s in scores.values()))):
        row = {}
        for timing, scored in scores.items():
            p, k = scored[pid, ref].points, field_key(timing)
            row[f"mean_{k}"] = float(p.mean())
            row[f"std_{k}"] = float(p.std(ddof=1)) if p.size > 1 else math.nan
            row[f"range_{k}"] = float(p.max() - p.min())
        tests, reruns = scores["cpu"][pid, ref].tests, scores["cpu"][pid, ref].points.size
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


def ordering_stability(data: dict[str, Reruns]) -> list[OrderingStability]:
    """One row per problem: its ordering stability under every timing of ``data``."""
    rows = []
    cpu = data["cpu"]
    for pid in sorted(cpu):
        values = {}
        for timing, reruns in data.items():
            k = field_key(timing)
            values[f"spearman_{k}"], values[f"kendall_{k}"] = problem_orderings(reruns[pid])
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


def _f(value: float | None, digits: int = 2) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def _count(value: float | None) -> str:
    """A count in whole units with thousands separators (never with "s")."""
    return "—" if value is None or not math.isfinite(value) else f"{value:,.0f}"
