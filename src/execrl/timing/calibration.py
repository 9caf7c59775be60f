"""Calibration maps Γ from stored to fresh reference durations (spec §1, §6).

Stored reference durations were measured once, on some machine, with some executor; the
candidates of a training run are timed now, here. A calibration map carries the stored
durations onto the fresh scale so the two can be compared::

    pairs     one point per (problem, test, reference) triple measured in both campaigns:
              s = the stored campaign's median duration, f = the fresh campaign's MEAN
              duration over its reruns (spec §6); successful reruns only
    maps      multiplicative  f = a·s
              affine          f = a·s + b
              power law       f = a·s^b           (least squares in log-log space)
              quadratic       f = a·s² + b·s + c
    checked   leave-one-problem-out: each problem's triples are predicted by the map fitted
              on the other problems; R²_CV, RMSE, Spearman before/after, per-problem bias
    chosen    the best R²_CV; within ``TIE_R2`` of it, the map with fewer parameters

A map is applied to **references only** — ``Campaign.pool(problem, calibration=cmap)`` or
``ReferencePool.from_mapping(..., calibration=cmap)`` run it inside ``sanitise`` (then clamp
to ``[0, cap]``). Candidate durations are never calibrated: they are the fresh measurement.

A monotone increasing map cannot reorder durations it maps together, so within one problem
(one held-out fold, one map) the rank agreement before and after calibration is the same;
what a map fixes is the *scale* (bias) against the candidates' durations. The figures that
can move are the pooled Spearman (each fold has its own map) and anything clamped to the cap.

Counts (``timing="instructions"`` or ``"cycles_estimate"``) pair, fit and transfer as durations
do, in their own unit. They are machine-independent for one Python build (same interpreter
binary, same hash seed): a map between two counted campaigns of the same references on two
machines should find a ratio of ~1 (multiplicative a ≈ 1, R²_CV ≈ 1); a ratio far from 1 says
the interpreter or the references differ, not the machine. What does differ per machine is the
exchange rate between a count and a CPU second, which only a limit given in seconds needs (a
timeout's charged duration, a filter's cut-off): ``fit_count_rate`` fits it from a counted
campaign, which keeps each rerun's native CPU time beside its count, and
``execrl.sandbox.counting.seconds_as(..., per_second=rate.per_second)`` applies it.

One campaign, one machine (spec §5: calibrations are keyed by the machine that ran the
program). Each rerun of a campaign keeps the machine that executed it — with a remote or Ray
executor, the server's or node's, not the caller's — and ``calibrate`` and
``fit_count_rate`` refuse a campaign whose reruns ran on more than one machine (a one-line
UsageError naming them) unless ``allow_mixed_machines=True``. The stored and the fresh
campaign may of course come from two machines: carrying one onto the other is what a map is
for.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from execrl.errors import DataError, ExecrlError, UsageError, describe_validation_error
from execrl.sandbox.counting import seconds_as
from execrl.sandbox.limits import TIMING_UNITS, TimingMetric, is_counted
from execrl.sandbox.records import Status
from execrl.stats import spearman
from execrl.timing.store import Campaign, DurationStore, Measurement, describe_timing, triples

MapKind = Literal["multiplicative", "affine", "power", "quadratic"]
KINDS: tuple[MapKind, ...] = ("multiplicative", "affine", "power", "quadratic")
TIE_R2 = 1e-6
"""Two maps whose R²_CV differ by less than this (numerical noise) are tied; the one with fewer
parameters wins **[ours]**."""


# --------------------------------------------------------------------------------------------
# One machine per campaign


def require_one_machine(campaign: Campaign, *, allow_mixed_machines: bool = False) -> None:
    """A UsageError (one line, naming the machines) when ``campaign``'s reruns ran on more
    than one machine, unless ``allow_mixed_machines``."""
    machines = campaign.machines
    if len(machines) < 2 or allow_mixed_machines:
        return
    hosts = [m.hostname for m in machines]
    names = hosts if len(set(hosts)) == len(hosts) else [m.key for m in machines]
    raise UsageError(
        f"campaign {campaign.id} ran on {len(machines)} machines ({', '.join(names)}), so its "
        "durations are not one machine's; calibrate a campaign of one machine, or mix them "
        "on purpose with `allow_mixed_machines`"
    )


# --------------------------------------------------------------------------------------------
# Pairing two campaigns


@dataclass(frozen=True)
class Pairs:
    """The (problem, test, reference) triples measured in both campaigns, as parallel arrays."""

    problems: np.ndarray  # (N,) str
    tests: np.ndarray  # (N,) str
    references: np.ndarray  # (N,) str
    stored_s: np.ndarray  # (N,) the stored campaign's median duration (in the timing's unit)
    fresh_s: np.ndarray  # (N,) the fresh campaign's mean duration over reruns (same unit)

    def __len__(self) -> int:
        return len(self.stored_s)

    def problem_ids(self) -> list[str]:
        return sorted(set(self.problems.tolist()))


def pair_campaigns(stored: Campaign, fresh: Campaign, *, timing: TimingMetric = "cpu") -> Pairs:
    """Pool the triples both campaigns measured. A rerun that did not succeed (timed out,
    failed, inconclusive) gives no duration; a triple with none in either campaign is left
    out. Raises ExecrlError when nothing overlaps (DataError when ``timing`` is a count
    either campaign does not hold). Counts pair as durations do, in their unit."""
    stored_of = {
        (p, t, r): float(np.median(values)) for p, t, r, values in triples(stored, timing) if values
    }
    rows = [
        (p, t, r, stored_of[(p, t, r)], float(np.mean(values)))
        for p, t, r, values in triples(fresh, timing)
        if values and (p, t, r) in stored_of
    ]
    if not rows:
        raise ExecrlError(
            f"campaigns {stored.id} and {fresh.id} share no (problem, test, reference) triple "
            f"with a successful {timing} duration; run both on the same problems and tests"
        )
    rows.sort()
    columns = list(zip(*rows, strict=True))
    return Pairs(
        problems=np.array(columns[0]),
        tests=np.array(columns[1]),
        references=np.array(columns[2]),
        stored_s=np.array(columns[3], dtype=float),
        fresh_s=np.array(columns[4], dtype=float),
    )


# --------------------------------------------------------------------------------------------
# The four maps: fit (least squares) and apply


def _fit_multiplicative(s: np.ndarray, f: np.ndarray) -> list[float]:
    denominator = float(np.dot(s, s))
    return [float(np.dot(s, f)) / denominator if denominator > 0 else 1.0]


def _fit_affine(s: np.ndarray, f: np.ndarray) -> list[float]:
    return _lstsq(np.column_stack([s, np.ones_like(s)]), f)


def _fit_power(s: np.ndarray, f: np.ndarray) -> list[float]:
    # log f = log a + b log s: only strictly positive durations have a logarithm.
    keep = (s > 0) & (f > 0)
    if keep.sum() < 2:
        raise ExecrlError("a power-law map needs at least 2 strictly positive duration pairs")
    log_a, b = _lstsq(np.column_stack([np.ones(keep.sum()), np.log(s[keep])]), np.log(f[keep]))
    return [math.exp(log_a), b]


def _fit_quadratic(s: np.ndarray, f: np.ndarray) -> list[float]:
    return _lstsq(np.column_stack([s * s, s, np.ones_like(s)]), f)


def _lstsq(design: np.ndarray, target: np.ndarray) -> list[float]:
    coefficients, *_ = np.linalg.lstsq(design, target, rcond=None)
    return [float(c) for c in coefficients]


def _apply_power(params: list[float], s: np.ndarray) -> np.ndarray:
    a, b = params
    return a * np.power(np.maximum(s, 0.0), b)  # a non-positive duration maps to 0 (b > 0)


FITS: dict[MapKind, Callable[[np.ndarray, np.ndarray], list[float]]] = {
    "multiplicative": _fit_multiplicative,
    "affine": _fit_affine,
    "power": _fit_power,
    "quadratic": _fit_quadratic,
}
APPLY: dict[MapKind, Callable[[list[float], np.ndarray], np.ndarray]] = {
    "multiplicative": lambda p, s: p[0] * s,
    "affine": lambda p, s: p[0] * s + p[1],
    "power": _apply_power,
    "quadratic": lambda p, s: (p[0] * s + p[1]) * s + p[2],
}
FORMULAS: dict[MapKind, str] = {
    "multiplicative": "f = {0:.4g}·s",
    "affine": "f = {0:.4g}·s {1:+.4g}",
    "power": "f = {0:.4g}·s^{1:.4g}",
    "quadratic": "f = {0:.4g}·s² {1:+.4g}·s {2:+.4g}",
}
N_PARAMS: dict[MapKind, int] = {"multiplicative": 1, "affine": 2, "power": 2, "quadratic": 3}


class CalibrationMetrics(BaseModel):
    """How well a map predicts fresh durations on problems it was not fitted on."""

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")  # NaN: undefined

    triples: int
    """Paired (problem, test, reference) triples."""
    problems: int
    """Problems, i.e. leave-one-problem-out folds."""
    r2_cv: float
    """1 − SS_res/SS_tot over every held-out prediction, on fresh durations."""
    rmse_cv_s: float
    """Root mean squared error of the held-out predictions, in the timing's unit (seconds, or
    a count: the name is kept for the maps saved before counts)."""
    spearman_before: float
    """Spearman(stored, fresh) over all triples pooled."""
    spearman_after: float
    """Spearman(held-out prediction, fresh) over all triples pooled."""
    within_spearman_before: float
    """Mean over problems of Spearman(stored, fresh) inside the problem."""
    within_spearman_after: float
    """Mean over problems of Spearman(held-out prediction, fresh) inside the problem."""
    bias_by_problem: dict[str, float]
    """Per problem: mean of (prediction − fresh)/fresh over its triples (+0.1 = 10 % slow)."""

    @property
    def mean_abs_bias(self) -> float:
        values = list(self.bias_by_problem.values())
        return float(np.mean(np.abs(values))) if values else math.nan


class CalibrationMap(BaseModel):
    """A fitted map Γ: stored duration → fresh duration (both in ``timing``'s unit: seconds or
    a count), callable on numpy arrays, so it plugs into ``ReferencePool`` / ``sanitise`` as
    the calibration. Never apply it to a candidate's durations."""

    model_config = ConfigDict(frozen=True)

    kind: MapKind
    params: list[float]
    """Coefficients in the order of the formula: a, then b, then c."""
    fitted_on: list[str]
    """Campaign ids: the stored campaign, then the fresh one."""
    timing: TimingMetric = "cpu"
    metrics: CalibrationMetrics | None = None
    """Leave-one-problem-out figures (None for a map built by hand)."""

    def __call__(self, stored_s: np.ndarray) -> np.ndarray:
        return APPLY[self.kind](self.params, np.asarray(stored_s, dtype=float))

    @property
    def formula(self) -> str:
        return FORMULAS[self.kind].format(*self.params)


