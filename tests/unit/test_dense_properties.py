"""Cardinality bias (spec dense-rewards.md): duplicating every easy test leaves the calibrated
reward's preferences alone, while the raw pass rate can flip.

**Easy**, here: a test whose pass rate ρ_j lies above a threshold θ that falls in a gap of the
pass rates (no ρ_j near θ); the others are hard. "Duplicating every easy test" appends a copy
of each easy test's column ``p[:, :, j]`` to the suite. Every ρ_j is unchanged, the
easy-test count doubles.

Why the calibrated reward is (almost) invariant. Write ``R = Σ_j w_j p_j / (N̂_j + δ)``. For
an easy test, ``N̂_j`` is the kernel mass of the easy tests (doubled by the copies) plus that of
the hard tests (unchanged); for a hard test, its own cluster's mass (unchanged) plus that of the
easy tests (doubled). If the cross mass between easy and hard is zero, every easy test's
density doubles exactly while its count doubles, and every hard test's density stays put. The
reward then changes only through δ: each easy term goes from ``w s/(D + δ)`` to
``2 w s/(2D + δ)``, a relative increase in (0, δ/2] because ``D ≥ 1``. The two properties below
are the two cases in which the cross mass is negligible:

1. **fixed σ**, and every hard ρ_j at least 20σ below every easy ρ_j: the cross kernel is at
   most ``exp(−20²/2) = e^{−200}``, far below the float resolution next to a density ≥ 1. Then
   every turn reward obeys ``R ≤ R' ≤ R·(1 + δ/2)`` (up to float rounding), so any preference
   with a relative margin above δ is kept. Within each band the ρ_j may be anything.
2. **adaptive σ** with two point clusters (every hard test at one ρ_H, every easy test at one
   ρ_E > ρ_H). Then ``σ = (ρ_E − ρ_H)·√(q(1−q))/2`` with q the easy share of the suite, the
   cross kernel is ``κ = exp(−2/(q(1−q)))``, and the cross mass relative to a cluster's own
   count is at most ``max_q q/(1−q)·exp(−2/(q(1−q))) ≈ 3.8e−4`` (at q ≈ 0.56), before and
   after doubling. So every turn reward moves by a relative 1e−3 at most, and any preference
   with a relative margin above 2e−3 is kept. (With spread-out clusters the adaptive σ
   changes when the suite changes and the density inside each cluster moves with it; there
   the preference is not guaranteed.)

A preference closer than those margins is a near-tie and may break either way.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from execrl.rewards.dense import DenseRewardConfig, PassTensor, dense_rewards

DELTA = DenseRewardConfig().delta
FIXED = DenseRewardConfig(bandwidth=0.01)  # σ = 0.01; the bands below are ≥ 0.2 = 20σ apart
ADAPTIVE = DenseRewardConfig()


def _group(draw, band_counts) -> tuple[PassTensor, np.ndarray]:
    """A random multi-turn group whose test j is passed by exactly ``counts[j]`` real turns,
    chosen at random; returns it and the easy-test mask."""
    n = draw(st.integers(2, 6))
    t_max = draw(st.integers(1, 4))
    turns = np.array(draw(st.lists(st.integers(1, t_max), min_size=n, max_size=n)))
    m = int(turns.sum())
    counts, easy = band_counts(draw, m)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    mask = np.arange(t_max)[:, None] < turns[None, :]  # (T, N)
    slots = np.argwhere(mask)  # (M, 2) the real (t, i)
    passes = np.zeros((t_max, n, len(counts)), dtype=bool)
    for j, k in enumerate(counts):
        chosen = slots[rng.choice(m, size=k, replace=False)]
        passes[chosen[:, 0], chosen[:, 1], j] = True
    tensor = PassTensor.from_array(passes, turns)
    np.testing.assert_array_equal(tensor.pass_counts(), counts)
    return tensor, np.array(easy)


def _two_bands(draw, m):
    """Hard tests passed by ≤ 40% of the M turns, easy ones by ≥ 60%: ≥ 0.2 apart."""
    hard = draw(st.lists(st.integers(0, math.floor(0.4 * m)), min_size=1, max_size=5))
    easy = draw(st.lists(st.integers(math.ceil(0.6 * m), m), min_size=1, max_size=6))
    return hard + easy, [False] * len(hard) + [True] * len(easy)


def _two_points(draw, m):
    """Every hard test passed by k_H turns, every easy one by k_E > k_H."""
    k_hard = draw(st.integers(0, m - 1))
    k_easy = draw(st.integers(k_hard + 1, m))
    n_hard, n_easy = draw(st.integers(1, 6)), draw(st.integers(1, 10))
    return [k_hard] * n_hard + [k_easy] * n_easy, [False] * n_hard + [True] * n_easy


@st.composite
def banded_groups(draw):
    return _group(draw, _two_bands)


@st.composite
def point_cluster_groups(draw):
    return _group(draw, _two_points)


def duplicate_easy(tensor: PassTensor, easy: np.ndarray) -> PassTensor:
    doubled = np.concatenate([tensor.passes, tensor.passes[:, :, easy]], axis=2)
    return PassTensor.from_array(doubled, tensor.turns)


def turn_rewards(tensor: PassTensor, config: DenseRewardConfig) -> np.ndarray:
    result = dense_rewards(tensor, config)
    return result.turn_rewards[result.mask]  # (M,) every real turn is a program


def assert_preferences_kept(before: np.ndarray, after: np.ndarray, margin: float) -> None:
    for a in range(len(before)):
        for b in range(len(before)):
            if before[a] - before[b] > margin * before[a]:  # a clearly preferred to b
                assert after[a] > after[b], (a, b, before, after)


@settings(max_examples=300, deadline=None)
@given(banded_groups())
def test_fixed_bandwidth_duplicating_easy_tests_keeps_calibrated_preferences(group):
    tensor, easy = group
    before = turn_rewards(tensor, FIXED)
    after = turn_rewards(duplicate_easy(tensor, easy), FIXED)
    rounding = 1e-12
    assert np.all(after >= before * (1 - rounding))
    assert np.all(after <= before * (1 + DELTA / 2 + rounding))
    assert_preferences_kept(before, after, margin=DELTA)


@settings(max_examples=300, deadline=None)
@given(point_cluster_groups())
def test_adaptive_bandwidth_point_clusters_keep_calibrated_preferences(group):
    tensor, easy = group
    before = turn_rewards(tensor, ADAPTIVE)
    after = turn_rewards(duplicate_easy(tensor, easy), ADAPTIVE)
    np.testing.assert_allclose(after, before, rtol=1e-3, atol=0)
    assert_preferences_kept(before, after, margin=2e-3)


def test_raw_pass_rate_preference_flips_when_easy_tests_are_duplicated():
    # Hard tests h1–h3 (ρ = 1/4), easy tests e1–e4 (ρ = 2/4); single turn, N = 4.
    #   X passes h1 h2 h3; Y passes e1 e2; Z passes e1–e4; W passes e3 e4.
    x = [1, 1, 1, 0, 0, 0, 0]
    y = [0, 0, 0, 1, 1, 0, 0]
    z = [0, 0, 0, 1, 1, 1, 1]
    w = [0, 0, 0, 0, 0, 1, 1]
    tensor = PassTensor.from_array([x, y, z, w])
    easy = tensor.pass_rates() > 1 / 3
    np.testing.assert_array_equal(easy, [False] * 3 + [True] * 4)
    doubled = duplicate_easy(tensor, easy)

    raw = DenseRewardConfig(variant="raw")
    # Raw: X = 3/7 > Y = 2/7; after doubling, X = 3/11 < Y = 4/11: the preference flips.
    np.testing.assert_allclose(turn_rewards(tensor, raw)[:2], [3 / 7, 2 / 7])
    np.testing.assert_allclose(turn_rewards(doubled, raw)[:2], [3 / 11, 4 / 11])

    # Calibrated (adaptive σ): X ≈ 3e^{−1/2}/3 ≈ 0.6065 and Y ≈ 2e^{−1}/4 ≈ 0.1839, before
    # and after (Y passes 4 of 8 easy tests then, at half the weight each).
    for group in (tensor, doubled):
        np.testing.assert_allclose(
            turn_rewards(group, ADAPTIVE)[:2], [math.exp(-0.5), math.exp(-1) / 2], rtol=1e-3
        )
