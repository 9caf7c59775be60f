"""The 17 ranking metrics of spec §3 against values worked out by hand, plus the screening
arithmetic on hand-made records."""

from __future__ import annotations

from math import log, nan

import numpy as np
import pytest

from execrl.envs.metrics import (
    HIGHER_IS_BETTER,
    RANKING_METRICS,
    affine_slope_percentile,
    average_rank_percentiles,
    filtered_percentiles,
    log_mean_percentile,
    mean_percentile,
    origin_slope_percentile,
    rank_metrics,
    trimmed_mean_percentile,
)
from execrl.envs.screening import (
    ScreeningReport,
    plot_screening,
    problem_durations,
    screen_metrics,
)
from execrl.errors import ExecrlError
from execrl.problems.models import Problem, Reference, StdioTest, TestGroup
from execrl.sandbox.records import ExecutionRecord, TestResult, Timing

# Example A: 3 usable tests x 4 references, plus two tests that must be skipped.
#   t0: D = {1, 2, 3, 4},    δ = 2.5 -> 2 below, 0 equal         -> p = 2/4 = 0.5
#   t1: D = {2, 2, 4} (ref 3 missing), δ = 2 -> 0 below, 2 equal  -> p = (0 + 2/2)/3 = 1/3
#       (as ranks: {2, 2, 2δ, 4}, the 2s hold ranks 1..3, average 2, (2-1)/(4-1) = 1/3)
#   t2: D = {1, 3, 5, 7},    δ = 7.5 -> 4 below                 -> p = 1
#   t3: no reference at all -> skipped;  t4: δ = NaN -> skipped.
DELTA_A = np.array([2.5, 2.0, 7.5, 0.1, nan])
D_A = np.array(
    [
        [1.0, 2.0, 3.0, 4.0],
        [2.0, 2.0, 4.0, nan],
        [1.0, 3.0, 5.0, 7.0],
        [nan, nan, nan, nan],
        [1.0, 1.0, 1.0, 1.0],
    ]
)
P_A = [0.5, 1 / 3, 1.0]


def test_per_test_percentile_uses_the_average_tied_rank_and_skips_unusable_tests():
    assert average_rank_percentiles(DELTA_A, D_A) == pytest.approx(P_A)


def test_example_a_by_hand():
    got = rank_metrics(DELTA_A, D_A)
    expected = {
        # 100 * (0.5 + 1/3 + 1) / 3 = 100 * 11/18
        "mean_percentile": 100 * 11 / 18,
        # sorted {1/3, 0.5, 1} -> 0.5
        "median_percentile": 50.0,
        # n = 3 < 5: the plain mean
        "trimmed_mean_percentile": 100 * 11 / 18,
        # t0 in log space: 2.5 lies between u=2 (anchor 1 + 1/2 = 1.5) and u=3 (anchor 2.5), a
        # fraction ln(2.5/2)/ln(3/2) of the way -> c = 1.5 + that, p = c/4; t1 sits exactly on
        # the tied u=2 (anchor 0 + 2/2 = 1) -> 1/3; t2 is above every reference -> 1.
        "log_mean_percentile": 100 * ((1.5 + log(1.25) / log(1.5)) / 4 + 1 / 3 + 1) / 3,
        # p < 0.25 nowhere; p < 0.5 only on t1 (0.5 itself does not count)
        "top25_share": 0.0,
        "top50_share": 100 / 3,
        # complete references on t0..t2: columns 0, 1, 2 (column 3 misses t1);
        # totals 4, 7, 12; candidate 2.5 + 2 + 7.5 = 12 -> 2 below + 1 tie -> 2.5/3
        "total_duration_percentile": 100 * 2.5 / 3,
        # w = medians (2.5, 2, 4); wc = (-1/3, -5/6, 7/6), Σwc² = 13/6
        # candidate β = (-2.5/3 - 10/6 + 52.5/6)/(13/6) = 37.5/13; references -5/13, 7/13, 9/13
        "affine_slope_percentile": 100.0,
        # Σw² = 26.25; candidate Σwδ = 40.25 -> 1.533; references 10.5, 21, 35.5 over 26.25
        "origin_slope_percentile": 100.0,
        # means (2.5, 8/3, 4): only t1 (2 < 8/3) wins; ties do not win
        "win_rate_vs_mean": 100 / 3,
        # medians (2.5, 2, 4): δ equals the median on t0 and t1, slower on t2
        "win_rate_vs_median": 0.0,
        # n = 3: the easiest 10% is ⌊0.3⌋ = 0 tests, the hardest 25% is ⌊0.75⌋ = 0 tests
        "mean_percentile_drop_easiest10": 100 * 11 / 18,
        "median_percentile_drop_easiest10": 50.0,
        "mean_percentile_drop_hardest25": 100 * 11 / 18,
        "median_percentile_drop_hardest25": 50.0,
        # the hardest 50% is ⌊1.5⌋ = 1 test: by mean reference duration (2.5, 8/3, 4) that is
        # t2 -> keep p = (0.5, 1/3)
        "mean_percentile_drop_hardest50": 100 * (0.5 + 1 / 3) / 2,
        "median_percentile_drop_hardest50": 100 * (0.5 + 1 / 3) / 2,
    }
    assert got.keys() == expected.keys()
    for name, value in expected.items():
        assert got[name] == pytest.approx(value), name


