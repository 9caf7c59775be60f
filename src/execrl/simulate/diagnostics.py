"""The diagnostics of a pass-rate (or mean-reward) curve ``c_i`` over qualities ``x_i``
(spec §7), one function each, plus a vectorised form for many curves at once.

With ``K`` points and window ``w``:

- smoothed curve ``c̃_i = (1/w) Σ_{k=i}^{i+w−1} c_k`` for ``i = 0 … K−w`` (moving average);
  its points sit at the window centres ``x̃_i`` (mean of the window's x) **[ours]**;
- AUC: the trapezoidal area under the curve divided by the width of its x-range (so a flat
  curve at ``v`` has AUC ``v``) **[ours: the normalisation]**, raw and smoothed;
- steepness ``S = a/(1 + |a|)`` of the least-squares fit ``clip(a·x + b, 0, 1)``; the fit is
  the global optimum over every way of splitting the points into clipped-low, linear and
  clipped-high runs; when several lines fit equally well the least steep is taken **[ours]**
  (a perfect step between neighbouring x's ``Δ`` apart gets ``a = 1/Δ``);
- variance around the trend ``mean_i (c_{i+w−1} − c̃_i)²``, exactly as written (the trailing
  point of each window against the window mean, so a straight line with slope ``a`` scores
  ``(a·(w−1)Δ/2)²``);
- deviation from the diagonal ``mean_i |c_i − x_i|``;
- quality correlation: Spearman(x, c) raw and Spearman(x̃, c̃) smoothed (NaN for a flat curve).

A curve is **degenerate** when it rewards (almost) everything (``min c ≥ 1 − tol``) or
(almost) nothing (``max c ≤ tol``), or is flat (the smoothed curve moves less than ``flat``);
``tol = 0.01`` and ``flat = 0.05`` by default **[ours]**.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from execrl.errors import ExecrlError
from execrl.stats import spearman

DEFAULT_WINDOW = 3
SATURATION_TOLERANCE = 0.01
FLAT_RANGE = 0.05
_FIT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Diagnostics:
    """Spec §7 diagnostics of one curve."""

    auc: float
    auc_smoothed: float
    steepness: float
    slope: float
    """``a`` of the clamped-linear fit."""
    intercept: float
    """``b`` of the clamped-linear fit."""
    variance: float
    deviation: float
    correlation: float
    correlation_smoothed: float
    degenerate: str
    """Why the curve is degenerate ("rewards everything", "rewards nothing", "flat"), or ""."""

    def to_dict(self) -> dict[str, float | str]:
        return asdict(self)

    def ranked_values(self) -> tuple[float, ...]:
        """The columns of the tables, in order: deviation, correlation (raw, smoothed),
        steepness, AUC (raw, smoothed)."""
        return (
            self.deviation,
            self.correlation,
            self.correlation_smoothed,
            self.steepness,
            self.auc,
            self.auc_smoothed,
        )


def moving_average(c: np.ndarray, window: int) -> np.ndarray:
    """``c̃_i = mean(c_i … c_{i+w−1})``, ``i = 0 … K−w``."""
    c = np.asarray(c, dtype=float)
    if not 1 <= window <= c.shape[-1]:
        raise ExecrlError(f"window {window}: use 1 to {c.shape[-1]} (the number of points)")
    n = c.shape[-1] - window + 1
    total = c[..., :n].copy()
    for k in range(1, window):
        total += c[..., k : k + n]
    return total / window


def auc(x: np.ndarray, c: np.ndarray) -> float:
    """Trapezoidal area under ``c`` over ``x``, divided by the x-range (the mean height)."""
    x, c = np.asarray(x, float), np.asarray(c, float)
    if len(x) < 2:
        return float(c[0]) if len(c) else math.nan
    return float(np.trapezoid(c, x) / (x[-1] - x[0]))


def clamped_linear_fit(x: np.ndarray, c: np.ndarray) -> tuple[float, float]:
    """``(a, b)`` minimising ``Σ (clip(a·x_i + b, 0, 1) − c_i)²`` (x strictly increasing)."""
    a, b = clamped_linear_fits(np.asarray(x, float), np.asarray(c, float)[None, :])
    return float(a[0]), float(b[0])


def steepness(a: float) -> float:
    """``S = a/(1 + |a|)`` ∈ (−1, 1)."""
    return a / (1.0 + abs(a))


def trend_variance(c: np.ndarray, window: int) -> float:
    """``mean_i (c_{i+w−1} − c̃_i)²``."""
    c = np.asarray(c, float)
    smoothed = moving_average(c, window)
    return float(np.mean((c[window - 1 :] - smoothed) ** 2))


def deviation(x: np.ndarray, c: np.ndarray) -> float:
    """``mean_i |c_i − x_i|``."""
    return float(np.mean(np.abs(np.asarray(c, float) - np.asarray(x, float))))


def degenerate_reason(
    c: np.ndarray,
    smoothed: np.ndarray,
    *,
    tolerance: float = SATURATION_TOLERANCE,
    flat: float = FLAT_RANGE,
) -> str:
    # the 1e-12 margins keep a curve exactly on a threshold on the same side whatever the
    # summation order that produced it
    if np.min(c) >= 1 - tolerance - 1e-12:
        return "rewards everything"
    if np.max(c) <= tolerance + 1e-12:
        return "rewards nothing"
    if np.max(smoothed) - np.min(smoothed) < flat - 1e-12:
        return "flat"
    return ""


def diagnose(x: np.ndarray, c: np.ndarray, *, window: int = DEFAULT_WINDOW) -> Diagnostics:
    """Every diagnostic of one curve (points where ``c`` is NaN are left out)."""
    x, c = np.asarray(x, float), np.asarray(c, float)
    finite = np.isfinite(c)
    x, c = x[finite], c[finite]
    if len(c) < max(2, window):
        raise ExecrlError(
            f"a curve needs at least {max(2, window)} points with a value (it has {len(c)}); "
            "use more points or a smaller window"
        )
    smoothed, centres = moving_average(c, window), moving_average(x, window)
    a, b = clamped_linear_fit(x, c)
    a, b = a + 0.0, b + 0.0  # no negative zeros
    return Diagnostics(
        auc=auc(x, c),
        auc_smoothed=auc(centres, smoothed),
        steepness=steepness(a),
        slope=a,
        intercept=b,
        variance=trend_variance(c, window),
        deviation=deviation(x, c),
        correlation=spearman(x, c),
        correlation_smoothed=spearman(centres, smoothed),
        degenerate=degenerate_reason(c, smoothed),
    )


# --------------------------------------------------------------------------------------------
# Many curves over the same x


def clamped_linear_fits(x: np.ndarray, C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The clamped-linear fit of every row of ``C`` (N, K) over the same increasing ``x``:
    every split into a clipped-low run, a linear middle and a clipped-high run (for rising
    and for falling lines) is solved by least squares on the middle, kept if the line is
    consistent with the split, and the best (least steep among equals) is returned."""
    x = np.asarray(x, float)
    if np.any(np.diff(x) <= 0):
        raise ExecrlError("the clamped-linear fit needs strictly increasing x")
    best_sse = np.full(len(C), np.inf)
    best_a = np.zeros(len(C))
    best_b = np.zeros(len(C))
    for sign in (1.0, -1.0):
        u = x * sign
        order = np.argsort(u)
        sse, a, b = _fits_rising(u[order], C[:, order])
        # among equally good fits, the least steep
        better = (sse < best_sse - _tie(best_sse)) | (
            (np.abs(sse - best_sse) <= _tie(best_sse)) & (np.abs(a) < np.abs(best_a))
        )
        best_sse = np.where(better, sse, best_sse)
        best_a = np.where(better, sign * a, best_a)
        best_b = np.where(better, b, best_b)
    return best_a, best_b


