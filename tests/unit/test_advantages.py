"""Every advantage estimator of ``execrl.rl.advantages`` on a small batch computed by hand.

Expected values are written as the arithmetic that produces them, with the steps in comments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from execrl.errors import ExecrlError
from execrl.rewards.dense import PassTensor, dense_rewards
from execrl.rl.advantages import (
    ESTIMATORS,
    compute_advantages,
    dense,
    dr_grpo,
    grpo,
    reinforce_pp,
    rloo,
    token_weighted,
    zero_advantage_groups,
    zero_advantage_rate,
)

EPS = 1e-6

# Four interleaved groups (members not contiguous):
#   a: samples 0, 2, 4 with rewards 1, 3, 2   mean 2, deviations −1, +1, 0
#   b: samples 1, 3    with rewards 0, 1      mean 0.5, deviations −0.5, +0.5
#   c: sample 5        with reward 7          a group of one
#   d: samples 6, 7    with rewards 4, 4      all equal
REWARDS = np.array([1.0, 0.0, 3.0, 1.0, 2.0, 7.0, 4.0, 4.0])
GROUPS = np.array(["a", "b", "a", "b", "a", "c", "d", "d"])
# token counts: a: 3, 1, 1 (samples 0, 2, 4); b: 1, 3 (samples 1, 3); c: 10; d: 2, 5
LENGTHS = np.array([3, 1, 1, 3, 1, 10, 2, 5])


def test_grpo_divides_by_population_std():
    std_a = math.sqrt((1 + 1 + 0) / 3)  # population: Σ dev² / n = 2/3
    std_b = math.sqrt((0.25 + 0.25) / 2)  # = 0.5
    expected = [
        -1 / (std_a + EPS),  # sample 0 (a)
        -0.5 / (std_b + EPS),  # sample 1 (b)
        +1 / (std_a + EPS),  # sample 2 (a)
        +0.5 / (std_b + EPS),  # sample 3 (b)
        0.0,  # sample 4 (a) at the mean
        0.0,  # c, a group of one: 0 / (0 + eps)
        0.0,  # d, all equal: 0 / (0 + eps)
        0.0,
    ]
    np.testing.assert_allclose(grpo(REWARDS, GROUPS), expected, rtol=1e-12, atol=1e-12)


def test_grpo_eps_is_used():
    # b alone: deviations ±0.5, std 0.5; eps = 0.5 gives ±0.5 / 1.0
    np.testing.assert_allclose(grpo([0.0, 1.0], [0, 0], eps=0.5), [-0.5, 0.5])


def test_dr_grpo_only_centres():
    # r − mean_g: a: 1−2, 3−2, 2−2; b: 0−0.5, 1−0.5; c: 7−7; d: 4−4
    expected = [-1.0, -0.5, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0]
    np.testing.assert_allclose(dr_grpo(REWARDS, GROUPS), expected, atol=1e-12)


def test_token_weighted_with_unequal_lengths():
    mu_a = (3 * 1 + 1 * 3 + 1 * 2) / (3 + 1 + 1)  # = 8 / 5 = 1.6 (the plain mean is 2)
    mu_b = (1 * 0 + 3 * 1) / (1 + 3)  # = 3 / 4 = 0.75 (the plain mean is 0.5)
    expected = [
        1 - mu_a,  # −0.6
        0 - mu_b,  # −0.75
        3 - mu_a,  # +1.4
        1 - mu_b,  # +0.25
        2 - mu_a,  # +0.4
        0.0,  # c: 7 − (10·7)/10
        0.0,  # d: 4 − (2·4 + 5·4)/7
        0.0,
    ]
    np.testing.assert_allclose(token_weighted(REWARDS, GROUPS, LENGTHS), expected, atol=1e-12)


def test_token_weighted_with_equal_lengths_is_dr_grpo():
    same = np.full(len(REWARDS), 4)
    np.testing.assert_allclose(
        token_weighted(REWARDS, GROUPS, same), dr_grpo(REWARDS, GROUPS), atol=1e-12
    )


@pytest.mark.parametrize("lengths", [[1, 2], [3, 0, 1], [3, -1, 1]])
def test_token_weighted_refuses_bad_lengths(lengths):
    with pytest.raises(ExecrlError, match="positive token counts"):
        token_weighted([1.0, 0.0, 1.0], [0, 0, 0], lengths)


def test_rloo_leaves_the_sample_out():
    expected = [
        1 - (3 + 2) / 2,  # sample 0 (a): others 3, 2 → −1.5
        0 - 1 / 1,  # sample 1 (b): other 1 → −1
        3 - (1 + 2) / 2,  # sample 2 (a): others 1, 2 → +1.5
        1 - 0 / 1,  # sample 3 (b): other 0 → +1
        2 - (1 + 3) / 2,  # sample 4 (a): others 1, 3 → 0
        0.0,  # c: a group of one has no others
        0.0,  # d: 4 − 4
        0.0,
    ]
    np.testing.assert_allclose(rloo(REWARDS, GROUPS), expected, atol=1e-12)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_order_of_samples_does_not_matter(name):
    order = np.array([7, 2, 5, 0, 3, 6, 1, 4])
    lengths = LENGTHS if name == "token_weighted" else None
    shuffled_lengths = LENGTHS[order] if lengths is not None else None
    whole = compute_advantages(name, REWARDS, GROUPS, lengths)
    shuffled = compute_advantages(name, REWARDS[order], GROUPS[order], shuffled_lengths)
    np.testing.assert_allclose(shuffled, whole[order], atol=1e-12)


def test_zero_advantage_groups_in_sorted_id_order():
    # a: 1..3 spread, b: 0..1 spread, c: one sample, d: 4 = 4
    flags = zero_advantage_groups(REWARDS, GROUPS)
    assert flags.dtype == bool
    assert flags.tolist() == [False, False, True, True]
    assert zero_advantage_rate(REWARDS, GROUPS) == 2 / 4


def test_zero_advantage_atol():
    # spread 1e-9: degenerate only once atol reaches it
    assert zero_advantage_groups([1.0, 1.0 + 1e-9], [0, 0]).tolist() == [False]
    assert zero_advantage_groups([1.0, 1.0 + 1e-9], [0, 0], atol=1e-8).tolist() == [True]


def test_reinforce_pp_with_padding():
    rewards = [1.0, 0.0]
    kl = np.array([[0.1, 0.2, 0.3], [0.5, 0.4, 9.9]])  # 9.9 sits on padding: ignored
    mask = np.array([[1, 1, 1], [1, 1, 0]], dtype=bool)
    beta = 0.5
    # row 0 token rewards: −0.05, −0.10, −0.15 + 1 = 0.85 → returns 0.70, 0.75, 0.85
    # row 1 token rewards: −0.25, −0.20 + 0             → returns −0.45, −0.20, (pad)
    returns = np.array([0.70, 0.75, 0.85, -0.45, -0.20])
    mean = (0.70 + 0.75 + 0.85 - 0.45 - 0.20) / 5  # = 1.65 / 5 = 0.33
    # deviations 0.37, 0.42, 0.52, −0.78, −0.53; Σ dev² = 1.473; population var 0.2946
    std = math.sqrt((0.37**2 + 0.42**2 + 0.52**2 + 0.78**2 + 0.53**2) / 5)
    normalised = (returns - mean) / (std + EPS)
    expected = np.array(
        [
            [normalised[0], normalised[1], normalised[2]],
            [normalised[3], normalised[4], 0.0],  # 0 on padding
        ]
    )
    got = reinforce_pp(rewards, kl, mask, beta=beta)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    assert abs(got[mask].mean()) < 1e-12  # normalised over the valid tokens


def test_reinforce_pp_refuses_an_empty_row_and_bad_shapes():
    with pytest.raises(ExecrlError, match="no valid token"):
        reinforce_pp([1.0, 0.0], np.zeros((2, 2)), [[1, 0], [0, 0]], beta=0.1)
    with pytest.raises(ExecrlError, match=r"\(N, T\)"):
        reinforce_pp([1.0], np.zeros((1, 3)), np.ones((1, 2)), beta=0.1)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_a_none_reward_is_refused_not_scored_zero(name):
    lengths = [1, 1, 1] if name == "token_weighted" else None
    with pytest.raises(ExecrlError, match=r"indices \[1\] are None.*Drop"):
        compute_advantages(name, [1.0, None, 0.0], [0, 0, 0], lengths)


def test_none_is_refused_everywhere_else():
    with pytest.raises(ExecrlError, match="inconclusive"):
        zero_advantage_rate([None, 1.0], [0, 0])
    with pytest.raises(ExecrlError, match="inconclusive"):
        reinforce_pp([None], np.zeros((1, 1)), np.ones((1, 1)), beta=0.1)
    with pytest.raises(ExecrlError, match="finite"):
        dr_grpo([float("nan"), 1.0], [0, 0])


def test_compute_advantages_dispatch_and_errors():
    np.testing.assert_allclose(
        compute_advantages("grpo", REWARDS, GROUPS, eps=0.5), grpo(REWARDS, GROUPS, eps=0.5)
    )
    with pytest.raises(ExecrlError, match="unknown advantage estimator 'ppo'"):
        compute_advantages("ppo", REWARDS, GROUPS)
    with pytest.raises(ExecrlError, match="needs lengths"):
        compute_advantages("token_weighted", REWARDS, GROUPS)
    with pytest.raises(ExecrlError, match="does not use lengths"):
        compute_advantages("rloo", REWARDS, GROUPS, LENGTHS)
    with pytest.raises(ExecrlError, match="group_ids must have shape"):
        dr_grpo([1.0, 2.0], [0])


def test_dense_is_the_dense_reward_advantage():
    tensor = PassTensor.from_array([[1, 0], [1, 1], [0, 0]])  # N = 3, |U| = 2, one turn each
    np.testing.assert_array_equal(dense(tensor), dense_rewards(tensor).advantages)
