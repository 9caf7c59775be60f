"""Spec §6's fallback policy and step monitor: pure functions over records."""

from __future__ import annotations

import math

import pytest

from execrl.problems.models import StdioTest, TestGroup
from execrl.rl.monitor import RewardSummary, StepCounts, StepMonitor, exposure
from execrl.sandbox.limits import ExecutionOptions, Limits
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import ExecutionRecord, Status, TestResult, Timing
from execrl.service.fallback import CAP_DETAIL, apply_fallback, merge_retry, unresolved_request

LIMITS = Limits(cpu_time_s=2.0)


def _request(*groups: TestGroup, stop: bool = False) -> ExecutionRequest:
    tests = [
        StdioTest(id=f"t{i}", input="", output="", group=group) for i, group in enumerate(groups)
    ]
    options = ExecutionOptions(stop_at_first_failure=stop)
    return ExecutionRequest(program="print()", tests=tests, limits=LIMITS, options=options)


def _result(test_id: str, status: Status, cpu_s: float = 0.5, **extra) -> TestResult:
    timing = Timing(cpu_s=cpu_s, wall_s=cpu_s + 0.1)
    return TestResult(
        test_id=test_id,
        status=status,
        cpu_s=cpu_s,
        wall_s=cpu_s + 0.1,
        max_rss_mb=12.0,
        repeats=[timing],
        **extra,
    )


def _record(*results: TestResult) -> ExecutionRecord:
    return ExecutionRecord(problem_id="p", program_sha256="0" * 64, results=list(results))


S, UNK, W, T = Status.SUCCESS, Status.INCONCLUSIVE, Status.WRONG_ANSWER, Status.TIMEOUT
ORIGINAL, EXTRA, OPT = TestGroup.ORIGINAL, TestGroup.EXTRA, TestGroup.OPTIMIZATION


def test_unresolved_request_keeps_the_inconclusive_tests_and_those_never_run() -> None:
    request = _request(ORIGINAL, OPT, OPT, OPT, stop=True)
    record = _record(_result("t0", S), _result("t1", UNK))  # stopped at the inconclusive t1
    sub = unresolved_request(request, record)
    assert [t.id for t in sub.tests] == ["t1", "t2", "t3"]
    assert sub.limits == request.limits and sub.options == request.options
    assert unresolved_request(request, _record(*(_result(f"t{i}", S) for i in range(4)))) is None


def test_merge_retry_keeps_the_retry_measurements() -> None:
    request = _request(ORIGINAL, OPT)
    original = _record(_result("t0", S, 0.2), _result("t1", UNK, 0.0))
    retried = merge_retry(original, _record(_result("t1", S, 0.7)), request)
    assert [(r.test_id, r.status, r.cpu_s, r.fallback) for r in retried.results] == [
        ("t0", S, 0.2, False),
        ("t1", S, 0.7, False),
    ]


def test_an_optimization_success_elsewhere_is_a_timeout_at_the_cap() -> None:
    request = _request(ORIGINAL, OPT)
    original = _record(_result("t0", S, 0.2), _result("t1", UNK, 0.0))
    merged = apply_fallback(original, _record(_result("t1", S, 0.3)), request)
    kept, fell_back = merged.results
    assert kept == original.results[0]  # a conclusive verdict keeps its own measurement
    assert fell_back.status is T and fell_back.fallback
    assert (fell_back.cpu_s, fell_back.wall_s) == (2.0, LIMITS.wall_limit_s)
    assert fell_back.limit_hit is None and fell_back.repeats == []
    assert fell_back.detail == CAP_DETAIL


def test_a_correctness_verdict_elsewhere_is_kept_without_its_time() -> None:
    request = _request(ORIGINAL, EXTRA, OPT)
    original = _record(_result("t0", UNK), _result("t1", UNK), _result("t2", UNK))
    other = _record(_result("t0", S), _result("t1", W, detail="token 0"), _result("t2", W))
    merged = apply_fallback(original, other, request)
    assert [(r.status, r.cpu_s, r.wall_s, r.fallback) for r in merged.results] == [
        (S, 0.0, 0.0, True),
        (W, 0.0, 0.0, True),
        (W, 0.0, 0.0, True),  # an optimization test's failure is a failure anywhere
    ]
    assert merged.results[1].detail == "token 0"
    assert all(r.repeats == [] and r.max_rss_mb == 0.0 for r in merged.results)


