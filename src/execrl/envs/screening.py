"""Screen the 17 ranking metrics (spec §3) on reruns of reference solutions.

Input: the problems and ExecutionRecords of their correct references, each test run
``K ≥ 1`` times (``TestResult.repeats``). For each problem, each reference in turn plays the
candidate and is scored against the *other* references (leave-one-out): the pool ``D`` holds,
per test and other reference, the median over its reruns, sanitised as in spec §1
(``ψ``, the optional calibration ``Γ``, clamping to the problem's time limit); the candidate's
durations of rerun ``k`` are used as they are (never calibrated). That gives one score per
(metric, problem, reference, rerun).

Per metric, four screening axes (each score first mapped to a badness ``b ∈ [0, 1]``, 1 =
worst: ``value/100``, or ``1 − value/100`` for higher-is-better metrics):

- **harshness**: the fraction of solutions whose badness, averaged over reruns, lies in the
  worst ``worst_band`` of the range (``b ≥ 1 − worst_band``; ``worst_band`` = 0.2 by default).
- **dynamic range**: per problem, ``max_h b̄_h − min_h b̄_h`` over its references (mean over
  reruns), averaged over problems; in [0, 1]. Larger separates strong from weak better.
- **rerun std**: the standard deviation (ddof = 1) of a solution's score across its reruns, in
  the metric's own points, averaged over solutions. Lower is steadier.
- **agreement**: Spearman correlation, over all solutions, between the score computed from
  rerun 1 alone (candidate and pool; ``Γ`` applied to that pool: it plays the stored durations)
  and the score computed from the mean of the other reruns (candidate and pool, not mapped:
  they play fresh durations). With no calibration map this is a proxy for the spec's "agreement
  after calibration"; pass the fitted ``Γ`` as ``calibration`` to measure it. Needs K ≥ 2.

Durations of a reference on a test: every repeat's ``cpu_s`` or ``wall_s`` when the test
passed, the problem's time limit (the cap) when it timed out (spec §1), missing otherwise.
Tests are the problem's optimization tests present in the records (matched by ``test_id``);
when the records hold none of them, every test they hold.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from execrl.envs.environment import check_counted
from execrl.envs.metrics import HIGHER_IS_BETTER, RANKING_METRICS, badness
from execrl.errors import DataError, ExecrlError, LoaderError, describe_validation_error
from execrl.problems.models import Problem, ReferenceLabel
from execrl.report import pyplot
from execrl.results import read_rows
from execrl.sandbox.counting import seconds_as
from execrl.sandbox.limits import TIMING_UNITS, TimingMetric, is_counted
from execrl.sandbox.records import ExecutionRecord, Status, TestResult, load_records
from execrl.stats import spearman as _spearman
from execrl.timing.pool import Calibration, sanitise

_NAN_AS_STRING = ConfigDict(ser_json_inf_nan="strings")
"""NaN (an undefined score) is written as "NaN" in JSON, so reports read back unchanged."""


class SolutionScores(BaseModel):
    """One reference's scores against the other references of its problem."""

    model_config = _NAN_AS_STRING

    problem_id: str
    reference: str
    tier: str | None = None
    scores: dict[str, list[float]]
    """Per metric, one score per rerun (against the median-over-reruns pool)."""
    first_rerun: dict[str, float]
    """Per metric, the score from rerun 1 alone (NaN with a single rerun)."""
    other_reruns: dict[str, float]
    """Per metric, the score from the mean of reruns 2..K (NaN with a single rerun)."""

    def mean_score(self, metric: str) -> float:
        """The metric's score averaged over reruns (NaN if it was never defined)."""
        values = [v for v in self.scores[metric] if math.isfinite(v)]
        return sum(values) / len(values) if values else float("nan")


class ScreeningRow(BaseModel):
    """One metric on the four screening axes (see the module docstring)."""

    model_config = _NAN_AS_STRING

    metric: str
    higher_is_better: bool
    harshness: float
    """Fraction of solutions in the worst band (0–1)."""
    dynamic_range: float
    """Mean within-problem spread of badness between best and worst reference (0–1)."""
    rerun_std: float
    """Mean std of a solution's score across reruns, in the metric's points."""
    agreement: float
    """Spearman of rerun-1 scores vs other-rerun scores over all solutions (−1…1)."""

    def cells(self) -> tuple[str, ...]:
        """metric, arrow (↓ lower / ↑ higher is better) and the four axes as text (— for NaN)."""
        return (
            self.metric,
            "↑" if self.higher_is_better else "↓",
            _fmt(self.harshness, 2),
            _fmt(self.dynamic_range, 2),
            _fmt(self.rerun_std, 1),
            _fmt(self.agreement, 2),
        )