def fit_map(
    kind: MapKind,
    stored_s: np.ndarray,
    fresh_s: np.ndarray,
    *,
    fitted_on: list[str] | None = None,
    timing: TimingMetric = "cpu",
) -> CalibrationMap:
    """Least-squares fit of one map to paired durations (no cross-validation)."""
    s, f = np.asarray(stored_s, dtype=float), np.asarray(fresh_s, dtype=float)
    return CalibrationMap(
        kind=kind, params=FITS[kind](s, f), fitted_on=fitted_on or [], timing=timing
    )


# --------------------------------------------------------------------------------------------
# Figures


def r_squared(predicted: np.ndarray, actual: np.ndarray) -> float:
    ss_res = float(np.sum((actual - predicted) ** 2))
    ss_tot = float(np.sum((actual - actual.mean()) ** 2))
    return 1.0 - ss_res / ss_tot if ss_tot > 0 else math.nan


def _nanmean(values: list[float]) -> float:
    finite = [v for v in values if not math.isnan(v)]
    return float(np.mean(finite)) if finite else math.nan


def cross_validate(kind: MapKind, pairs: Pairs) -> tuple[np.ndarray, CalibrationMetrics]:
    """Leave one problem out: predict each problem's triples with the map fitted on every other
    problem. Returns the held-out predictions (aligned with ``pairs``) and the figures."""
    problems = pairs.problem_ids()
    if len(problems) < 2:
        raise ExecrlError(
            f"leave-one-problem-out needs triples from at least 2 problems; these campaigns "
            f"share only {problems}"
        )
    s, f = pairs.stored_s, pairs.fresh_s
    predicted = np.empty_like(f)
    for problem in problems:
        held_out = pairs.problems == problem
        params = FITS[kind](s[~held_out], f[~held_out])
        predicted[held_out] = APPLY[kind](params, s[held_out])
    within_before, within_after, bias = [], [], {}
    for problem in problems:
        mask = pairs.problems == problem
        within_before.append(spearman(s[mask], f[mask]))
        within_after.append(spearman(predicted[mask], f[mask]))
        with np.errstate(divide="ignore", invalid="ignore"):
            bias[problem] = float(np.mean((predicted[mask] - f[mask]) / f[mask]))
    metrics = CalibrationMetrics(
        triples=len(pairs),
        problems=len(problems),
        r2_cv=r_squared(predicted, f),
        rmse_cv_s=float(np.sqrt(np.mean((predicted - f) ** 2))),
        spearman_before=spearman(s, f),
        spearman_after=spearman(predicted, f),
        within_spearman_before=_nanmean(within_before),
        within_spearman_after=_nanmean(within_after),
        bias_by_problem=bias,
    )
    return predicted, metrics


