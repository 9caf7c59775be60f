"""Benchmark: does the reference trainer learn? A longer run with its settings fixed first.

Trains SmolLM2-135M-Instruct on the starter problems with the settings of
``benchmarks/learning.yaml`` (committed before the run; the result records its SHA-256 and
the commit), then reports, each with a 95% bootstrap interval:

- the training reward: its trend per step (``execrl.rl.train_report.reward_trend``: the
  least-squares slope over rollouts, its interval a bootstrap over steps) and the mean reward
  of the first and of the last ``reward_window_steps`` steps (each the mean of its groups'
  mean rewards, groups resampled), with their difference;
- held-out pass@1 before and after training (the trainer's own evaluations: ``eval.samples``
  samples of each held-out problem) and their difference and ratio. The bootstrap is two-level:
  resample the problems, then each chosen problem's samples (``n`` draws with replacement
  from its ``c`` passes, i.e. Binomial(n, c/n)); before and after share the resampled
  problems (a paired difference). The standard error printed is the bootstrap's standard
  deviation; the output says when it misses ``se_target``.

    python benchmarks/learning.py [--settings benchmarks/learning.yaml]
        [--steps N] [--prompts P] [--group G] [--samples S] [--minutes M]
        [--run-dir DIR] [--out FILE]

The fixed run writes ``benchmarks/results/learning.json``. ``--steps``/``--prompts``/
``--group``/``--samples``/``--minutes`` override the settings for a quick smoke run; such a
result is marked ``"smoke": true`` and goes to the run folder unless ``--out`` is given.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).parent))
from _common import report

from execrl.errors import UsageError
from execrl.evaluate import bootstrap_indices
from execrl.rl.train import Trainer, load_config
from execrl.rl.train_report import (
    SAMPLING_COLUMNS,
    load_rollouts,
    load_run,
    reward_trend,
    summary_lines,
    write_training_report,
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")

HERE = Path(__file__).parent
DEFAULT_SETTINGS = HERE / "learning.yaml"
DEFAULT_OUT = HERE / "results" / "learning.json"
OVERRIDES = {
    "steps": "steps",
    "prompts": "prompts_per_step",
    "group": "group_size",
    "samples": "eval.samples",
}
"""Command-line flag → the training setting it overrides (a smoke run)."""


# ---------------------------------------------------------------- settings and the run


def read_settings(path: Path) -> tuple[dict[str, Any], str]:
    """The settings mapping and the SHA-256 of the file's bytes."""
    raw = path.read_bytes()
    settings = yaml.safe_load(raw)
    if not isinstance(settings, dict) or not isinstance(settings.get("training"), dict):
        raise UsageError(f"{path}: learning settings need a 'training' mapping")
    return settings, hashlib.sha256(raw).hexdigest()


def overrides_of(args: argparse.Namespace) -> list[str]:
    """The ``key=value`` training overrides the command line asked for."""
    return [
        f"{key}={getattr(args, flag)}"
        for flag, key in OVERRIDES.items()
        if getattr(args, flag) is not None
    ]


def train(settings: dict[str, Any], overrides: list[str], run_dir: Path) -> float:
    """Train into ``run_dir`` (its ``settings.yaml`` is the training section as used);
    returns the seconds it took, before/after evaluations included."""
    run_dir.mkdir(parents=True, exist_ok=True)
    training = run_dir / "settings.yaml"
    training.write_text(yaml.safe_dump(settings["training"], sort_keys=False))
    config = load_config(settings.get("preset"), training, overrides)
    start = time.perf_counter()
    with Trainer(config, run_dir, progress=False, log=print) as trainer:
        trainer.train()
    seconds = time.perf_counter() - start
    write_training_report(run_dir)
    return seconds


# ---------------------------------------------------------------- statistics


def summary(resampled: np.ndarray, value: float) -> dict[str, float]:
    """A point value with the bootstrap's standard error and 95% percentile interval."""
    low, high = np.percentile(resampled, [2.5, 97.5])
    se = float(np.std(resampled, ddof=1))
    return {"value": value, "se": se, "low": float(low), "high": float(high)}


