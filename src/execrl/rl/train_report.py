"""The report of a training run: ``<run>/report/index.html`` with its PNGs.

It reads only what the trainer wrote into the run folder (``config.yaml``, ``metrics.jsonl``,
``rollouts.jsonl``, ``evaluations.json``), so it can be rebuilt at any time (``execrl train
--report RUN``):

- the training reward's trend (:func:`reward_trend`): per step the mean rollout reward with
  its 95% band, a smoothed line, and the slope per step with its 95% interval;
- reward mean (± std) and pass rate per step;
- with dynamic sampling, the groups drawn and dropped per step;
- the zero-advantage group rate (groups that teach nothing);
- KL to the reference and clip fractions; completion lengths and execution failure rates;
- held-out pass@1 before and after, per problem, and whether the change is larger than
  its noise (two standard errors of the difference).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from execrl.errors import DataError, ExecrlError
from execrl.report import Page, escape, pyplot
from execrl.results import read_rows


def load_run(run_dir: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """(config, metrics rows, evaluations) of a run folder."""
    run = Path(run_dir)
    metrics_path = run / "metrics.jsonl"
    if not metrics_path.is_file():
        raise ExecrlError(f"{run}: not a training run (no metrics.jsonl)")
    config = _read(run / "config.yaml", yaml.safe_load) if (run / "config.yaml").is_file() else {}
    rows = read_rows(metrics_path)  # (a row cut short by a crash is dropped; a bad one is named)
    evals_path = run / "evaluations.json"
    evaluations = _read(evals_path, json.loads) if evals_path.is_file() else {}
    if not isinstance(config, dict) or not isinstance(evaluations, dict):
        raise DataError(f"{run}: config.yaml or evaluations.json is not a mapping")
    return config or {}, rows, evaluations


def load_rollouts(run_dir: str | Path) -> list[dict[str, Any]]:
    """The rows of ``<run>/rollouts.jsonl`` (none for a run that has not written one)."""
    path = Path(run_dir) / "rollouts.jsonl"
    return read_rows(path) if path.is_file() else []


def summary_lines(run_dir: str | Path) -> list[str]:
    """What a person reads first about a run: held-out pass@1 before vs after, and the
    training reward's trend (when the run wrote rollouts)."""
    _, _, evaluations = load_run(run_dir)
    rollouts = load_rollouts(run_dir)
    trends = [reward_trend(rollouts), *_pass_rate(rollouts)] if rollouts else []
    return [verdict(evaluations), *(t.sentence() for t in trends)]