# --------------------------------------------------------------------------------------------
# The front door


@dataclass
class CalibrationReport:
    """Every map fitted on all pairs, with its cross-validated figures, and the chosen one."""

    pairs: Pairs
    maps: dict[MapKind, CalibrationMap]
    chosen: CalibrationMap
    held_out: dict[MapKind, np.ndarray] = field(repr=False)
    """Each map's leave-one-problem-out predictions, aligned with ``pairs``."""

    @property
    def rows(self) -> list[dict[str, object]]:
        """One row per map, for tables."""
        out = []
        for kind, cmap in self.maps.items():
            m = cmap.metrics
            if m is None:  # a map built by hand has no figures to show
                continue
            out.append(
                {
                    "map": kind,
                    "chosen": kind == self.chosen.kind,
                    "formula": cmap.formula,
                    "r2_cv": m.r2_cv,
                    "rmse_cv": m.rmse_cv_s * self.rmse_scale,
                    "spearman_before": m.spearman_before,
                    "spearman_after": m.spearman_after,
                    "within_before": m.within_spearman_before,
                    "within_after": m.within_spearman_after,
                    "mean_abs_bias": m.mean_abs_bias,
                    "max_abs_bias": max(map(abs, m.bias_by_problem.values())),
                }
            )
        return out

    @property
    def rmse_scale(self) -> float:
        """What ``rows`` multiplies the RMSE by: seconds are shown in ms, counts as they are."""
        return 1.0 if is_counted(self.chosen.timing) else 1000.0

    @property
    def rmse_label(self) -> str:
        """The RMSE column's name, with its unit ("RMSE ms", "RMSE instructions")."""
        timing = self.chosen.timing
        return f"RMSE {TIMING_UNITS[timing] if is_counted(timing) else 'ms'}"

    def to_markdown(self) -> str:
        stored, fresh = self.chosen.fitted_on
        m = self.chosen.metrics
        timing = self.chosen.timing
        unit = TIMING_UNITS[timing] if is_counted(timing) else "seconds"
        digits = 0 if is_counted(timing) else 2
        header = (
            f"Calibration of {stored} (stored) against {fresh} (fresh), "
            f"{describe_timing(timing)}: {m.triples} triples over {m.problems} problems, "
            "leave-one-problem-out.\n\n"
            f"| map | formula (s in {unit}) | R²_CV | {self.rmse_label} | Spearman before → "
            "after | within-problem Spearman before → after | mean / max abs bias |\n"
            "| --- | --- | --- | --- | --- | --- | --- |\n"
        )
        lines = [
            f"| {'**' + r['map'] + '** (chosen)' if r['chosen'] else r['map']} | {r['formula']} "
            f"| {r['r2_cv']:.4f} | {r['rmse_cv']:.{digits}f} "
            f"| {r['spearman_before']:.3f} → {r['spearman_after']:.3f} "
            f"| {r['within_before']:.3f} → {r['within_after']:.3f} "
            f"| {r['mean_abs_bias']:.1%} / {r['max_abs_bias']:.1%} |"
            for r in self.rows
        ]
        return header + "\n".join(lines) + "\n"