def group_means(rollouts: list[dict[str, Any]], steps: set[int]) -> np.ndarray:
    """(groups,) mean reward of each group (a step's rollouts of one problem) in ``steps``."""
    groups: dict[tuple[int, str], list[float]] = {}
    for r in rollouts:
        if r["step"] in steps and r.get("reward") is not None:
            groups.setdefault((r["step"], r["problem_id"]), []).append(float(r["reward"]))
    return np.array([np.mean(v) for v in groups.values()], dtype=float)


def resampled_means(values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """(B,) means of ``values`` resampled with replacement."""
    return values[bootstrap_indices(len(values), resamples=resamples, seed=seed)].mean(axis=1)


def training_reward(rollouts: list[dict[str, Any]], stats: dict[str, Any]) -> dict[str, Any]:
    """The trend, and the first vs the last window of steps (groups resampled)."""
    trend = reward_trend(rollouts, resamples=stats["resamples"], seed=stats["seed"])
    k = max(1, min(stats["reward_window_steps"], len(trend.steps) // 2))
    first, last = (group_means(rollouts, set(w)) for w in (trend.steps[:k], trend.steps[-k:]))
    boot_first = resampled_means(first, stats["resamples"], stats["seed"])
    boot_last = resampled_means(last, stats["resamples"], stats["seed"] + 1)
    return {
        "trend": trend.to_dict(),
        "sentence": trend.sentence(),
        "window_steps": k,
        "first_window": summary(boot_first, float(first.mean())) | {"groups": len(first)},
        "last_window": summary(boot_last, float(last.mean())) | {"groups": len(last)},
        "last_minus_first": summary(boot_last - boot_first, float(last.mean() - first.mean())),
    }


def pass_counts(evaluation: dict[str, Any], problems: list[str]) -> np.ndarray:
    """(P, 2) samples n and passes c of each problem, from the evaluation's c/n rates."""
    n = evaluation["samples"]
    return np.array([[n, round(evaluation["per_problem"][p] * n)] for p in problems], dtype=int)


def two_level(counts: np.ndarray, picks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) pass@1 when the problems ``picks`` (B, P) are drawn, then each one's n samples
    are drawn with replacement: Binomial(n, c/n) passes."""
    n, c = counts[picks, 0], counts[picks, 1]  # (B, P)
    return (rng.binomial(n, c / n) / n).mean(axis=1)


def heldout(evaluations: dict[str, Any], stats: dict[str, Any]) -> dict[str, Any]:
    """Held-out pass@1 before and after, their paired difference and ratio, and whether
    each standard error meets the target."""
    before, after = evaluations["before"], evaluations["after"]
    problems = sorted(set(before["per_problem"]) & set(after["per_problem"]))
    counts = {k: pass_counts(e, problems) for k, e in (("before", before), ("after", after))}
    picks = bootstrap_indices(len(problems), resamples=stats["resamples"], seed=stats["seed"])
    rng = np.random.default_rng(stats["seed"])
    boot = {k: two_level(c, picks, rng) for k, c in counts.items()}
    point = {k: float((c[:, 1] / c[:, 0]).mean()) for k, c in counts.items()}
    out = {k: summary(boot[k], point[k]) for k in boot}
    delta = point["after"] - point["before"]
    out["after_minus_before"] = summary(boot["after"] - boot["before"], delta)
    return {
        "problems": len(problems),
        "samples": before["samples"],
        **out,
        "ratio_after_to_before": point["after"] / point["before"] if point["before"] else None,
        "se_target": stats["se_target"],
        "se_target_met": {k: out[k]["se"] <= stats["se_target"] for k in out},
        "sampling_se": {k: sampling_se(c) for k, c in counts.items()},
        "sampling_se_bound": 0.5 / np.sqrt(before["samples"] * len(problems)),
    }


def sampling_se(counts: np.ndarray) -> float:
    """The standard error from the samples alone, the problems held fixed:
    sqrt(Σ p(1−p)/n) / P."""
    n, p = counts[:, 0], counts[:, 1] / counts[:, 0]
    return float(np.sqrt((p * (1 - p) / n).sum()) / len(counts))


# ---------------------------------------------------------------- output


def sampling_totals(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Dynamic sampling's totals over the run (the columns the trainer logged)."""
    return {
        k: int(sum(r.get(k) or 0 for r in rows))
        for k in SAMPLING_COLUMNS
        if any(k in r for r in rows)
    }


def lines(result: dict[str, Any]) -> list[str]:
    """What a person reads: the training reward and held-out pass@1, with their intervals."""
    reward, held = result["training_reward"], result.get("heldout")
    first, last, delta = (reward[k] for k in ("first_window", "last_window", "last_minus_first"))
    out = [
        reward["sentence"],
        f"training reward, first {reward['window_steps']} steps {_est(first)}, last "
        f"{_est(last)}: difference {_est(delta, signed=True)}",
    ]
    if held:
        ratio = held["ratio_after_to_before"]
        out.append(
            f"held-out pass@1 ({held['problems']} problems x {held['samples']} samples): before "
            f"{_est(held['before'])}, after {_est(held['after'])}, difference "
            f"{_est(held['after_minus_before'], signed=True)}, ratio "
            + ("undefined (before is 0)" if ratio is None else f"{ratio:.2f}")
        )
        missed = [k for k, met in held["se_target_met"].items() if not met]
        if missed:
            ses = ", ".join(f"{k} {held[k]['se']:.3f}" for k in missed)
            out.append(
                f"SE target {held['se_target']} NOT met for {ses} (from the samples alone: "
                f"before {held['sampling_se']['before']:.3f}, after "
                f"{held['sampling_se']['after']:.3f}; the rest is the spread between "
                f"{held['problems']} problems: more held-out problems, not more samples, "
                "would narrow it)"
            )
        else:
            out.append(f"SE target {held['se_target']} met for before, after and the difference")
        out.append(
            f"by design, the samples alone give an SE of at most 0.5/sqrt(n*P) = "
            f"{held['sampling_se_bound']:.3f} at any pass rates"
            + (
                "; a pass@1 of exactly 0 or 1 has a bootstrap SE of 0, which says nothing"
                if {held["before"]["value"], held["after"]["value"]} & {0.0, 1.0}
                else ""
            )
        )
    budget = result["timing"]
    if not budget["within_budget"]:
        out.append(f"over budget: {budget['total_s'] / 60:.1f} > {budget['budget_minutes']} min")
    return out


def _est(e: dict[str, float], signed: bool = False) -> str:
    fmt = "+.3f" if signed else ".3f"
    return f"{e['value']:{fmt}} (SE {e['se']:.3f}, 95% CI {e['low']:{fmt}} … {e['high']:{fmt}})"


def commit() -> str | None:
    """The checked-out commit, with ``+dirty`` when the tree has changes."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=HERE, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], capture_output=True, text=True, cwd=HERE, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if dirty else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", type=Path, default=DEFAULT_SETTINGS)
    for flag in OVERRIDES:
        parser.add_argument(f"--{flag}", type=int, help="override (a smoke run)")
    parser.add_argument(
        "--minutes", type=float, help="the wall-clock budget the run is checked against"
    )
    parser.add_argument("--run-dir", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    settings, digest = read_settings(args.settings)
    overrides = overrides_of(args)
    smoke = bool(overrides) or args.minutes is not None
    budget = args.minutes if args.minutes is not None else settings["minutes"]
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    run_dir = args.run_dir or Path("runs") / f"learning-{stamp}"
    print(f"settings {args.settings} sha256 {digest[:12]}, overrides {overrides or 'none'}")
    start, started_at = time.perf_counter(), commit()  # the code that runs, not what follows
    train_s = train(settings, overrides, run_dir)
    config, rows, evaluations = load_run(run_dir)
    stats = settings["statistics"]
    result: dict[str, Any] = {
        "settings": {"path": str(args.settings), "sha256": digest, "commit": started_at},
        "smoke": smoke,
        "overrides": overrides,
        "run_dir": str(run_dir),
        "config": config,
        "training_reward": training_reward(load_rollouts(run_dir), stats),
        "heldout": heldout(evaluations, stats)
        if {"before", "after"} <= evaluations.keys()
        else None,
        "dynamic_sampling": sampling_totals(rows),
        "report_summary": summary_lines(run_dir),
    }
    total_s = time.perf_counter() - start
    result["timing"] = {
        "train_s": round(train_s, 1),
        "total_s": round(total_s, 1),
        "budget_minutes": budget,
        "within_budget": total_s <= budget * 60,
    }
    result["lines"] = lines(result)
    print("\n".join(result["lines"]))
    out = args.out or (run_dir / "learning.json" if smoke else DEFAULT_OUT)
    report("learning", result, out)


if __name__ == "__main__":
    main()
