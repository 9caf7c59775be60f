"""The noise study (spec §5, §6): how often do a timeout count and a per-test win rate tell
which of two solutions is faster, when the durations are measured with noise?

The model (arrays are ``(trials, tests)``; one trial = one comparison of solution A with B):

- true durations of A: ``d_A ~ LogNormal(μ, σ)`` per test, one regime per (μ, σ, tests):
  SHORT (μ = −2.3, σ = 0.5, 35 tests: median 0.10 s) and LONG (μ = 1.0, σ = 0.5, 122 tests:
  median 2.7 s);
- B is faster by a per-test gap factor: ``d_B = d_A · g``, ``g ~ Normal(0.8, 0.15)`` clipped to
  ``[0.3, 1.3]`` (±3.3 sd: keeps ``d_B`` positive, touches < 0.1 % of draws, keeps the mean at
  0.8). B is slower than A on the ~9 % of tests where ``g > 1``;
- observed = ``true · (1 + ε)`` (multiplicative, ε unitless) or ``true + ε`` (additive, ε in
  seconds), with ``ε ~ Normal(0, noise_sd)``, then clipped at ``FLOOR_S`` = 1 ms: a duration is
  positive, and no run is measured faster than that;
- the noise structure: ``ε = noise_sd · (√ρ · z_session + √(1−ρ) · z_own)``. ``z_session`` is
  drawn once per trial and shared by every measurement of A *and* B (they run together, on the
  same machine state: its load); ``z_own`` is drawn per measurement. ``ρ = shared_share``:
  0 is fully independent noise, 1 one offset for the whole session. Every measurement has the
  same marginal noise ``N(0, noise_sd)`` whatever ρ; only how much of it A and B share changes.

The metrics decide per trial: 1 (B is better), 0 (A is better) or 0.5 (a tie: a coin toss would
pick B half the time). Accuracy = the mean over trials; 0.5 is chance.

- timeout: count the tests whose observed duration exceeds a threshold τ; B is better if it
  times out on fewer tests than A. The *oracle* τ of a trial is the median of the pooled true
  durations of A and B: for two log-normals of equal σ this sits where their densities cross,
  which maximises the expected count difference ``P(d_A > τ) − P(d_B > τ)``; a real evaluator
  would have to guess it. The *sweep* sets τ at the quantiles ``SWEEP_QUANTILES`` of the pooled
  true durations; ``timeout_best`` is the best of those in hindsight (an upper bound for any
  threshold placed by quantile, picked on the very trials it is scored on).
- win rate: B is better if it is faster on more than half of the tests (a test where both
  observed durations are equal counts half to each).

Random numbers are common across the curves of a regime: one :class:`Draws` holds the true
durations and the standard-normal draws, and every noise size scales the same draws. The curves
are smooth in the noise size and a fixed seed gives the same numbers on every machine with the
same numpy. With 2,000 trials an accuracy has a Monte-Carlo standard error of at most 0.011.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from execrl.errors import ExecrlError
from execrl.report import pyplot

NoiseKind = Literal["additive", "multiplicative"]

GAP_MEAN = 0.8
"""Mean ratio d_B / d_A: B is 20 % faster on average."""
GAP_SD = 0.15
"""Spread of the per-test ratio d_B / d_A."""
GAP_CLIP = (0.3, 1.3)
"""The per-test ratio is clipped to this range (±3.3 sd around the mean)."""
FLOOR_S = 0.001
"""Observed durations are clipped at this floor, in seconds."""
SWEEP_QUANTILES = tuple(round(0.05 * i, 2) for i in range(1, 20))
"""Thresholds of the sweep, as quantiles of the pooled true durations of a trial."""
ADDITIVE_SDS_S = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5)
"""Additive noise sizes, in seconds: up to 5× the median short test (0.1 s)."""
MULTIPLICATIVE_SDS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5)
"""Multiplicative noise sizes, as a fraction of the true duration."""
STRUCTURES = {"independent": 0.0, "shared": 1.0}
"""The two noise structures of the main curves, by their shared_share."""
SHARED_SHARES = (0.0, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0)
"""Shares of the noise variance common to a session, for the curve at the largest noise."""


class Regime(BaseModel):
    """A family of tests: log-normal true durations of solution A."""

    name: str
    log_mu: float = Field(description="mean of log(duration in seconds)")
    log_sigma: float = Field(gt=0, description="sd of log(duration in seconds)")
    tests: int = Field(ge=1, description="tests per comparison")


SHORT = Regime(name="short", log_mu=-2.3, log_sigma=0.5, tests=35)
LONG = Regime(name="long", log_mu=1.0, log_sigma=0.5, tests=122)
REGIMES = (SHORT, LONG)


class Noise(BaseModel):
    """How observed durations differ from true ones (see the module docstring)."""

    kind: NoiseKind
    sd: float = Field(ge=0, description="seconds (additive) or fraction of the duration")
    shared_share: float = Field(
        default=0.0, ge=0, le=1, description="share of the variance common to the session"
    )


REFERENCE_NOISE = Noise(kind="additive", sd=0.1)
"""The noise of the threshold and number-of-tests curves: additive, the median short test."""


class AccuracyRow(BaseModel):
    """One point of one curve: how often ``metric`` identified B under one setting."""

    regime: str
    noise_kind: NoiseKind
    noise_sd: float
    shared_share: float
    tests: int
    metric: Literal["timeout_oracle", "timeout_best", "timeout", "win_rate"]
    threshold_quantile: float | None = Field(
        default=None, description="the sweep's τ as a quantile ('timeout' rows only)"
    )
    accuracy: float = Field(description="share of trials where B was identified (ties ½)")


class SummaryRow(BaseModel):
    """The three accuracies at one setting."""

    regime: str
    noise_kind: NoiseKind
    noise_sd: float
    shared_share: float
    timeout_oracle: float
    timeout_best: float
    win_rate: float


# -- drawing and observing -----------------------------------------------------------------------
@dataclass(frozen=True)
class Draws:
    """Everything random about a regime's trials; noise sizes only scale ``z_*``."""

    regime: Regime
    true_a: np.ndarray  # (trials, tests) seconds
    true_b: np.ndarray  # (trials, tests) seconds
    z_a: np.ndarray  # (trials, tests) standard normal, A's own noise
    z_b: np.ndarray  # (trials, tests) standard normal, B's own noise
    z_session: np.ndarray  # (trials, 1) standard normal, shared by A and B

    def head(self, tests: int) -> Draws:
        """The same trials on their first ``tests`` tests (tests are i.i.d.: a fair subsample)."""
        return Draws(
            regime=self.regime.model_copy(update={"tests": tests}),
            true_a=self.true_a[:, :tests],
            true_b=self.true_b[:, :tests],
            z_a=self.z_a[:, :tests],
            z_b=self.z_b[:, :tests],
            z_session=self.z_session,
        )

    @cached_property
    def pooled_true(self) -> np.ndarray:
        """True durations of A and B side by side, ``(trials, 2 · tests)`` seconds."""
        return np.concatenate([self.true_a, self.true_b], axis=1)

    @cached_property
    def oracle_tau(self) -> np.ndarray:
        """The oracle threshold: the median of the pooled true durations, ``(trials, 1)``."""
        return np.median(self.pooled_true, axis=1, keepdims=True)

    @cached_property
    def sweep_tau(self) -> np.ndarray:
        """The sweep's thresholds, at ``SWEEP_QUANTILES`` of the pooled true durations,
        ``(Q, trials, 1)``."""
        return np.quantile(self.pooled_true, SWEEP_QUANTILES, axis=1)[..., None]