def calibrate(
    stored: Campaign,
    fresh: Campaign,
    *,
    timing: TimingMetric = "cpu",
    allow_mixed_machines: bool = False,
) -> CalibrationReport:
    """Fit all four maps stored → fresh, cross-validate each leaving one problem out, and
    choose the best R²_CV (ties within ``TIE_R2``: fewer parameters). With a counted
    ``timing`` both campaigns must hold its counts; between machines the map is ~identity.
    Each campaign must have run on one machine (:func:`require_one_machine`) unless
    ``allow_mixed_machines``."""
    for campaign in (stored, fresh):
        require_one_machine(campaign, allow_mixed_machines=allow_mixed_machines)
    pairs = pair_campaigns(stored, fresh, timing=timing)
    maps, held_out = {}, {}
    for kind in KINDS:
        held_out[kind], metrics = cross_validate(kind, pairs)
        cmap = fit_map(
            kind, pairs.stored_s, pairs.fresh_s, fitted_on=[stored.id, fresh.id], timing=timing
        )
        maps[kind] = cmap.model_copy(update={"metrics": metrics})
    return CalibrationReport(pairs, maps, choose(list(maps.values())), held_out)


def choose(maps: list[CalibrationMap]) -> CalibrationMap:
    """The best R²_CV; among maps within ``TIE_R2`` of it, the fewest parameters (then the
    best R²_CV). A map without a finite R²_CV is never chosen over one with it."""

    def r2(cmap: CalibrationMap) -> float:
        value = cmap.metrics.r2_cv if cmap.metrics else math.nan
        return -math.inf if math.isnan(value) else value

    best = max(r2(m) for m in maps)
    tied = [m for m in maps if r2(m) >= best - TIE_R2]
    return min(tied, key=lambda m: (N_PARAMS[m.kind], -r2(m)))