# Slopes: references exactly proportional to w = (2, 4, 6), slopes 0.5, 1, 1.5 in both fits.
D_SLOPES = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]])


def test_slopes_rank_the_candidate_among_the_references_own_slopes():
    flat = np.array([5.0, 5.0, 5.0])
    # affine: a flat candidate has β = 0 < 0.5 -> 0 below -> 0
    assert affine_slope_percentile(flat, D_SLOPES) == 0.0
    # through the origin: β = Σwδ/Σw² = 5·12/56 = 1.07 -> above 0.5 and 1 -> 2/3
    assert origin_slope_percentile(flat, D_SLOPES) == pytest.approx(100 * 2 / 3)
    # δ = w has β = 1 in both fits: 1 below + 1 tie -> 1.5/3
    same_as_median = np.array([2.0, 4.0, 6.0])
    assert affine_slope_percentile(same_as_median, D_SLOPES) == pytest.approx(50.0)
    assert origin_slope_percentile(same_as_median, D_SLOPES) == pytest.approx(50.0)


def test_affine_slope_needs_two_distinct_medians():
    assert np.isnan(affine_slope_percentile(np.array([1.0]), np.array([[1.0, 2.0]])))
    # through the origin one test is enough: w = 1.5, candidate β = 1/1.5, references 1/1.5 and
    # 2/1.5 -> 0 below, 1 tie -> 0.5/2
    assert origin_slope_percentile(np.array([1.0]), np.array([[1.0, 2.0]])) == pytest.approx(25.0)


def test_log_space_clamps_durations_at_1e_9():
    # δ = 0 and the reference 1e-12 both become 1e-9: a tie on u_1 (anchor 1/2) -> p = 0.5/2.
    # (Without the clamp, δ would be below everything and p = 0, as the rank version says.)
    D = np.array([[1e-12, 1.0]])
    assert log_mean_percentile(np.array([0.0]), D) == pytest.approx(25.0)
    assert mean_percentile(np.array([0.0]), D) == 0.0


# Example B: 10 tests, references (t+1, t+2) so the mean reference duration t+1.5 orders them
# easiest (t=0) to hardest (t=9). δ picks p_t: below both 0, on the first 0.25, between 0.5,
# on the second 0.75, above both 1. Rows are stored shuffled: the cut must use d̄_t, not order.
P_B = [1.0, 0.0, 0.5, 0.25, 0.0, 0.0, 1.0, 0.5, 0.25, 0.0]
_OFFSET = {0.0: 0.5, 0.25: 1.0, 0.5: 1.5, 0.75: 2.0, 1.0: 2.5}
_ORDER = [3, 7, 0, 9, 1, 5, 8, 2, 6, 4]
DELTA_B = np.array([t + _OFFSET[P_B[t]] for t in _ORDER])
D_B = np.array([[t + 1.0, t + 2.0] for t in _ORDER])