def _tie(sse: np.ndarray) -> np.ndarray:
    return 1e-12 + 1e-9 * np.where(np.isfinite(sse), np.abs(sse), 0.0)


def _fits_rising(u: np.ndarray, C: np.ndarray, block: int = 4096):
    """Best rising clamped fit ``clip(a·u + b, 0, 1)`` with ``a ≥ 0`` (ascending u), every
    split at once for blocks of rows."""
    N, K = C.shape
    lo_all, hi_all = np.triu_indices(K + 1)  # points [0, lo) clipped at 0, [hi, K) at 1
    m_all = hi_all - lo_all
    out = [np.empty(N) for _ in range(3)]
    for start in range(0, N, block):
        rows = C[start : start + block]
        parts = [_split_fits(u, rows, lo_all[m_all == m], hi_all[m_all == m], m) for m in (0, 1)]
        wide = m_all >= 2
        parts.append(_split_fits(u, rows, lo_all[wide], hi_all[wide], None))
        sse, a, b = (np.concatenate([part[i] for part in parts], axis=1) for i in range(3))
        best = sse.min(axis=1, keepdims=True)
        tied = sse <= best + _tie(best)
        pick = np.argmin(np.where(tied, np.abs(a), np.inf), axis=1)[:, None]
        for target, values in zip(out, (sse, a, b), strict=True):
            target[start : start + block] = np.take_along_axis(values, pick, axis=1)[:, 0]
    return tuple(out)


