"""The 17 ranking metrics of spec/optimization-rl.md §3, as pure numpy functions.

Every metric takes the same two arrays and returns one float:

- ``delta``: the candidate's durations, shape ``(T,)``, in seconds;
- ``D``: the reference durations, shape ``(T, R)``, NaN where reference ``h`` has no usable
  duration on test ``t`` (missing is not slow: it is left out of ``D_t``).

A test is *usable* when ``delta_t`` is finite and ``|D_t| ≥ 1``; every other test is skipped.
A metric with nothing to rank (no usable test, or no eligible reference) returns NaN.

All 17 are on one scale, 0–100 (points), so screening can compare them. Percentile metrics
are *badness* (0 = faster than every reference, lower is better); the four metrics in
:data:`HIGHER_IS_BETTER` (top-k shares and win rates) are percentages of tests where the
candidate does well (higher is better).

The per-test percentile here uses the **average** tied rank, which differs from the reward
signal's rule (spec §2: exact ties take the earlier rank): with ``m = |D_t|`` references and
``n_t = m + 1`` values,

    avg_rank = 1 + #{d ∈ D_t : d < δ_t} + #{d ∈ D_t : d = δ_t} / 2
    p_t      = (avg_rank − 1) / (n_t − 1) = (#less + #equal / 2) / m   ∈ [0, 1].
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from execrl.errors import ExecrlError

RankingMetric = Callable[[np.ndarray, np.ndarray], float]
"""``metric(delta (T,), D (T, R)) -> float`` on the 0–100 scale."""

LOG_FLOOR_S = 1e-9
"""Durations are clamped to at least this many seconds before taking logs."""


# -- shared pieces -----------------------------------------------------------------------------
def usable_tests(delta: np.ndarray, D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(delta, D)`` restricted to the usable tests (finite ``delta_t`` and ``|D_t| ≥ 1``)."""
    delta = np.asarray(delta, dtype=float)
    D = np.asarray(D, dtype=float)
    if delta.ndim != 1 or D.ndim != 2 or D.shape[0] != delta.shape[0]:
        raise ExecrlError(
            f"ranking metrics need delta of shape (T,) and D of shape (T, R); got "
            f"{delta.shape} and {D.shape}. Put one row per test in D, one column per reference."
        )
    keep = np.isfinite(delta) & (np.sum(~np.isnan(D), axis=1) > 0)
    return delta[keep], D[keep]


def average_rank_percentiles(delta: np.ndarray, D: np.ndarray) -> np.ndarray:
    """Per-test percentile ``p_t = (#less + #equal/2) / |D_t|`` in [0, 1] (average tied rank),
    one value per usable test, in test order. Lower is faster."""
    delta, D = usable_tests(delta, D)
    return _percentiles(delta, D)


def _percentiles(delta: np.ndarray, D: np.ndarray) -> np.ndarray:
    # (T, R) comparisons; NaN compares False on both sides, so missing references count nowhere.
    below = np.sum(delta[:, None] > D, axis=1)
    equal = np.sum(delta[:, None] == D, axis=1)
    return (below + equal / 2) / np.sum(~np.isnan(D), axis=1)


def _rank_among(value: float, others: np.ndarray) -> float:
    """Average-tied-rank percentile (points) of ``value`` among the finite ``others``."""
    others = others[np.isfinite(others)]
    if not np.isfinite(value) or others.size == 0:
        return float("nan")
    return float(100 * (np.sum(others < value) + np.sum(others == value) / 2) / others.size)


def _mean(values: np.ndarray) -> float:
    return float(100 * np.mean(values)) if values.size else float("nan")


def _median(values: np.ndarray) -> float:
    return float(100 * np.median(values)) if values.size else float("nan")


# -- 1-4: per-test percentile, four aggregations ---------------------------------------------
def mean_percentile(delta: np.ndarray, D: np.ndarray) -> float:
    """``100 · mean_t p_t`` (points; lower is better). The metric the source kept (QAR)."""
    return _mean(average_rank_percentiles(delta, D))