def _read(path: Path, parse):
    """A run's file parsed, or one DataError naming it."""
    try:
        return parse(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise DataError(f"{path}: not UTF-8 text") from None
    except (ValueError, yaml.YAMLError) as exc:
        detail = " ".join(str(exc).split())[:200]
        raise DataError(f"{path}: cannot be read ({detail})") from None


def verdict(evaluations: dict[str, Any]) -> str:
    """One honest sentence about held-out pass@1 before vs after."""
    before, after = evaluations.get("before"), evaluations.get("after")
    if not before or not after:
        return "No before/after evaluation was run."
    delta = after["pass_at_1"] - before["pass_at_1"]
    noise = 2 * math.hypot(before["stderr"], after["stderr"])
    if abs(delta) <= noise:
        change = f"a change within its noise (±{noise:.3f}, two standard errors)"
    elif delta > 0:
        change = f"an improvement larger than its noise (±{noise:.3f})"
    else:
        change = f"a drop larger than its noise (±{noise:.3f})"
    return (
        f"Held-out pass@1 went from {before['pass_at_1']:.3f} to {after['pass_at_1']:.3f} "
        f"({delta:+.3f}, {len(after['per_problem'])} problems × {after['samples']} samples): "
        f"{change}."
    )


# ---------------------------------------------------------------- the training reward's trend

Z_95 = 1.959964
"""The two-sided 95% normal quantile: a step's band is its mean ± Z_95 standard errors."""

TREND_RESAMPLES = 2000
"""Bootstrap resamples of the steps behind the slope's interval."""

SMOOTH_STEPS = 5
"""Width of the smoothed line's centred window, in steps (narrower at the ends)."""


@dataclass(frozen=True)
class RewardTrend:
    """The training reward over a run, from its rollouts (one value per step, in step order).

    ``mean`` is each step's mean rollout reward and ``low``/``high`` its 95% band, mean ±
    1.96 standard errors of that step's rollouts (NaN for a step of one rollout). ``smoothed``
    pools the rollouts of a centred window of :data:`SMOOTH_STEPS` steps. ``slope`` (reward
    per step) and ``intercept`` are the ordinary least-squares line through every rollout;
    its 95% interval is a percentile bootstrap over steps: whole steps (all their rollouts)
    are resampled with replacement and the line refitted, since rollouts of one step share a
    policy and prompts and are not independent (NaN with fewer than 3 steps)."""

    steps: tuple[int, ...]
    mean: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    rollouts: tuple[int, ...]
    smoothed: tuple[float, ...]
    intercept: float
    slope: float
    slope_low: float
    slope_high: float
    quantity: str = "training reward"
    """What the values are (the sentence's subject): the reward, or the rollouts' pass rate."""

    def fitted(self) -> list[float]:
        """The least-squares line at each step."""
        return [self.intercept + self.slope * s for s in self.steps]

    def sentence(self) -> str:
        """One line for a summary, e.g. ``training reward: +0.012 per step (95% CI −0.004 …
        +0.028) over 10 steps, 160 rollouts: no trend distinguishable from noise``."""
        if math.isnan(self.slope):
            return f"{self.quantity}: no trend ({len(self.steps)} step(s) with a reward)"
        if math.isnan(self.slope_low):
            interval, judged = "no interval with fewer than 3 steps", "too few steps to judge"
        else:
            interval = f"95% CI {_signed(self.slope_low)} … {_signed(self.slope_high)}"
            judged = _judge(self.slope_low, self.slope_high)
        return (
            f"{self.quantity}: {_signed(self.slope)} per step ({interval}) over "
            f"{len(self.steps)} steps, {sum(self.rollouts)} rollouts: {judged}"
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a JSON result (NaN as None)."""
        return {k: _clean(v) for k, v in asdict(self).items()}


def reward_trend(
    rows: Iterable[Mapping[str, Any]],
    *,
    resamples: int = TREND_RESAMPLES,
    seed: int = 0,
) -> RewardTrend:
    """The trend of ``rows`` (rollouts.jsonl rows: each has ``step`` and ``reward``; a reward
    of None, an inconclusive rollout, is left out). See :class:`RewardTrend`."""
    by_step = _rewards_by_step(rows)
    steps = sorted(by_step)
    bands = [_band(by_step[s]) for s in steps]
    stats = _step_sums(steps, by_step)  # (S, 5)
    intercept, slope = (float(v[0]) for v in _lines(stats.sum(axis=0, keepdims=True)))
    low, high = _slope_interval(stats, resamples=resamples, seed=seed)
    return RewardTrend(
        steps=tuple(steps),
        mean=tuple(b[0] for b in bands),
        low=tuple(b[1] for b in bands),
        high=tuple(b[2] for b in bands),
        rollouts=tuple(len(by_step[s]) for s in steps),
        smoothed=tuple(_smoothed(steps, by_step)),
        intercept=intercept,
        slope=slope,
        slope_low=low,
        slope_high=high,
    )


def pass_rate_trend(rows: Iterable[Mapping[str, Any]], **kwargs: Any) -> RewardTrend:
    """:func:`reward_trend` of the rollouts' pass flags (1 passed every test, 0 not;
    inconclusive rollouts and rows without a pass flag left out). A calibrated reward (the
    dense one weighs each test by how rarely its group passes it) is relative to the group,
    so its level need not rise as the policy solves more; the pass rate's is absolute."""
    flags = [
        {"step": r.get("step"), "reward": float(r["passed"])}
        for r in rows
        if r.get("reward") is not None and isinstance(r.get("passed"), bool)
    ]
    return replace(reward_trend(flags, **kwargs), quantity="training pass rate")


def _pass_rate(rows: Sequence[Mapping[str, Any]]) -> list[RewardTrend]:
    """The pass rate's trend, when the rows carry pass flags (none: an older run's)."""
    return [pass_rate_trend(rows)] if any("passed" in r for r in rows) else []


def _rewards_by_step(rows: Iterable[Mapping[str, Any]]) -> dict[int, list[float]]:
    """Each step's rewards; a DataError names a row without a usable step or reward."""
    by_step: dict[int, list[float]] = {}
    for number, row in enumerate(rows, 1):
        step, reward = row.get("step"), row.get("reward", math.nan)
        if reward is None:  # inconclusive: no reward, not a zero
            continue
        if not isinstance(step, int) or not isinstance(reward, int | float) or reward != reward:
            raise DataError(
                f"rollout row {number}: needs an integer 'step' and a numeric 'reward', "
                f"got step={step!r}, reward={reward!r}"
            )
        by_step.setdefault(step, []).append(float(reward))
    return by_step


def _band(values: list[float]) -> tuple[float, float, float]:
    """(mean, low, high): the mean ± 1.96 standard errors (NaN band for one value)."""
    mean = float(np.mean(values))
    if len(values) < 2:
        return mean, math.nan, math.nan
    half = Z_95 * float(np.std(values, ddof=1)) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def _smoothed(steps: list[int], by_step: dict[int, list[float]]) -> list[float]:
    """The mean of the rollouts of a centred window of SMOOTH_STEPS steps around each."""
    half = SMOOTH_STEPS // 2
    out = []
    for i in range(len(steps)):
        pooled = [r for s in steps[max(0, i - half) : i + half + 1] for r in by_step[s]]
        out.append(float(np.mean(pooled)))
    return out


def _step_sums(steps: list[int], by_step: dict[int, list[float]]) -> np.ndarray:
    """(S, 5) per step: n, Σx, Σy, Σxy, Σx² over its rollouts (x the step, y the reward), the
    sufficient statistics of a least-squares line, so a resample of steps is a sum of rows."""
    rows = []
    for s in steps:
        n, total = len(by_step[s]), sum(by_step[s])
        rows.append([n, n * s, total, s * total, n * s * s])
    return np.array(rows, dtype=float).reshape(-1, 5)


def _lines(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(B,) intercepts and slopes from (B, 5) summed statistics; NaN where x does not vary."""
    n, sx, sy, sxy, sxx = np.asarray(sums, dtype=float).T
    spread = n * sxx - sx * sx
    varies = spread > 1e-9 * np.maximum(n * sxx, 1.0)
    slope = np.full(len(n), np.nan)
    slope[varies] = (n * sxy - sx * sy)[varies] / spread[varies]
    intercept = np.full(len(n), np.nan)
    intercept[varies] = (sy - slope * sx)[varies] / n[varies]
    return intercept, slope


def _slope_interval(stats: np.ndarray, *, resamples: int, seed: int) -> tuple[float, float]:
    """The 95% percentile interval of the slope over bootstrap resamples of the steps;
    resamples that hold a single distinct step (no slope) are left out."""
    if len(stats) < 3:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(stats), size=(resamples, len(stats)))  # (B, S)
    _, slopes = _lines(stats[picks].sum(axis=1))  # (B,)
    slopes = slopes[~np.isnan(slopes)]
    if slopes.size == 0:
        return math.nan, math.nan
    low, high = np.percentile(slopes, [2.5, 97.5])
    return float(low), float(high)


def _judge(low: float, high: float) -> str:
    if low > 0:
        return "rising (the interval lies above 0)"
    if high < 0:
        return "falling (the interval lies below 0)"
    return "no trend distinguishable from noise (the interval holds 0)"


def _signed(x: float) -> str:
    """``+0.012`` / ``−0.004`` (a true minus sign)."""
    return f"{x:+.3f}".replace("-", "\u2212")


def _clean(value: Any) -> Any:
    """NaN as None, tuples as lists, element-wise: JSON has no NaN."""
    if isinstance(value, tuple):
        return [_clean(v) for v in value]
    return None if isinstance(value, float) and math.isnan(value) else value


def write_training_report(run_dir: str | Path) -> Path:
    """Write ``<run>/report/index.html``; returns its path."""
    config, rows, evaluations = load_run(run_dir)
    plt = pyplot("training reports")
    page = Page(f"Training run: {Path(run_dir).resolve().name}", Path(run_dir) / "report")
    page.paragraph(
        f"Preset {config.get('preset', '?')} · {len(rows)} steps · "
        f"{config.get('prompts_per_step', '?')} prompts × {config.get('group_size', '?')} "
        f"rollouts per step · model {config.get('policy', {}).get('model', '?')} · "
        f"advantage {config.get('loss', {}).get('advantage', '?')}"
    )
    page.heading("Summary")
    page.paragraph(verdict(evaluations))
    rollouts = load_rollouts(run_dir)
    if rollouts:
        trend = reward_trend(rollouts)
        page.paragraph(trend.sentence() + ".")
        for passing in _pass_rate(rollouts):
            page.paragraph(passing.sentence() + ".")
        _trend_figure(page, plt, trend)
    _sampling(page, rows)
    if rows:
        updated = sum(bool(r.get("updated", True)) for r in rows)
        page.paragraph(
            f"{updated} of {len(rows)} steps had a learning signal (the others had only "
            f"zero-advantage groups); mean zero-advantage group rate "
            f"{_mean([r['zero_advantage_rate'] for r in rows]):.2f}; mean pass rate of "
            f"training rollouts {_mean([r['pass_rate'] for r in rows]):.3f} (first step "
            f"{rows[0]['pass_rate']:.3f}, last step {rows[-1]['pass_rate']:.3f})."
        )
        _curves(page, plt, rows)
        _execution(page, plt, rows)
    _evaluation_tables(page, evaluations)
    page.heading("Configuration")
    page.raw(f"<pre>{escape(yaml.safe_dump(config, sort_keys=False))}</pre>")
    return page.write()


def _trend_figure(page: Page, plt: Any, trend: RewardTrend) -> None:
    """Per step: the mean reward and its 95% band, the smoothed line and the fitted slope."""
    fig, axis = plt.subplots(figsize=(11, 3.8))
    axis.fill_between(trend.steps, trend.low, trend.high, alpha=0.2, label="95% band")
    axis.plot(trend.steps, trend.mean, marker="o", linestyle="none", label="mean reward")
    axis.plot(trend.steps, trend.smoothed, label=f"smoothed ({SMOOTH_STEPS} steps)")
    if not math.isnan(trend.slope):
        axis.plot(trend.steps, trend.fitted(), linestyle="--", label="least-squares line")
    axis.set_xlabel("step")
    axis.set_ylabel("rollout reward")
    axis.legend()
    page.figure(
        fig,
        "reward_trend",
        "Training reward per step: mean over the step's rollouts, its 95% band (mean ± 1.96 "
        "standard errors), a smoothed line and the least-squares line through every rollout "
        "(the slope's interval: a bootstrap over steps).",
    )


SAMPLING_COLUMNS = {
    "groups_drawn": "groups drawn",
    "groups_dropped": "dropped (all rewards equal)",
    "sampling_rounds": "sampling rounds",
}
"""Dynamic sampling's per-step columns of metrics.jsonl, shown when the run logged them."""


def _sampling(page: Page, rows: list[dict[str, Any]]) -> None:
    """Dynamic sampling (DAPO): how many groups each step drew and dropped to fill its batch."""
    keys = [k for k in SAMPLING_COLUMNS if any(k in r for r in rows)]
    if not keys:
        return
    page.heading("Dynamic sampling")
    totals = {k: sum(r.get(k) or 0 for r in rows) for k in keys}
    if "groups_drawn" in totals and "groups_dropped" in totals and totals["groups_drawn"]:
        page.paragraph(
            f"{totals['groups_drawn']} groups drawn over {len(rows)} steps, "
            f"{totals['groups_dropped']} of them dropped because all their rewards were equal "
            f"({totals['groups_dropped'] / totals['groups_drawn']:.0%})."
        )
    page.table(
        ["step", *(SAMPLING_COLUMNS[k] for k in keys)],
        [[r["step"], *(r.get(k, "—") for k in keys)] for r in rows],
    )


def _curves(page: Page, plt: Any, rows: list[dict[str, Any]]) -> None:
    steps = [r["step"] for r in rows]

    def series(key: str) -> list[float]:
        return [r.get(key, math.nan) for r in rows]

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    mean, std = series("reward_mean"), series("reward_std")
    left.plot(steps, mean, marker="o", label="reward mean")
    left.fill_between(
        steps,
        [m - s for m, s in zip(mean, std, strict=True)],
        [m + s for m, s in zip(mean, std, strict=True)],
        alpha=0.2,
    )
    left.set_xlabel("step")
    left.set_ylabel("reward")
    left.legend()
    right.plot(steps, series("pass_rate"), marker="o", label="pass rate (rollouts)")
    right.plot(steps, series("zero_advantage_rate"), marker="s", label="zero-advantage groups")
    right.set_ylim(-0.05, 1.05)
    right.set_xlabel("step")
    right.legend()
    page.figure(fig, "reward", "Reward (± one std over the batch), pass rate, zero-advantage rate.")

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    left.plot(steps, series("kl"), marker="o", label="KL to reference")
    left.plot(steps, series("clip_frac_low"), marker="v", label="clip fraction (low)")
    left.plot(steps, series("clip_frac_high"), marker="^", label="clip fraction (high)")
    left.set_xlabel("step")
    left.legend()
    right.plot(steps, series("length_mean"), marker="o", label="completion length (tokens)")
    twin = right.twinx()
    twin.plot(
        steps, series("execution_failure_rate"), color="#d62728", marker="x", label="exec failures"
    )
    twin.set_ylim(-0.05, 1.05)
    right.set_xlabel("step")
    right.legend(loc="upper left")
    twin.legend(loc="upper right")
    page.figure(fig, "optimisation", "KL and clipping; completion length and execution failures.")

    page.table(
        ["step", "reward", "pass", "zero-adv", "KL", "clip lo/hi", "len", "exec fail", "s"],
        [
            [
                r["step"],
                f"{r['reward_mean']:+.3f}",
                f"{r['pass_rate']:.2f}",
                f"{r['zero_advantage_rate']:.2f}",
                f"{r['kl']:.4f}",
                f"{r['clip_frac_low']:.3f}/{r['clip_frac_high']:.3f}",
                f"{r['length_mean']:.0f}",
                f"{r['execution_failure_rate']:.2f}",
                f"{r['rollout_s'] + r['update_s']:.0f}",
            ]
            for r in rows
        ],
    )


MONITOR_RATES = {
    "monitor/resolved_rate": "resolved without fallback",
    "monitor/fallback_rate": "fallback",
    "monitor/unknown_rate": "unknown (inconclusive)",
    "monitor/timeout_rate": "timeout",
}


def _execution(page: Page, plt: Any, rows: list[dict[str, Any]]) -> None:
    """Spec §6: how execution went each step (runs logged before the monitor have none)."""
    rows = [r for r in rows if "monitor/resolved_rate" in r]
    if not rows:
        return
    page.heading("Execution (spec §6)")
    bursts = [r["step"] for r in rows if r.get("monitor/burst")]
    page.paragraph(
        f"Tests resolved without fallback: {_mean([r['monitor/resolved_rate'] for r in rows]):.3f}"
        f" on average (lowest {min(r['monitor/resolved_rate'] for r in rows):.3f}); highest "
        f"exposure P = 1 − (1 − f)^n, the chance a group held a rollout that fell back: "
        f"{max(r['monitor/exposure'] for r in rows):.3f}; "
        + (f"bursts at steps {bursts}." if bursts else "no burst of fallbacks or unknowns.")
    )
    fig, axis = plt.subplots(figsize=(11, 3.4))
    steps = [r["step"] for r in rows]
    for key, label in MONITOR_RATES.items():
        axis.plot(steps, [r[key] for r in rows], marker="o", label=label)
    axis.plot(steps, [r["monitor/exposure"] for r in rows], linestyle="--", label="exposure")
    axis.set_ylim(-0.05, 1.05)
    axis.set_xlabel("step")
    axis.legend(ncol=3)
    page.figure(fig, "execution", "Per step: share of tests resolved, fallback, unknown, timeout.")


def _evaluation_tables(page: Page, evaluations: dict[str, Any]) -> None:
    if not evaluations:
        return
    page.heading("Held-out pass@1")
    labels = [k for k in ("before", "after") if k in evaluations]
    page.table(
        ["evaluation", "step", "pass@1", "std. error", "samples", "temperature"],
        [
            [
                k,
                evaluations[k]["step"],
                f"{evaluations[k]['pass_at_1']:.3f}",
                f"{evaluations[k]['stderr']:.3f}",
                evaluations[k]["samples"],
                evaluations[k]["temperature"],
            ]
            for k in labels
        ],
    )
    problems = sorted({p for k in labels for p in evaluations[k]["per_problem"]})
    page.table(
        ["problem", *labels],
        [
            [p, *(f"{evaluations[k]['per_problem'].get(p, math.nan):.2f}" for k in labels)]
            for p in problems
        ],
    )


def _mean(values: list[float]) -> float:
    finite = [v for v in values if v is not None and not math.isnan(v)]
    return sum(finite) / len(finite) if finite else math.nan
