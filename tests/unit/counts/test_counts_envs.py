"""Environments on instruction counts, with hand-built records (no sandbox: everything after
the executor is a pure function of records). A toy problem: one correctness test, two
optimization tests; three correct references that execute 1, 2 and 3 × 10⁸ instructions on
each optimization test; a 10 s cap."""

from __future__ import annotations

import pytest

from execrl.envs import Environment, EnvironmentConfig, Verdict
from execrl.envs.operators import AbsoluteFilter, AbsoluteLimit
from execrl.envs.outcome import format_duration
from execrl.envs.presets import abs_timeout, qar, qp
from execrl.errors import DataError, ExecrlError
from execrl.problems import Problem, Reference, StdioTest, TestGroup
from execrl.rewards.compositions import NaiveReward, reward
from execrl.sandbox import ExecutionRecord, Status, TestResult
from execrl.sandbox.counting import COUNTS_PER_SECOND, seconds_as

OK, TO, WA = Status.SUCCESS, Status.TIMEOUT, Status.WRONG_ANSWER
E8 = 100_000_000
RATE = 2e9
"""A fitted rate (counts per CPU second), unlike the default one."""


def toy_problem(durations: dict[str, float] | None = None) -> Problem:
    """References r1..r3 at 1, 2, 3 × 10⁸ instructions per optimization test (or given)."""
    per_ref = durations or {"r1": 1 * E8, "r2": 2 * E8, "r3": 3 * E8}
    tests = [
        StdioTest(id="c1", group=TestGroup.ORIGINAL, input="1\n", output="1\n"),
        StdioTest(id="o1", group=TestGroup.OPTIMIZATION, input="2\n", output="2\n"),
        StdioTest(id="o2", group=TestGroup.OPTIMIZATION, input="3\n", output="3\n"),
    ]
    refs = [
        Reference(name=n, code="print(input())", label="correct", durations_s={"o1": d, "o2": d})
        for n, d in per_ref.items()
    ]
    return Problem(id="toy", time_limit_s=10.0, tests=tests, references=refs)


def counted(status: Status, count: int | None, test_id: str) -> TestResult:
    """A result of a counted run: the native clocks, and the count of a passing test."""
    return TestResult(
        test_id=test_id,
        status=status,
        cpu_s=0.5,
        wall_s=0.5,
        instructions=count if status is OK else None,
    )


def record(o1: tuple[Status, int | None], o2=None, *, name="candidate", timing="instructions"):
    o2 = o2 or o1
    return ExecutionRecord(
        problem_id="toy",
        program_sha256="0" * 64,
        program_name=name,
        timing=timing,
        results=[counted(OK, 10_000, "c1"), counted(*o1, "o1"), counted(*o2, "o2")],
    )


def env(config: EnvironmentConfig, **update) -> Environment:
    return Environment(config.model_copy(update={"timing": "instructions", **update}))