def test_example_b_trimmed_mean_and_filtered_cut_points():
    got = rank_metrics(DELTA_B, D_B)
    # all p: sum 3.5 -> mean 35; sorted 0,0,0,0,.25,.25,.5,.5,1,1 -> median .25
    assert got["mean_percentile"] == pytest.approx(35.0)
    assert got["median_percentile"] == pytest.approx(25.0)
    # n = 10: drop max(1, ⌊10/10⌋) = 1 from each end -> 0,0,0,.25,.25,.5,.5,1 -> 2.5/8
    assert got["trimmed_mean_percentile"] == pytest.approx(31.25)
    # drop the easiest ⌊10·10/100⌋ = 1 (t0, p = 1): sum 2.5 over 9; 5th of 9 sorted is .25
    assert got["mean_percentile_drop_easiest10"] == pytest.approx(100 * 2.5 / 9)
    assert got["median_percentile_drop_easiest10"] == pytest.approx(25.0)
    # drop the hardest ⌊10·25/100⌋ = 2 (t8, t9): 1,0,.5,.25,0,0,1,.5 -> 3.25/8; median .375
    assert got["mean_percentile_drop_hardest25"] == pytest.approx(40.625)
    assert got["median_percentile_drop_hardest25"] == pytest.approx(37.5)
    # drop the hardest 5: keep t0..t4 = 1,0,.5,.25,0 -> 1.75/5; median .25
    assert got["mean_percentile_drop_hardest50"] == pytest.approx(35.0)
    assert got["median_percentile_drop_hardest50"] == pytest.approx(25.0)


@pytest.mark.parametrize(
    ("n", "easiest10", "hardest25", "hardest50"),
    [(1, 1, 1, 1), (3, 3, 3, 2), (4, 4, 3, 2), (9, 9, 7, 5), (10, 9, 8, 5), (20, 18, 15, 10)],
)
def test_filtered_sizes_are_exact_floors(n, easiest10, hardest25, hardest50):
    delta, D = np.ones(n), np.ones((n, 2))
    assert filtered_percentiles(delta, D, drop_easiest_pct=10).size == easiest10
    assert filtered_percentiles(delta, D, drop_hardest_pct=25).size == hardest25
    assert filtered_percentiles(delta, D, drop_hardest_pct=50).size == hardest50


def test_filter_ties_in_mean_duration_keep_test_order():
    # every test equally hard: the hardest 50% of 4 are the last two rows, p = (0, 0, 1, 1)
    delta = np.array([0.5, 0.5, 3.0, 3.0])
    D = np.full((4, 2), 1.0)
    assert filtered_percentiles(delta, D, drop_hardest_pct=50) == pytest.approx([0.0, 0.0])


def test_trimmed_mean_from_five_tests_drops_one_each_end():
    # p = (0, .25, .5, .75, 1) with one reference pair per test -> keep .25, .5, .75 -> 50,
    # while n = 4 falls back to the mean of (0, .25, .5, .75) = 37.5
    delta = np.array([0.5, 1.0, 1.5, 2.0, 2.5])
    D = np.tile([1.0, 2.0], (5, 1))
    assert trimmed_mean_percentile(delta, D) == pytest.approx(50.0)
    skewed = np.array([0.5, 0.5, 0.5, 0.5, 2.5])  # p = 0,0,0,0,1: mean 20, trimmed 0
    assert trimmed_mean_percentile(skewed, D) == pytest.approx(0.0)
    assert trimmed_mean_percentile(delta[:4], D[:4]) == pytest.approx(37.5)


def test_registry_is_the_17_metrics_with_stable_names():
    assert len(RANKING_METRICS) == 17
    better_high = {"top25_share", "top50_share", "win_rate_vs_mean", "win_rate_vs_median"}
    assert better_high == HIGHER_IS_BETTER
    assert RANKING_METRICS.keys() >= HIGHER_IS_BETTER
    assert all(name.islower() and " " not in name for name in RANKING_METRICS)


def test_nothing_to_rank_is_nan_not_zero():
    delta, D = np.array([1.0, nan]), np.array([[nan, nan], [1.0, 2.0]])
    assert all(np.isnan(v) for v in rank_metrics(delta, D).values())


def test_shapes_are_checked():
    with pytest.raises(ExecrlError, match=r"shape \(T,\)"):
        mean_percentile(np.ones(3), np.ones((2, 4)))


# -- the screening arithmetic on hand-made records -------------------------------------------------
def _problem(names):
    tests = [
        StdioTest(id=f"o{i}", group=TestGroup.OPTIMIZATION, input="", output="") for i in (0, 1)
    ]
    refs = [Reference(name=n, code="", label="correct", tier=n) for n in names]
    refs.append(Reference(name="wrong", code="", label="incorrect"))
    return Problem(id="p", time_limit_s=10.0, tests=tests, references=refs)


