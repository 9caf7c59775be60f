"""Advantage estimators: numpy arrays in, numpy arrays out (spec optimization-rl.md §8).

Group estimators take ``rewards`` (N,), one scalar per sample, and ``group_ids`` (N,), any
values that say which prompt each sample answers; the members of a group need not be
contiguous. Each returns (N,) advantages in the order of ``rewards``:

- ``grpo``: ``(r_i − mean_g) / (std_g + eps)``, population std (ddof = 0);
- ``dr_grpo``: ``r_i − mean_g`` (no std: Dr. GRPO, and the spec's §8 recipe);
- ``token_weighted``: ``r_i − μ_g`` with ``μ_g = Σ_j L_j R_j / Σ_j L_j`` (spec §8);
- ``rloo``: ``r_i − mean of the other members of its group`` (0 in a group of one).

``reinforce_pp`` works per token on (N, T) arrays and has no groups. The dense-reward
advantage (spec dense-rewards.md, ``A = A_traj + β · A_turn``) is computed from a pass tensor by
:func:`execrl.rewards.dense.dense_rewards`; :func:`dense` hands back its ``advantages``.

A ``None`` reward is an inconclusive execution (the sandbox failed, not the program). It is
not a number, so every estimator refuses it: drop that sample or rerun it first.

The trainer's ``loss.advantage`` picks one row of :data:`TRAINING_ESTIMATORS`: an
:class:`Estimator` gives one advantage per rollout before the update (the group estimators,
the dense scorer's own) or, with ``per_token``, one per token inside it (REINFORCE++, whose
per-token reward needs the KL of each token to the reference).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from execrl.errors import ExecrlError
from execrl.rewards.dense import DenseRewardConfig, PassTensor, dense_rewards

ArrayLike = np.ndarray | Sequence


def _rewards(rewards: ArrayLike) -> np.ndarray:
    """(N,) float rewards; refuses None (inconclusive) and NaN/inf with the offending index."""
    values = np.asarray(rewards)  # a None among numbers gives dtype object
    if values.dtype == object:
        missing = [i for i, r in enumerate(values.reshape(-1)) if r is None]
        if missing:
            raise ExecrlError(
                f"rewards at indices {missing[:5]} are None: an inconclusive execution has "
                "no reward. Drop those samples (and their group, if it is left too small) or "
                "rerun them before computing advantages; do not score them as 0."
            )
    values = values.astype(float)
    if values.ndim != 1:
        raise ExecrlError(f"rewards must be 1-D (one per sample), got shape {values.shape}")
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise ExecrlError(f"rewards must be finite; rewards[{bad[0]}] = {values[bad[0]]}")
    return values


def _groups(group_ids: ArrayLike, n: int) -> tuple[np.ndarray, int]:
    """(index of each sample's group in sorted unique ids (N,), number of groups)."""
    ids = np.asarray(group_ids)
    if ids.shape != (n,):
        raise ExecrlError(f"group_ids must have shape ({n},) like rewards, got {ids.shape}")
    unique, inverse = np.unique(ids, return_inverse=True)
    return inverse.reshape(-1), len(unique)


def _group_mean(values: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """(N,) the mean of each sample's group."""
    sums = np.bincount(group, weights=values, minlength=n_groups)
    counts = np.bincount(group, minlength=n_groups)
    return (sums / counts)[group]


def grpo(rewards: ArrayLike, group_ids: ArrayLike, *, eps: float = 1e-6) -> np.ndarray:
    """``A_i = (r_i − mean_g) / (std_g + eps)``; std_g is the population std (ddof = 0).

    A group of one, or one whose rewards are all equal, gets 0 (0 / eps).
    """
    r = _rewards(rewards)
    group, n_groups = _groups(group_ids, len(r))
    centred = r - _group_mean(r, group, n_groups)
    std = np.sqrt(_group_mean(centred**2, group, n_groups))
    return centred / (std + eps)


def dr_grpo(rewards: ArrayLike, group_ids: ArrayLike) -> np.ndarray:
    """``A_i = r_i − mean_g`` (Dr. GRPO: no division by the group std)."""
    r = _rewards(rewards)
    group, n_groups = _groups(group_ids, len(r))
    return r - _group_mean(r, group, n_groups)


def token_weighted(rewards: ArrayLike, group_ids: ArrayLike, lengths: ArrayLike) -> np.ndarray:
    """``A_i = r_i − μ_g`` with the token-weighted baseline ``μ_g = Σ_j L_j R_j / Σ_j L_j``
    over the group (spec optimization-rl.md §8); ``lengths`` (N,) are token counts, > 0."""
    r = _rewards(rewards)
    group, n_groups = _groups(group_ids, len(r))
    tokens = np.asarray(lengths, dtype=float)
    if tokens.shape != r.shape or not (tokens > 0).all():
        raise ExecrlError(
            f"lengths must be {len(r)} positive token counts (one per sample), got {lengths!r}"
        )
    weighted = np.bincount(group, weights=tokens * r, minlength=n_groups)
    total = np.bincount(group, weights=tokens, minlength=n_groups)
    return r - (weighted / total)[group]


def rloo(rewards: ArrayLike, group_ids: ArrayLike) -> np.ndarray:
    """``A_i = r_i − (S_g − r_i) / (n_g − 1)``: r_i minus the mean of the *other* members
    of its group (S_g the group's sum, n_g its size). A group of one has no others: 0."""
    r = _rewards(rewards)
    group, n_groups = _groups(group_ids, len(r))
    sums = np.bincount(group, weights=r, minlength=n_groups)[group]
    counts = np.bincount(group, minlength=n_groups)[group]
    others = np.divide(sums - r, counts - 1, out=r.copy(), where=counts > 1)
    return r - others  # a group of one: others = r itself, so 0


def reinforce_pp(
    rewards: ArrayLike,
    kl_per_token: ArrayLike,
    mask: ArrayLike,
    *,
    beta: float,
    eps: float = 1e-6,
) -> np.ndarray:
    """REINFORCE++ per-token advantages, (N, T), 0 on padding.

    Per-token reward ``r_t = −β · kl_t`` on every valid token, plus the sequence reward
    ``R`` on the last valid token; return-to-go without discount ``G_t = Σ_{s ≥ t} r_s``
    (γ = 1, over valid tokens); then ``A_t = (G_t − mean) / (std + eps)`` with the mean and
    population std (ddof = 0) over every valid token of the batch.

    ``rewards`` (N,), ``kl_per_token`` (N, T), ``mask`` (N, T) with ≥ 1 valid token a row.
    """
    r = _rewards(rewards)
    kl = np.asarray(kl_per_token, dtype=float)
    valid = np.asarray(mask, dtype=bool)
    if kl.shape != valid.shape or kl.ndim != 2 or kl.shape[0] != len(r):
        raise ExecrlError(
            f"kl_per_token and mask must both be (N, T) with N = {len(r)}, got {kl.shape} "
            f"and {valid.shape}"
        )
    if not valid.any(axis=1).all():
        empty = np.flatnonzero(~valid.any(axis=1))
        raise ExecrlError(f"rows {empty.tolist()} of mask have no valid token; drop them")
    last = valid.shape[1] - 1 - np.argmax(valid[:, ::-1], axis=1)  # (N,)
    token_rewards = np.where(valid, -beta * kl, 0.0)  # (N, T); padding's kl is ignored
    token_rewards[np.arange(len(r)), last] += r
    returns = np.cumsum(token_rewards[:, ::-1], axis=1)[:, ::-1]  # (N, T) return-to-go
    real = returns[valid]
    return np.where(valid, (returns - real.mean()) / (real.std() + eps), 0.0)


def zero_advantage_groups(
    rewards: ArrayLike, group_ids: ArrayLike, *, atol: float = 1e-12
) -> np.ndarray:
    """(G,) bool, one per group in sorted order of its id (``np.unique(group_ids)``): True
    when ``max − min ≤ atol`` over the group, so every centred advantage is 0 and the group
    teaches nothing. A group of one is always True."""
    r = _rewards(rewards)
    group, n_groups = _groups(group_ids, len(r))
    high = np.full(n_groups, -np.inf)
    low = np.full(n_groups, np.inf)
    np.maximum.at(high, group, r)
    np.minimum.at(low, group, r)
    return high - low <= atol


def zero_advantage_rate(rewards: ArrayLike, group_ids: ArrayLike, *, atol: float = 1e-12) -> float:
    """Fraction of groups with zero advantage (the degenerate-group rate of spec §8)."""
    return float(zero_advantage_groups(rewards, group_ids, atol=atol).mean())


def dense(tensor: PassTensor, config: DenseRewardConfig | None = None) -> np.ndarray:
    """(T_max, N) ``A(i, t) = A_traj(i) + β · A_turn(i, t)`` of one group, NaN on padded
    turns: :func:`execrl.rewards.dense.dense_rewards` ``(...).advantages``."""
    return dense_rewards(tensor, config).advantages


ESTIMATORS: dict[str, Callable[..., np.ndarray]] = {
    "dr_grpo": dr_grpo,
    "grpo": grpo,
    "rloo": rloo,
    "token_weighted": token_weighted,
}
"""Group estimators by name; each maps (rewards, group_ids, ...) to (N,) advantages."""

NEEDS_LENGTHS = frozenset({"token_weighted"})
"""Estimators that weight by each sample's token count (``lengths``)."""


def compute_advantages(
    name: str,
    rewards: ArrayLike,
    group_ids: ArrayLike,
    lengths: ArrayLike | None = None,
    **kw: float,
) -> np.ndarray:
    """(N,) advantages from the estimator ``name`` of :data:`ESTIMATORS`.

    ``lengths`` is required by ``token_weighted`` and refused by the others (it would be
    silently ignored); ``kw`` goes to the estimator (``eps`` for ``grpo``).
    """
    if name not in ESTIMATORS:
        raise ExecrlError(
            f"unknown advantage estimator {name!r}; choose one of {sorted(ESTIMATORS)}"
        )
    if name in NEEDS_LENGTHS:
        if lengths is None:
            raise ExecrlError(f"{name!r} needs lengths: the token count of each sample")
        return ESTIMATORS[name](rewards, group_ids, lengths, **kw)
    if lengths is not None:
        raise ExecrlError(f"{name!r} does not use lengths; use 'token_weighted' to weight by them")
    return ESTIMATORS[name](rewards, group_ids, **kw)


def batch_advantages(
    name: str,
    rewards: Sequence[Sequence[float | None]],
    lengths: Sequence[Sequence[int]],
) -> list[list[float | None]]:
    """The estimator ``name`` over a batch given group by group: ``rewards[g][i]`` is sample i
    of group g (None: inconclusive, left out and given None), ``lengths`` its token count
    (used by the estimators of :data:`NEEDS_LENGTHS`)."""
    out: list[list[float | None]] = [[None] * len(group) for group in rewards]
    kept = [(g, i) for g, group in enumerate(rewards) for i, r in enumerate(group) if r is not None]
    if not kept:
        return out
    values = compute_advantages(
        name,
        [rewards[g][i] for g, i in kept],
        [g for g, _ in kept],
        [lengths[g][i] for g, i in kept] if name in NEEDS_LENGTHS else None,
    )
    for (g, i), value in zip(kept, values, strict=True):
        out[g][i] = float(value)
    return out


@dataclass(frozen=True)
class BatchRewards:
    """A training batch's rewards, group by group: what every estimator reads."""

    rewards: Sequence[Sequence[float | None]]
    """``rewards[g][i]``: rollout i of group g (None: inconclusive)."""
    lengths: Sequence[Sequence[int]]
    """Completion tokens of each rollout, the shape of ``rewards``."""
    given: Sequence[Sequence[float | None] | None]
    """Per group, the advantages its scorer computed itself (dense rewards), or None."""


PerRollout = Callable[[BatchRewards], list[list[float | None]]]
"""A batch's rewards → one advantage per rollout (None: inconclusive, or per token)."""

PerToken = Callable[..., np.ndarray]
"""(rewards (N,), kl_per_token (N, T), mask (N, T), *, beta) → (N, T) advantages."""


@dataclass(frozen=True)
class Estimator:
    """One ``loss.advantage``: how a batch's rewards become the update's advantages."""

    per_rollout: PerRollout
    """Before the update: one advantage per rollout (None where ``per_token`` decides)."""
    per_token: PerToken | None = None
    """Inside the update, after the KL pass: one advantage per token, with −β·KL(t) in the
    reward (so ``loss.kl.placement: reward`` needs it); None: the per-rollout value is it."""


def _grouped(name: str, batch: BatchRewards) -> list[list[float | None]]:
    return batch_advantages(name, batch.rewards, batch.lengths)


def _given(batch: BatchRewards) -> list[list[float | None]]:
    return [
        list(given) if given else [None] * len(rewards)
        for rewards, given in zip(batch.rewards, batch.given, strict=True)
    ]


def _in_the_update(batch: BatchRewards) -> list[list[float | None]]:
    return [[None] * len(rewards) for rewards in batch.rewards]


TRAINING_ESTIMATORS: dict[str, Estimator] = {
    **{name: Estimator(partial(_grouped, name)) for name in ESTIMATORS},
    "dense": Estimator(_given),
    "reinforce_pp": Estimator(_in_the_update, per_token=reinforce_pp),
}
"""The estimator of each ``loss.advantage``, chosen once when the trainer starts."""


def per_token_estimators() -> list[str]:
    """The ``loss.advantage`` names computed per token (those that take KL in the reward)."""
    return sorted(name for name, row in TRAINING_ESTIMATORS.items() if row.per_token)


__all__ = [
    "ESTIMATORS",
    "NEEDS_LENGTHS",
    "TRAINING_ESTIMATORS",
    "BatchRewards",
    "Estimator",
    "batch_advantages",
    "compute_advantages",
    "dense",
    "dr_grpo",
    "grpo",
    "per_token_estimators",
    "reinforce_pp",
    "rloo",
    "token_weighted",
    "zero_advantage_groups",
    "zero_advantage_rate",
]
