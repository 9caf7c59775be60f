"""Spec §7 diagnostics on curves whose answers are worked out by hand: a perfect diagonal, a
step, flat lines and noise around a linear trend (K = 21 points, x_i = i/20, window w = 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from execrl.errors import ExecrlError
from execrl.simulate.diagnostics import (
    batch_spearman,
    clamped_linear_fit,
    clamped_linear_fits,
    diagnose,
    diagnose_many,
    moving_average,
)
from execrl.stats import spearman

K, W = 21, 3
X = np.linspace(0.0, 1.0, K)
STEP = 0.05  # Δ between neighbouring points


def test_perfect_diagonal():
    d = diagnose(X, X, window=W)
    assert d.auc == pytest.approx(0.5, abs=1e-15)
    assert d.auc_smoothed == pytest.approx(0.5, abs=1e-12)  # a moving average of a line: the line
    assert d.slope == pytest.approx(1.0, abs=1e-12) and d.intercept == pytest.approx(0.0, abs=1e-12)
    assert d.steepness == pytest.approx(0.5, abs=1e-12)  # a/(1 + |a|) with a = 1
    assert d.deviation == pytest.approx(0.0, abs=1e-15)
    assert d.correlation == 1.0 and d.correlation_smoothed == 1.0
    # the spec's trailing formula: c_{i+w-1} - c̃_i = (w-1)Δ/2 on a line of slope 1
    assert d.variance == pytest.approx(((W - 1) * STEP / 2) ** 2, rel=1e-9)
    assert d.degenerate == ""


def test_step_at_one_half():
    c = (X >= 0.5 - 1e-12).astype(float)  # 0 for i ≤ 9, 1 for i ≥ 10
    d = diagnose(X, c, window=W)
    # trapezoids: the jump segment [0.45, 0.5] gives 0.05 · 1/2, then [0.5, 1] gives 0.5
    assert d.auc == pytest.approx(0.025 + 0.5, abs=1e-12)
    # smoothed: 0 … 0, 1/3, 2/3, 1 … 1 at centres 0.05 … 0.95; area 0.05·1.5 + 0.4 over 0.9
    assert d.auc_smoothed == pytest.approx((0.05 * 1.5 + 0.4) / 0.9, abs=1e-12)
    # a perfect step between neighbours Δ apart: the least steep exact fit has a = 1/Δ
    assert d.slope == pytest.approx(1 / STEP, rel=1e-9)
    assert d.steepness == pytest.approx(20 / 21, rel=1e-9)
    assert d.intercept == pytest.approx(-9.0, rel=1e-9)  # clip(20x − 9): 0 at 0.45, 1 at 0.5
    # Σ_{i<10} 0.05 i + Σ_{i≥10} (1 − 0.05 i) = 2.25 + 2.75 over 21 points
    assert d.deviation == pytest.approx(5.0 / 21, abs=1e-12)
    # windows (8, 9, 10) and (9, 10, 11): (1 − 1/3)² and (1 − 2/3)², over 19 windows
    assert d.variance == pytest.approx((4 / 9 + 1 / 9) / 19, abs=1e-12)
    # ranks 5.5 (ten zeros) and 16 (eleven ones) against 1..21: ρ = √(577.5/770) = √0.75
    assert d.correlation == pytest.approx(math.sqrt(0.75), abs=1e-12)
    assert d.degenerate == ""


def test_flat_line_inside():
    d = diagnose(X, np.full(K, 0.4), window=W)
    assert d.auc == pytest.approx(0.4) and d.auc_smoothed == pytest.approx(0.4)
    assert d.slope == 0.0 and d.intercept == pytest.approx(0.4)
    assert d.steepness == 0.0
    assert d.variance == pytest.approx(0.0, abs=1e-30)
    assert d.deviation == pytest.approx(sum(abs(0.4 - i / 20) for i in range(K)) / K)
    assert math.isnan(d.correlation) and math.isnan(d.correlation_smoothed)
    assert d.degenerate == "flat"


@pytest.mark.parametrize(
    ("value", "reason", "deviation"),
    [(1.0, "rewards everything", 0.5), (0.0, "rewards nothing", 0.5)],
)
def test_flat_at_the_bounds_is_degenerate(value, reason, deviation):
    d = diagnose(X, np.full(K, value), window=W)
    assert d.degenerate == reason
    assert d.slope == 0.0 and d.steepness == 0.0  # many lines fit; the least steep is flat
    assert d.intercept == value
    assert d.deviation == pytest.approx(deviation)  # mean |v − x| over x_i = i/20


def test_noise_around_a_linear_trend():
    e, slope, intercept = 0.05, 0.6, 0.2
    noise = np.array([e * (-1) ** i for i in range(K)])
    c = intercept + slope * X + noise
    d = diagnose(X, c, window=W)
    # the line stays inside (0, 1): the clamped fit is ordinary least squares (closed form)
    x_bar = X.mean()
    ols = float(np.sum((X - x_bar) * (c - c.mean())) / np.sum((X - x_bar) ** 2))
    assert d.slope == pytest.approx(ols, rel=1e-9)
    assert d.intercept == pytest.approx(c.mean() - ols * x_bar, rel=1e-9)
    assert d.steepness == pytest.approx(ols / (1 + ols), rel=1e-9)
    # c_{i+2} − c̃_i = 0.6Δ + 2ε_i/3 with ε_i = ±e alternating (10 windows start even, 9 odd)
    expected = (slope * STEP) ** 2 + (2 * e / 3) ** 2 + 2 * slope * STEP * (2 * e / 3) / 19
    assert d.variance == pytest.approx(expected, rel=1e-9)
    assert d.deviation == pytest.approx(np.mean(np.abs(intercept - 0.4 * X + noise)), rel=1e-12)
    # even points 0.25 + 0.03i, odd 0.15 + 0.03i: rank them by hand with sorted()
    ranks = {v: r for r, v in enumerate(sorted(c.tolist()), start=1)}
    rc = [ranks[v] for v in c.tolist()]
    rx = list(range(1, K + 1))
    cov = sum((a - 11) * (b - 11) for a, b in zip(rx, rc, strict=True))
    assert d.correlation == pytest.approx(cov / sum((a - 11) ** 2 for a in rx), rel=1e-12)
    assert d.correlation_smoothed > d.correlation  # smoothing removes the alternation
    assert d.degenerate == ""


def test_moving_average_and_its_window():
    assert moving_average(np.array([1.0, 2, 3, 4]), 2).tolist() == [1.5, 2.5, 3.5]
    assert moving_average(np.array([1.0, 2, 3]), 1).tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ExecrlError, match="window 5"):
        moving_average(np.array([1.0, 2, 3]), 5)
    with pytest.raises(ExecrlError, match="at least 3 points"):
        diagnose(np.array([0.0, 1.0]), np.array([0.2, 0.4]), window=3)


@pytest.mark.parametrize(
    ("curve", "a", "b"),
    [
        (np.clip(3 * X - 1, 0, 1), 3.0, -1.0),  # ramp from 1/3 to 2/3
        (1 - X, -1.0, 1.0),  # falling diagonal
        (np.clip(1.5 - 3 * X, 0, 1), -3.0, 1.5),  # falling ramp
        (np.full(K, 0.7), 0.0, 0.7),
    ],
)
def test_clamped_fit_recovers_exact_clamped_lines(curve, a, b):
    fit_a, fit_b = clamped_linear_fit(X, curve)
    assert fit_a == pytest.approx(a, abs=1e-9) and fit_b == pytest.approx(b, abs=1e-9)


def test_clamped_fit_is_no_worse_than_any_line_on_random_curves():
    rng = np.random.default_rng(0)
    C = np.clip(rng.random((200, K)) * 0.4 + np.linspace(0, 0.8, K), 0, 1)
    a, b = clamped_linear_fits(X, C)
    sse = np.sum((np.clip(a[:, None] * X + b[:, None], 0, 1) - C) ** 2, axis=1)
    for slope in np.linspace(-3, 6, 37):  # a coarse grid of alternatives never does better
        for intercept in np.linspace(-2, 2, 41):
            other = np.sum((np.clip(slope * X + intercept, 0, 1) - C) ** 2, axis=1)
            assert np.all(sse <= other + 1e-9)


def test_many_curves_at_once_equal_one_at_a_time():
    rng = np.random.default_rng(1)
    C = np.round(rng.random((60, K)), 1)  # ties everywhere
    C[0], C[1], C[2] = 1.0, 0.0, 0.5
    C[3] = (X >= 0.5).astype(float)
    C[4, 7] = np.nan  # a missing point goes through the one-curve path
    many = diagnose_many(X, C, window=W)
    for i in range(len(C)):
        one = diagnose(X, C[i], window=W).to_dict()
        for key, value in one.items():
            if key == "degenerate":
                assert many[key][i] == value
            elif math.isnan(value):
                assert math.isnan(many[key][i])
            else:
                assert many[key][i] == pytest.approx(value, abs=1e-9), (i, key)


def test_batch_spearman_is_execrl_stats_spearman():
    rng = np.random.default_rng(2)
    C = np.round(rng.random((40, K)), 1)
    expected = [spearman(X, row) for row in C]
    assert batch_spearman(X, C) == pytest.approx(expected, abs=1e-12)