class ScreeningReport(BaseModel):
    """The screening table, one row per metric, and the scores behind it."""

    model_config = _NAN_AS_STRING

    timing: TimingMetric
    problems: int
    reruns: int
    """The most reruns any test had."""
    worst_band: float
    rows: list[ScreeningRow]
    solutions: list[SolutionScores]
    ignored_records: int = 0
    """Records of programs that are not correct references of their problem."""

    def row(self, metric: str) -> ScreeningRow:
        for row in self.rows:
            if row.metric == metric:
                return row
        raise ExecrlError(f"no screening row for {metric!r}; known: {', '.join(RANKING_METRICS)}")

    def to_markdown(self) -> str:
        """The table as GitHub markdown (arrows: ↓ lower is better, ↑ higher is better)."""
        lines = [
            "| metric | better | harshness | dynamic range | rerun std (pts) | agreement |",
            "| --- | :---: | ---: | ---: | ---: | ---: |",
        ]
        for r in self.rows:
            lines.append(f"| {' | '.join(r.cells())} |")
        return "\n".join(lines) + "\n"


def _fmt(value: float, digits: int) -> str:
    return "—" if math.isnan(value) else f"{value:.{digits}f}"


# -- reading records -----------------------------------------------------------------------------
def read_records(path: str | Path) -> list[ExecutionRecord]:
    """ExecutionRecords from a file written by ``save_records`` (.jsonl, .jsonl.gz, .parquet)
    or by ``execrl score`` (JSON lines whose ``record`` field holds the record). A file that
    cannot be read, is not UTF-8 JSON lines, or holds a row that is not a record is a
    LoaderError naming the file and the row."""
    path = Path(path)
    if not path.is_file():
        raise LoaderError(f"{path}: no such records file")
    if path.name.endswith(".parquet"):
        return load_records(path)
    try:
        rows = read_rows(path)
    except DataError as exc:
        raise LoaderError(str(exc)) from None
    records = []
    for number, row in enumerate(rows, start=1):
        try:
            records.append(ExecutionRecord.model_validate(row.get("record", row)))
        except ValidationError as exc:
            raise LoaderError(
                f"{path}, row {number}: not an execution record "
                f"({describe_validation_error(exc)}); pass a file written by `execrl score` or "
                "save_records"
            ) from None
    return records


# -- durations per problem -----------------------------------------------------------------------
@dataclass(frozen=True)
class ProblemDurations:
    """``durations[h, t, k]``: duration (in the timing's unit: seconds or a count) of reference
    ``names[h]`` on ``test_ids[t]``, rerun ``k`` (NaN where missing); ``cap_s`` in that unit."""

    problem_id: str
    names: tuple[str, ...]
    tiers: tuple[str | None, ...]
    test_ids: tuple[str, ...]
    durations: np.ndarray
    cap_s: float


def problem_durations(
    problem: Problem,
    records: Sequence[ExecutionRecord],
    *,
    timing: TimingMetric = "cpu",
    count_rate: float | None = None,
) -> ProblemDurations:
    """The reruns of ``problem``'s correct references found in ``records``, in ``timing``'s
    unit; a timeout at the problem's limit (converted to a count at ``count_rate`` for a
    counted timing)."""
    tiers = {r.name: r.tier for r in problem.references if r.label is ReferenceLabel.CORRECT}
    results: dict[str, dict[str, TestResult]] = {}
    for record in records:
        if record.problem_id == problem.id and record.program_name in tiers:
            check_counted(record, timing)
            # Several records of one reference (one per test, as `execrl score` runs them) merge.
            results.setdefault(record.program_name, {}).update(
                {r.test_id: r for r in record.results}
            )
    names = tuple(n for n in tiers if n in results)
    seen = {t for per_test in results.values() for t in per_test}
    test_ids = tuple(t.id for t in problem.optimization_tests if t.id in seen)
    if not test_ids:
        test_ids = tuple(dict.fromkeys(t for n in names for t in results[n]))
    reruns = max(
        (max(1, len(r.repeats)) for per_test in results.values() for r in per_test.values()),
        default=1,
    )
    durations = np.full((len(names), len(test_ids), reruns), np.nan)
    cap = seconds_as(problem.time_limit_s, timing, count_rate)
    for h, name in enumerate(names):
        for t, test_id in enumerate(test_ids):
            if test_id in results[name]:
                times = _rerun_times(results[name][test_id], timing, cap)
                durations[h, t, : len(times)] = times
    return ProblemDurations(
        problem_id=problem.id,
        names=names,
        tiers=tuple(tiers[n] for n in names),
        test_ids=test_ids,
        durations=durations,
        cap_s=cap,
    )


