"""The evaluation metrics of spec §5 over a replay: p_τ pass@k, win rates against a
baseline, bootstrap intervals over problems, per-difficulty breakdowns, and the
degenerate-group ratio of a reward.

- ``p_τ pass@k``: the unbiased pass@k where a sample counts iff it is strictly correct and its
  leaderboard percentile ``q_QP ≤ τ/100`` (:meth:`SampleScore.passes`); ``p100`` is strict
  correctness alone. ``n`` is a problem's number of conclusive samples; a problem with
  ``n < k`` has no pass@k and is left out of that mean.
- ``WR_b`` / ``WR_m``: :mod:`execrl.evaluate.winrate`, over strictly correct samples.
- Inconclusive samples (the sandbox failed, not the program) are never counted as wrong: they
  are left out and counted separately.
"""

from __future__ import annotations

import numbers
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from execrl.envs.presets import environment
from execrl.errors import ExecrlError, UsageError
from execrl.evaluate.bootstrap import Estimate, bootstrap_ci
from execrl.evaluate.passk import pass_at_k_per_problem
from execrl.evaluate.replay import (
    EvalData,
    Replay,
    ReplaySettings,
    SampleScore,
    replay_cap,
    replay_timing,
    with_campaign_durations,
)
from execrl.evaluate.winrate import PICKS, WinCount, problem_verdicts, win_rate_statistic
from execrl.rewards.scoring import EnvSpec, RewardSpec, rescore
from execrl.rewards.signal_metrics import degenerate_group_ratio

DEFAULT_TAUS = (100, 50, 30, 10)
DEFAULT_KS = (1, 10)


@dataclass(frozen=True)
class SampleCounts:
    """How many samples a model has, and how many could not be judged."""

    samples: int
    inconclusive: int
    min_per_problem: int
    max_per_problem: int


@dataclass(frozen=True)
class EvalMetrics:
    """All metrics of one replay on one set of problems."""

    models: tuple[str, ...]
    problems: tuple[str, ...]
    taus: tuple[float, ...]
    ks: tuple[int, ...]
    pass_at_k: dict[tuple[str, float, int], Estimate]
    """(model, τ, k) → p_τ pass@k with its bootstrap interval."""
    baseline: str | None = None
    win_rates: dict[tuple[str, str], tuple[WinCount, Estimate]] = field(default_factory=dict)
    """(model, "WR_b" | "WR_m") → counts and the rate with its interval (model ≠ baseline)."""
    counts: dict[str, SampleCounts] = field(default_factory=dict)
    level: float = 0.95

    def to_dict(self) -> dict[str, Any]:
        return {
            "models": list(self.models),
            "problems": list(self.problems),
            "level": self.level,
            "pass_at_k": [
                {"model": m, "tau": t, "k": k, **e.to_dict()}
                for (m, t, k), e in self.pass_at_k.items()
            ],
            "baseline": self.baseline,
            "win_rates": [
                {
                    "model": m,
                    "metric": name,
                    "wins": c.wins,
                    "losses": c.losses,
                    "draws": c.draws,
                    **e.to_dict(),
                }
                for (m, name), (c, e) in self.win_rates.items()
            ],
            "samples": {m: vars(c) for m, c in self.counts.items()},
        }


def pass_counts(
    scores: Sequence[SampleScore], model: str, problems: Sequence[str], tau: float
) -> list[tuple[int, int]]:
    """``(n, c)`` per problem for ``model``: conclusive samples, and those counting at τ."""
    n: dict[str, int] = defaultdict(int)
    c: dict[str, int] = defaultdict(int)
    for s in scores:
        if s.model == model and not s.inconclusive:
            n[s.problem_id] += 1
            c[s.problem_id] += s.passes(tau)
    return [(n[p], c[p]) for p in problems]


def passing_durations(scores: Sequence[SampleScore], model: str) -> dict[str, list[float]]:
    """Per problem, the accumulated durations of ``model``'s strictly correct samples."""
    out: dict[str, list[float]] = defaultdict(list)
    for s in scores:
        if s.model == model and not s.inconclusive and s.c_strict:
            out[s.problem_id].append(s.duration_s)
    return out