def test_an_optimization_timeout_elsewhere_stays_at_the_cap_with_its_limit() -> None:
    request = _request(OPT)
    other = _record(_result("t0", T, 2.1, limit_hit="cpu", detail="CPU time limit 2 s exceeded"))
    (result,) = apply_fallback(_record(_result("t0", UNK)), other, request).results
    assert (result.status, result.cpu_s, result.limit_hit, result.fallback) == (T, 2.0, "cpu", True)
    assert result.detail == "CPU time limit 2 s exceeded"


def test_inconclusive_elsewhere_too_stays_unknown_and_is_not_a_fallback() -> None:
    request = _request(ORIGINAL, OPT)
    original = _record(_result("t0", UNK, detail="sandbox crashed"), _result("t1", S))
    merged = apply_fallback(original, _record(_result("t0", UNK, detail="again")), request)
    assert merged.results[0].status is UNK and not merged.results[0].fallback
    assert merged.results[0].detail == "sandbox crashed"
    assert merged.results[1] == original.results[1]


def test_fallback_fills_tests_the_original_never_ran_in_request_order() -> None:
    request = _request(ORIGINAL, ORIGINAL, OPT, stop=True)
    original = _record(_result("t0", S), _result("t1", UNK))
    other = _record(_result("t1", S), _result("t2", S))
    merged = apply_fallback(original, other, request)
    assert [(r.test_id, r.status, r.fallback) for r in merged.results] == [
        ("t0", S, False),
        ("t1", S, True),
        ("t2", T, True),
    ]


def test_exposure_is_one_minus_the_chance_of_no_fallback_in_the_group() -> None:
    assert exposure(0.0, 16) == 0.0 and exposure(1.0, 1) == 1.0
    assert math.isclose(exposure(0.01, 16), 1 - 0.99**16)
    assert math.isclose(exposure(0.05, 8), 0.33658, rel_tol=1e-4)
    with pytest.raises(ValueError, match="0 <= f <= 1"):
        exposure(1.5, 4)


def test_step_counts_split_tests_into_resolved_fallback_and_unknown() -> None:
    records = [
        _record(_result("a", S), _result("b", T)),
        _record(_result("a", S, fallback=True), _result("b", UNK)),
        _record(_result("a", W), _result("b", UNK)),
    ]
    counts = StepCounts.of(records)
    assert counts == StepCounts(
        tests=6,
        resolved=3,
        fallback=1,
        unknown=2,
        timeout=1,
        rollouts=3,
        rollouts_with_fallback=1,
        rollouts_unknown=2,
    )


def test_monitor_reports_rates_rewards_and_exposure() -> None:
    monitor = StepMonitor(group_size=4)
    records = [_record(_result("a", S)), _record(_result("a", T, fallback=True))]
    report = monitor.observe(records, rewards=[1.0, -1.0])
    assert (report.resolved_rate, report.fallback_rate, report.unknown_rate) == (0.5, 0.5, 0.0)
    assert report.timeout_rate == 0.5 and report.rollout_fallback_rate == 0.5
    assert report.exposure == pytest.approx(1 - 0.5**4)
    assert report.rewards == RewardSummary(2, 0.0, 1.0, -1.0, -0.8, 0.0, 0.8, 1.0)
    flat = report.to_dict()
    assert flat["monitor/fallback_rate"] == 0.5 and flat["monitor/reward_p90"] == 0.8
    assert report.bursts == ["fallback"]  # 50 % on the first step is over the floor


def test_a_burst_is_a_jump_over_the_rolling_median_and_the_floor() -> None:
    monitor = StepMonitor(window=5, factor=3.0, floor=0.05)

    def step(fallback_tests: int, unknown_tests: int = 0) -> list[str]:
        results = [_result(f"f{i}", S, fallback=True) for i in range(fallback_tests)]
        results += [_result(f"u{i}", UNK) for i in range(unknown_tests)]
        results += [_result(f"s{i}", S) for i in range(100 - len(results))]
        return monitor.observe([_record(*results)]).bursts

    assert step(3) == []  # 3 % is under the floor
    assert [step(4) for _ in range(4)] == [[], [], [], []]  # 4 % is the baseline now
    assert step(10) == []  # 10 % is not over 3 × 4 %
    assert step(13, unknown_tests=6) == ["fallback", "unknown"]  # 13 % > 12 %; 6 % over 0
    assert step(5) == []
    assert monitor.reports[-1].step == 7


def test_monitor_rejects_bad_settings_and_handles_an_empty_step() -> None:
    with pytest.raises(ValueError, match="group_size >= 1"):
        StepMonitor(group_size=0)
    report = StepMonitor().observe([])
    assert report.counts.tests == 0 and report.fallback_rate == 0.0 and report.rewards is None
