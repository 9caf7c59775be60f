"""Replay on hand-built records: q_QP, p_τ, budgets, limits, calibration and timing, each
checked against values worked out by hand, and against the environment code training uses.

The toy problem has two correctness tests (c1, c2) and two optimization tests (o1, o2); three
correct references take 1, 2 and 3 s on each optimization test. Records are built directly
(no sandbox): everything after the executor is a pure function of them.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from execrl.envs import Environment, Verdict
from execrl.envs.presets import qp
from execrl.errors import ExecrlError
from execrl.evaluate import ReplaySettings, by_difficulty, degenerate_ratios, pass_counts, replay
from execrl.evaluate.folder import CampaignInfo
from execrl.evaluate.metrics import evaluate
from execrl.evaluate.replay import EvalData, SampleRun, with_campaign_durations
from execrl.problems import Problem, Reference, StdioTest, TestGroup
from execrl.rewards import rescore
from execrl.rl.advantages import zero_advantage_rate
from execrl.sandbox import ExecutionRecord, Status, TestResult

OK, TO, WA, INC = Status.SUCCESS, Status.TIMEOUT, Status.WRONG_ANSWER, Status.INCONCLUSIVE
REFERENCE_S = {"r1": 1.0, "r2": 2.0, "r3": 3.0}


def toy_problem(pid: str = "toy", difficulty: str = "easy") -> Problem:
    tests = [
        StdioTest(id="c1", group=TestGroup.ORIGINAL, input="1\n", output="1\n"),
        StdioTest(id="c2", group=TestGroup.EXTRA, input="2\n", output="2\n"),
        StdioTest(id="o1", group=TestGroup.OPTIMIZATION, input="3\n", output="3\n"),
        StdioTest(id="o2", group=TestGroup.OPTIMIZATION, input="44\n", output="44\n"),
    ]
    refs = [Reference(name=n, code="print(input())", label="correct") for n in REFERENCE_S]
    return Problem(id=pid, difficulty=difficulty, time_limit_s=10.0, tests=tests, references=refs)


def record(pid: str, name: str, results: dict[str, tuple[Status, float]], wall=None):
    wall = wall or {}
    return ExecutionRecord(
        problem_id=pid,
        program_sha256=name,
        program_name=name,
        results=[
            TestResult(test_id=t, status=s, cpu_s=d, wall_s=wall.get(t, d))
            for t, (s, d) in results.items()
        ],
    )


def sample(c1=(OK, 0.1), c2=(OK, 0.1), o1=(OK, 0.5), o2=(OK, 0.5), wall=None):
    return {"c1": c1, "c2": c2, "o1": o1, "o2": o2}, wall


SAMPLES = {
    "A": sample(wall={"o1": 4.0, "o2": 4.0}),  # fastest on CPU time, slowest on wall time
    "B": sample(o1=(OK, 1.5), o2=(OK, 2.5)),
    "C": sample(o1=(OK, 5.0), o2=(OK, 5.0)),
    "D": sample(c1=(OK, 3.0)),  # a slow correctness test
    "E": sample(o2=(WA, 0.2)),  # an optimization test fails: not strictly correct
    "F": sample(c2=(INC, 0.0)),  # the sandbox failed
    "G": sample(o1=(TO, 10.0)),  # an optimization test timed out: still strictly correct
    "H": sample(c1=(WA, 0.1)),  # wrong
}


def make_data(problems: list[Problem], samples=SAMPLES, models=("m",)) -> EvalData:
    runs, references = [], {}
    for p in problems:
        references[p.id] = {
            n: record(p.id, n, {"o1": (OK, d), "o2": (OK, d)}) for n, d in REFERENCE_S.items()
        }
        for model in models:
            for i, (results, wall) in enumerate(samples.values()):
                runs.append(SampleRun(model, p.id, i, record(p.id, f"{model}{i}", results, wall)))
    campaign = CampaignInfo(
        created_at=datetime.now(UTC),
        seed=0,
        cap_s=None,
        repeats=1,
        timing="cpu",
        workers=1,
        samples=len(runs),
        references=3 * len(problems),
        wall_s=0.0,
    )
    return EvalData({p.id: p for p in problems}, list(models), runs, references, campaign)


@pytest.fixture(scope="module")
def data() -> EvalData:
    return make_data([toy_problem()])


def by_name(replayed) -> dict:
    return {name: s for name, s in zip(SAMPLES, replayed.scores, strict=True)}


def test_leaderboard_percentiles_by_hand(data):
    s = by_name(replay(data))
    assert s["A"].q_qp == 0.0  # faster than every reference on both tests
    # B: per-test percentiles 1/3 and 2/3 (mean 1/2); r1 0, r2 1/2, r3 1: position 1 of 3
    assert s["B"].q_qp == pytest.approx(1 / 3)
    assert s["C"].q_qp == 1.0
    # G: the timeout ranks at the cap (10 s): percentiles 1 and 0 → 1/2, ahead of r2 (tie)
    assert s["G"].q_qp == pytest.approx(1 / 3)
    assert s["A"].duration_s == pytest.approx(0.1 + 0.1 + 0.5 + 0.5)
    assert s["G"].duration_s == pytest.approx(0.1 + 0.1 + 10.0 + 0.5)
    assert [s[n].c_strict for n in SAMPLES] == [1, 1, 1, 1, 0, 0, 1, 0]
    assert [s[n].c_cor for n in SAMPLES] == [1, 1, 1, 1, 1, 0, 1, 0]
    assert s["F"].inconclusive and not s["A"].inconclusive


def test_p_tau_counts_strict_and_fast_enough(data):
    s = by_name(replay(data))
    passing = {tau: {n for n in SAMPLES if s[n].passes(tau)} for tau in (100, 50, 30, 10)}
    assert passing[100] == {"A", "B", "C", "D", "G"}
    assert passing[50] == {"A", "B", "D", "G"}  # D: q_QP = 0 like A
    assert passing[30] == passing[10] == {"A", "D"}
    # n leaves the inconclusive sample out; c counts the passing ones
    assert pass_counts(replay(data).scores, "m", ["toy"], 30) == [(7, 2)]


def test_p_tau_is_the_qp_environment_with_gate_tau_over_100(data):
    problem = with_campaign_durations(data, "toy", "cpu")
    replayed = replay(data)
    for tau in (100, 50, 30, 10):
        env = Environment(qp(p=tau / 100))
        for run, score in zip(data.samples, replayed.scores, strict=True):
            outcome = env.outcome(problem, run.record)
            assert score.passes(tau) == bool(outcome.c_strict * outcome.g), (run.index, tau)
            assert score.q_qp == outcome.q_dur


def test_p100_is_plain_strict_correctness_from_the_statuses(data):
    for run, score in zip(data.samples, replay(data).scores, strict=True):
        statuses = {r.test_id: r.status for r in run.record.results}
        correct = all(statuses[t] is OK for t in ("c1", "c2"))
        no_failure = all(statuses[t] in (OK, TO) for t in ("o1", "o2"))
        assert score.passes(100) == (correct and no_failure)


def test_calibration_applies_to_references_only(data):
    # α = 0.5: references take 0.5, 1 and 1.5 s. A (0.5 s) ties r1 and keeps the top place;
    # B (1.5, 2.5) now scores 5/6, behind every reference.
    s = by_name(replay(data, ReplaySettings(alpha=0.5)))
    assert s["A"].q_qp == 0.0
    assert s["B"].q_qp == 1.0
    assert s["A"].duration_s == pytest.approx(1.2)  # the sample's own durations are untouched
    # β shifts every reference by 4 s (5, 6, 7 s): every sample without a timeout or failure
    # on an optimization test is at least as fast as r1 (C ties it at 5 s: the earlier place).
    s = by_name(replay(data, ReplaySettings(beta=4.0)))
    assert {n for n in SAMPLES if s[n].q_qp == 0.0} == {"A", "B", "C", "D", "F", "H"}


def test_budget_turns_slow_successes_into_timeouts(data):
    s = by_name(replay(data, ReplaySettings(cap_s=2.0)))
    assert s["D"].c_cor == 0  # its 3 s correctness test is over the 2 s budget
    assert s["C"].c_strict == 1  # 5 s on optimization tests: timeouts, which are allowed
    assert s["C"].duration_s == pytest.approx(0.1 + 0.1 + 2.0 + 2.0)
    with pytest.raises(ExecrlError, match="at most the executed cap"):
        replay(data, ReplaySettings(cap_s=20.0))


def test_intended_limit_on_optimization_tests(data):
    replayed = replay(data, ReplaySettings.with_limit_s(2.0))
    s = by_name(replayed)
    # B's 2.5 s on o2 becomes a timeout ranked at the cap (10 s): percentiles 1/3 and 1 → 2/3;
    # r1 scores 0, r2 1/2, r3 5/6: position 2 of 3.
    assert s["B"].q_qp == pytest.approx(2 / 3)
    assert s["B"].c_strict == 1  # timeouts are allowed
    assert s["A"].q_qp == 0.0
    o2 = next(t for t in replayed.outcomes[1].tests if t.test_id == "o2")
    assert o2.verdict is Verdict.TIMEOUT
    assert o2.limit_s == 2.0


def test_wall_time_replay(data):
    s = by_name(replay(data, ReplaySettings(timing="wall")))
    assert s["A"].q_qp == 1.0  # 4 s of wall time: slower than every reference
    assert by_name(replay(data))["A"].q_qp == 0.0


def test_metrics_and_breakdown_by_difficulty():
    data = make_data([toy_problem("easy-one", "easy"), toy_problem("hard-one", "hard")])
    replayed = replay(data)
    metrics = evaluate(replayed, taus=(100, 30), ks=(1,), resamples=200)
    # Each problem: 7 conclusive samples, 5 pass p100, 2 pass p30.
    assert metrics.pass_at_k[("m", 100, 1)].value == pytest.approx(5 / 7)
    assert metrics.pass_at_k[("m", 30, 1)].value == pytest.approx(2 / 7)
    assert metrics.counts["m"].inconclusive == 2
    breakdown = by_difficulty(replayed, taus=(30,), ks=(1,), resamples=50)
    assert list(breakdown) == ["easy", "hard"]
    assert breakdown["hard"].problems == ("hard-one",)
    assert breakdown["hard"].pass_at_k[("m", 30, 1)].value == pytest.approx(2 / 7)


def test_degenerate_group_ratio_matches_zero_advantage_groups():
    flat = {"W1": sample(c1=(WA, 0.1)), "W2": sample(c2=(WA, 0.1))}  # every sample wrong
    data = make_data([toy_problem("p1"), toy_problem("p2")], models=("m",))
    wrong = make_data([toy_problem("p1"), toy_problem("p2")], samples=flat, models=("w",))
    both = EvalData(
        data.problems, ["m", "w"], data.samples + wrong.samples, data.references, data.campaign
    )
    ratios = degenerate_ratios(both, env="qp(p=0.3)", reward="collapsed")
    assert ratios == {"m": 0.0, "w": 1.0}
    # The same rewards through rewards.rescore and the advantage code's own definition.
    problem = with_campaign_durations(both, "p1", "cpu")
    records = [r.record for r in both.samples if r.model == "m" and r.problem_id == "p1"]
    rewards = [r for r, _ in rescore(problem, records, env="qp(p=0.3)", reward="collapsed")]
    conclusive = [r for r in rewards if r is not None]
    assert zero_advantage_rate(conclusive, [0] * len(conclusive)) == 0.0
    assert degenerate_ratios(both, env="qp(p=0.3)", reward="correctness")["w"] == 1.0
