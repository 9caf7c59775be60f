"""Noise diagnostics (and the drift monitor's pure part) on hand-built campaigns, every
expected value derived by hand.

Problem ``p``, tests ``t1``/``t2``, references A < B < C (fast to slow), 3 reruns.
CPU: every rerun identical (A 1/2 s, B 3/4 s, C 5/6 s on t1/t2).
Wall: the same, except A's third rerun on t1 takes 4 s instead of 1 s (B's speed there).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np
import pytest

from execrl.sandbox.machine import MachineFingerprint
from execrl.sandbox.records import Status
from execrl.timing.contention import ContentionReport, LoadResult
from execrl.timing.diagnostics import diagnose, kendall, rerun_durations, solution_scores
from execrl.timing.drift import compare_sentinels, default_sentinels, residual_log_std
from execrl.timing.store import Campaign, CampaignInfo, Measurement

S, TO, WA = Status.SUCCESS, Status.TIMEOUT, Status.WRONG_ANSWER


def measurement(test: str, ref: str, cpu: list[float], wall: list[float], statuses=None):
    return Measurement(
        problem_id="p",
        test_id=test,
        reference=ref,
        statuses=statuses or [S] * len(cpu),
        cpu_s=cpu,
        wall_s=wall,
    )


def campaign(measurements: list[Measurement]) -> Campaign:
    machine = MachineFingerprint(hostname="h", cpu_model="m", cores=2, kernel="k", python="3")
    info = CampaignInfo(
        id="hand", created_at=datetime(2026, 1, 1, tzinfo=UTC), machine=machine,
        settings={"reruns": 3}, problems=["p"],
    )  # fmt: skip
    return Campaign(info=info, measurements=measurements)


@pytest.fixture
def report():
    ms = [
        measurement("t1", "A", [1, 1, 1], [1, 1, 4]),
        measurement("t2", "A", [2, 2, 2], [2, 2, 2]),
        measurement("t1", "B", [3, 3, 3], [3, 3, 3]),
        measurement("t2", "B", [4, 4, 4], [4, 4, 4]),
        measurement("t1", "C", [5, 5, 5], [5, 5, 5]),
        measurement("t2", "C", [6, 6, 6], [6, 6, 6]),
    ]
    return diagnose(campaign(ms))


def test_per_test_cv_and_std(report):
    t1 = next(t for t in report.tests if t.test_id == "t1")
    assert t1.references == 3
    assert (t1.cv_cpu, t1.std_cpu_s, t1.cv_cpu_max) == (0, 0, 0)
    # Wall: A's reruns 1, 1, 4 → mean 2, sample variance (1 + 1 + 4)/2 = 3, CV √3/2;
    # B and C do not move. Mean over the three references:
    assert t1.std_wall_s == pytest.approx(math.sqrt(3) / 3)
    assert t1.cv_wall == pytest.approx(math.sqrt(3) / 6)
    assert t1.cv_wall_max == pytest.approx(math.sqrt(3) / 2)
    assert t1.median_wall_s == 3  # median of the references' medians 1, 3, 5
    t2 = next(t for t in report.tests if t.test_id == "t2")
    assert (t2.cv_wall, t2.std_wall_s) == (0, 0)


def test_per_solution_std_and_range(report):
    by_ref = {s.reference: s for s in report.solutions}
    # CPU: A beats both others everywhere (0), B beats one of two (50), C none (100).
    assert [by_ref[r].mean_cpu for r in "ABC"] == [0, 50, 100]
    assert all(by_ref[r].std_cpu == 0 and by_ref[r].range_cpu == 0 for r in "ABC")
    # Wall: A's rerun 3 on t1 (4 s) is slower than B's median 3 s → percentile 1/2 there,
    # 0 on t2 → score 25; reruns 1 and 2 score 0. Scores 0, 0, 25: mean 25/3,
    # sample variance ((25/3)² + (25/3)² + (50/3)²)/2 = 625/3.
    a = by_ref["A"]
    assert a.tests == 2 and a.reruns == 3
    assert a.mean_wall == pytest.approx(25 / 3)
    assert a.std_wall == pytest.approx(math.sqrt(625 / 3))
    assert a.range_wall == 25
    assert (by_ref["B"].std_wall, by_ref["C"].range_wall) == (0, 0)


def test_variance_decomposition(report):
    cpu = report.variance["cpu"]
    assert cpu.solutions == 3
    assert cpu.between == pytest.approx(2500)  # sample variance of 0, 50, 100
    assert cpu.within == 0 and cpu.within_share == 0
    wall = report.variance["wall"]
    # Means 25/3, 50, 100 around 475/9: deviations −400/9, −25/9, 425/9.
    between = (400**2 + 25**2 + 425**2) / 81 / 2
    within = (625 / 3 + 0 + 0) / 3
    assert wall.between == pytest.approx(between)
    assert wall.within == pytest.approx(within)
    assert wall.within_share == pytest.approx(within / (between + within))


def test_ordering_stability(report):
    (o,) = report.ordering
    assert (o.spearman_cpu, o.kendall_cpu) == (1, 1)  # identical reruns
    # Wall, t1 rerun 3: durations A 4, B 3, C 5 against medians 1, 3, 5. Ranks (2, 1, 3) vs
    # (1, 2, 3): Spearman 1 − 6·2/(3·8) = 1/2; Kendall (2 concordant − 1 discordant)/3 = 1/3.
    # The other five (test, rerun) cells order exactly as the medians: 1.
    assert o.spearman_wall == pytest.approx((5 + 1 / 2) / 6)
    assert o.kendall_wall == pytest.approx((5 + 1 / 3) / 6)


def test_summary_and_markdown(report):
    assert report.reruns == 3
    s = report.summary("wall")
    assert s["solution_std_median"] == 0
    assert s["solution_std_max"] == pytest.approx(math.sqrt(625 / 3))
    text = report.to_markdown()
    assert "| cpu |" in text and "| wall |" in text and "| p | A | 2 |" in text


def test_timeouts_count_at_the_cap_and_failures_are_left_out():
    ms = [measurement("t1", "A", [1, 2, 3], [1, 2, 3], statuses=[S, TO, WA])]
    (values,) = rerun_durations(ms, "cpu", cap_s=10)["p"]["A"].values()
    assert values[:2].tolist() == [1, 10] and math.isnan(values[2])


def test_a_test_with_a_failed_rerun_leaves_the_solutions_score():
    ms = [
        measurement("t1", "A", [1, 1], [1, 1]),
        measurement("t2", "A", [9, 9], [9, 9], statuses=[S, WA]),  # dropped for A
        measurement("t1", "B", [2, 2], [2, 2]),
        measurement("t2", "B", [3, 3], [3, 3]),
    ]
    scores = solution_scores(rerun_durations(ms, "cpu"))
    assert scores["p", "A"].tests == 1 and scores["p", "A"].points.tolist() == [0, 0]
    # B on t2 still has A's one successful rerun (9 s) as the pool: faster → 0; t1: 100.
    assert scores["p", "B"].tests == 2 and scores["p", "B"].points.tolist() == [50, 50]


def test_kendall_tau_b_with_ties():
    assert kendall([1, 2, 3], [1, 2, 3]) == 1
    assert kendall([1, 2, 3], [3, 2, 1]) == -1
    # x has one tied pair: S = 2 concordant; sqrt((3 − 1)(3 − 0)) = √6.
    assert kendall([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / math.sqrt(6))
    assert math.isnan(kendall([1, 2], [1, 2])) and math.isnan(kendall([1, 1, 1], [1, 2, 3]))


def test_single_rerun_gives_nan_noise():
    ms = [measurement("t1", r, [d], [d]) for r, d in (("A", 1), ("B", 2), ("C", 3))]
    report = diagnose(campaign(ms))
    assert all(math.isnan(s.std_cpu) for s in report.solutions)
    assert math.isnan(report.variance["cpu"].within_share)
    assert np.isnan(report.tests[0].cv_cpu)


# --------------------------------------------------------------------------------------------
# The drift monitor's pure part and the contention verdict (same hand-built campaigns)


def cpu_campaign(durations: dict[tuple[str, str, str], list[float]]) -> Campaign:
    """A campaign from ``{(problem, test, reference): cpu reruns}`` (wall = cpu)."""
    ms = [
        Measurement(problem_id=p, test_id=t, reference=r, statuses=[S] * len(d), cpu_s=d, wall_s=d)
        for (p, t, r), d in durations.items()
    ]
    return campaign(ms)


STORED = cpu_campaign(
    {
        ("p", "t1", "A"): [1, 1, 1], ("p", "t2", "A"): [1, 1, 1],
        ("p", "t1", "C"): [2, 2, 2], ("p", "t2", "C"): [2, 2, 2],
        ("p", "t1", "B"): [3, 3, 3], ("p", "t2", "B"): [3, 3, 3],
        ("q", "t1", "only"): [5, 5, 5],  # a problem with one reference: no sentinel
    }
)  # fmt: skip


def test_default_sentinels_are_the_fastest_and_slowest_reference():
    assert default_sentinels(STORED) == [("p", "A"), ("p", "B")]


def test_sentinels_within_and_outside_the_band():
    def double(s):
        return 2 * np.asarray(s)

    sentinels = [("p", "A"), ("p", "B")]
    # Fresh: A exactly as predicted (2×); B 3× its stored time = 1.5× the prediction on both
    # tests, log 1.5 ≈ 0.405 > the band 0.3.
    fresh = cpu_campaign(
        {("p", t, "A"): [1.9, 2.1] for t in ("t1", "t2")}
        | {("p", t, "B"): [9.0, 9.0] for t in ("t1", "t2")}
    )
    report = compare_sentinels(STORED, fresh, double, 0.3, sentinels)
    a, b = report.sentinels
    assert (a.tests, a.ratio, a.outside_share, a.drifted) == (2, pytest.approx(1.0), 0, False)
    assert (b.ratio, b.outside_share, b.drifted) == (pytest.approx(1.5), 1, True)
    assert report.drifted
    assert report.band_ratio == pytest.approx((math.exp(-0.3), math.exp(0.3)))
    # A sentinel that did not run now is reported as missing, not as drifted.
    (missing,) = compare_sentinels(STORED, fresh, double, 0.3, [("p", "C")]).sentinels
    assert missing.tests == 0 and math.isnan(missing.ratio) and not missing.drifted


def test_residual_log_std_of_the_calibration_fit():
    e = math.exp(0.1)
    fresh = cpu_campaign(
        {
            ("p", "t1", "A"): [2 * e], ("p", "t2", "A"): [2 / e],
            ("p", "t1", "B"): [6 * e], ("p", "t2", "B"): [6 / e],
        }
    )  # fmt: skip
    # Residuals log(fresh / 2·stored) = +0.1, −0.1, +0.1, −0.1: sample std √(4·0.01/3).
    sigma = residual_log_std(lambda s: 2 * np.asarray(s), STORED, fresh)
    assert sigma == pytest.approx(math.sqrt(0.04 / 3))


def test_contention_target_needs_cpu_within_and_wall_outside():
    def result(load, cpu, wall):
        return LoadResult(
            load=load, busy_loops=0, solutions=5, cpu_std_median=0, cpu_std_mean=cpu,
            wall_std_median=0, wall_std_mean=wall, cpu_test_cv_median=0,
            wall_test_cv_median=0, elapsed_s=1,
        )  # fmt: skip

    def report(*results):
        machine = MachineFingerprint(hostname="h", cpu_model="m", cores=2, kernel="k", python="3")
        return ContentionReport(
            created_at=datetime(2026, 1, 1, tzinfo=UTC), machine=machine, problems=["p"],
            reruns=5, max_tests=3, workers=1, results=list(results),
        )  # fmt: skip

    assert report(result(0, 1.0, 1.0), result(2, 2.0, 6.0)).target_met()
    assert not report(result(0, 1.0, 1.0), result(2, 2.5, 6.0)).target_met()  # CPU too noisy
    assert not report(result(0, 1.0, 1.0), result(2, 1.0, 1.5)).target_met()  # wall steady too
    again = ContentionReport.model_validate_json(report(result(0, math.nan, 1.0)).model_dump_json())
    assert math.isnan(again.results[0].cpu_std_mean)
