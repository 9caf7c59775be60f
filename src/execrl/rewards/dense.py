"""Dense rewards from partial success, calibrated for easy-test bias (spec dense-rewards.md).

A group of N trajectories for one prompt; trajectory i has |τ_i| turns, and
``p[t, i, j] ∈ {0, 1}`` says whether turn t of trajectory i passes test j of the suite U.
``M = Σ_i |τ_i|`` is the number of real turns. From that pass tensor:

- pass rate ``ρ_j = (1/M) Σ_i Σ_{t ≤ |τ_i|} p[t, i, j]``;
- density ``N̂(ρ_j) = Σ_{j'} exp(−(ρ_j − ρ_j')² / (2σ²))`` (the sum includes j itself, so
  ``N̂ ≥ 1``); σ is fixed or adaptive, ``σ = std({ρ_j}) / 2`` with the **population**
  standard deviation (ddof = 0). When every ρ_j is equal (zero spread) the formula gives
  ``N̂ = |U|`` for every σ > 0, and that is what is returned, without dividing by σ = 0;
- difficulty weight ``w_j = exp(−α ρ_j)``; calibrated weight ``w'_j = w_j / (N̂(ρ_j) + δ)``;
- turn (local) reward ``R_turn(i, t) = Σ_j w'_j p[t, i, j]``;
- trajectory reward ``R_traj(i) = 1`` iff the final turn passes every test, decayed
  ``R̃(i) = R_traj(i) · γ^{|τ_i|}``;
- advantages ``A_turn(i, t) = R_turn(i, t) − mean of R_turn over the M real turns``,
  ``A_traj(i) = R̃(i) − mean_k R̃(k)``, ``A(i, t) = A_traj(i) + β · A_turn(i, t)``.

Variants (the spec's ablations): ``calibrated`` (w'_j above), ``difficulty`` (w_j, no
density) and ``raw`` (``1/|U|``: the plain pass rate of the turn).

**Scale.** Unlike the compositions of ``execrl.rewards.compositions`` (every reward in
[−1, 1]), dense turn rewards are not normalised: ``raw`` lies in [0, 1]; ``difficulty`` in
[0, Σ_j exp(−α ρ_j)] ⊆ [0, |U|]; ``calibrated`` in [0, Σ_j w'_j], and since a cluster of n
tests at one pass rate has density ≈ n, Σ_j w'_j is about the number of distinct difficulty
levels (each weighted by its ``exp(−α ρ)``), whatever the number of tests. ``R̃`` lies in
[0, 1]. Only differences (advantages) reach the loss, so β sets how much the local signal
counts next to the global one.

**Padding.** Turns after |τ_i| are padding: their pass values are ignored everywhere, and
every (T, N) output holds **NaN** in padded slots (a padded slot is not a turn; 0 would look
like an average turn). ``DenseRewards.mask`` is True on the real turns.

Every p[t, i, j] must be a real verdict: the executor has to run **all** tests
(``ExecutionOptions(stop_at_first_failure=False)``, the default).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from execrl.errors import ExecrlError, ExecutionError
from execrl.sandbox.records import ExecutionRecord, Status

Variant = Literal["calibrated", "difficulty", "raw"]


class DenseRewardConfig(BaseModel):
    """The knobs of the dense reward; defaults are the source's unless marked **[ours]**."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    alpha: float = Field(default=2.0, ge=0)
    """α in ``w_j = exp(−α ρ_j)``: how much more a hard test (low pass rate) weighs."""
    gamma: float = Field(default=0.95, gt=0, le=1)
    """γ in ``R̃ = R_traj · γ^{|τ|}``: a solve in fewer turns earns more."""
    beta: float = Field(default=1.0, ge=0)
    """β in ``A = A_traj + β · A_turn``: the weight of the local (turn) advantage."""
    delta: float = Field(default=1e-6, gt=0)
    """δ in ``w'_j = w_j / (N̂(ρ_j) + δ)``. The spec asks for a small δ > 0; 1e-6 is
    **[ours]**. N̂ ≥ 1 always, so δ only moves weights by a relative 1e-6 or less."""
    bandwidth: Annotated[float, Field(gt=0)] | Literal["adaptive"] = "adaptive"
    """σ of the Gaussian KDE over pass rates: a fixed positive number, or ``"adaptive"``:
    ``σ = std({ρ_j}) / 2``, population std (ddof = 0)."""
    variant: Variant = "calibrated"
    """``calibrated`` (w'_j), ``difficulty`` (w_j, no density) or ``raw`` (1/|U|)."""
    normalise_std: bool = False
    """Divide each advantage by the std of its own population (population std, ddof = 0):
    A_turn by that of R_turn over the M real turns, A_traj by that of R̃ over the N
    trajectories, each as ``A / (std + std_epsilon)``, before they are combined. Off by
    default (the spec's "normalisation factor 1"); on for ablations."""
    std_epsilon: float = Field(default=1e-6, gt=0)
    """Added to the std when ``normalise_std`` is on, so a zero-spread population gives
    advantages of 0 rather than 0/0 **[ours]**, as verl's GRPO estimator does."""


