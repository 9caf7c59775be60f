"""Properties of the rewards of spec §4 over random problems, reference pools and records:
faster correct code is never rewarded less under QAR/QP, incorrect code always gets −1 under
the gated compositions, every reward lies in [−1, 1] (None exactly when inconclusive), and the
naive baseline is ``c_cor + m(d̄) − 1`` with timeouts / missing / non-positive at the cap."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from execrl.envs import PRESETS, environment
from execrl.problems.models import Problem, Reference, ReferenceLabel, StdioTest, TestGroup
from execrl.rewards import MAPS, NaiveReward, Reward
from execrl.sandbox.records import ExecutionRecord, Status, TestResult

CAP = 10.0
OPT_IDS = ("t0", "t1", "t2", "t3")
CORRECTNESS_IDS = ("c0", "c1", "x0")  # c*: original tests T0, x0: an extra test T+

# Stored reference durations: ties, the sanitised ones (≤ 0, NaN, above the cap) included.
STORED = [0.0, -1.0, math.nan, 0.05, 0.1, 0.3, 0.5, 1.0, 2.0, 5.0, 9.0, 10.0, 12.0]
# Candidate durations: the same grid (ties with references) and a few in between.
MEASURED = [0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 5.0, 9.0, 10.0, 12.0]

ALL_ENVS = [
    *PRESETS,
    "qar(p=0.5)",
    "qar(p=0.1)",
    "qp(p=0.5)",
    "qp(p=0.9)",
    "abs_filter(aggregate=median)",
    "len_filter(L=5)",
    "rel_filter(r=50)",
    "rel_timeout(p=90)",
    "ranked_timeout(p=50, agg=median)",
    "abs_timeout(limit=2, rho=0)",
]
ENVS = {name: environment(name) for name in ALL_ENVS}
RANKING_ENVS = [name for name in ALL_ENVS if name.startswith(("qar", "qp"))]

GRADED = [
    Reward(composition=c, signal="graded", map=m) for c in ("collapsed", "two_gate") for m in MAPS
]
GATED = [Reward(composition=c) for c in ("collapsed", "two_gate")] + GRADED
ALL_REWARDS = [
    Reward(composition="correctness"),
    *[Reward(composition=c) for c in ("optimization", "collapsed", "two_gate", "additive")],
    *[
        Reward(composition=c, signal="graded", map=m)
        for c in ("optimization", "collapsed", "two_gate", "additive", "multitask")
        for m in MAPS
    ],
    Reward(composition="multitask"),
    *[
        NaiveReward(map=m, over=o)
        for m in ("linear", "log")
        for o in ("correctness", "optimization")
    ],
]

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------------------------
# Strategies


def _group(test_id: str) -> TestGroup:
    return TestGroup.ORIGINAL if test_id.startswith("c") else TestGroup.EXTRA


@st.composite
def problems(draw) -> Problem:
    """Up to 4 optimization tests (inputs of 2 or 20 characters) and up to 4 references whose
    stored durations may be missing, tied, invalid or above the cap."""
    opt = OPT_IDS[: draw(st.integers(0, 4))]
    tests = [StdioTest(id=t, group=_group(t), input="1\n", output="1\n") for t in CORRECTNESS_IDS]
    tests += [
        StdioTest(
            id=t,
            group=TestGroup.OPTIMIZATION,
            input=draw(st.sampled_from(["1\n", "9" * 20])),
            output="1\n",
        )
        for t in opt
    ]
    references = []
    for j in range(draw(st.integers(0, 4))):
        durations = {}
        for t in opt:
            value = draw(st.one_of(st.none(), st.sampled_from(STORED)))
            if value is not None:
                durations[t] = value
        references.append(
            Reference(
                name=f"h{j}", code="pass", label=ReferenceLabel.CORRECT, durations_s=durations
            )
        )
    return Problem(id="p", tests=tests, references=references, time_limit_s=CAP)


ANY_STATUS = st.sampled_from([*Status, None])  # None: missing from the record
FAILURES = [
    Status.WRONG_ANSWER,
    Status.RUNTIME_ERROR,
    Status.MEMORY_LIMIT,
    Status.COMPILE_ERROR,
    Status.OUTPUT_LIMIT,
    Status.TIMEOUT,
    None,
]


def record(results: dict[str, tuple[Status | None, float]]) -> ExecutionRecord:
    return ExecutionRecord(
        problem_id="p",
        program_sha256="0" * 64,
        results=[
            TestResult(test_id=t, status=s, cpu_s=d, wall_s=d)
            for t, (s, d) in results.items()
            if s is not None
        ],
    )


def draw_results(draw, ids, statuses) -> dict[str, tuple[Status | None, float]]:
    return {t: (draw(statuses), draw(st.sampled_from(MEASURED))) for t in ids}


def correct_results(draw, problem: Problem) -> dict[str, tuple[Status | None, float]]:
    """Every correctness test a fast success; optimization tests succeed (maybe past the cap,
    which makes them timeouts) or time out — so c̃ = 1 in every environment."""
    results = {t: (Status.SUCCESS, 0.01) for t in CORRECTNESS_IDS}
    opt_status = st.sampled_from([Status.SUCCESS, Status.SUCCESS, Status.TIMEOUT])
    results |= draw_results(draw, [t.id for t in problem.optimization_tests], opt_status)
    return results


# --------------------------------------------------------------------------------------------
# (a) Faster correct code never gets a lower reward under QAR / QP


@st.composite
def faster_pairs(draw):
    problem = draw(problems())
    slow = correct_results(draw, problem)
    opt = [t.id for t in problem.optimization_tests]
    if opt and draw(st.booleans()):
        # one test strictly faster
        t = draw(st.sampled_from(opt))
        status, d = slow[t]
        faster = draw(st.sampled_from([x for x in MEASURED if x < d] or [0.0]))
        fast = {**slow, t: (status, min(faster, d))}
    else:
        # every duration scaled down by a factor in (0, 1)
        factor = draw(st.floats(0.01, 0.99))
        fast = {t: (s, d * factor) for t, (s, d) in slow.items()}
    return problem, record(slow), record(fast)


@SETTINGS
@given(faster_pairs())
def test_faster_correct_code_is_never_rewarded_less(pair):
    problem, slow, fast = pair
    for name in RANKING_ENVS:
        env = ENVS[name]
        o_slow, o_fast = env.outcome(problem, slow), env.outcome(problem, fast)
        assert o_slow.c_strict == o_fast.c_strict == 1
        assert o_fast.q <= o_slow.q, name
        for r in GATED:
            assert r(o_fast) >= r(o_slow), (name, r.name, o_fast.q, o_slow.q)


# --------------------------------------------------------------------------------------------
# (b) Incorrect code (a correctness test fails) gets −1 under collapsed and two-gate


@st.composite
def incorrect_runs(draw):
    problem = draw(problems())
    ids = [t.id for t in problem.tests]
    no_infra = st.sampled_from([s for s in Status if s is not Status.INCONCLUSIVE] + [None])
    results = draw_results(draw, ids, no_infra)
    # an original test (in T_C under every environment, rlvr included) fails
    failing = draw(st.sampled_from(["c0", "c1"]))
    results[failing] = (draw(st.sampled_from(FAILURES)), draw(st.sampled_from(MEASURED)))
    return problem, record(results)


@SETTINGS
@given(incorrect_runs())
def test_incorrect_code_gets_minus_one_under_gated_compositions(run):
    problem, rec = run
    for name, env in ENVS.items():
        o = env.outcome(problem, rec)
        assert (o.c_cor, o.c_strict, o.inconclusive) == (0, 0, False), name
        for r in GATED:
            assert r(o) == -1.0, (name, r.name)
            assert r(o, group_index=1) == -1.0


# --------------------------------------------------------------------------------------------
# (c) Every reward lies in [−1, 1], or is None exactly when the outcome is inconclusive


@st.composite
def any_runs(draw):
    problem = draw(problems())
    return problem, record(draw_results(draw, [t.id for t in problem.tests], ANY_STATUS))


@SETTINGS
@given(any_runs(), st.integers(0, 3))
def test_every_reward_is_bounded_or_none_iff_inconclusive(run, group_index):
    problem, rec = run
    statuses = rec.statuses()
    for name, env in ENVS.items():
        o = env.outcome(problem, rec)
        planned = [t.id for t in env.plan(problem).tests]
        infra = any(statuses.get(t) is Status.INCONCLUSIVE for t in planned)
        assert o.inconclusive == infra, name
        assert 0.0 <= o.q <= 1.0 and o.g in (0, 1) and o.c_strict <= o.c_cor
        for r in ALL_REWARDS:
            value = r(o, group_index=group_index)
            if infra:
                assert value is None, (name, r.name)
            else:
                assert value is not None and -1.0 <= value <= 1.0, (name, r.name, value)


# --------------------------------------------------------------------------------------------
# (d) The naive baseline: R = c_cor + m(d̄) − 1, timeouts / missing / non-positive at the cap


def expected_naive(durations: list[float | None], correct: bool) -> tuple[float, float]:
    """By the spec: a success with δ ≥ cap is a timeout; timeouts, missing and non-positive
    durations count as the cap (10 s)."""
    replaced = [CAP if d is None or d <= 0 or d >= CAP else d for d in durations]
    d_bar = sum(replaced) / len(replaced)
    m_lin = min(1.0, max(0.0, 1 - d_bar / 10))
    m_log = min(1.0, max(0.0, (1 - math.log10(max(d_bar, 1e-6))) / 3))
    c = 1.0 if correct else 0.0
    return c + m_lin - 1, c + m_log - 1


@SETTINGS
@given(
    durations=st.lists(
        st.one_of(st.none(), st.floats(-1.0, 20.0, allow_nan=False)), min_size=1, max_size=4
    ),
    correct=st.booleans(),
)
@example(durations=[10.0, 10.0], correct=True)  # a correct 10 s program: 0
@example(durations=[1.0, 1.0], correct=True)  # a correct 1 s program: 0.9 (linear)
def test_naive_baseline(durations, correct):
    ids = OPT_IDS[: len(durations)]
    tests = [StdioTest(id="c0", group=TestGroup.ORIGINAL, input="1\n", output="1\n")]
    tests += [StdioTest(id=t, group=TestGroup.OPTIMIZATION, input="1\n", output="1\n") for t in ids]
    problem = Problem(id="p", tests=tests, time_limit_s=CAP)
    results = {"c0": (Status.SUCCESS if correct else Status.WRONG_ANSWER, 0.01)}
    results |= {
        t: (None if d is None else Status.SUCCESS, d or 0.0)
        for t, d in zip(ids, durations, strict=True)
    }
    o = environment("mc_mo").outcome(problem, record(results))  # all opt tests, 10 s cap
    lin, log = expected_naive(durations, correct)
    r_lin = NaiveReward(map="linear")(o)
    r_log = NaiveReward(map="log")(o)
    assert abs(r_lin - lin) < 1e-9 and abs(r_log - log) < 1e-9
    assert -1.0 <= r_log <= 1.0 and -1.0 <= r_lin <= 1.0
    if correct and durations == [10.0, 10.0]:
        assert r_lin == 0.0
    if correct and durations == [1.0, 1.0]:
        assert abs(r_lin - 0.9) < 1e-12