def median_percentile(delta: np.ndarray, D: np.ndarray) -> float:
    """``100 · median_t p_t`` (points; lower is better)."""
    return _median(average_rank_percentiles(delta, D))


def trimmed_mean_percentile(delta: np.ndarray, D: np.ndarray) -> float:
    """``100 · mean`` of the sorted ``p_t`` after dropping ``k = max(1, ⌊n/10⌋)`` values at each
    end, ``n`` = number of usable tests (points; lower is better).

    Needs ``n ≥ 5`` (so at least 3 values remain); with fewer tests it is the plain mean.
    """
    p = np.sort(average_rank_percentiles(delta, D))
    n = p.size
    if n < 5:
        return _mean(p)
    k = max(1, n // 10)
    return _mean(p[k : n - k])


def log_mean_percentile(delta: np.ndarray, D: np.ndarray) -> float:
    """``100 · mean_t`` of the percentile of ``log δ_t`` among ``log D_t``, interpolated
    linearly in log space (points; lower is better). **[ours]**

    A rank is unchanged by a monotone map, so "percentiles of log durations" only differs from
    :func:`mean_percentile` if the percentile is continuous. Here: with the distinct reference
    log-durations ``u_1 < … < u_g`` and their average-tied-rank counts
    ``c_j = #(log D_t < u_j) + #(log D_t = u_j)/2``, the candidate's count ``c(x)`` at
    ``x = log δ_t`` is ``0`` below ``u_1``, ``m`` above ``u_g``, ``c_j`` at ``u_j`` (the
    average-rank value, so ties agree with :func:`average_rank_percentiles`) and linear in ``x`` in
    between; ``p_t = c(x) / m``. Closing half the log-gap to the next faster reference earns
    half of the rank step. Durations are clamped to ≥ ``LOG_FLOOR_S`` (1e-9 s) before the log.
    """
    delta, D = usable_tests(delta, D)
    if delta.size == 0:
        return float("nan")
    x = np.log(np.maximum(delta, LOG_FLOOR_S))
    logs = np.log(np.maximum(D, LOG_FLOOR_S))  # NaN stays NaN
    p = np.empty(delta.size)
    for t in range(delta.size):
        refs = logs[t][~np.isnan(logs[t])]
        u, counts = np.unique(refs, return_counts=True)
        anchors = np.cumsum(counts) - counts + counts / 2  # #less + #equal/2 at each u_j
        p[t] = np.interp(x[t], u, anchors, left=0.0, right=refs.size) / refs.size
    return _mean(p)


# -- 5-6: top-k shares -------------------------------------------------------------------------
def top_share(delta: np.ndarray, D: np.ndarray, k: float) -> float:
    """``S_k = 100 · mean_t 1[p_t < k/100]`` (percent of tests; higher is better)."""
    p = average_rank_percentiles(delta, D)
    return _mean(p < k / 100)


def top25_share(delta: np.ndarray, D: np.ndarray) -> float:
    """``S_25``: percent of tests where ``p_t < 0.25`` (higher is better)."""
    return top_share(delta, D, 25)


def top50_share(delta: np.ndarray, D: np.ndarray) -> float:
    """``S_50``: percent of tests where ``p_t < 0.50`` (higher is better)."""
    return top_share(delta, D, 50)


# -- 7: total duration -------------------------------------------------------------------------
def _complete_references(D: np.ndarray) -> np.ndarray:
    """The columns of ``D`` (usable tests only) with a duration on every test."""
    return D[:, ~np.any(np.isnan(D), axis=0)]


def total_duration_percentile(delta: np.ndarray, D: np.ndarray) -> float:
    """Average-tied-rank percentile of ``Σ_t δ_t`` among the reference totals ``Σ_t d_{t,h}``
    over the same usable tests (points; lower is better).

    Only references with a duration on *every* usable test take part (a total over fewer tests
    is not comparable); NaN when there is none.
    """
    delta, D = usable_tests(delta, D)
    complete = _complete_references(D)
    if delta.size == 0 or complete.shape[1] == 0:
        return float("nan")
    return _rank_among(float(np.sum(delta)), np.sum(complete, axis=0))


# -- 8-9: slopes against the median reference duration ----------------------------------------
def _affine_slopes(w: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Least-squares ``β`` of ``y ≈ α + β·w`` for each column of ``Y`` (NaN if ``w`` is flat)."""
    wc = w - np.mean(w)
    ss = float(np.sum(wc**2))
    return wc @ Y / ss if ss > 0 else np.full(Y.shape[1], np.nan)


def _origin_slopes(w: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Least-squares ``β`` of ``y ≈ β·w`` for each column of ``Y`` (NaN if ``w`` is all 0)."""
    ss = float(np.sum(w**2))
    return w @ Y / ss if ss > 0 else np.full(Y.shape[1], np.nan)


SlopeFit = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _slope_percentile(delta: np.ndarray, D: np.ndarray, fit: SlopeFit) -> float:
    delta, D = usable_tests(delta, D)
    complete = _complete_references(D)
    if delta.size == 0 or complete.shape[1] == 0:
        return float("nan")
    w = np.nanmedian(D, axis=1)  # (T,) median reference duration per test, over all of D_t
    beta = fit(w, delta[:, None])[0]
    return _rank_among(float(beta), fit(w, complete))


def affine_slope_percentile(delta: np.ndarray, D: np.ndarray) -> float:
    """Percentile (average tied rank, points; lower is better) of the candidate's ``β`` in the
    least-squares fit ``δ_t ≈ α + β·w_t``, ``w_t = median(D_t)``, among the references' own
    ``β`` fitted the same way against ``w_t``.

    ``β = Σ (w_t − w̄)·y_t / Σ (w_t − w̄)²``. Only references with a duration on every usable
    test are fitted; NaN with fewer than two distinct ``w_t``.
    """
    return _slope_percentile(delta, D, _affine_slopes)


def origin_slope_percentile(delta: np.ndarray, D: np.ndarray) -> float:
    """As :func:`affine_slope_percentile` for the fit through the origin ``δ_t ≈ β·w_t``:
    ``β = Σ w_t·y_t / Σ w_t²`` (points; lower is better)."""
    return _slope_percentile(delta, D, _origin_slopes)


# -- 10-11: win rates ----------------------------------------------------------------------------
def win_rate_vs_mean(delta: np.ndarray, D: np.ndarray) -> float:
    """``100 · mean_t 1[δ_t < mean(D_t)]`` (percent of tests; higher is better). Strict:
    matching the mean is not a win."""
    delta, D = usable_tests(delta, D)
    return _mean(delta < np.nanmean(D, axis=1)) if delta.size else float("nan")


def win_rate_vs_median(delta: np.ndarray, D: np.ndarray) -> float:
    """``100 · mean_t 1[δ_t < median(D_t)]`` (percent of tests; higher is better)."""
    delta, D = usable_tests(delta, D)
    return _mean(delta < np.nanmedian(D, axis=1)) if delta.size else float("nan")


# -- 12-17: percentiles on a filtered workload -------------------------------------------------
def filtered_percentiles(
    delta: np.ndarray, D: np.ndarray, *, drop_easiest_pct: int = 0, drop_hardest_pct: int = 0
) -> np.ndarray:
    """Per-test percentiles after dropping the easiest / hardest tests by mean reference
    duration ``d̄_t = mean(D_t)``.

    Of the ``n`` usable tests, sorted by ``d̄_t`` (ties keep test order), the
    ``⌊n·drop_easiest_pct/100⌋`` fastest and the ``⌊n·drop_hardest_pct/100⌋`` slowest are
    dropped (integer arithmetic, so the cut points are exact: n = 20 drops 2, 5 or 10).
    """
    delta, D = usable_tests(delta, D)
    n = delta.size
    order = np.argsort(np.nanmean(D, axis=1), kind="stable") if n else np.arange(0)
    keep = order[n * drop_easiest_pct // 100 : n - n * drop_hardest_pct // 100]
    keep = np.sort(keep)
    return _percentiles(delta[keep], D[keep])


def mean_percentile_drop_easiest10(delta: np.ndarray, D: np.ndarray) -> float:
    """``100 · mean p_t`` without the easiest 10% of tests (points; lower is better)."""
    return _mean(filtered_percentiles(delta, D, drop_easiest_pct=10))


def median_percentile_drop_easiest10(delta: np.ndarray, D: np.ndarray) -> float:
    """``100 · median p_t`` without the easiest 10% of tests (points; lower is better)."""
    return _median(filtered_percentiles(delta, D, drop_easiest_pct=10))


def mean_percentile_drop_hardest25(delta: np.ndarray, D: np.ndarray) -> float:
    """``100 · mean p_t`` without the hardest 25% of tests (points; lower is better)."""
    return _mean(filtered_percentiles(delta, D, drop_hardest_pct=25))


def median_percentile_drop_hardest25(delta: np.ndarray, D: np.ndarray) -> float:
    """``100 · median p_t`` without the hardest 25% of tests (points; lower is better)."""
    return _median(filtered_percentiles(delta, D, drop_hardest_pct=25))


def mean_percentile_drop_hardest50(delta: np.ndarray, D: np.ndarray) -> float:
    """``100 · mean p_t`` without the hardest 50% of tests (points; lower is better)."""
    return _mean(filtered_percentiles(delta, D, drop_hardest_pct=50))


def median_percentile_drop_hardest50(delta: np.ndarray, D: np.ndarray) -> float:
    """``100 · median p_t`` without the hardest 50% of tests (points; lower is better)."""
    return _median(filtered_percentiles(delta, D, drop_hardest_pct=50))


# -- the registry ------------------------------------------------------------------------------
RANKING_METRICS: dict[str, RankingMetric] = {
    "mean_percentile": mean_percentile,
    "median_percentile": median_percentile,
    "trimmed_mean_percentile": trimmed_mean_percentile,
    "log_mean_percentile": log_mean_percentile,
    "top25_share": top25_share,
    "top50_share": top50_share,
    "total_duration_percentile": total_duration_percentile,
    "affine_slope_percentile": affine_slope_percentile,
    "origin_slope_percentile": origin_slope_percentile,
    "win_rate_vs_mean": win_rate_vs_mean,
    "win_rate_vs_median": win_rate_vs_median,
    "mean_percentile_drop_easiest10": mean_percentile_drop_easiest10,
    "median_percentile_drop_easiest10": median_percentile_drop_easiest10,
    "mean_percentile_drop_hardest25": mean_percentile_drop_hardest25,
    "median_percentile_drop_hardest25": median_percentile_drop_hardest25,
    "mean_percentile_drop_hardest50": mean_percentile_drop_hardest50,
    "median_percentile_drop_hardest50": median_percentile_drop_hardest50,
}
"""The 17 metrics of spec §3 by stable name, in the spec's order."""

HIGHER_IS_BETTER: frozenset[str] = frozenset(
    {"top25_share", "top50_share", "win_rate_vs_mean", "win_rate_vs_median"}
)
"""Metrics where a larger value means a faster candidate; for all others lower is better."""


def rank_metrics(delta: np.ndarray, D: np.ndarray) -> dict[str, float]:
    """Every metric of :data:`RANKING_METRICS` for one candidate, by name."""
    return {name: metric(delta, D) for name, metric in RANKING_METRICS.items()}


def badness(name: str, value: float) -> float:
    """A metric's value mapped to [0, 1] with 1 = worst (``value/100``, flipped for the
    :data:`HIGHER_IS_BETTER` metrics)."""
    return 1 - value / 100 if name in HIGHER_IS_BETTER else value / 100