@dataclass(frozen=True)
class PassTensor:
    """A group's pass tensor ``p[t, i, j]`` and its trajectories' turn counts.

    ``passes`` has shape (T_max, N, |U|) (bool); ``turns`` has shape (N,) with
    ``1 ≤ turns[i] ≤ T_max``. Entries ``passes[t, i]`` with ``t ≥ turns[i]`` are padding:
    whatever was given there is ignored, and they are stored as False.
    """

    passes: np.ndarray
    turns: np.ndarray
    test_ids: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        passes = np.asarray(self.passes)
        turns = np.asarray(self.turns)
        if passes.ndim != 3 or 0 in passes.shape:
            raise ExecrlError(
                f"a pass tensor has shape (T_max, N, |U|) with every size ≥ 1, got "
                f"{passes.shape}; for single-turn groups use PassTensor.from_array(p) with "
                "p of shape (N, |U|)"
            )
        t_max, n, n_tests = passes.shape
        if turns.shape != (n,) or not np.issubdtype(turns.dtype, np.integer):
            raise ExecrlError(f"turns must be {n} integers (one per trajectory), got {turns!r}")
        if turns.min() < 1 or turns.max() > t_max:
            raise ExecrlError(f"every turn count must lie in [1, {t_max}], got {turns.tolist()}")
        mask = np.arange(t_max)[:, None] < turns[None, :]  # (T, N)
        real = passes[mask]
        if real.dtype != bool and not np.isin(real, (0, 1)).all():
            raise ExecrlError("pass values must be 0 or 1 (or bool) on every real turn")
        clean = np.zeros(passes.shape, dtype=bool)
        clean[mask] = real.astype(bool)
        if self.test_ids is not None and len(self.test_ids) != n_tests:
            raise ExecrlError(f"{len(self.test_ids)} test ids for {n_tests} tests")
        clean.setflags(write=False)
        turns = turns.astype(np.int64)
        turns.setflags(write=False)
        object.__setattr__(self, "passes", clean)
        object.__setattr__(self, "turns", turns)
        if self.test_ids is not None:
            object.__setattr__(self, "test_ids", tuple(self.test_ids))

    @classmethod
    def from_array(
        cls, passes: np.ndarray | Sequence, turns: Sequence[int] | np.ndarray | None = None
    ) -> PassTensor:
        """From a 0/1 array: (T_max, N, |U|), or (N, |U|) for a single-turn group.

        ``turns`` defaults to T_max for every trajectory (no padding).
        """
        passes = np.asarray(passes)
        if passes.ndim == 2:
            passes = passes[None]  # (1, N, |U|)
        if turns is None:
            turns = np.full(passes.shape[1] if passes.ndim == 3 else 0, passes.shape[0])
        return cls(passes, np.asarray(turns))

    @classmethod
    def from_records(
        cls, trajectories: Sequence[Sequence[ExecutionRecord]], test_ids: Sequence[str]
    ) -> PassTensor:
        """From ``trajectories[i][t]``, the record of turn t of trajectory i, over the suite
        ``test_ids`` (its order is the order of the tests axis).

        Results for tests outside ``test_ids`` are ignored. A test of ``test_ids`` missing
        from a record (an early stop) or inconclusive there raises: dense rewards need every
        test's real verdict.
        """
        test_ids = tuple(test_ids)
        if not test_ids or len(set(test_ids)) != len(test_ids):
            raise ExecrlError(f"test_ids must be non-empty and unique, got {list(test_ids)}")
        if not trajectories or any(len(turns) == 0 for turns in trajectories):
            raise ExecrlError("a group needs at least one trajectory, each with ≥ 1 turn")
        turns = np.array([len(turns) for turns in trajectories])
        passes = np.zeros((turns.max(), len(trajectories), len(test_ids)), dtype=bool)
        for i, records in enumerate(trajectories):
            for t, record in enumerate(records):
                passes[t, i] = _verdicts(record, test_ids, where=f"trajectories[{i}][{t}]")
        return cls(passes, turns, test_ids)

    @property
    def mask(self) -> np.ndarray:
        """(T_max, N) bool: True on real turns, False on padding."""
        return np.arange(self.passes.shape[0])[:, None] < self.turns[None, :]

    @property
    def total_turns(self) -> int:
        """M = Σ_i |τ_i|."""
        return int(self.turns.sum())

    def pass_counts(self) -> np.ndarray:
        """(|U|,) how many of the M real turns pass each test (padding is stored False)."""
        return self.passes.sum(axis=(0, 1))

    def pass_rates(self) -> np.ndarray:
        """(|U|,) ρ_j = passing turns / M."""
        return self.pass_counts() / self.total_turns


