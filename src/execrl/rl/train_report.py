"""The report of a training run: ``<run>/report/index.html`` with its PNGs.

It reads only what the trainer wrote into the run folder (``config.yaml``, ``metrics.jsonl``,
``evaluations.json``), so it can be rebuilt at any time (``execrl train --report RUN``):

- reward mean (± std) and pass rate per step;
- the zero-advantage group rate (groups that teach nothing);
- KL to the reference and clip fractions; completion lengths and execution failure rates;
- held-out pass@1 before and after, per problem, and whether the change is larger than
  its noise (two standard errors of the difference).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import yaml

from execrl.errors import DataError, ExecrlError
from execrl.report import Page, pyplot
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
    page.raw(f"<pre>{_escape(yaml.safe_dump(config, sort_keys=False))}</pre>")
    return page.write()


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


def _escape(text: str) -> str:
    from execrl.report import escape

    return escape(text)