def _record(name, per_test, status="success"):
    results = [
        TestResult(
            test_id=test_id,
            status=status,
            cpu_s=sorted(times)[len(times) // 2],
            repeats=[Timing(cpu_s=t, wall_s=t) for t in times],
        )
        for test_id, times in per_test.items()
    ]
    return ExecutionRecord(problem_id="p", program_sha256="x", program_name=name, results=results)


def test_screening_by_hand():
    # Three references, two tests, two reruns. fast < mid < slow on every run, except that
    # mid's rerun 2 on o1 is slower than slow's median.
    records = [
        _record("fast", {"o0": [1.0, 1.0], "o1": [1.0, 1.0]}),
        _record("mid", {"o0": [2.0, 2.0], "o1": [2.0, 9.0]}),
        _record("slow", {"o0": [3.0, 3.0], "o1": [3.0, 3.0]}),
        _record("wrong", {"o0": [0.1, 0.1], "o1": [0.1, 0.1]}),
    ]
    report = screen_metrics([_problem(["fast", "mid", "slow"])], records)
    assert report.ignored_records == 1 and report.reruns == 2 and report.problems == 1
    scores = {s.reference: s.scores["mean_percentile"] for s in report.solutions}
    # leave-one-out pools are medians over reruns: mid's pool on o1 is (1, 3)
    # fast vs (mid 2 | 5.5, slow 3): 0 on both tests, both reruns
    # mid  vs (fast 1, slow 3): rerun 1 p = (.5, .5); rerun 2 p = (.5, 1) -> 50, 75
    # slow vs (fast 1, mid 2 | 5.5): rerun 1 p = (1, .5) -> 75 on both reruns
    assert scores == {"fast": [0.0, 0.0], "mid": [50.0, 75.0], "slow": [75.0, 75.0]}
    row = report.row("mean_percentile")
    # mean badness per solution: 0, .625, .75 -> none ≥ 0.8
    assert row.harshness == 0.0
    assert row.dynamic_range == pytest.approx(0.75)
    # stds (ddof=1): 0, 17.68, 0 -> mean 5.89
    assert row.rerun_std == pytest.approx(np.std([50, 75], ddof=1) / 3)
    # agreement: rerun 1 alone (candidate and pool): fast 0, mid 50, slow 100 (pool 1, 2);
    # rerun 2 alone: fast 0, mid (2, 9) vs (1, 3) -> (.5, 1) = 75, slow vs (1, 2|9) -> 75.
    # Spearman of ranks (1, 2, 3) and (1, 2.5, 2.5): 1.5 / sqrt(2 · 1.5) = sqrt(3)/2
    assert row.agreement == pytest.approx(np.sqrt(3) / 2)


def test_screening_counts_timeouts_at_the_cap_and_rejects_unknown_problems():
    records = [
        _record("fast", {"o0": [1.0], "o1": [1.0]}),
        _record("slow", {"o0": [99.0], "o1": [99.0]}, status="timeout"),
    ]
    times = problem_durations(_problem(["fast", "slow"]), records)
    assert times.durations[1].ravel().tolist() == [10.0, 10.0]  # the problem's 10 s limit
    with pytest.raises(ExecrlError, match="not in the problem set: q"):
        screen_metrics([_problem(["fast"])], [ExecutionRecord(problem_id="q", program_sha256="x")])


def test_a_single_rerun_leaves_noise_and_agreement_undefined_and_survives_json():
    records = [
        _record("fast", {"o0": [1.0], "o1": [1.0]}),
        _record("slow", {"o0": [2.0], "o1": [2.0]}),
    ]
    report = screen_metrics([_problem(["fast", "slow"])], records)
    row = report.row("mean_percentile")
    assert np.isnan(row.rerun_std) and np.isnan(row.agreement)
    # fast beats slow everywhere (0), slow loses everywhere (100): both ends, range 1
    assert row.harshness == 0.5 and row.dynamic_range == 1.0
    assert "| mean_percentile | ↓ | 0.50 | 1.00 | — | — |" in report.to_markdown()
    again = ScreeningReport.model_validate_json(report.model_dump_json())
    assert np.isnan(again.row("mean_percentile").agreement)


def test_plot_without_matplotlib_says_what_to_install(monkeypatch, tmp_path):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    report = screen_metrics([_problem(["fast"])], [])
    with pytest.raises(ExecrlError, match=r"pip install 'execrl\[plot\]'"):
        plot_screening(report, tmp_path / "x.png")