def _verdicts(record: ExecutionRecord, test_ids: tuple[str, ...], *, where: str) -> np.ndarray:
    """(|U|,) bool: which tests of ``test_ids`` the record passes."""
    statuses = record.statuses()
    verdicts = [statuses.get(test_id) for test_id in test_ids]  # list scans: C speed
    if None in verdicts:
        test_id = test_ids[verdicts.index(None)]
        raise ExecrlError(
            f"{where}: no result for test {test_id!r} ({len(statuses)} results for "
            f"{len(test_ids)} tests). Dense rewards need every test's verdict: run all "
            "tests, ExecutionOptions(stop_at_first_failure=False)."
        )
    if Status.INCONCLUSIVE in verdicts:
        test_id = test_ids[verdicts.index(Status.INCONCLUSIVE)]
        raise ExecutionError(
            f"{where}: test {test_id!r} is inconclusive (the sandbox failed, not the "
            "program), so this turn cannot be scored. Rerun the program on its tests."
        )
    return np.fromiter((v is Status.SUCCESS for v in verdicts), dtype=bool, count=len(verdicts))


@dataclass(frozen=True)
class DenseRewards:
    """Everything :func:`dense_rewards` computes for one group. (T, N) arrays hold NaN in
    padded slots; ``mask`` is True on the real turns."""

    pass_rates: np.ndarray
    """(|U|,) ρ_j."""
    bandwidth: float
    """σ used by the KDE; 0.0 when adaptive and every ρ_j is equal (the guard)."""
    density: np.ndarray
    """(|U|,) N̂(ρ_j); computed for every variant, used only by ``calibrated``."""
    weights: np.ndarray
    """(|U|,) the weights the variant applies: w'_j, w_j or 1/|U|."""
    turn_rewards: np.ndarray
    """(T_max, N) R_turn(i, t), indexed [t, i]."""
    solved: np.ndarray
    """(N,) bool R_traj(i): the final turn passes every test."""
    trajectory_rewards: np.ndarray
    """(N,) R̃(i) = R_traj(i) · γ^{|τ_i|}."""
    turn_advantages: np.ndarray
    """(T_max, N) A_turn(i, t) (divided by its std when ``normalise_std``)."""
    trajectory_advantages: np.ndarray
    """(N,) A_traj(i) (divided by its std when ``normalise_std``)."""
    advantages: np.ndarray
    """(T_max, N) A(i, t) = A_traj(i) + β · A_turn(i, t)."""
    mask: np.ndarray
    """(T_max, N) bool, True on real turns."""


