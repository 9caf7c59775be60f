"""What a training step logs: one ``metrics.jsonl`` row and one ``rollouts.jsonl`` row per
rollout drawn, computed from the step's scored groups (pure: nothing here runs a model).

Rewards, pass rates, lengths and the zero-advantage rate are over *every* group the step drew,
dynamic sampling's dropped ones included, so they measure the policy and not the filter; the
loss, KL and clip fractions are the update's, over the groups kept.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from execrl.rl.advantages import zero_advantage_rate
from execrl.rl.monitor import StepMonitor
from execrl.rl.rollouts import ScoredGroup


@dataclass(frozen=True)
class StepOutcome:
    """A step's groups and what became of them."""

    step: int
    """The policy version after the step."""
    drawn: list[ScoredGroup]
    """Every group sampled for the step (fresh ones, in async mode)."""
    advantages: Mapping[int, list[float | None]]
    """The kept groups' advantages, by their position in ``drawn``."""
    stale: int
    """Async: groups dropped for being older than ``max_staleness``."""
    rounds: int
    """Sampling rounds (1 without dynamic sampling)."""
    updated: bool
    """Whether the weights changed (a batch with no signal skips the update)."""


def metrics_row(
    outcome: StepOutcome, stats: Any, seconds: tuple[float, float], monitor: StepMonitor
) -> dict[str, Any]:
    """The step's ``metrics.jsonl`` row (``stats``: the update's UpdateStats)."""
    scores = [g.scores for g in outcome.drawn]
    rewards = [r for s in scores for r in s.rewards if r is not None]
    group_of = [gi for gi, s in enumerate(scores) for r in s.rewards if r is not None]
    conclusive = [(s, i) for s in scores for i, r in enumerate(s.rewards) if r is not None]
    lengths = [len(x.completion_ids) for g in outcome.drawn for x in g.samples]
    staleness = [outcome.step - 1 - g.version for g in outcome.drawn]
    records = [r for s in scores for r in s.records if r is not None]
    spec_monitor = monitor.observe(records, rewards).to_dict()
    return {
        "step": outcome.step,
        "reward_mean": _mean(rewards),
        "reward_std": float(np.std(rewards)) if rewards else math.nan,
        "pass_rate": _mean([float(s.passed[i]) for s, i in conclusive]),
        "zero_advantage_rate": zero_advantage_rate(rewards, group_of) if rewards else math.nan,
        "kl": stats.kl,
        "clip_frac_low": stats.clip_frac_low,
        "clip_frac_high": stats.clip_frac_high,
        "loss": stats.loss,
        "length_mean": _mean(lengths),
        "length_max": max(lengths, default=0),
        "execution_failure_rate": _mean([float(s.failed_execution[i]) for s, i in conclusive]),
        "inconclusive_rate": _mean([float(r is None) for s in scores for r in s.rewards]),
        "groups": len(outcome.advantages),
        "groups_drawn": len(outcome.drawn),
        "groups_dropped": len(outcome.drawn) - len(outcome.advantages),
        "sampling_rounds": outcome.rounds,
        "dropped_stale_groups": outcome.stale,
        "staleness_mean": _mean(staleness),
        "staleness_max": max(staleness, default=0),
        "updated": outcome.updated,
        "rollout_s": round(seconds[0], 3),
        "update_s": round(seconds[1], 3),
        **{k: v for k, v in spec_monitor.items() if k != "step"},
    }


def rollout_rows(outcome: StepOutcome) -> Iterable[dict[str, Any]]:
    """One row per rollout drawn: its reward and advantage, and whether its group was kept."""
    for gi, g in enumerate(outcome.drawn):
        advantages = outcome.advantages.get(gi, [None] * len(g.samples))
        scores = zip(g.samples, g.scores.rewards, g.scores.passed, advantages, strict=True)
        for sample, reward, passed, advantage in scores:
            yield {
                "step": outcome.step,
                "problem_id": g.problem_id,
                "version": g.version,
                "reward": reward,
                "advantage": advantage,
                "passed": passed,
                "kept": gi in outcome.advantages,
                "completion": sample.text,
            }


def summary_line(row: Mapping[str, Any], steps: int) -> str:
    """The step's line for the console."""
    return (
        f"step {row['step']:>3}/{steps}  reward {row['reward_mean']:+.3f}"
        f"  pass {row['pass_rate']:.2f}  zero-adv {row['zero_advantage_rate']:.2f}"
        f"  groups {row['groups']}/{row['groups_drawn']}  len {row['length_mean']:.0f}"
        f"  ({row['rollout_s']:.0f}s rollouts, {row['update_s']:.0f}s update)"
    )


def write_step(
    run: Path,
    outcome: StepOutcome,
    stats: Any,
    seconds: tuple[float, float],
    monitor: StepMonitor,
) -> dict[str, Any]:
    """Append the step's metrics row and rollout rows to the run's files; returns the row."""
    row = metrics_row(outcome, stats, seconds, monitor)
    append_jsonl(run / "metrics.jsonl", [row])
    append_jsonl(run / "rollouts.jsonl", rollout_rows(outcome))
    return row


def rewind_logs(run: Path, history: Sequence[Mapping[str, Any]]) -> None:
    """Make the run's logs say what a restored checkpoint knows: ``metrics.jsonl`` is its
    history, and ``rollouts.jsonl`` loses the rows of steps after it (a run that crashed past
    its last checkpoint had logged them; the resumed run logs those steps again)."""
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in history))
    last = max((row["step"] for row in history), default=0)
    path = run / "rollouts.jsonl"
    if path.is_file():
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        path.write_text("".join(line for line in lines if json.loads(line)["step"] <= last))


def append_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(row) + "\n" for row in rows)


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else math.nan
