"""The simulator, eval replay and metric screening on counted records, built by hand: the
same toy problem as test_counts_envs (two optimization tests, references at 1-4 × 10⁸
instructions, a 10 s cap), nothing executed."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from execrl.envs import Environment
from execrl.envs.presets import environment, qp
from execrl.envs.screening import screen_metrics
from execrl.errors import ExecrlError
from execrl.evaluate import ReplaySettings, replay
from execrl.evaluate.folder import CampaignInfo
from execrl.evaluate.replay import EvalData, SampleRun, p_tau_environment, with_campaign_durations
from execrl.problems import Problem, Reference, StdioTest, TestGroup
from execrl.rewards.compositions import reward
from execrl.sandbox import ExecutionRecord, Status, TestResult
from execrl.sandbox.records import Timing
from execrl.simulate.engine import Engine
from execrl.simulate.replay import replay_rewards
from execrl.simulate.runs import StoredRuns, runs_from_records

OK, TO = Status.SUCCESS, Status.TIMEOUT
E8 = 100_000_000
RATE = 2e9
REFERENCES = {"r1": 1 * E8, "r2": 2 * E8, "r3": 3 * E8, "r4": 4 * E8}


def toy_problem() -> Problem:
    tests = [
        StdioTest(id="c1", group=TestGroup.ORIGINAL, input="1\n", output="1\n"),
        StdioTest(id="o1", group=TestGroup.OPTIMIZATION, input="2\n", output="2\n"),
        StdioTest(id="o2", group=TestGroup.OPTIMIZATION, input="3\n", output="3\n"),
    ]
    refs = [Reference(name=n, code="print(input())", label="correct") for n in REFERENCES]
    return Problem(id="toy", time_limit_s=10.0, tests=tests, references=refs)


def result(test_id: str, status: Status, count: int | None, timing: str) -> TestResult:
    counts = {"instructions": count} if timing == "instructions" and status is OK else {}
    seconds = (count or 0) / RATE
    return TestResult(test_id=test_id, status=status, cpu_s=seconds, wall_s=seconds, **counts)


def record(name: str, per_test: dict[str, tuple[Status, int | None]], timing="instructions"):
    return ExecutionRecord(
        problem_id="toy",
        program_sha256="0" * 64,
        program_name=name,
        timing=timing,
        results=[result(t, s, c, timing) for t, (s, c) in per_test.items()],
    )


def reference_records(timing: str = "instructions") -> list[ExecutionRecord]:
    """r1..r4 on every test; r4 times out on o2."""
    out = []
    for name, count in REFERENCES.items():
        o2 = (TO, None) if name == "r4" else (OK, count)
        out.append(record(name, {"c1": (OK, 1000), "o1": (OK, count), "o2": o2}, timing))
    return out


# -- the simulator -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs() -> StoredRuns:
    found = runs_from_records(
        [toy_problem()], reference_records(), timing="instructions", count_rate=RATE
    )
    return StoredRuns.from_problem_runs(found)


def test_a_stored_timeout_is_the_converted_limit_in_the_pool(runs):
    pool = runs.pool_raw()[0]  # (T, R)
    assert pool[1, 3] == 10.0 * RATE  # r4 on o2
    assert pool[0].tolist() == [float(c) for c in REFERENCES.values()]
    assert runs.timing == "instructions" and runs.unit_caps.tolist() == [10.0 * RATE]


@pytest.mark.parametrize(
    "spec",
    ["qp(p=0.5)", "qar(p=0.3)", "abs_timeout(limit=0.12, rho=0.0)", "abs_filter(a=0.2, limit=0.1)"],
)
@pytest.mark.parametrize("reward_spec", ["collapsed(graded, map=linear)", "naive(map=log)"])
def test_the_engine_and_the_per_outcome_replay_agree_on_counts(runs, spec, reward_spec):
    config = environment(spec).config
    reward_fn = reward(reward_spec)
    vectorised = Engine(runs).rewards(config, reward_fn)
    one_by_one = replay_rewards(runs, environment(spec), reward_fn)
    for a, b in zip(vectorised, one_by_one, strict=True):
        assert np.allclose(a, b, rtol=1e-12, equal_nan=True)
    assert np.isfinite(vectorised[0]).all()


def test_an_absolute_limit_in_seconds_times_out_the_larger_counts(runs):
    # λ = 0.12 s at 2 × 10⁹/s = 2.4 × 10⁸ instructions: r3 and r4 time out on o1
    signals = Engine(runs).signals(environment("abs_timeout(limit=0.12, rho=0.0)").config)
    assert signals.timeout_fraction[0].tolist() == [0.0, 0.0, 1.0, 1.0]
    assert signals.g[0].tolist() == [1.0, 1.0, 0.0, 0.0]


def test_uncounted_records_cannot_be_replayed_by_count():
    with pytest.raises(ExecrlError, match="passed without an instructions count"):
        runs_from_records([toy_problem()], reference_records("cpu"), timing="instructions")


def test_an_environment_at_another_count_rate_is_refused(runs):
    config = qp().model_copy(update={"count_rate": 1e9})
    with pytest.raises(ExecrlError, match="converts seconds at 1e\\+09 counts/s"):
        Engine(runs).signals(config)


# -- eval replay -------------------------------------------------------------------------

SAMPLES = {"fast": E8 // 2, "middle": 5 * E8 // 2, "slow": 9 * E8}


def eval_data(timing: str = "instructions") -> EvalData:
    references = {"toy": {r.program_name: r for r in reference_records(timing)}}
    samples = [
        SampleRun("m", "toy", i, record(name, {t: (OK, c) for t in ("c1", "o1", "o2")}, timing))
        for i, (name, c) in enumerate(SAMPLES.items())
    ]
    campaign = CampaignInfo(
        created_at=datetime.now(UTC),
        seed=0,
        cap_s=None,
        repeats=1,
        timing=timing,
        workers=1,
        samples=len(samples),
        references=len(REFERENCES),
        wall_s=0.0,
    )
    return EvalData({"toy": toy_problem()}, ["m"], samples, references, campaign)


def test_a_replay_of_counted_records_reproduces_fresh_scoring():
    data = eval_data()
    settings = ReplaySettings(count_rate=RATE)
    replayed = replay(data, settings)
    env = p_tau_environment(data, settings)
    problem = with_campaign_durations(data, "toy", "instructions", RATE)
    fresh = [env.outcome(problem, s.record) for s in data.samples]
    assert [s.q_qp for s in replayed.scores] == [o.q_dur for o in fresh]
    q = {name: s.q_qp for name, s in zip(SAMPLES, replayed.scores, strict=True)}
    assert q["fast"] < q["middle"] < q["slow"]
    assert replayed.outcomes[0].timing == "instructions"
    again = replay(data, settings)
    assert [s.q_qp for s in again.scores] == [s.q_qp for s in replayed.scores]


def test_a_replay_budget_in_seconds_meets_counts_at_the_rate():
    # a 0.2 s budget at 2 × 10⁹/s = 4 × 10⁸ instructions: "slow" (9 × 10⁸ on every test, its
    # correctness test included) is over it, "middle" (2.5 × 10⁸) under it
    budget = replay(eval_data(), ReplaySettings(cap_s=0.2, count_rate=RATE))
    outcomes = dict(zip(SAMPLES, budget.outcomes, strict=True))
    assert {n: o.timeout_fraction for n, o in outcomes.items()} == {
        "fast": 0.0,
        "middle": 0.0,
        "slow": 1.0,
    }
    assert {n: o.c_cor for n, o in outcomes.items()} == {"fast": 1, "middle": 1, "slow": 0}
    assert outcomes["slow"].cap_s == 0.2 * RATE


def test_a_counted_campaign_can_be_replayed_by_its_native_cpu_time():
    replayed = replay(eval_data(), ReplaySettings(timing="cpu"))
    assert replayed.outcomes[0].timing == "cpu"
    assert replayed.outcomes[0].optimization_tests[0].duration_s == (E8 // 2) / RATE


def test_a_campaign_timed_by_a_clock_holds_no_counts_to_replay():
    with pytest.raises(ExecrlError, match="was timed by cpu, so it holds no instructions"):
        replay(eval_data("cpu"), ReplaySettings(timing="instructions"))


# -- metric screening --------------------------------------------------------------------


def test_screening_counts_has_no_rerun_noise():
    # three native reruns per test, whose CPU times differ; the count is one, exact
    records = [
        r.model_copy(
            update={
                "results": [
                    t.model_copy(update={"repeats": [Timing(cpu_s=k, wall_s=k) for k in (1, 2, 3)]})
                    for t in r.results
                ]
            }
        )
        for r in reference_records()
    ]
    report = screen_metrics([toy_problem()], records, timing="instructions")
    assert report.reruns == 3
    assert report.timing == "instructions" and report.problems == 1
    assert report.row("mean_percentile").rerun_std == 0.0


def test_an_environment_scoring_counted_records_needs_no_conversion_of_ranks():
    # ranks use counts as they are: the rate changes nothing but the cap
    problem = with_campaign_durations(eval_data(), "toy", "instructions", RATE)
    a = Environment(qp(p=0.5).model_copy(update={"timing": "instructions", "count_rate": RATE}))
    b = Environment(qp(p=0.5).model_copy(update={"timing": "instructions", "count_rate": 3e9}))
    sample = eval_data().samples[1].record
    assert a.outcome(problem, sample).q_dur == pytest.approx(
        b.outcome(with_campaign_durations(eval_data(), "toy", "instructions", 3e9), sample).q_dur
    )
