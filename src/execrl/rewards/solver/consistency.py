"""Choosing one answer among K samples: value-only majority voting and the instance-enhanced
self-consistency of the spec.

For sample r and feature X ∈ {objective O, direction D, #binary N_bin, #integer N_int}, the
consensus count ``ψ(X_r)`` is the number of samples r' (r itself included) whose feature equals
r's; objectives are equal when they match within the tolerance (``tolerance.matches(O_r',
O_r)``), statuses when they are the same word. The score is

    S(r) = w1·√ψ(O_r) + w2·√ψ(D_r) + w3·√ψ(N_bin,r) + w4·√ψ(N_int,r)

(all weights 1 by default) and the highest-scoring sample's answer is kept. Choices the spec
leaves open: only samples that reported an answer can be chosen; an unknown feature (no
model file) has ``ψ = 0`` and equals nothing; ties go to the earliest sample.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from execrl.errors import UsageError
from execrl.problems.optim import Answer
from execrl.rewards.solver.execution import SolveFeatures
from execrl.rewards.solver.rewards import RELATIVE, Tolerance

FEATURES = ("objective", "direction", "n_binary", "n_integer")
DEFAULT_WEIGHTS: dict[str, float] = dict.fromkeys(FEATURES, 1.0)


@dataclass(frozen=True)
class Vote:
    """The chosen sample and answer (None when no sample answered), with every score."""

    method: str
    index: int | None
    answer: Answer | None
    scores: tuple[float | None, ...]
    """Per sample: S(r) (instance-enhanced) or the vote count (value-only); None for samples
    without an answer."""


def consensus_counts(
    samples: Sequence[SolveFeatures], *, tolerance: Tolerance = RELATIVE
) -> list[dict[str, int]]:
    """``ψ(X_r)`` for each sample and feature (0 where the sample's feature is unknown)."""
    counts = []
    for sample in samples:
        row = {}
        for feature in FEATURES:
            mine = getattr(sample, feature)
            row[feature] = (
                0
                if mine is None
                else sum(
                    _equal(feature, getattr(other, feature), mine, tolerance) for other in samples
                )
            )
        counts.append(row)
    return counts


def instance_enhanced_scores(
    samples: Sequence[SolveFeatures],
    *,
    weights: Mapping[str, float] | Sequence[float] | None = None,
    tolerance: Tolerance = RELATIVE,
) -> list[float | None]:
    """``S(r)`` for every sample that reported an answer (None for the others)."""
    w = _weights(weights)
    scores: list[float | None] = []
    for sample, psi in zip(samples, consensus_counts(samples, tolerance=tolerance), strict=True):
        if sample.objective is None:
            scores.append(None)
        else:
            scores.append(sum(w[f] * math.sqrt(psi[f]) for f in FEATURES))
    return scores


def instance_enhanced_vote(
    samples: Sequence[SolveFeatures],
    *,
    weights: Mapping[str, float] | Sequence[float] | None = None,
    tolerance: Tolerance = RELATIVE,
) -> Vote:
    """Keep the answer of the sample with the highest ``S(r)``."""
    scores = instance_enhanced_scores(samples, weights=weights, tolerance=tolerance)
    index = _argmax(scores)
    answer = samples[index].objective if index is not None else None
    return Vote("instance_enhanced", index, answer, tuple(scores))


def majority_vote(answers: Sequence[Answer | None], *, tolerance: Tolerance = RELATIVE) -> Vote:
    """Value-only voting: keep the answer most samples agree on (within the tolerance)."""
    scores: list[float | None] = [
        None
        if mine is None
        else float(sum(_equal("objective", other, mine, tolerance) for other in answers))
        for mine in answers
    ]
    index = _argmax(scores)
    return Vote("majority", index, answers[index] if index is not None else None, tuple(scores))


def _equal(feature: str, other: object, mine: object, tolerance: Tolerance) -> bool:
    if other is None or mine is None:
        return False
    if feature == "objective":
        return tolerance.matches(other, mine)  # type: ignore[arg-type]
    return other == mine


def _argmax(scores: Sequence[float | None]) -> int | None:
    best: int | None = None
    for i, score in enumerate(scores):
        if score is not None and (best is None or score > scores[best]):  # type: ignore[operator]
            best = i
    return best


def _weights(weights: Mapping[str, float] | Sequence[float] | None) -> dict[str, float]:
    if weights is None:
        return DEFAULT_WEIGHTS
    if isinstance(weights, Mapping):
        unknown = set(weights) - set(FEATURES)
        if unknown:
            raise UsageError(
                f"unknown self-consistency features {sorted(unknown)}; use {list(FEATURES)}"
            )
        return {**DEFAULT_WEIGHTS, **{k: float(v) for k, v in weights.items()}}
    values = list(weights)
    if len(values) != len(FEATURES):
        raise UsageError(
            f"self-consistency takes {len(FEATURES)} weights (w1..w4 for {', '.join(FEATURES)}), "
            f"got {len(values)}"
        )
    return dict(zip(FEATURES, map(float, values), strict=True))