def draw(regime: Regime, *, trials: int, rng: np.random.Generator) -> Draws:
    shape = (trials, regime.tests)
    true_a = rng.lognormal(regime.log_mu, regime.log_sigma, shape)
    gap = np.clip(rng.normal(GAP_MEAN, GAP_SD, shape), *GAP_CLIP)
    return Draws(
        regime=regime,
        true_a=true_a,
        true_b=true_a * gap,
        z_a=rng.standard_normal(shape),
        z_b=rng.standard_normal(shape),
        z_session=rng.standard_normal((trials, 1)),
    )


_APPLY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "additive": lambda true, eps: true + eps,
    "multiplicative": lambda true, eps: true * (1 + eps),
}


def observe(draws: Draws, noise: Noise) -> tuple[np.ndarray, np.ndarray]:
    """Observed durations of A and B, each ``(trials, tests)`` seconds."""
    shared = math.sqrt(noise.shared_share) * draws.z_session  # (trials, 1)
    own = math.sqrt(1 - noise.shared_share)
    apply = _APPLY[noise.kind]
    obs_a = apply(draws.true_a, noise.sd * (shared + own * draws.z_a))
    obs_b = apply(draws.true_b, noise.sd * (shared + own * draws.z_b))
    return np.maximum(obs_a, FLOOR_S), np.maximum(obs_b, FLOOR_S)