# --------------------------------------------------------------------------------------------
# The exchange rate between a count and a CPU second, on this machine

MIN_RATE_CPU_S = 1e-3
"""Triples whose median native CPU time is below this are left out of a count-rate fit: at a
millisecond the clock's resolution and the sandbox's own overhead are a large share of it."""


class CountRate(BaseModel):
    """A fitted exchange rate: counts of ``timing`` per CPU second on the machine that measured
    ``fitted_on`` (``per_second = exp(median log(count / cpu_s))`` over the triples). Counts
    are the same on every machine for one Python build; this rate is not: it is the machine's
    speed. Use it only where a limit given in seconds must meet a count
    (``seconds_as(limit_s, timing, per_second=rate.per_second)``)."""

    model_config = ConfigDict(frozen=True)

    timing: TimingMetric
    per_second: float
    """Counts per CPU second: the median of the triples' ratios (robust to a noisy triple)."""
    log_spread: float
    """The robust std of log(count / cpu_s) over the triples (1.4826 × its median absolute
    deviation): 0.1 means a typical triple's own rate is ~10 % off ``per_second``."""
    points: int
    """Triples the fit used (one per (problem, test, reference): median over its reruns)."""
    fitted_on: list[str] = Field(default_factory=list)
    """The campaign ids the points came from."""

    def seconds_as(self, seconds: float) -> float:
        """``seconds`` of CPU on this machine as a count at this rate."""
        return seconds_as(seconds, self.timing, self.per_second)

    def describe(self) -> str:
        return (
            f"{self.per_second:.4g} {TIMING_UNITS[self.timing]} per CPU second "
            f"(±{self.log_spread:.1%} in log space over {self.points} triples)"
        )


def rate_points(
    measurements: Iterable[Measurement], timing: TimingMetric, *, min_cpu_s: float = MIN_RATE_CPU_S
) -> tuple[np.ndarray, np.ndarray]:
    """(counts, cpu seconds) of every triple with a passing rerun that has both: the median
    over its passing reruns of each (a count is the same on every rerun; the CPU time is not).
    Triples under ``min_cpu_s`` are left out."""
    counts, seconds = [], []
    for m in measurements:
        both = [
            (c, t)
            for status, c, t in zip(m.statuses, m.values(timing), m.cpu_s, strict=True)
            if status is Status.SUCCESS and math.isfinite(c) and c > 0 and t > 0
        ]
        if not both:
            continue
        count, cpu = (float(np.median(column)) for column in zip(*both, strict=True))
        if cpu >= min_cpu_s:
            counts.append(count)
            seconds.append(cpu)
    return np.array(counts, dtype=float), np.array(seconds, dtype=float)


