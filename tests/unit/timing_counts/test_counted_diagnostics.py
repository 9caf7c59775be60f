"""Noise diagnostics of a counted campaign: the count is reported beside CPU and wall time, in
its unit, and identical counts have a CV of 0 while the clocks vary."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from execrl.sandbox.records import Status
from execrl.timing.contention import ContentionReport, load_result
from execrl.timing.diagnostics import diagnose
from execrl.timing.report import write_report
from tests.unit.timing_counts._counted import MACHINE, counted_campaign, measurement, ok


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


def test_the_contention_table_shows_the_count_beside_the_clocks():
    result = load_result(1.0, 2, diagnose(campaign()), started=0.0)
    assert (result.count_std_mean, result.count_test_cv_median) == (0, 0)
    assert result.cpu_std_mean > 0
    report = ContentionReport(
        created_at=datetime(2026, 12, 1, tzinfo=UTC), machine=MACHINE, problems=["p"],
        reruns=3, max_tests=2, workers=1, results=[result], timing="instructions",
    )  # fmt: skip
    header, (row,) = report.table()
    assert row[header.index("instructions std median / mean (pts)")] == "0.00 / 0.00"
    assert row[header.index("test CV instructions")] == "0.000"
    clock_only = report.model_copy(update={"timing": "cpu"})
    assert not any("instructions" in h for h in clock_only.table()[0])


def test_the_html_report_of_a_counted_campaign_labels_counts(tmp_path):
    pytest.importorskip("matplotlib")
    path = write_report(campaign(), tmp_path)
    html = path.read_text()
    assert "timing instructions" in html and "median instructions" in html
    assert (tmp_path / "noise.png").stat().st_size > 0


def test_the_html_report_of_a_campaign_where_nothing_passed_is_written(tmp_path):
    """No test passed, so no median is positive: the CV plot stays linear instead of raising
    matplotlib's ValueError for a log axis with no positive value."""
    pytest.importorskip("matplotlib")
    failed = [(Status.TIMEOUT, 1.0, None)]
    ms = [measurement(("p", "t1", ref), failed) for ref in ("a", "b")]
    path = write_report(counted_campaign("nothing-passed", ms), tmp_path)
    assert "Timing report: nothing-passed" in path.read_text()
    assert (tmp_path / "noise.png").stat().st_size > 0
