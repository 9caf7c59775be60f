"""The per-machine exchange rate between counts and CPU seconds (``fit_count_rate``), and
calibration between two counted campaigns (a ratio of ~1: counts do not depend on the machine)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from execrl.errors import DataError, ExecrlError
from execrl.sandbox.counting import seconds_as
from execrl.sandbox.records import Status
from execrl.timing.calibration import (
    calibrate,
    fit_count_rate,
    load_count_rate,
    pair_campaigns,
    save_count_rate,
)
from execrl.timing.store import DurationStore
from tests.unit.timing_counts._counted import counted_campaign, measurement, ok

RATE = 2.5e9
"""Instructions per CPU second of the toy machine."""


def noisy_campaign(rate: float = RATE, *, noise: float = 0.2, seed: int = 0, reruns: int = 3):
    """60 triples over 4 problems, counts 10^6 … 10^10; each rerun's CPU time is the count at
    ``rate`` times a log-normal noise of std ``noise`` (the clock's), the count exact."""
    rng = np.random.default_rng(seed)
    ms = []
    for i in range(60):
        count = int(10 ** rng.uniform(6.5, 10))
        cpu = [count / rate * math.exp(rng.normal(0, noise)) for _ in range(reruns)]
        ms.append(measurement((f"p{i % 4}", f"t{i % 5}", f"r{i}"), [ok(t, count) for t in cpu]))
    return counted_campaign(f"toy-{seed}", ms)


def test_a_known_rate_is_recovered_within_5_percent_under_clock_noise():
    rate = fit_count_rate(noisy_campaign())
    assert rate.timing == "instructions"
    assert rate.per_second == pytest.approx(RATE, rel=0.05)
    # each triple's median of 3 reruns at 20 % noise: a spread of ~0.12 in log space
    assert 0.05 < rate.log_spread < 0.25
    assert rate.points == 60
    assert rate.fitted_on == ["toy-0"]
    assert rate.seconds_as(2.0) == pytest.approx(seconds_as(2.0, "instructions", rate.per_second))


def test_an_exact_rate_has_no_spread_and_an_outlier_does_not_move_it():
    ms = [measurement(("p", f"t{i}", "a"), [ok(0.01 * (i + 1), 10**7 * (i + 1))]) for i in range(9)]
    ms.append(measurement(("p", "slow", "a"), [ok(5.0, 10**7)]))  # a stalled rerun
    rate = fit_count_rate(ms)
    assert rate.per_second == pytest.approx(1e9)
    assert rate.log_spread == pytest.approx(0.0, abs=1e-12)


def test_tiny_cpu_times_and_unpassed_reruns_are_left_out():
    ms = [
        measurement(("p", "t", "a"), [ok(0.5, 5 * 10**8)]),
        measurement(("p", "u", "a"), [ok(0.0001, 10**9)]),  # under 1 ms: clock resolution
        measurement(("p", "v", "a"), [(Status.TIMEOUT, 9.0, None)]),
    ]
    rate = fit_count_rate(ms)
    assert (rate.points, rate.per_second) == (1, pytest.approx(1e9))


def test_no_measurement_with_both_values_is_a_one_line_error():
    ms = [measurement(("p", "t", "a"), [ok(0.5, None), (Status.WRONG_ANSWER, 0.1, None)])]
    with pytest.raises(DataError) as err:
        fit_count_rate(counted_campaign("empty", ms))
    message = str(err.value)
    assert "campaign empty" in message and "--timing instructions" in message
    assert "\n" not in message
    with pytest.raises(ExecrlError, match="counted timing"):
        fit_count_rate(ms, "cpu")


def test_a_rate_is_saved_and_loaded_in_the_store(tmp_path):
    store = DurationStore(tmp_path)
    rate = fit_count_rate(noisy_campaign())
    path = save_count_rate(store, rate, "toy-0")
    assert path == tmp_path / "calibrations" / "rates" / "toy-0.json"
    assert load_count_rate(store, "toy-0") == rate
    with pytest.raises(ExecrlError, match="have: toy-0"):
        load_count_rate(store, "other")


def test_counted_campaigns_of_two_machines_calibrate_to_a_ratio_of_one():
    """The same counts measured on a machine twice as fast: CPU times halve, counts do not."""
    here, there = noisy_campaign(seed=1), noisy_campaign(rate=2 * RATE, seed=1, noise=0.0)
    pairs = pair_campaigns(here, there, timing="instructions")
    assert len(pairs) == 60
    assert np.array_equal(pairs.stored_s, pairs.fresh_s)
    report = calibrate(here, there, timing="instructions")
    assert report.chosen.kind == "multiplicative"
    assert report.chosen.params[0] == pytest.approx(1.0)
    assert report.rmse_label == "RMSE instructions"
    assert "s in instructions" in report.to_markdown()
    # the rates of the two machines differ by the speed
    ratio = fit_count_rate(there).per_second / fit_count_rate(here).per_second
    assert ratio == pytest.approx(2.0, rel=0.1)
