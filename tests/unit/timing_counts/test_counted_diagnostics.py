"""Noise diagnostics of a counted campaign: the count is reported beside CPU and wall time, in
its unit, and identical counts have a CV of 0 while the clocks vary."""

from __future__ import annotations

import math

import pytest

from execrl.timing.diagnostics import diagnose
from tests.unit.timing_counts._counted import counted_campaign, measurement, ok


def campaign():
    """Three references on two tests, 3 reruns: counts exact, CPU times jittered so that the
    clock reorders b and c on one rerun."""
    ms = []
    for test, scale in (("t1", 1), ("t2", 10)):
        for ref, count, cpu in (
            ("a", 1_000_000, (0.010, 0.011, 0.009)),
            ("b", 2_000_000, (0.020, 0.031, 0.019)),
            ("c", 3_000_000, (0.030, 0.029, 0.031)),
        ):
            reruns = [ok(t * scale, count * scale) for t in cpu]
            ms.append(measurement(("p", test, ref), reruns))
    return counted_campaign("counted", ms)


def test_counts_are_reported_beside_the_clocks_with_a_cv_of_zero():
    report = diagnose(campaign())
    assert report.counted == "instructions"
    assert report.timings == ("cpu", "wall", "instructions")
    t1 = next(t for t in report.tests if t.test_id == "t1")
    assert (t1.cv_count, t1.std_count, t1.cv_count_max) == (0, 0, 0)
    assert t1.median_count == 2_000_000
    assert t1.cv_cpu > 0
    by_ref = {s.reference: s for s in report.solutions}
    assert [by_ref[r].mean_count for r in "abc"] == [0, 50, 100]
    assert all(by_ref[r].std_count == 0 for r in "abc")
    assert by_ref["b"].std_cpu > 0  # the clock moved b past c once
    assert report.ordering[0].spearman_count == 1
    assert report.summary("instructions")["solution_std_max"] == 0


def test_tables_label_counts_in_their_unit_never_in_seconds():
    report = diagnose(campaign())
    tables = {title: (header, rows) for title, header, rows in report.tables()}
    header, rows = tables["rerun noise per test (mean over its references)"]
    assert "median instructions" in header and "CV instructions" in header
    assert not any("instructions" in h and ("ms" in h or h.endswith(" s")) for h in header)
    row = rows[0]
    assert row[header.index("median instructions")] == "2,000,000"
    assert row[header.index("std instructions")] == "0"
    _, summary_rows = tables["summary"]
    assert [r[0] for r in summary_rows] == ["cpu", "wall", "instructions"]
    assert "instructions" in report.to_markdown()


def test_a_clock_campaign_reports_no_count():
    c = campaign().model_copy(deep=True)
    c.info.settings = c.info.settings.model_copy(update={"timing": "cpu"})
    report = diagnose(c)
    assert report.counted is None
    assert report.timings == ("cpu", "wall")
    assert all(t.cv_count is None for t in report.tests)


def test_a_counted_campaign_whose_counts_are_missing_reports_only_the_clocks():
    ms = [measurement(("p", "t", r), [ok(0.1, None), ok(0.2, None)]) for r in "ab"]
    report = diagnose(counted_campaign("uncounted", ms))
    assert report.counted is None
    assert math.isfinite(report.tests[0].cv_cpu)
    assert report.tests[0].cv_cpu == pytest.approx(0.4714, abs=1e-3)
