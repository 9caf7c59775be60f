"""Every formula of the dense reward (spec dense-rewards.md) on small groups computed by hand.

Expected values are written as the arithmetic that produces them (``math.exp``, fractions), with
the steps in comments, so each number can be checked on paper.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import ValidationError

from execrl.errors import ExecrlError, ExecutionError
from execrl.rewards.dense import DenseRewardConfig, PassTensor, dense_rewards, kde_density
from execrl.rewards.signal_metrics import degenerate_group_ratio, difficulty_skew
from execrl.sandbox.records import ExecutionRecord, Status, TestResult

DELTA = 1e-6
GAMMA = 0.95

# A padded multi-turn group: T_max = 2, N = 2, |U| = 3, turns = [2, 1].
#   trajectory 0, turn 1: [1, 0, 0]    turn 2: [1, 1, 0]
#   trajectory 1, turn 1: [0, 1, 1]    turn 2: padding (all ones here, must be ignored)
PADDED = np.array(
    [
        [[1, 0, 0], [0, 1, 1]],  # t = 1, indexed [i, j]
        [[1, 1, 0], [1, 1, 1]],  # t = 2; [1, 1, 1] is trajectory 1's padding
    ]
)
# M = 2 + 1 = 3 real turns. Passes per test over those 3 turns: test 0: 1 + 1 + 0 = 2,
# test 1: 0 + 1 + 1 = 2, test 2: 0 + 0 + 1 = 1  →  ρ = [2/3, 2/3, 1/3].
RHO = np.array([2 / 3, 2 / 3, 1 / 3])


def padded() -> PassTensor:
    return PassTensor.from_array(PADDED, turns=[2, 1])


# -- pass rates ------------------------------------------------------------------------------
def test_pass_rates_over_all_real_turns_ignore_padding():
    tensor = padded()
    assert tensor.total_turns == 3
    np.testing.assert_allclose(tensor.pass_rates(), RHO)
    # The padding is stored as False, so it cannot leak into any later sum.
    assert not tensor.passes[1, 1].any()
    np.testing.assert_array_equal(tensor.mask, [[True, True], [True, False]])


def test_single_turn_array_is_one_turn_per_trajectory():
    tensor = PassTensor.from_array([[1, 0], [1, 1], [0, 0]])  # (N = 3, |U| = 2)
    assert tensor.passes.shape == (1, 3, 2)
    np.testing.assert_array_equal(tensor.turns, [1, 1, 1])
    np.testing.assert_allclose(tensor.pass_rates(), [2 / 3, 1 / 3])


def test_padding_may_hold_anything():
    passes = PADDED.astype(float)
    passes[1, 1] = np.nan  # not a 0/1 value, but padding
    np.testing.assert_allclose(PassTensor.from_array(passes, turns=[2, 1]).pass_rates(), RHO)


# -- KDE density -----------------------------------------------------------------------------
def test_kde_fixed_bandwidth():
    # σ = 0.5: the two distinct rates are 1/3 apart, so the cross term is
    # K = exp(−(1/3)² / (2·0.5²)) = exp(−(1/9)/(1/2)) = exp(−2/9) ≈ 0.800737.
    k = math.exp(-2 / 9)
    density, sigma = kde_density(RHO, 0.5)
    assert sigma == 0.5
    # N̂(2/3) = 1 (itself) + 1 (the other 2/3) + K;  N̂(1/3) = K + K + 1.
    np.testing.assert_allclose(density, [2 + k, 2 + k, 1 + 2 * k])
    np.testing.assert_allclose(density, [2.800737, 2.800737, 2.601475], atol=1e-6)


def test_kde_adaptive_bandwidth_is_half_the_population_std():
    # mean ρ = (2/3 + 2/3 + 1/3)/3 = 5/9; deviations 1/9, 1/9, −2/9;
    # population variance = (1 + 1 + 4)/81 / 3 = 2/81; std = √2/9; σ = √2/18 ≈ 0.0785674.
    # Cross term: exp(−(1/3)² / (2σ²)) = exp(−(1/9) / (4/324)) = exp(−9).
    density, sigma = kde_density(RHO, "adaptive")
    assert sigma == pytest.approx(math.sqrt(2) / 18)
    k = math.exp(-9)
    np.testing.assert_allclose(density, [2 + k, 2 + k, 1 + 2 * k])
    # (The sample std, ddof = 1, would give σ = √3/18 and exp(−6) instead.)


def test_kde_zero_spread_guard_gives_every_test_density_U():
    # Every ρ_j = 1/2: std = 0, so the adaptive σ is 0. For any σ > 0 every exp term would be
    # exp(0) = 1, so N̂ = |U| = 4 for every test; that value is returned without a 0/0.
    rates = np.full(4, 0.5)
    density, sigma = kde_density(rates, "adaptive")
    assert sigma == 0.0
    np.testing.assert_array_equal(density, [4.0, 4.0, 4.0, 4.0])
    density, sigma = kde_density(rates, 0.1)  # the fixed bandwidth gives the same
    assert sigma == 0.1
    np.testing.assert_array_equal(density, [4.0, 4.0, 4.0, 4.0])


def test_zero_spread_guard_through_dense_rewards():
    # N = 2, |U| = 2: [1, 0] and [0, 1]  →  ρ = [1/2, 1/2], N̂ = 2, w' = e^{−1}/(2 + δ).
    result = dense_rewards(PassTensor.from_array([[1, 0], [0, 1]]))
    assert result.bandwidth == 0.0
    w = math.exp(-1) / (2 + DELTA)
    np.testing.assert_allclose(result.weights, [w, w])
    np.testing.assert_allclose(result.turn_rewards, [[w, w]])
    np.testing.assert_allclose(result.turn_advantages, [[0.0, 0.0]])
    # One test only: std is 0 as well, N̂ = 1.
    single = dense_rewards(PassTensor.from_array([[1], [0]]))
    np.testing.assert_allclose(single.density, [1.0])


# -- weights and the three variants -------------------------------------------------------
def test_calibrated_weights_and_turn_rewards():
    # Adaptive σ (above): N̂ = [2 + e^{−9}, 2 + e^{−9}, 1 + 2e^{−9}].
    # w = exp(−2ρ) = [e^{−4/3}, e^{−4/3}, e^{−2/3}] ≈ [0.263597, 0.263597, 0.513417].
    # w' = w / (N̂ + δ) ≈ [0.263597/2.000124, …, 0.513417/1.000247] ≈ [0.131790, …, 0.513290].
    result = dense_rewards(padded())
    w_easy = math.exp(-4 / 3) / (2 + math.exp(-9) + DELTA)
    w_hard = math.exp(-2 / 3) / (1 + 2 * math.exp(-9) + DELTA)
    np.testing.assert_allclose(result.weights, [w_easy, w_easy, w_hard])
    np.testing.assert_allclose(result.weights, [0.131790, 0.131790, 0.513290], atol=1e-6)
    # R_turn[t, i]: (t=1, i=0) passes test 0 → w_easy; (t=2, i=0) tests 0, 1 → 2·w_easy;
    # (t=1, i=1) tests 1, 2 → w_easy + w_hard; (t=2, i=1) is padding → NaN.
    expected = np.array([[w_easy, w_easy + w_hard], [2 * w_easy, np.nan]])
    np.testing.assert_allclose(result.turn_rewards, expected)


def test_difficulty_variant_has_no_density():
    # w = exp(−2ρ): [e^{−4/3}, e^{−4/3}, e^{−2/3}].
    config = DenseRewardConfig(variant="difficulty")
    result = dense_rewards(padded(), config)
    a, b = math.exp(-4 / 3), math.exp(-2 / 3)
    np.testing.assert_allclose(result.weights, [a, a, b])
    np.testing.assert_allclose(result.turn_rewards, [[a, a + b], [2 * a, np.nan]])


def test_raw_variant_is_the_pass_rate_of_the_turn():
    # w = 1/|U| = 1/3: R_turn = (tests passed)/3.
    result = dense_rewards(padded(), DenseRewardConfig(variant="raw"))
    np.testing.assert_allclose(result.weights, [1 / 3, 1 / 3, 1 / 3])
    np.testing.assert_allclose(result.turn_rewards, [[1 / 3, 2 / 3], [2 / 3, np.nan]])


def test_alpha_and_delta_enter_the_weights():
    # α = 1, δ = 0.5, σ = 0.5 (fixed): N̂ = [2 + K, 2 + K, 1 + 2K] with K = exp(−2/9);
    # w' = [e^{−2/3}/(2 + K + 0.5), …, e^{−1/3}/(1 + 2K + 0.5)].
    config = DenseRewardConfig(alpha=1.0, delta=0.5, bandwidth=0.5)
    k = math.exp(-2 / 9)
    result = dense_rewards(padded(), config)
    easy = math.exp(-2 / 3) / (2.5 + k)
    hard = math.exp(-1 / 3) / (1.5 + 2 * k)
    np.testing.assert_allclose(result.weights, [easy, easy, hard])


def test_worked_example_calibrated_prefers_few_hard_tests():
    # docs/dense-rewards.md: X passes the 2 hard tests, Y, Z, W the 6 easy ones.
    # ρ_hard = 1/4, ρ_easy = 3/4. Raw: X = 2/8 < Y = 6/8. Difficulty: X = 2e^{−1/2} ≈ 1.2131
    # < Y = 6e^{−3/2} ≈ 1.3388. Calibrated: X ≈ 2e^{−1/2}/2 ≈ 0.6065 > Y ≈ 6e^{−3/2}/6 ≈ 0.2231.
    x = [1, 1, 0, 0, 0, 0, 0, 0]
    y = [0, 0, 1, 1, 1, 1, 1, 1]
    tensor = PassTensor.from_array([x, y, y, y])
    r = {
        variant: dense_rewards(tensor, DenseRewardConfig(variant=variant)).turn_rewards[0]
        for variant in ("raw", "difficulty", "calibrated")
    }
    assert r["raw"][0] < r["raw"][1]
    assert r["difficulty"][0] < r["difficulty"][1]
    assert r["calibrated"][0] > r["calibrated"][1]
    np.testing.assert_allclose(r["difficulty"][:2], [2 * math.exp(-0.5), 6 * math.exp(-1.5)])
    np.testing.assert_allclose(r["calibrated"][:2], [0.6065, 0.2231], atol=1e-4)


# -- trajectory reward and γ decay ---------------------------------------------------------------
def test_gamma_decay_with_one_two_and_four_turns():
    # T_max = 4, N = 4, |U| = 2, turns = [1, 2, 4, 3]. Trajectories 0–2 pass both tests on
    # their final turn; trajectory 3's final turn (turn 3) fails test 1.
    passes = np.zeros((4, 4, 2), dtype=int)
    passes[0, 0] = [1, 1]  # solved at turn 1
    passes[:2, 1] = [[1, 0], [1, 1]]  # solved at turn 2
    passes[:4, 2] = [[0, 0], [1, 0], [0, 1], [1, 1]]  # solved at turn 4
    passes[:3, 3] = [[1, 1], [1, 1], [1, 0]]  # passed everything earlier, not at the end
    result = dense_rewards(PassTensor.from_array(passes, turns=[1, 2, 4, 3]))
    np.testing.assert_array_equal(result.solved, [True, True, True, False])
    # R̃ = γ^{|τ|}: 0.95, 0.95² = 0.9025, 0.95⁴ = 0.81450625; the unsolved one 0.
    np.testing.assert_allclose(result.trajectory_rewards, [0.95, 0.9025, 0.81450625, 0.0])
    # mean = (0.95 + 0.9025 + 0.81450625 + 0)/4 = 0.6667515625
    mean = 0.6667515625
    np.testing.assert_allclose(
        result.trajectory_advantages, [0.95 - mean, 0.9025 - mean, 0.81450625 - mean, -mean]
    )


def test_gamma_one_means_no_decay():
    passes = np.ones((2, 2, 1), dtype=int)
    result = dense_rewards(PassTensor.from_array(passes, turns=[1, 2]), DenseRewardConfig(gamma=1))
    np.testing.assert_allclose(result.trajectory_rewards, [1.0, 1.0])


# -- advantages --------------------------------------------------------------------------------
# T_max = 2, N = 2, |U| = 2, turns = [2, 1]; the raw variant keeps the numbers round.
#   trajectory 0: turn 1 [0, 1], turn 2 [1, 1] (solved in 2 turns)
#   trajectory 1: turn 1 [1, 1]               (solved in 1 turn)
ADV = np.array([[[0, 1], [1, 1]], [[1, 1], [0, 0]]])
RAW = DenseRewardConfig(variant="raw")


def test_local_global_and_combined_advantages_with_beta():
    config = RAW.model_copy(update={"beta": 0.5})
    result = dense_rewards(PassTensor.from_array(ADV, turns=[2, 1]), config)
    # R_turn: (t1, i0) = 1/2, (t2, i0) = 1, (t1, i1) = 1; mean over the M = 3 real turns = 5/6.
    np.testing.assert_allclose(result.turn_rewards, [[0.5, 1.0], [1.0, np.nan]])
    # A_turn = R_turn − 5/6: −1/3, 1/6, 1/6.
    np.testing.assert_allclose(result.turn_advantages, [[-1 / 3, 1 / 6], [1 / 6, np.nan]])
    # R̃ = [γ², γ] = [0.9025, 0.95]; mean 0.92625; A_traj = [−0.02375, +0.02375].
    np.testing.assert_allclose(result.trajectory_advantages, [-0.02375, 0.02375])
    # A = A_traj + 0.5·A_turn: (t1, i0) = −0.02375 − 1/6, (t2, i0) = −0.02375 + 1/12,
    # (t1, i1) = 0.02375 + 1/12.
    np.testing.assert_allclose(
        result.advantages,
        [[-0.02375 - 1 / 6, 0.02375 + 1 / 12], [-0.02375 + 1 / 12, np.nan]],
    )
    np.testing.assert_array_equal(np.isnan(result.advantages), ~result.mask)


def test_std_normalisation_uses_the_population_std_of_each_part():
    config = RAW.model_copy(update={"beta": 0.5, "normalise_std": True})
    result = dense_rewards(PassTensor.from_array(ADV, turns=[2, 1]), config)
    eps = 1e-6
    # std of R_turn over the 3 real turns (ddof 0): deviations −1/3, 1/6, 1/6 →
    # variance (4/36 + 1/36 + 1/36)/3 = 1/18 → std = 1/√18 ≈ 0.235702.
    s_turn = 1 / math.sqrt(18) + eps
    # std of R̃ over the 2 trajectories: deviations ∓0.02375 → std = 0.02375.
    s_traj = 0.02375 + eps
    a_turn = np.array([[-1 / 3, 1 / 6], [1 / 6, np.nan]]) / s_turn  # ≈ −1.41421, 0.70711
    a_traj = np.array([-0.02375, 0.02375]) / s_traj  # ≈ ∓0.999958
    np.testing.assert_allclose(result.turn_advantages, a_turn)
    np.testing.assert_allclose(result.trajectory_advantages, a_traj)
    np.testing.assert_allclose(result.advantages, a_traj[None, :] + 0.5 * a_turn)


def test_std_normalisation_of_a_degenerate_group_gives_zero_not_nan():
    config = DenseRewardConfig(normalise_std=True)
    result = dense_rewards(PassTensor.from_array([[1, 1], [1, 1]]), config)
    np.testing.assert_array_equal(result.advantages, [[0.0, 0.0]])


# -- from ExecutionRecords -------------------------------------------------------------------
def _record(statuses: dict[str, Status]) -> ExecutionRecord:
    return ExecutionRecord(
        problem_id="p",
        program_sha256="0" * 64,
        results=[TestResult(test_id=tid, status=s) for tid, s in statuses.items()],
    )


S, WA, TLE, RE = Status.SUCCESS, Status.WRONG_ANSWER, Status.TIMEOUT, Status.RUNTIME_ERROR


def test_records_to_tensor_follow_the_order_of_test_ids():
    trajectories = [
        [
            _record({"b": S, "a": WA, "c": TLE}),  # results in another order than U
            _record({"a": S, "b": S, "c": RE, "extra": S}),  # a test outside U is ignored
        ],
        [_record({"a": S, "b": WA, "c": S})],
    ]
    tensor = PassTensor.from_records(trajectories, ["a", "b", "c"])
    assert tensor.test_ids == ("a", "b", "c")
    np.testing.assert_array_equal(tensor.turns, [2, 1])
    np.testing.assert_array_equal(
        tensor.passes,
        [
            [[False, True, False], [True, False, True]],
            [[True, True, False], [False, False, False]],  # trajectory 1's turn 2: padding
        ],
    )


def test_missing_test_tells_the_user_to_run_all_tests():
    early_stop = _record({"a": S, "b": WA})  # stopped before "c"
    with pytest.raises(ExecrlError, match=r"trajectories\[1\]\[0\].*'c'") as info:
        PassTensor.from_records([[_record({"a": S, "b": S, "c": S})], [early_stop]], "abc")
    assert "stop_at_first_failure=False" in str(info.value)


def test_inconclusive_result_raises_naming_the_test():
    record = _record({"a": S, "b": Status.INCONCLUSIVE})
    with pytest.raises(ExecutionError, match=r"trajectories\[0\]\[1\]: test 'b' is inconclusive"):
        PassTensor.from_records([[_record({"a": S, "b": S}), record]], ["a", "b"])
    assert issubclass(ExecutionError, ExecrlError)


@pytest.mark.parametrize(
    ("passes", "turns", "message"),
    [
        (np.zeros((2, 3)), [2, 1, 1], "turns must be 2 integers"),
        (np.zeros((2, 2, 3)), [0, 1], r"must lie in \[1, 2\]"),
        (np.zeros((2, 2, 3)), [3, 1], r"must lie in \[1, 2\]"),
        (np.full((1, 2, 3), 0.5), None, "0 or 1"),
        (np.zeros((1, 2, 0)), None, "every size ≥ 1"),
    ],
)
def test_invalid_arrays_are_rejected(passes, turns, message):
    with pytest.raises(ExecrlError, match=message):
        PassTensor.from_array(passes, turns)


def test_invalid_records_input_is_rejected():
    with pytest.raises(ExecrlError, match="unique"):
        PassTensor.from_records([[_record({"a": S})]], ["a", "a"])
    with pytest.raises(ExecrlError, match="at least one trajectory"):
        PassTensor.from_records([[]], ["a"])


def test_config_defaults_and_validation():
    config = DenseRewardConfig()
    assert (config.alpha, config.gamma, config.beta, config.delta) == (2.0, 0.95, 1.0, 1e-6)
    assert (config.bandwidth, config.variant, config.normalise_std) == (
        "adaptive",
        "calibrated",
        False,
    )
    for bad in ({"bandwidth": 0.0}, {"gamma": 0.0}, {"delta": 0.0}, {"variant": "binary"}):
        with pytest.raises(ValidationError):
            DenseRewardConfig(**bad)


# -- signal metrics (execrl.rewards.signal_metrics) ----------------------------------------
def test_degenerate_group_ratio_by_hand():
    groups = [
        [1.0, 1.0, 1.0],  # binary, all solved: degenerate
        [0.0, 1.0, 0.0],  # carries signal
        [-1.0, -1.0],  # a composition's reward, all −1: degenerate
        [0.25, 0.25 + 1e-15],  # equal within atol = 1e-12: degenerate
        [0.5, None, 0.5],  # None (inconclusive) left out: degenerate
        [0.2, float("nan"), 0.3],  # NaN (a padded turn) left out: signal
    ]
    # 4 degenerate of 6 groups.
    assert degenerate_group_ratio(groups) == pytest.approx(4 / 6)
    assert degenerate_group_ratio(groups, atol=0.0) == pytest.approx(3 / 6)
    assert degenerate_group_ratio([[None, None], [1.0]]) == 1.0  # the all-None group not counted
    with pytest.raises(ExecrlError, match="no group"):
        degenerate_group_ratio([[None]])


def test_degenerate_group_ratio_of_dense_turn_rewards():
    # The worked example: nobody passes all 8 tests, so the binary reward is 0 for all four
    # (degenerate); the calibrated turn rewards differ (X ≈ 0.6065, Y ≈ 0.2231).
    x, y = [1, 1, 0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 1, 1, 1, 1]
    result = dense_rewards(PassTensor.from_array([x, y, y, y]))
    assert degenerate_group_ratio([[float(all(p)) for p in (x, y, y, y)]]) == 1.0
    assert degenerate_group_ratio([result.turn_rewards.ravel()]) == 0.0
    padded_result = dense_rewards(padded())  # NaN in the padded slot is ignored
    assert degenerate_group_ratio([padded_result.turn_rewards.ravel()]) == 0.0


def test_difficulty_skew_by_hand():
    skew = difficulty_skew([[0.9, 0.8, 1.0, 0.1], [0.85], [0.0, 0.5]])
    # Problem 0: 0.9 and 1.0 are > 0.8 (0.8 itself is not) → 2/4; problem 1: 1/1; problem 2: 0/2.
    assert skew.per_problem == (0.5, 1.0, 0.0)
    assert skew.mean == pytest.approx(0.5)  # (0.5 + 1 + 0)/3
    assert difficulty_skew([[0.9, 0.8, 1.0, 0.1]], threshold=0.5).per_problem == (0.75,)
    # From a pass tensor: ρ = [2/3, 2/3, 1/3], none above 0.8; above 0.5: 2 of 3.
    assert difficulty_skew([padded().pass_rates()], threshold=0.5).mean == pytest.approx(2 / 3)
    with pytest.raises(ExecrlError, match="no tests"):
        difficulty_skew([[0.5], []])
    with pytest.raises(ExecrlError, match=r"\[0, 1\]"):
        difficulty_skew([[1.5]])
    with pytest.raises(ExecrlError, match="no problems"):
        difficulty_skew([])