def compute_metrics(
    scores: Sequence[SampleScore],
    models: Sequence[str],
    problems: Sequence[str],
    *,
    taus: Sequence[float] = DEFAULT_TAUS,
    ks: Sequence[int] = DEFAULT_KS,
    baseline: str | None = None,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    rel_tol: float = 0.0,
) -> EvalMetrics:
    """Every metric on ``problems`` (bootstrap over them, seeded: the same seed resamples the
    same problems for every model and metric)."""
    for tau in taus:
        if not 0 <= tau <= 100:
            raise UsageError(f"τ is a percentile threshold in [0, 100], got {tau}")
    for k in ks:
        if not isinstance(k, numbers.Integral) or isinstance(k, bool) or k < 1:
            raise UsageError(f"pass@k takes whole numbers k >= 1, got {k!r}")
    if baseline is not None and baseline not in models:
        raise ExecrlError(f"unknown baseline model {baseline!r}; models: {', '.join(models)}")
    boot = {"resamples": resamples, "seed": seed, "level": level}
    estimates = {}
    for model in models:
        for tau in taus:
            counts = pass_counts(scores, model, problems, tau)
            for k in ks:
                estimates[(model, tau, k)] = bootstrap_ci(pass_at_k_per_problem(counts, k), **boot)
    win_rates = {}
    if baseline is not None:
        base = passing_durations(scores, baseline)
        for model in models:
            if model == baseline:
                continue
            mine = passing_durations(scores, model)
            for name, how in PICKS.items():
                verdicts = problem_verdicts(mine, base, problems, how, rel_tol=rel_tol)
                estimate = bootstrap_ci(verdicts, statistic=win_rate_statistic, **boot)
                win_rates[(model, name)] = (WinCount.of(verdicts), estimate)
    return EvalMetrics(
        models=tuple(models),
        problems=tuple(problems),
        taus=tuple(taus),
        ks=tuple(ks),
        pass_at_k=estimates,
        baseline=baseline,
        win_rates=win_rates,
        counts={m: sample_counts(scores, m, problems) for m in models},
        level=level,
    )


def sample_counts(scores: Sequence[SampleScore], model: str, problems: Sequence[str]):
    per_problem = dict.fromkeys(problems, 0)
    total = inconclusive = 0
    for s in scores:
        if s.model == model and s.problem_id in per_problem:
            total += 1
            inconclusive += s.inconclusive
            per_problem[s.problem_id] += not s.inconclusive
    values = list(per_problem.values()) or [0]
    return SampleCounts(total, inconclusive, min(values), max(values))


def evaluate(replay: Replay, **options) -> EvalMetrics:
    """:func:`compute_metrics` on every problem of a replay."""
    return compute_metrics(replay.scores, replay.models, replay.problem_ids, **options)


def by_difficulty(replay: Replay, **options) -> dict[str, EvalMetrics]:
    """The metrics per difficulty (the problems' ``difficulty``), hardest last."""
    groups: dict[str, list[str]] = defaultdict(list)
    for pid, problem in replay.data.problems.items():
        groups[problem.difficulty].append(pid)
    order = ["easy", "medium", "hard", "unknown"]
    return {
        d: compute_metrics(replay.scores, replay.models, groups[d], **options)
        for d in sorted(groups, key=lambda d: order.index(d) if d in order else len(order))
    }


# --------------------------------------------------------------------------------------------
# How much signal a reward would give on these samples


def degenerate_ratios(
    data: EvalData,
    *,
    env: EnvSpec = "qp(p=0.3)",
    reward: RewardSpec = "collapsed",
    settings: ReplaySettings | None = None,
) -> dict[str, float]:
    """Per model, the share of problems whose samples all get the same reward (the
    degenerate-group ratio: such a group gives zero group-relative advantage). Rewards are
    rescored from the stored records under ``env`` and ``reward``, with the campaign's
    references (and the cap, timing and calibration of ``settings``); inconclusive samples
    are left out of their group."""
    settings = settings or ReplaySettings()
    base = environment(env)
    timing = replay_timing(data, settings)
    update: dict[str, Any] = {"timing": timing}
    if base.config.count_rate is None:
        update["count_rate"] = settings.count_rate
    cap = replay_cap(data, settings)
    if base.config.cap_s is None and cap is not None:
        update["cap_s"] = cap
    env_ = type(base)(base.config.model_copy(update=update))
    groups: dict[str, list[list[float | None]]] = defaultdict(list)
    by_problem: dict[tuple[str, str], list] = defaultdict(list)
    for run in data.samples:
        by_problem[(run.problem_id, run.model)].append(run.record)
    for pid in data.problems:
        problem = with_campaign_durations(data, pid, timing, settings.count_rate)
        plan = env_.plan(problem, env_.pool(problem, settings.calibration()))
        for model in data.models:
            records = by_problem.get((pid, model))
            if records:
                rows = rescore(problem, records, env=env_, reward=reward, plan=plan)
                groups[model].append([r for r, _ in rows])
    return {m: _ratio(groups[m]) for m in data.models}


def _ratio(groups: list[list[float | None]]) -> float:
    try:
        return degenerate_group_ratio(groups)
    except ExecrlError:  # no group with a conclusive reward
        return float("nan")