def _split_fits(u, C, lo, hi, m):
    """(sse, a, b) for the splits (lo, hi) (arrays), each (rows, splits); inconsistent
    splits get an infinite sse. ``m`` is the common middle size (0 or 1), or None (≥ 2)."""
    N, K = C.shape
    tol = _FIT_TOLERANCE
    zero = np.zeros((N, 1))
    S_c = np.concatenate([zero, np.cumsum(C, axis=1)], axis=1)
    S_cc = np.concatenate([zero, np.cumsum(C * C, axis=1)], axis=1)
    low = S_cc[:, lo]
    high = (K - hi) - 2 * (S_c[:, K : K + 1] - S_c[:, hi]) + (S_cc[:, K : K + 1] - S_cc[:, hi])
    if m == 0:  # a jump between u[lo-1] and u[lo], or a flat line at 0 or 1
        inner = (lo > 0) & (lo < K)
        gap = np.where(inner, u[np.clip(lo, 0, K - 1)] - u[np.clip(lo - 1, 0, K - 1)], 1.0)
        a = np.where(inner, 1.0 / gap, 0.0)
        b = np.where(inner, -a * u[np.clip(lo - 1, 0, K - 1)], np.where(lo == K, 0.0, 1.0))
        shape = (N, len(lo))
        return low + high, np.broadcast_to(a, shape), np.broadcast_to(b, shape)
    if m == 1:  # the line through the one middle point, just steep enough
        j = lo
        cj = C[:, j]
        left = np.where(lo > 0, 1.0 / (u[j] - u[np.clip(j - 1, 0, K - 1)] + (lo == 0)), 0.0)
        right = np.where(hi < K, 1.0 / (u[np.clip(j + 1, 0, K - 1)] - u[j] + (hi == K)), 0.0)
        a = np.maximum(np.maximum(cj * left, (1 - cj) * right), 0.0)
        b = cj - a * u[j]
        ok = (cj >= -tol) & (cj <= 1 + tol)
        return np.where(ok, low + high, np.inf), a, b
    S_uc = np.concatenate([zero, np.cumsum(C * u, axis=1)], axis=1)
    S_u = np.concatenate([[0.0], np.cumsum(u)])
    S_uu = np.concatenate([[0.0], np.cumsum(u * u)])
    n = (hi - lo).astype(float)
    su, suu = S_u[hi] - S_u[lo], S_uu[hi] - S_uu[lo]
    sc, scc, suc = S_c[:, hi] - S_c[:, lo], S_cc[:, hi] - S_cc[:, lo], S_uc[:, hi] - S_uc[:, lo]
    a = (n * suc - su * sc) / (n * suu - su * su)
    b = (sc - a * su) / n
    middle = scc - 2 * (a * suc + b * sc) + a * a * suu + 2 * a * b * su + n * b * b
    sse = low + high + np.maximum(middle, 0.0)
    first, last = a * u[lo] + b, a * u[hi - 1] + b
    ok = (first >= -tol) & (first <= 1 + tol) & (last >= -tol) & (last <= 1 + tol)
    ok &= (lo == 0) | (a * u[np.clip(lo - 1, 0, K - 1)] + b <= tol)
    ok &= (hi == K) | (a * u[np.clip(hi, 0, K - 1)] + b >= 1 - tol)
    ok &= ((lo == 0) & (hi == K)) | (a >= -tol)
    return np.where(ok, sse, np.inf), a, b