def fit_count_rate(
    source: Campaign | Iterable[Measurement],
    timing: TimingMetric | None = None,
    *,
    min_cpu_s: float = MIN_RATE_CPU_S,
    allow_mixed_machines: bool = False,
) -> CountRate:
    """Fit counts per CPU second from measurements that hold both (a counted campaign does: its
    native run's CPU time and the count of the same test). Robust: the median of the per-triple
    ratios, with the robust spread of their logarithms. ``timing`` defaults to a campaign's own;
    a DataError (one line) when no triple has both a count and a CPU time. The rate is one
    machine's speed: a campaign that ran on several is refused unless
    ``allow_mixed_machines`` (:func:`require_one_machine`)."""
    if isinstance(source, Campaign):
        require_one_machine(source, allow_mixed_machines=allow_mixed_machines)
        timing = timing or source.timing
        measurements, fitted_on = source.measurements, [source.id]
    else:
        measurements, fitted_on = list(source), []
    timing = timing or "instructions"
    if not is_counted(timing):
        raise ExecrlError(f"a count rate is fitted for a counted timing, not {timing!r}")
    counts, cpu = rate_points(measurements, timing, min_cpu_s=min_cpu_s)
    if counts.size == 0:
        where = f"campaign {fitted_on[0]}" if fitted_on else "these measurements"
        raise DataError(
            f"{where}: no passing test with both a count ({timing}) and a CPU time of at least "
            f"{min_cpu_s * 1000:g} ms; fit the rate on a campaign run with `execrl timing "
            f"campaign --timing {timing}`"
        )
    logs = np.log(counts / cpu)
    centre = float(np.median(logs))
    spread = 1.4826 * float(np.median(np.abs(logs - centre)))
    return CountRate(
        timing=timing,
        per_second=math.exp(centre),
        log_spread=spread,
        points=int(counts.size),
        fitted_on=fitted_on,
    )


# --------------------------------------------------------------------------------------------
# Saving maps in the store


def calibration_path(store: DurationStore, name: str) -> Path:
    if not name or "/" in name or name.startswith("."):
        raise ExecrlError(f"calibration name {name!r}: use a plain file name such as 'gpu-node'")
    return store.calibrations_dir / f"{name}.json"


def save_calibration(store: DurationStore, cmap: CalibrationMap, name: str) -> Path:
    """Write ``cmap`` as ``<store>/calibrations/<name>.json`` (replacing one of that name)."""
    return _write_json(calibration_path(store, name), cmap, "calibration map")


def _write_json(path: Path, model: BaseModel, what: str) -> Path:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(model.model_dump_json(indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ExecrlError(f"{path}: cannot save the {what} ({exc})") from None
    return path


def load_calibration(store: DurationStore, name: str) -> CalibrationMap:
    """The map saved as ``name``; ExecrlError naming the saved ones if there is none."""
    hint = "fit one with `execrl timing calibrate`"
    return _read_json(calibration_path(store, name), CalibrationMap, "calibration map", hint)


def _read_json(path: Path, model: type[BaseModel], what: str, hint: str):
    """``model`` read from ``path``; one ExecrlError naming the saved ones (its folder's) when
    there is no such file, or saying why it is not a ``what``."""
    if not path.is_file():
        have = sorted(p.stem for p in path.parent.glob("*.json"))
        raise ExecrlError(
            f"no {what} {path.stem!r} in {path.parent} (have: {', '.join(have) or 'none'}); {hint}"
        )
    try:
        return model.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ExecrlError(f"{path}: not a {what} ({exc})") from None
    except ValidationError as exc:
        raise ExecrlError(f"{path}: not a {what} ({describe_validation_error(exc)})") from None


def rate_path(store: DurationStore, name: str) -> Path:
    """Where a count rate named ``name`` lives: ``<store>/calibrations/rates/<name>.json``."""
    return calibration_path(store, name).parent / "rates" / f"{name}.json"


def save_count_rate(store: DurationStore, rate: CountRate, name: str) -> Path:
    """Write ``rate`` as ``<store>/calibrations/rates/<name>.json`` (replacing one of that
    name); ``execrl timing campaign --timing instructions`` saves one under the campaign id."""
    return _write_json(rate_path(store, name), rate, "count rate")


def load_count_rate(store: DurationStore, name: str) -> CountRate:
    """The count rate saved as ``name``; ExecrlError naming the saved ones if there is none."""
    hint = "run `execrl timing campaign --timing instructions` to measure one"
    return _read_json(rate_path(store, name), CountRate, "count rate", hint)