def _rerun_times(result: TestResult, timing: TimingMetric, cap_s: float) -> list[float]:
    runs = result.repeats or [result]
    if result.status is Status.TIMEOUT:
        return [cap_s] * len(runs)  # spec §1: timeouts are ranked at the cap
    if result.status is not Status.SUCCESS:
        return []  # a wrong or crashed run has no duration to rank
    if is_counted(timing):  # one count, exact: every rerun would count the same
        return [result.duration_s(timing)] * len(runs)
    return [r.cpu_s if timing == "cpu" else r.wall_s for r in runs]


# -- scoring -------------------------------------------------------------------------------------
def _nan_reduce(fn, values: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():  # an all-missing slice is NaN, which is what we want
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(values, axis=axis)


def score_problem(
    times: ProblemDurations, *, calibration: Calibration | None = None
) -> list[SolutionScores]:
    """Every reference against the others: per metric, a score per rerun, plus the rerun-1 and
    other-reruns scores behind the agreement axis."""
    d = times.durations  # (H, T, K)
    reruns = d.shape[2]
    solutions = []
    for h, name in enumerate(times.names):
        others = np.delete(d, h, axis=0)  # (H-1, T, K)
        if others.shape[0] == 0:
            continue
        pool = sanitise(_nan_reduce(np.nanmedian, others, 2).T, times.cap_s, calibration)
        scores = {
            metric: [fn(d[h, :, k], pool) for k in range(reruns)]
            for metric, fn in RANKING_METRICS.items()
        }
        first, rest = _split_rerun_scores(d[h], others, times.cap_s, calibration)
        solutions.append(
            SolutionScores(
                problem_id=times.problem_id,
                reference=name,
                tier=times.tiers[h],
                scores=scores,
                first_rerun=first,
                other_reruns=rest,
            )
        )
    return solutions


def _split_rerun_scores(
    mine: np.ndarray, others: np.ndarray, cap_s: float, calibration: Calibration | None
) -> tuple[dict[str, float], dict[str, float]]:
    """Scores from rerun 1 (pool mapped by Γ) and from the mean of reruns 2..K (not mapped)."""
    if mine.shape[1] < 2:
        nan = {metric: float("nan") for metric in RANKING_METRICS}
        return nan, dict(nan)
    stored = sanitise(others[:, :, 0].T, cap_s, calibration)  # (T, H-1)
    fresh = sanitise(_nan_reduce(np.nanmean, others[:, :, 1:], 2).T, cap_s)
    mine_rest = _nan_reduce(np.nanmean, mine[:, 1:], 1)
    first = {metric: fn(mine[:, 0], stored) for metric, fn in RANKING_METRICS.items()}
    rest = {metric: fn(mine_rest, fresh) for metric, fn in RANKING_METRICS.items()}
    return first, rest


# -- the four axes -------------------------------------------------------------------------------
def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman over the finite pairs; NaN with fewer than 3 pairs or a constant side."""
    return _spearman(x, y, min_pairs=3)


def screening_row(
    metric: str, solutions: Sequence[SolutionScores], *, worst_band: float = 0.2
) -> ScreeningRow:
    """The four axes of one metric over the solutions' scores."""
    mean_badness = np.array([badness(metric, s.mean_score(metric)) for s in solutions])
    finite = mean_badness[np.isfinite(mean_badness)]
    harshness = float(np.mean(finite >= 1 - worst_band)) if finite.size else float("nan")

    by_problem: dict[str, list[float]] = {}
    for b, s in zip(mean_badness, solutions, strict=True):
        if math.isfinite(b):
            by_problem.setdefault(s.problem_id, []).append(float(b))
    spreads = [max(bs) - min(bs) for bs in by_problem.values() if len(bs) >= 2]

    stds = []
    for s in solutions:
        values = [v for v in s.scores[metric] if math.isfinite(v)]
        if len(values) >= 2:
            stds.append(float(np.std(values, ddof=1)))

    return ScreeningRow(
        metric=metric,
        higher_is_better=metric in HIGHER_IS_BETTER,
        harshness=harshness,
        dynamic_range=float(np.mean(spreads)) if spreads else float("nan"),
        rerun_std=float(np.mean(stds)) if stds else float("nan"),
        agreement=spearman(
            [s.first_rerun[metric] for s in solutions], [s.other_reruns[metric] for s in solutions]
        ),
    )


def screen_metrics(
    problems: Sequence[Problem],
    records: Sequence[ExecutionRecord],
    *,
    timing: TimingMetric = "cpu",
    calibration: Calibration | None = None,
    worst_band: float = 0.2,
    count_rate: float | None = None,
) -> ScreeningReport:
    """Score every correct reference against the others on every rerun and summarise each of
    the 17 metrics on harshness, dynamic range, rerun std and agreement.

    ``records`` may hold incorrect references or other programs too: only correct references
    of a known problem are scored (the rest are counted in ``ignored_records``). A record of a
    problem missing from ``problems`` is an error. ``calibration`` maps reference durations
    (never the candidate's); see the module docstring for where it applies. With a counted
    ``timing`` the durations are counts (one per test: a count has no rerun noise) and a
    timeout counts at the limit converted at ``count_rate`` (None = the default rate).
    """
    if timing not in TIMING_UNITS:
        raise ExecrlError(f"timing must be one of {', '.join(TIMING_UNITS)}, got {timing!r}")
    by_id = {p.id: p for p in problems}
    unknown = sorted({r.problem_id for r in records} - by_id.keys())
    if unknown:
        raise ExecrlError(
            f"records for {len(unknown)} problem(s) not in the problem set: "
            f"{', '.join(unknown[:5])}{' …' if len(unknown) > 5 else ''}; pass the problem set "
            "the records were made from (`source`)"
        )
    wanted = {
        (p.id, r.name) for p in problems for r in p.references if r.label is ReferenceLabel.CORRECT
    }
    ignored = sum((r.problem_id, r.program_name) not in wanted for r in records)
    recorded = [by_id[i] for i in dict.fromkeys(r.problem_id for r in records)]

    solutions: list[SolutionScores] = []
    reruns = 0
    for problem in recorded:
        times = problem_durations(problem, records, timing=timing, count_rate=count_rate)
        reruns = max(reruns, times.durations.shape[2])
        solutions.extend(score_problem(times, calibration=calibration))
    return ScreeningReport(
        timing=timing,
        problems=len({s.problem_id for s in solutions}),
        reruns=reruns,
        worst_band=worst_band,
        rows=[screening_row(m, solutions, worst_band=worst_band) for m in RANKING_METRICS],
        solutions=solutions,
        ignored_records=ignored,
    )


# -- the picture ---------------------------------------------------------------------------------
PANELS = (
    ("harshness", "harshness (share in worst band)"),
    ("dynamic_range", "dynamic range (0–1)"),
    ("rerun_std", "rerun std (points)"),
    ("agreement", "agreement (Spearman)"),
)


def plot_screening(report: ScreeningReport, path: str | Path) -> Path:
    """A PNG with one panel per screening axis, the 17 metrics down the side; the metric the
    source kept (mean_percentile) is highlighted."""
    plt = pyplot("screening plots")

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    names = [r.metric for r in report.rows]
    colours = ["tab:orange" if n == "mean_percentile" else "tab:blue" for n in names]
    fig, axes = plt.subplots(1, len(PANELS), figsize=(14, 6), sharey=True)
    for ax, (field, title) in zip(axes, PANELS, strict=True):
        values = [getattr(r, field) for r in report.rows]
        ax.barh(range(len(names)), values, color=colours)
        ax.set_title(title, fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(names)), names, fontsize=8)
    axes[0].invert_yaxis()
    fig.suptitle(
        f"ranking metrics screened on {report.problems} problems, {len(report.solutions)} "
        f"reference solutions, {report.reruns} reruns (timed by {report.timing}, "
        f"{TIMING_UNITS[report.timing]})",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