@pytest.mark.parametrize("preset", [qp(p=0.5), qar(p=0.5)])
def test_fewer_instructions_earn_more_than_more_against_count_references(preset):
    environment = env(preset)
    fast = environment.outcome(toy_problem(), record((OK, E8 // 2)))  # faster than every ref
    slow = environment.outcome(toy_problem(), record((OK, 5 * E8 // 2)))  # only beats r3
    assert (fast.q_dur, fast.g) == (0.0, 1)
    assert slow.q_dur == pytest.approx(2 / 3) and slow.g == 0
    graded = reward("collapsed(graded, map=linear)")
    assert graded(fast) == 1.0 and graded(slow) == pytest.approx(2 * (1 / 3) - 1)
    assert fast.timing == "instructions" and fast.tests[1].duration_s == E8 // 2


def test_a_timeout_is_charged_the_cap_converted_at_the_count_rate():
    environment = env(qp(p=0.5), count_rate=RATE)
    outcome = environment.outcome(toy_problem(), record((TO, None), (OK, E8 // 2)))
    timed_out = outcome.optimization_tests[0]
    assert timed_out.verdict is Verdict.TIMEOUT
    assert timed_out.ranked_duration_s == 10.0 * RATE == outcome.cap_s
    assert outcome.optimization_tests[1].ranked_duration_s == E8 // 2
    # without a fitted rate: the default one
    default = env(qp(p=0.5)).outcome(toy_problem(), record((TO, None)))
    assert default.cap_s == 10.0 * COUNTS_PER_SECOND["instructions"]


def test_an_intended_limit_in_seconds_is_converted_to_a_count():
    # λ = 0.2 s at 2 × 10⁹ counts/s = 4 × 10⁸ instructions
    environment = env(abs_timeout(limit=0.2, rho=0.0), count_rate=RATE)
    plan = environment.plan(toy_problem())
    assert plan.limits_s.tolist() == [4 * E8, 4 * E8] and plan.cap == 10 * RATE
    assert plan.cap_s == 10.0  # the cap the tests run under stays in seconds
    under = environment.outcome(toy_problem(), record((OK, 3 * E8)), plan=plan)
    over = environment.outcome(toy_problem(), record((OK, 5 * E8)), plan=plan)
    assert under.timeout_fraction == 0.0 and under.g == 1
    assert over.timeout_fraction == 1.0 and over.g == 0
    assert over.optimization_tests[0].detail == (
        "500,000,000 instructions ≥ λ = 400,000,000 instructions"
    )


def test_an_absolute_filter_cut_off_in_seconds_is_converted_to_a_count():
    # F_abs with a = 0.1 s at 2 × 10⁹/s: keep tests whose mean reference count < 2 × 10⁸
    problem = toy_problem()
    refs = [
        r.model_copy(update={"durations_s": {"o1": E8, "o2": 5 * E8}}) for r in problem.references
    ]
    problem = problem.model_copy(update={"references": refs})
    config = EnvironmentConfig(filter=AbsoluteFilter(a=0.1), limit=AbsoluteLimit(seconds=1.0))
    plan = env(config, count_rate=RATE).plan(problem)
    assert [t.id for t in plan.optimization] == ["o1"]
    assert plan.limits_s.tolist() == [RATE]  # λ = 1 s


def test_seconds_stay_seconds_for_clock_timings():
    assert seconds_as(0.5, "cpu", RATE) == 0.5
    plan = Environment(abs_timeout(limit=0.2)).plan(toy_problem({"r1": 1.0, "r2": 2.0}))
    assert plan.limits_s.tolist() == [0.2, 0.2] and plan.cap == plan.cap_s == 10.0


def test_a_counted_environment_refuses_references_in_seconds():
    seconds = toy_problem({"r1": 0.1, "r2": 0.2, "r3": 0.3})
    with pytest.raises(DataError, match=r"^toy: the reference durations are seconds") as exc:
        env(qp()).plan(seconds)
    assert "\n" not in str(exc.value) and "timing='instructions'" in str(exc.value)


def test_an_environment_in_seconds_refuses_counted_references():
    with pytest.raises(DataError, match=r"^toy: the reference durations are counts"):
        Environment(qp()).plan(toy_problem())


def test_counts_from_a_record_timed_by_a_clock_are_refused():
    clock = ExecutionRecord(
        problem_id="toy",
        program_sha256="0" * 64,
        program_name="cpu-run",
        timing="cpu",
        results=[TestResult(test_id=t, status=OK, cpu_s=0.1, wall_s=0.1) for t in ("c1", "o1")],
    )
    with pytest.raises(ExecrlError, match="test c1 passed without an instructions count"):
        env(qp()).outcome(toy_problem(), clock)


def test_a_plan_in_seconds_does_not_judge_counts():
    plan = Environment(qp()).plan(toy_problem({"r1": 1.0, "r2": 2.0}))
    with pytest.raises(ExecrlError, match="the plan is timed by cpu but the durations are "):
        Environment(qp()).outcome(toy_problem(), record((OK, E8)), plan=plan)


def test_a_record_says_its_timing_when_the_environment_does_not():
    # timing None in the config: each record's own (here instructions) decides the scale
    outcome = Environment(qp(p=0.5)).outcome(toy_problem(), record((OK, E8 // 2)))
    assert outcome.timing == "instructions" and outcome.q_dur == 0.0


def test_the_naive_log_reward_reads_a_count_in_seconds_at_the_rate():
    naive = NaiveReward(map="log")
    counted_outcome = env(qp(), count_rate=RATE).outcome(toy_problem(), record((OK, 2 * E8)))
    # 2 × 10⁸ instructions at 2 × 10⁹/s = 0.1 s: m_log = (1 − log10 0.1)/3 = 2/3
    assert counted_outcome.seconds_per_unit == 1 / RATE
    assert naive(counted_outcome) == pytest.approx(2 / 3)


def test_durations_are_shown_with_their_unit():
    assert format_duration(0.25, "cpu") == "0.250 s"
    assert format_duration(1234567.0, "instructions") == "1,234,567 instructions"
    assert format_duration(2e13, "cycles_estimate") == "2e+13 cycles"