def batch_spearman(x: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Spearman(x, row) for every row of ``C`` (average ranks for ties; NaN if a row is
    constant) — ``execrl.stats.spearman`` for many curves over the same x."""
    rx = _average_ranks(np.asarray(x, float)[None, :])[0]
    rc = _average_ranks(C)
    rx, rc = rx - rx.mean(), rc - rc.mean(axis=1, keepdims=True)
    denominator = np.sqrt(np.sum(rx * rx) * np.sum(rc**2, axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, np.sum(rc * rx, axis=1) / denominator, np.nan)


def _average_ranks(C: np.ndarray) -> np.ndarray:
    below = (C[:, None, :] < C[:, :, None]).sum(axis=-1)
    equal = (C[:, None, :] == C[:, :, None]).sum(axis=-1)
    return below + (equal + 1) / 2


def diagnose_many(
    x: np.ndarray,
    C: np.ndarray,
    *,
    window: int = DEFAULT_WINDOW,
    tolerance: float = SATURATION_TOLERANCE,
    flat: float = FLAT_RANGE,
) -> dict[str, np.ndarray]:
    """Every diagnostic of every row of ``C`` (N, K), as arrays; rows with a NaN point go
    through :func:`diagnose` one by one."""
    x, C = np.asarray(x, float), np.asarray(C, float)
    smoothed, centres = moving_average(C, window), moving_average(x, window)
    span = x[-1] - x[0]
    a, b = clamped_linear_fits(x, np.nan_to_num(C))
    out: dict[str, np.ndarray] = {
        "auc": np.trapezoid(C, x, axis=1) / span,
        "auc_smoothed": np.trapezoid(smoothed, centres, axis=1) / (centres[-1] - centres[0])
        if len(centres) > 1
        else smoothed[:, 0],
        "steepness": a / (1.0 + np.abs(a)),
        "slope": a,
        "intercept": b,
        "variance": np.mean((C[:, window - 1 :] - smoothed) ** 2, axis=1),
        "deviation": np.mean(np.abs(C - x), axis=1),
        "correlation": batch_spearman(x, C),
        "correlation_smoothed": batch_spearman(centres, smoothed),
    }
    reasons = np.full(len(C), "", dtype=object)
    reasons[(smoothed.max(axis=1) - smoothed.min(axis=1)) < flat - 1e-12] = "flat"
    reasons[C.max(axis=1) <= tolerance + 1e-12] = "rewards nothing"
    reasons[C.min(axis=1) >= 1 - tolerance - 1e-12] = "rewards everything"
    out["degenerate"] = reasons
    for i in np.flatnonzero(~np.isfinite(C).all(axis=1)):
        try:
            one = diagnose(x, C[i], window=window).to_dict()
        except ExecrlError:
            one = {k: (math.nan if k != "degenerate" else "no data") for k in out}
        for key, value in one.items():
            out[key][i] = value
    return out
