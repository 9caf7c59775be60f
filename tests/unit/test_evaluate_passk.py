"""Unbiased pass@k against its closed form, and the bootstrap over problems on synthetic data
with a known answer."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from execrl.errors import ExecrlError
from execrl.evaluate import Estimate, bootstrap_ci, pass_at_k, pass_at_k_per_problem
from execrl.evaluate.winrate import win_rate_statistic


def closed_form(n: int, c: int, k: int) -> Fraction:
    """1 − C(n−c, k) / C(n, k), exactly (math.comb is 0 when k > n − c)."""
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def test_pass_at_k_matches_the_closed_form_for_every_n_up_to_20():
    checked = 0
    for n in range(1, 21):
        for c in range(n + 1):
            for k in range(1, n + 1):
                exact = closed_form(n, c, k)
                assert pass_at_k(n, c, k) == pytest.approx(float(exact), abs=1e-12), (n, c, k)
                checked += 1
    assert checked == sum(n * (n + 1) for n in range(1, 21))  # every (n, c, k) was visited


def test_pass_at_1_is_the_fraction_correct_and_pass_at_n_is_any_correct():
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(10, 0, 10) == 0.0
    assert pass_at_k(10, 1, 10) == 1.0
    assert pass_at_k(5, 5, 1) == 1.0


def test_product_form_stays_finite_where_binomials_overflow_floats():
    # C(2000, 1000) ≈ 2e600 does not fit in a float; the product form never forms it.
    n, c, k = 2000, 3, 1000
    exact = closed_form(n, c, k)
    assert pass_at_k(n, c, k) == pytest.approx(float(exact), rel=1e-9)
    # 1 − (1000/2000)(999/1999)(998/1998) by hand
    assert pass_at_k(n, c, k) == pytest.approx(1 - (1000 / 2000) * (999 / 1999) * (998 / 1998))


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4)])
def test_invalid_counts_are_refused(n, c, k):
    with pytest.raises(ExecrlError):
        pass_at_k(n, c, k)


def test_problems_with_fewer_samples_than_k_have_no_value():
    values = pass_at_k_per_problem([(4, 1), (10, 1), (0, 0)], 10)
    assert np.isnan(values[0]) and np.isnan(values[2])
    assert values[1] == pytest.approx(1.0)


# --------------------------------------------------------------------------------------------
# Bootstrap over problems


def test_bootstrap_interval_covers_the_true_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(1)
    truth, covered, runs = 0.3, 0, 200
    for seed in range(runs):
        values = (rng.random(200) < truth).astype(float)  # per-problem pass@1 of 200 problems
        e = bootstrap_ci(values, resamples=400, seed=seed)
        covered += e.low <= truth <= e.high
    # The binomial spread of 200 trials at 95 % is ±3 points; percentile intervals on 200
    # problems run a little narrow.
    assert 0.88 <= covered / runs <= 0.99


def test_bootstrap_interval_shrinks_like_one_over_root_problems():
    rng = np.random.default_rng(2)

    def mean_width(problems: int) -> float:
        widths = []
        for seed in range(40):
            e = bootstrap_ci(rng.random(problems), resamples=400, seed=seed)
            widths.append(e.high - e.low)
        return float(np.mean(widths))

    ratio = mean_width(400) / mean_width(100)
    assert ratio == pytest.approx(0.5, abs=0.07)  # four times the problems: half the width


def test_bootstrap_is_seeded_and_leaves_out_undefined_problems():
    values = np.array([1.0, 0.0, np.nan, 1.0, 1.0])
    a = bootstrap_ci(values, resamples=300, seed=7)
    b = bootstrap_ci(values, resamples=300, seed=7)
    assert a == b
    assert a.problems == 4 and a.value == pytest.approx(0.75)
    assert 0.0 <= a.low <= a.value <= a.high <= 1.0
    empty = bootstrap_ci(np.array([np.nan]))
    assert empty.problems == 0 and math.isnan(empty.value) and empty.format() == "—"


def test_a_constant_metric_has_a_zero_width_interval():
    e = bootstrap_ci(np.full(30, 0.25), resamples=200)
    assert (e.value, e.low, e.high) == (0.25, 0.25, 0.25)
    assert str(e) == "0.250 [0.250, 0.250]"


def test_win_rate_statistic_excludes_draws_in_every_resample():
    verdicts = np.array([1, 1, -1, 0, 0, 0], dtype=float)
    e = bootstrap_ci(verdicts, statistic=win_rate_statistic, resamples=500, seed=0)
    assert e.value == pytest.approx(2 / 3)  # draws do not dilute the rate
    assert Estimate(*(e.value, e.low, e.high), e.problems).problems == 6
    all_draws = bootstrap_ci(np.zeros(4), statistic=win_rate_statistic)
    assert math.isnan(all_draws.value)
