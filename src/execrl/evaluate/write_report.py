"""The evaluation report of an executed folder (``execrl eval metrics``, ``execrl report``):
every metric recomputed from the stored records under one :class:`ReplaySettings`, written
as ``metrics.json`` (the schema below) and an HTML page with its figures.

``metrics.json``::

    {"settings":               the ReplaySettings (cap, limit, timing, calibration),
     "all":                    EvalMetrics.to_dict() over every problem,
     "by_difficulty":          {difficulty: EvalMetrics.to_dict()},
     "degenerate_group_ratio": {"<reward> @ <env>": {model: ratio or null}}}
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from execrl.envs.presets import validate_env_spec
from execrl.errors import ExecrlError, OutputError, UsageError
from execrl.evaluate.metrics import (
    DEFAULT_KS,
    DEFAULT_TAUS,
    EvalMetrics,
    by_difficulty,
    degenerate_ratios,
    evaluate,
)
from execrl.evaluate.replay import EvalData, Replay, ReplaySettings, load_eval, replay
from execrl.evaluate.report import write_metrics_report
from execrl.rewards.compositions import reward as build_reward

METRICS_FILE = "metrics.json"
DEFAULT_ENV = "qp(p=0.3)"
"""The environment the degenerate-group ratios are rescored under by default."""
DEFAULT_REWARDS = ("correctness", "collapsed")
"""The rewards whose degenerate-group ratios a report shows by default."""


@dataclass(frozen=True)
class MetricOptions:
    """How the metrics are estimated: the p_τ thresholds, the k of pass@k (``ks_given``: asked
    for, so a k without enough samples is an error rather than dropped with a note), the
    win-rate baseline (None: the first model sampled, when there are two or more) and the
    bootstrap (resamples, seed, interval level)."""

    taus: tuple[float, ...] = DEFAULT_TAUS
    ks: tuple[int, ...] = DEFAULT_KS
    ks_given: bool = False
    baseline: str | None = None
    resamples: int = 1000
    seed: int = 0
    level: float = 0.95

    def estimation(self, models: Sequence[str]) -> dict[str, object]:
        """The keyword arguments of :func:`evaluate` for a folder with ``models``."""
        return {
            "baseline": choose_baseline(models, self.baseline),
            "resamples": self.resamples,
            "seed": self.seed,
            "level": self.level,
        }


@dataclass(frozen=True)
class EvalReport:
    """What :func:`write_report` computed and where it wrote it; ``notes`` are what a reader
    should be told (a default k left out for want of samples)."""

    replay: Replay
    metrics: EvalMetrics
    by_difficulty: dict[str, EvalMetrics]
    degenerate: dict[str, dict[str, float]]
    metrics_path: Path
    page: Path
    notes: list[str] = field(default_factory=list)


def write_report(
    folder: str | Path | EvalData,
    out: str | Path | None = None,
    *,
    settings: ReplaySettings | None = None,
    options: MetricOptions = MetricOptions(),
    env: str = DEFAULT_ENV,
    rewards: Sequence[str] = DEFAULT_REWARDS,
) -> EvalReport:
    """Recompute every metric of the executed evaluation ``folder`` under ``settings`` (default:
    as executed) and write ``metrics.json`` and ``index.html`` into ``out`` (default:
    ``<folder>/report``): p_τ pass@k, win rates, bootstrap intervals, the per-difficulty
    breakdown, and the degenerate-group ratio of each of ``rewards`` under ``env``."""
    check_report_specs(env, rewards)  # (before the folder is read)
    data = folder if isinstance(folder, EvalData) else load_eval(folder)
    out = Path(out) if out is not None else data.path / "report"
    settings = settings or ReplaySettings()
    scored = replay(data, settings)
    ks, notes = computable_ks(scored, options.ks, given=options.ks_given)
    estimation = {"taus": options.taus, "ks": ks, **options.estimation(data.models)}
    metrics = evaluate(scored, **estimation)
    breakdown = by_difficulty(scored, **estimation)
    degenerate = {
        f"{reward} @ {env}": degenerate_ratios(data, env=env, reward=reward, settings=settings)
        for reward in rewards
    }
    document = metrics_document(settings, metrics, breakdown, degenerate)
    metrics_path = _write_json(out / METRICS_FILE, document)
    page = write_metrics_report(scored, metrics, out, breakdown=breakdown, degenerate=degenerate)
    return EvalReport(scored, metrics, breakdown, degenerate, metrics_path, page, notes)


def check_report_specs(env: str, rewards: Sequence[str]) -> None:
    """The environment and rewards of the degenerate-group ratios must build: a UsageError
    naming the parameter (``env``, ``rewards``) and the spec otherwise, before any work."""
    for flag, build, spec in [
        ("`env`", validate_env_spec, env),
        *(("`rewards`", build_reward, r) for r in rewards),
    ]:
        try:
            build(spec)
        except ExecrlError as exc:
            raise UsageError(f"{flag} {spec!r}: {exc}") from None


def metrics_document(
    settings: ReplaySettings,
    metrics: EvalMetrics,
    breakdown: Mapping[str, EvalMetrics],
    degenerate: Mapping[str, Mapping[str, float]],
) -> dict:
    """The content of ``metrics.json`` (the module docstring draws it); NaN ratios as null."""
    return {
        "settings": settings.model_dump(mode="json"),
        "all": metrics.to_dict(),
        "by_difficulty": {d: m.to_dict() for d, m in breakdown.items()},
        "degenerate_group_ratio": {
            name: {m: (None if math.isnan(v) else v) for m, v in ratios.items()}
            for name, ratios in degenerate.items()
        },
    }


def choose_baseline(models: Sequence[str], baseline: str | None) -> str | None:
    """The model win rates compare against: ``baseline`` (which must be one of ``models``),
    else the first model sampled when there are two or more, else None."""
    if baseline is not None and baseline not in models:
        raise UsageError(
            f"`baseline`: unknown baseline model {baseline!r}; models: {', '.join(models)}"
        )
    return baseline or (models[0] if len(models) > 1 else None)


def computable_ks(
    scored: Replay, ks: tuple[int, ...], *, given: bool
) -> tuple[tuple[int, ...], list[str]]:
    """The k that pass@k has a value for (some model must have at least k conclusive samples
    of a problem), and a note for each default k left out. An asked-for (``given``) k above
    that is a UsageError, as is a folder with no conclusive sample at all."""
    counts = Counter((s.model, s.problem_id) for s in scored.scores if not s.inconclusive)
    n = max(counts.values(), default=0)
    dropped = [k for k in ks if k > n]
    if dropped and given:
        raise UsageError(
            f"`ks` {_csv(dropped)}: pass@k needs k conclusive samples of a problem and there are "
            f"at most {n}; lower k, or sample more (`execrl eval sample --n`)"
        )
    notes = []
    if dropped:
        notes.append(
            f"pass@{_csv(dropped)} left out: at most {n} conclusive samples per "
            f"problem (sample with --n {max(dropped)} or more for it)"
        )
    kept = tuple(k for k in ks if k <= n)
    if not kept:
        raise UsageError(f"{scored.data.path}: no conclusive samples to compute pass@k from")
    return kept, notes


def _csv(values: Sequence[int]) -> str:
    return ",".join(str(v) for v in values)


def _write_json(path: Path, document: dict) -> Path:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"{path}: cannot write ({exc.strerror or exc})") from None
    return path