def kde_density(pass_rates: np.ndarray, bandwidth: float | str) -> tuple[np.ndarray, float]:
    """``(N̂(ρ_j) for every j, σ)``: the Gaussian KDE of the spec, unnormalised.

    Computed over the distinct pass rates (there are at most M + 1), which gives the same
    sums as the |U| × |U| formula at a fraction of the cost. Zero spread: ``N̂ = |U|`` for
    every test, σ reported as 0.0 when adaptive.
    """
    rates, inverse, counts = np.unique(pass_rates, return_inverse=True, return_counts=True)
    if bandwidth == "adaptive":
        sigma = float(np.std(pass_rates)) / 2 if len(rates) > 1 else 0.0
    else:
        sigma = float(bandwidth)
    if len(rates) == 1:  # every ρ_j equal: each exp term is 1 for any σ > 0
        return np.full(len(pass_rates), float(len(pass_rates))), sigma
    gaps = rates[:, None] - rates[None, :]  # (K, K) over the K distinct rates
    per_rate = np.exp(-(gaps**2) / (2 * sigma**2)) @ counts  # (K,)
    return per_rate[inverse.reshape(-1)], sigma


def _calibrated(rho: np.ndarray, density: np.ndarray, config: DenseRewardConfig) -> np.ndarray:
    return np.exp(-config.alpha * rho) / (density + config.delta)


def _difficulty(rho: np.ndarray, density: np.ndarray, config: DenseRewardConfig) -> np.ndarray:
    return np.exp(-config.alpha * rho)


def _raw(rho: np.ndarray, density: np.ndarray, config: DenseRewardConfig) -> np.ndarray:
    return np.full(len(rho), 1 / len(rho))


WEIGHTS: dict[str, Callable[[np.ndarray, np.ndarray, DenseRewardConfig], np.ndarray]] = {
    "calibrated": _calibrated,
    "difficulty": _difficulty,
    "raw": _raw,
}
"""Per-test weights of each variant, from (ρ, N̂, config)."""


def _centred(values: np.ndarray, *, normalise: bool, epsilon: float) -> np.ndarray:
    """values − mean, divided by (population std + ε) when ``normalise``."""
    centred = values - values.mean()
    return centred / (values.std() + epsilon) if normalise else centred


def dense_rewards(tensor: PassTensor, config: DenseRewardConfig | None = None) -> DenseRewards:
    """The dense rewards and advantages of one group (see the module docstring)."""
    config = config or DenseRewardConfig()
    mask = tensor.mask  # (T, N)
    rho = tensor.pass_rates()  # (|U|,)
    density, sigma = kde_density(rho, config.bandwidth)
    weights = WEIGHTS[config.variant](rho, density, config)  # (|U|,)

    # local: R_turn(i, t) = Σ_j w_j p[t, i, j], NaN on padding
    turn_rewards = np.where(mask, tensor.passes @ weights, np.nan)  # (T, N)
    real = turn_rewards[mask]  # (M,)
    turn_advantages = np.full(mask.shape, np.nan)
    turn_advantages[mask] = _centred(
        real, normalise=config.normalise_std, epsilon=config.std_epsilon
    )

    # global: the final turn of each trajectory passes everything, decayed by γ^{|τ|}
    n = len(tensor.turns)
    solved = tensor.passes[tensor.turns - 1, np.arange(n)].all(axis=1)  # (N,)
    trajectory_rewards = solved * config.gamma ** tensor.turns.astype(float)  # (N,)
    trajectory_advantages = _centred(
        trajectory_rewards, normalise=config.normalise_std, epsilon=config.std_epsilon
    )

    advantages = trajectory_advantages[None, :] + config.beta * turn_advantages  # (T, N)
    return DenseRewards(
        pass_rates=rho,
        bandwidth=sigma,
        density=density,
        weights=weights,
        turn_rewards=turn_rewards,
        solved=solved,
        trajectory_rewards=trajectory_rewards,
        turn_advantages=turn_advantages,
        trajectory_advantages=trajectory_advantages,
        advantages=advantages,
        mask=mask,
    )


__all__ = [
    "WEIGHTS",
    "DenseRewardConfig",
    "DenseRewards",
    "PassTensor",
    "Variant",
    "dense_rewards",
    "kde_density",
]
