"""The drift monitor on counts: identical counts never drift, a changed count does (only a
change of the build can change one), and the band of a counted calibration is ~0 wide."""

from __future__ import annotations

import numpy as np
import pytest

from execrl.errors import DataError
from execrl.timing.calibration import fit_map
from execrl.timing.drift import compare_sentinels, default_sentinels, residual_log_std
from tests.unit.timing_counts._counted import counted_campaign, measurement, ok


def campaign(campaign_id: str, scale: float = 1.0, cpu_scale: float = 1.0):
    ms = [
        measurement(
            (f"p{p}", f"t{t}", ref),
            [ok(cpu_scale * base * 1e-9, round(scale * base)) for _ in range(2)],
        )
        for p in range(2)
        for t in range(3)
        for ref, base in (("fast", 10**7 * (t + 1)), ("slow", 10**8 * (t + 1)))
    ]
    return counted_campaign(campaign_id, ms)


def test_counts_on_a_slower_machine_do_not_drift_but_a_new_build_does():
    stored = campaign("stored")
    identity = fit_map("multiplicative", np.ones(3), np.ones(3), timing="instructions")
    assert residual_log_std(identity, stored, campaign("again"), timing="instructions") == 0
    sentinels = default_sentinels(stored, timing="instructions")
    assert sentinels == [("p0", "fast"), ("p0", "slow"), ("p1", "fast"), ("p1", "slow")]
    slower = campaign("slower machine", cpu_scale=3.0)  # the clocks triple, the counts do not
    report = compare_sentinels(stored, slower, identity, 0.01, sentinels, timing="instructions")
    assert not report.drifted
    assert all(s.ratio == pytest.approx(1.0) for s in report.sentinels)
    assert "instructions, band" in report.to_markdown()
    rebuilt = campaign("new interpreter", scale=1.05)
    report = compare_sentinels(stored, rebuilt, identity, 0.01, sentinels, timing="instructions")
    assert report.drifted
    assert all(s.ratio == pytest.approx(1.05, rel=1e-6) for s in report.sentinels)


def test_sentinels_of_a_clock_campaign_cannot_be_read_as_counts():
    counted = campaign("stored")
    uncounted = [m.model_copy(update={"instructions": None}) for m in counted.measurements]
    stored = counted.model_copy(update={"measurements": uncounted})
    with pytest.raises(DataError, match="no passing test was counted"):
        default_sentinels(stored, timing="instructions")