# -- metrics -------------------------------------------------------------------------------------
def _decide(margin_for_b: np.ndarray) -> np.ndarray:
    """1 where B is ahead, 0 where A is, 0.5 on a tie."""
    return 0.5 * (1 + np.sign(margin_for_b))


def timeout_decisions(obs_a: np.ndarray, obs_b: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """Per trial: does B time out on fewer tests? ``tau`` broadcasts against ``(trials, 1)``:
    ``(trials, 1)`` gives ``(trials,)``, ``(Q, trials, 1)`` gives ``(Q, trials)``."""
    return _decide((obs_a > tau).sum(-1) - (obs_b > tau).sum(-1))


def win_rate_decisions(obs_a: np.ndarray, obs_b: np.ndarray) -> np.ndarray:
    """Per trial: is B faster on more than half of the tests? ``(trials,)``."""
    wins_b = (obs_b < obs_a).sum(-1) + 0.5 * (obs_b == obs_a).sum(-1)
    return _decide(wins_b - obs_a.shape[-1] / 2)


# -- curves --------------------------------------------------------------------------------------
def _row(draws: Draws, noise: Noise, metric: str, accuracy: float, **extra) -> AccuracyRow:
    return AccuracyRow(
        regime=draws.regime.name,
        noise_kind=noise.kind,
        noise_sd=noise.sd,
        shared_share=noise.shared_share,
        tests=draws.regime.tests,
        metric=metric,
        accuracy=float(accuracy),
        **extra,
    )


def accuracy_point(draws: Draws, noise: Noise) -> list[AccuracyRow]:
    """Timeout (oracle τ), timeout (best τ of the sweep) and win rate under one noise."""
    obs_a, obs_b = observe(draws, noise)
    oracle = timeout_decisions(obs_a, obs_b, draws.oracle_tau)  # (trials,)
    sweep = timeout_decisions(obs_a, obs_b, draws.sweep_tau)  # (Q, trials)
    return [
        _row(draws, noise, "timeout_oracle", oracle.mean()),
        _row(draws, noise, "timeout_best", sweep.mean(axis=1).max()),
        _row(draws, noise, "win_rate", win_rate_decisions(obs_a, obs_b).mean()),
    ]


def accuracy_vs_noise(
    draws: Draws, kind: NoiseKind, sds: Iterable[float], *, shared_share: float
) -> list[AccuracyRow]:
    return [
        row
        for sd in sds
        for row in accuracy_point(draws, Noise(kind=kind, sd=sd, shared_share=shared_share))
    ]


def accuracy_vs_threshold(draws: Draws, noise: Noise) -> list[AccuracyRow]:
    """One 'timeout' row per threshold quantile, and the win rate (which has no threshold)."""
    obs_a, obs_b = observe(draws, noise)
    sweep = timeout_decisions(obs_a, obs_b, draws.sweep_tau).mean(axis=1)
    rows = [
        _row(draws, noise, "timeout", acc, threshold_quantile=q)
        for q, acc in zip(SWEEP_QUANTILES, sweep, strict=True)
    ]
    return [*rows, _row(draws, noise, "win_rate", win_rate_decisions(obs_a, obs_b).mean())]


def accuracy_vs_tests(draws: Draws, noise: Noise, tests: Iterable[int]) -> list[AccuracyRow]:
    return [row for n in tests for row in accuracy_point(draws.head(n), noise)]


def accuracy_vs_shared(
    draws: Draws, noise: Noise, shares: Iterable[float] = SHARED_SHARES
) -> list[AccuracyRow]:
    return [
        row
        for share in shares
        for row in accuracy_point(draws, noise.model_copy(update={"shared_share": share}))
    ]


def tests_grid(tests: int, points: int = 8) -> list[int]:
    """Roughly even numbers of tests from 5 (or fewer) up to all of them."""
    return sorted({int(n) for n in np.linspace(min(5, tests), tests, points).round()})


# -- the study -----------------------------------------------------------------------------------
NOISE_SDS: dict[str, tuple[float, ...]] = {
    "additive": ADDITIVE_SDS_S,
    "multiplicative": MULTIPLICATIVE_SDS,
}


class NoiseStudy(BaseModel):
    """Every curve of the study, as tidy rows; ``summary()`` picks the key numbers."""

    seed: int
    trials: int
    regimes: list[Regime]
    reference_noise: Noise = Field(
        description="noise of the threshold and tests curves, run at each STRUCTURES share"
    )
    vs_noise: list[AccuracyRow]
    vs_threshold: list[AccuracyRow]
    vs_tests: list[AccuracyRow]
    vs_shared: list[AccuracyRow] = Field(description="at the largest additive noise")

    def summary(self) -> list[SummaryRow]:
        """Per regime: no noise, then the largest noise of each kind and structure."""
        picks = [(regime.name, "additive", 0.0, 0.0) for regime in self.regimes]
        picks += [
            (regime.name, kind, sds[-1], share)
            for regime in self.regimes
            for kind, sds in NOISE_SDS.items()
            for share in STRUCTURES.values()
        ]
        return [_summary_row(self.vs_noise, *pick) for pick in picks]


def _summary_row(
    rows: list[AccuracyRow], regime: str, kind: str, sd: float, share: float
) -> SummaryRow:
    found = {
        r.metric: r.accuracy
        for r in rows
        if (r.regime, r.noise_kind, r.noise_sd, r.shared_share) == (regime, kind, sd, share)
    }
    return SummaryRow(regime=regime, noise_kind=kind, noise_sd=sd, shared_share=share, **found)


def run_noise_study(seed: int = 0, trials: int = 2000) -> NoiseStudy:
    """Both regimes, both noise kinds, both noise structures: every curve of the study."""
    if trials < 1:
        raise ExecrlError(f"trials must be at least 1, got {trials}; try `trials` 2000")
    if seed < 0:
        raise ExecrlError(f"the seed must be 0 or more, got {seed}")
    vs_noise, vs_threshold, vs_tests, vs_shared = [], [], [], []
    for index, regime in enumerate(REGIMES):
        # One stream per regime, so adding a regime never changes another's numbers.
        draws = draw(regime, trials=trials, rng=np.random.default_rng([seed, index]))
        for share in STRUCTURES.values():
            for kind, sds in NOISE_SDS.items():
                vs_noise += accuracy_vs_noise(draws, kind, sds, shared_share=share)
            noise = REFERENCE_NOISE.model_copy(update={"shared_share": share})
            vs_threshold += accuracy_vs_threshold(draws, noise)
            vs_tests += accuracy_vs_tests(draws, noise, tests_grid(regime.tests))
        vs_shared += accuracy_vs_shared(draws, Noise(kind="additive", sd=ADDITIVE_SDS_S[-1]))
    return NoiseStudy(
        seed=seed,
        trials=trials,
        regimes=list(REGIMES),
        reference_noise=REFERENCE_NOISE,
        vs_noise=vs_noise,
        vs_threshold=vs_threshold,
        vs_tests=vs_tests,
        vs_shared=vs_shared,
    )


# -- the pictures --------------------------------------------------------------------------------
_COLOURS = {
    "timeout_oracle": "tab:blue",
    "timeout_best": "tab:cyan",
    "timeout": "tab:blue",
    "win_rate": "tab:orange",
}
_LABELS = {
    "timeout_oracle": "timeout, oracle τ",
    "timeout_best": "timeout, best τ of sweep",
    "timeout": "timeout",
    "win_rate": "win rate",
}
_STYLES = {0.0: "--", 1.0: "-"}  # independent dashed, shared solid
_STRUCTURE_NAMES = {share: name for name, share in STRUCTURES.items()}
_POINT_METRICS = ("timeout_oracle", "timeout_best", "win_rate")


def _series(rows: list[AccuracyRow], x: str, **match) -> tuple[list[float], list[float]]:
    picked = [r for r in rows if all(getattr(r, k) == v for k, v in match.items())]
    return [getattr(r, x) for r in picked], [r.accuracy for r in picked]


def _decorate(ax, title: str, xlabel: str) -> None:
    ax.axhline(0.5, color="grey", linestyle=":", linewidth=1, label="chance")
    ax.set_ylim(0.4, 1.02)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("accuracy (B identified)")
    ax.grid(alpha=0.3)


def _plot_points(ax, rows: list[AccuracyRow], x: str, **match) -> None:
    """The three point metrics, for both noise structures."""
    for share, style in _STYLES.items():
        for metric in _POINT_METRICS:
            xs, ys = _series(rows, x, metric=metric, shared_share=share, **match)
            label = f"{_LABELS[metric]} ({_STRUCTURE_NAMES[share]})"
            ax.plot(xs, ys, style, color=_COLOURS[metric], marker=".", label=label)


def plot_noise_study(study: NoiseStudy, out_dir: str | Path) -> list[Path]:
    """Four PNGs in ``out_dir``: accuracy versus noise size (one panel per regime × noise kind),
    threshold, number of tests and shared share. Dashed lines are independent noise, solid
    ones noise shared by A and B; the dotted line is chance."""
    plt = pyplot("noise-study plots")

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figures = {
        "noise-study-vs-noise.png": _figure_vs_noise,
        "noise-study-vs-threshold.png": _figure_vs_threshold,
        "noise-study-vs-tests.png": _figure_vs_tests,
        "noise-study-vs-shared.png": _figure_vs_shared,
    }
    paths = []
    for filename, figure in figures.items():
        fig = figure(plt, study)
        fig.tight_layout()
        fig.savefig(out / filename, dpi=110)
        plt.close(fig)
        paths.append(out / filename)
    return paths


def _noise_text(noise: Noise) -> str:
    unit = " s" if noise.kind == "additive" else ""
    return f"{noise.kind} noise, sd {noise.sd:g}{unit}"


def _figure_vs_noise(plt, study: NoiseStudy):
    names = [r.name for r in study.regimes]
    fig, axes = plt.subplots(len(names), 2, figsize=(12, 4.2 * len(names)), squeeze=False)
    for row, name in enumerate(names):
        for col, kind in enumerate(NOISE_SDS):
            ax = axes[row][col]
            _plot_points(ax, study.vs_noise, "noise_sd", regime=name, noise_kind=kind)
            unit = "s" if kind == "additive" else "fraction of the duration"
            _decorate(ax, f"{name} tests, {kind} noise", f"noise sd ({unit})")
    axes[0][0].legend(fontsize=7, loc="lower left")
    fig.suptitle(f"accuracy versus noise size ({study.trials} trials per point)")
    return fig


def _figure_vs_threshold(plt, study: NoiseStudy):
    names = [r.name for r in study.regimes]
    fig, axes = plt.subplots(1, len(names), figsize=(12, 4.2), squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        for share, style in _STYLES.items():
            structure = _STRUCTURE_NAMES[share]
            match = {"regime": name, "shared_share": share}
            xs, ys = _series(study.vs_threshold, "threshold_quantile", metric="timeout", **match)
            ax.plot(
                xs, ys, style, color=_COLOURS["timeout"], marker=".", label=f"timeout ({structure})"
            )
            _, (win,) = _series(study.vs_threshold, "tests", metric="win_rate", **match)
            label = f"win rate, no threshold ({structure})"
            ax.axhline(win, linestyle=style, color=_COLOURS["win_rate"], label=label)
        title = f"{name} tests, {_noise_text(study.reference_noise)}"
        _decorate(ax, title, "threshold τ (quantile of the pooled true durations)")
    axes[0][0].legend(fontsize=7, loc="lower center")
    fig.suptitle("accuracy versus the timeout threshold")
    return fig


def _figure_vs_tests(plt, study: NoiseStudy):
    names = [r.name for r in study.regimes]
    fig, axes = plt.subplots(1, len(names), figsize=(12, 4.2), squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        _plot_points(ax, study.vs_tests, "tests", regime=name)
        _decorate(ax, f"{name} tests, {_noise_text(study.reference_noise)}", "number of tests")
    axes[0][0].legend(fontsize=7, loc="lower right")
    fig.suptitle("accuracy versus the number of tests")
    return fig


def _figure_vs_shared(plt, study: NoiseStudy):
    names = [r.name for r in study.regimes]
    fig, axes = plt.subplots(1, len(names), figsize=(12, 4.2), squeeze=False)
    largest = Noise(kind="additive", sd=ADDITIVE_SDS_S[-1])
    for ax, name in zip(axes[0], names, strict=True):
        for metric in _POINT_METRICS:
            xs, ys = _series(study.vs_shared, "shared_share", regime=name, metric=metric)
            ax.plot(xs, ys, color=_COLOURS[metric], marker=".", label=_LABELS[metric])
        xlabel = "share of the noise variance common to A and B (the session)"
        _decorate(ax, f"{name} tests, {_noise_text(largest)}", xlabel)
    axes[0][0].legend(fontsize=7, loc="upper left")
    fig.suptitle("accuracy versus how much of the noise A and B share")
    return fig
