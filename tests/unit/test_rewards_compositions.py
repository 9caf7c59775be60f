"""Quality maps, reward compositions and the naive baselines of spec §4, against values worked
out by hand; the reward naming language; and ``rescore`` (replay) agreeing with a direct call."""

from __future__ import annotations

import pytest

from execrl.envs import Environment, Outcome, environment
from execrl.errors import ExecrlError
from execrl.problems.models import Problem, Reference, ReferenceLabel, StdioTest, TestGroup
from execrl.rewards import (
    MAPS,
    REWARDS,
    NaiveReward,
    Reward,
    bucket,
    linear,
    range_compressed,
    rescore,
    reward,
    signed,
)
from execrl.sandbox.records import ExecutionRecord, Status, TestResult

CAP = 10.0

# --------------------------------------------------------------------------------------------
# Helpers


def make_problem(refs: dict[str, dict[str, float]], opt_ids: list[str]) -> Problem:
    tests = [
        StdioTest(id="c0", group=TestGroup.ORIGINAL, input="1\n", output="1\n"),
        StdioTest(id="x0", group=TestGroup.EXTRA, input="2\n", output="2\n"),
    ]
    tests += [
        StdioTest(id=t, group=TestGroup.OPTIMIZATION, input="3\n", output="3\n") for t in opt_ids
    ]
    references = [
        Reference(name=n, code="pass", label=ReferenceLabel.CORRECT, durations_s=d)
        for n, d in refs.items()
    ]
    return Problem(id="p", tests=tests, references=references, time_limit_s=CAP)


def make_record(
    results: dict[str, float | tuple[Status, float]], name: str = ""
) -> ExecutionRecord:
    rows = []
    for test_id, value in results.items():
        status, seconds = value if isinstance(value, tuple) else (Status.SUCCESS, value)
        rows.append(TestResult(test_id=test_id, status=status, cpu_s=seconds, wall_s=seconds))
    return ExecutionRecord(problem_id="p", program_sha256="0" * 64, program_name=name, results=rows)


def signals(c_cor=1, c_strict=None, g=1, q=0.0, inconclusive=False) -> Outcome:
    """An Outcome with the given signals (the rest consistent enough for compositions)."""
    return Outcome(
        c_cor=c_cor,
        c_strict=c_cor if c_strict is None else c_strict,
        g=g,
        q=q,
        timeout_fraction=0.0,
        g_to=1,
        g_dur=g,
        q_dur=q,
        ranked_tests=1,
        inconclusive=inconclusive,
    )


# --------------------------------------------------------------------------------------------
# Maps


@pytest.mark.parametrize(("q", "expected"), [(0.0, 1.0), (0.25, 0.75), (1.0, 0.0)])
def test_linear_map(q, expected):
    assert linear(q) == pytest.approx(expected)  # 1 − q


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        (0.0, 1.0),  # q == 0 -> 1
        (1e-7, 1.0),  # ⌊10(1e-7 − 1e-6)⌋ = ⌊−9e-6⌋ = −1 -> 0.9 + 0.1 = 1.0
        (0.1, 0.9),  # ⌊10(0.1 − 1e-6)⌋ = ⌊0.99999⌋ = 0 -> 0.9
        (0.1000001, 0.9),  # ⌊10·0.0999991⌋ = ⌊0.999991⌋ = 0 -> 0.9
        (0.1000011, 0.8),  # ⌊10·0.1000001⌋ = ⌊1.000001⌋ = 1 -> 0.8
        (0.25, 0.7),  # ⌊2.49999⌋ = 2 -> 0.7
        (0.5, 0.5),  # ⌊4.99999⌋ = 4 -> 0.5
        (0.95, 0.0),  # ⌊9.49999⌋ = 9 -> 0.9 − 0.9 = 0
        (1.0, 0.0),  # ⌊9.99999⌋ = 9 -> 0
    ],
)
def test_bucket_map_at_its_boundaries(q, expected):
    assert bucket(q) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("low", "q", "expected"),
    [
        (1 / 3, 0.0, 1.0),  # 1/3 + 2/3·1
        (1 / 3, 0.5, 2 / 3),  # 1/3 + 2/3·0.5 = 2/3
        (1 / 3, 1.0, 1 / 3),  # the floor l
        (1 / 2, 0.0, 1.0),
        (1 / 2, 0.4, 0.8),  # 1/2 + 1/2·0.6 = 0.8
        (1 / 2, 1.0, 0.5),
    ],
)
def test_range_compressed_map(low, q, expected):
    assert range_compressed(low)(q) == pytest.approx(expected)


def test_named_maps_and_signed():
    assert MAPS["range_third"](1.0) == pytest.approx(1 / 3)
    assert MAPS["range_half"](1.0) == pytest.approx(1 / 2)
    assert MAPS["linear"] is linear and MAPS["bucket"] is bucket
    # s(z) = 2z − 1
    assert [signed(0), signed(1), signed(0.5), signed(0.75)] == [-1.0, 1.0, 0.0, 0.5]


# --------------------------------------------------------------------------------------------
# Compositions on hand-made signals

# A: correct, gate open, q = 0.25    B: c̃ = 0 (an optimization test failed), g = 0, q = 0.25
# C: fast but wrong (c_cor = 0), g = 1, q = 0    D: correct but slow, g = 0, q = 0.6
A = signals(c_cor=1, g=1, q=0.25)
B = signals(c_cor=1, c_strict=0, g=0, q=0.25)
C = signals(c_cor=0, g=1, q=0.0)
D = signals(c_cor=1, g=0, q=0.6)


@pytest.mark.parametrize(
    ("spec", "outcome", "expected"),
    [
        # correctness-only: s(c_cor)
        ("correctness", A, 1.0),
        ("correctness", B, 1.0),
        ("correctness", C, -1.0),
        # optimization-only, no correctness gate: s(g) / s(m(q))
        ("optimization(binary)", A, 1.0),  # s(1)
        ("optimization(binary)", B, -1.0),  # s(0)
        ("optimization(binary)", C, 1.0),  # wrong code still gets s(g) = 1
        ("optimization(graded, map=linear)", A, 0.5),  # s(1 − 0.25) = 0.5
        ("optimization(graded, map=linear)", B, 0.5),  # the gate c̃ is not applied
        ("optimization(graded, map=bucket)", A, 0.4),  # s(0.7) = 0.4
        ("optimization(graded, map=linear)", C, 1.0),  # s(1 − 0) = 1
        # collapsed: s(c̃·g) / s(c̃·m(q))
        ("collapsed(binary)", A, 1.0),
        ("collapsed(binary)", B, -1.0),  # c̃ = 0
        ("collapsed(binary)", C, -1.0),  # c̃ = 0
        ("collapsed(binary)", D, -1.0),  # g = 0
        ("collapsed(graded, map=linear)", A, 0.5),  # s(1·0.75)
        ("collapsed(graded, map=linear)", B, -1.0),  # s(0·0.75)
        ("collapsed(graded, map=linear)", D, -0.2),  # s(0.4) = −0.2
        ("collapsed(graded, map=bucket)", D, -0.2),  # m = 0.9 − 0.1·⌊5.99999⌋ = 0.4 -> −0.2
        ("collapsed(graded, map=range_third)", D, 0.2),  # 1/3 + 2/3·0.4 = 0.6 -> 0.2
        ("collapsed(graded, map=range_half)", D, 0.4),  # 1/2 + 1/2·0.4 = 0.7 -> 0.4
        # two-gate: −1 if c̃ = 0, else g or m(q) (correct code lands in [0, 1])
        ("two_gate(binary)", A, 1.0),
        ("two_gate(binary)", B, -1.0),
        ("two_gate(binary)", C, -1.0),
        ("two_gate(binary)", D, 0.0),  # correct but gate closed: 0, not −1
        ("two_gate(graded, map=linear)", A, 0.75),
        ("two_gate(graded, map=linear)", D, 0.4),
        ("two_gate(graded, map=range_third)", D, 0.6),
        # additive: ½·s(c_cor) + ½·s(g or m(q))
        ("additive(binary)", A, 1.0),  # ½·1 + ½·1
        ("additive(binary)", B, 0.0),  # ½·1 + ½·(−1)
        ("additive(binary)", C, 0.0),  # ½·(−1) + ½·1: fast-but-wrong gets partial credit
        ("additive(binary)", D, 0.0),  # ½·1 + ½·(−1)
        ("additive(graded, map=linear)", A, 0.75),  # ½ + ½·0.5
        ("additive(graded, map=linear)", B, 0.75),  # c_cor (not c̃): ½ + ½·0.5
        ("additive(graded, map=linear)", C, 0.0),  # −½ + ½
        ("additive(graded, map=linear)", D, 0.4),  # ½ + ½·(−0.2) = 0.5 − 0.1
    ],
)
def test_compositions(spec, outcome, expected):
    r = reward(spec)
    assert r(outcome) == pytest.approx(expected, abs=1e-12)
    assert r(outcome, group_index=7) == r(outcome)  # only multitask looks at the group


@pytest.mark.parametrize("outcome", [A, B, C, D])
@pytest.mark.parametrize("signal", ["binary", "graded"])
def test_multitask_alternates_correctness_and_optimization(outcome, signal):
    multi = reward(f"multitask({signal}, map=linear)")
    correctness = reward("correctness")
    optimization = reward(f"optimization({signal}, map=linear)")
    for even in (0, 2, 4):
        assert multi(outcome, group_index=even) == correctness(outcome)
    for odd in (1, 3, 5):
        assert multi(outcome, group_index=odd) == optimization(outcome)
    # e.g. on C (fast but wrong): even groups −1, odd groups +1
    if outcome is C:
        assert (multi(C, group_index=0), multi(C, group_index=1)) == (-1.0, 1.0)


@pytest.mark.parametrize("name", sorted(REWARDS))
def test_inconclusive_gives_none_for_every_composition(name):
    assert reward(name)(signals(inconclusive=True)) is None
    assert reward(name)(signals(inconclusive=True), group_index=1) is None


# --------------------------------------------------------------------------------------------
# Naive raw-duration baselines: R = c_cor + m(d̄) − 1


def naive_outcome(opt: dict[str, float | tuple[Status, float]], correct=True, **corr):
    problem = make_problem({}, list(opt))
    base = {"c0": 0.01 if correct else (Status.WRONG_ANSWER, 0.01), "x0": 0.01, **corr}
    results = {**base, **{k: v for k, v in opt.items() if v is not None}}
    return environment("mc_mo").outcome(problem, make_record(results))


@pytest.mark.parametrize(
    ("opt", "linear_r", "log_r"),
    [
        # a correct 1 s program: d̄ = 1 -> m_lin = 1 − 1/10 = 0.9; m_log = (1 − 0)/3 = 1/3
        ({"t0": 1.0, "t1": 1.0}, 0.9, 1 / 3),
        # a correct 10 s program: δ = 10 ≥ cap -> timeout -> 10; m_lin = 0; m_log = (1 − 1)/3
        ({"t0": 10.0, "t1": 10.0}, 0.0, 0.0),
        # 0.1 s: m_lin = 0.99; m_log = (1 + 1)/3 = 2/3
        ({"t0": 0.1, "t1": 0.1}, 0.99, 2 / 3),
        # 0.001 s: m_lin = 0.9999; m_log = (1 + 3)/3 -> clipped to 1
        ({"t0": 0.001, "t1": 0.001}, 0.9999, 1.0),
        # 2 s and a timeout (measured 3 s) -> (2 + 10)/2 = 6: m_lin 0.4; m_log (1 − log10 6)/3
        ({"t0": 2.0, "t1": (Status.TIMEOUT, 3.0)}, 0.4, (1 - 0.7781512503836436) / 3),
        # non-positive duration -> 10: (10 + 2)/2 = 6
        ({"t0": 0.0, "t1": 2.0}, 0.4, (1 - 0.7781512503836436) / 3),
        # t1 missing from the record -> 10: (2 + 10)/2 = 6 (c_cor is unaffected: opt test)
        ({"t0": 2.0, "t1": None}, 0.4, (1 - 0.7781512503836436) / 3),
    ],
)
def test_naive_baseline_over_optimization_tests(opt, linear_r, log_r):
    o = naive_outcome(opt)
    assert o.c_cor == 1
    # R = 1 + m − 1 = m
    assert reward("naive")(o) == pytest.approx(linear_r)
    assert reward("naive(map=log)")(o) == pytest.approx(log_r)


def test_naive_baseline_incorrect_program_loses_one():
    o = naive_outcome({"t0": 1.0, "t1": 1.0}, correct=False)
    # c_cor = 0: R = 0 + 0.9 − 1 = −0.1 (linear), 0 + 1/3 − 1 = −2/3 (log)
    assert reward("naive")(o) == pytest.approx(-0.1)
    assert reward("naive(map=log)")(o) == pytest.approx(-2 / 3)


def test_naive_baseline_over_correctness_tests():
    o = naive_outcome({"t0": 9.0}, c0=0.5, x0=1.5)
    # d̄ over T_C = (0.5 + 1.5)/2 = 1 -> 0.9 / 1/3; the 9 s optimization test is ignored
    assert reward("naive(over=correctness)")(o) == pytest.approx(0.9)
    assert reward("naive(map=log, over=correctness)")(o) == pytest.approx(1 / 3)
    # 1e-9 s: max(1e-9, 1e-6) -> (1 + 6)/3 -> clipped to 1
    o = naive_outcome({}, c0=1e-9, x0=1e-9)
    assert reward("naive(map=log, over=correctness)")(o) == pytest.approx(1.0)
    # a 10 s correctness test is a timeout at the cap: c_cor = 0 and d̄ = 10 -> R = −1
    o = naive_outcome({}, c0=10.0, x0=10.0)
    assert reward("naive(over=correctness)")(o) == pytest.approx(-1.0)


def test_naive_baseline_without_tests_gets_no_speed_credit():
    problem = make_problem({}, [])
    o = environment("mc").outcome(problem, make_record({"c0": 0.01, "x0": 0.01}))
    # no optimization tests: m = 0 [ours] -> R = 1 + 0 − 1 = 0
    assert reward("naive")(o) == 0.0
    assert reward("naive(over=correctness)")(o) == pytest.approx(1 - 0.001)  # d̄ = 0.01


# --------------------------------------------------------------------------------------------
# Naming language


def test_reward_names_parse():
    assert reward("collapsed(graded, map=linear)") == Reward(
        composition="collapsed", signal="graded", map="linear"
    )
    assert reward("collapsed") == Reward(composition="collapsed", signal="binary")
    assert reward("correctness") == Reward(composition="correctness")
    assert reward("naive(map=log)") == NaiveReward(map="log", over="optimization")
    assert reward({"composition": "two_gate", "signal": "graded"}) == Reward(
        composition="two_gate", signal="graded", map="bucket"
    )
    assert reward({"preset": "naive", "over": "correctness"}) == NaiveReward(over="correctness")
    same = Reward(composition="additive")
    assert reward(same) is same
    assert reward("collapsed(graded, map=linear)").name == "collapsed(graded, map=linear)"
    assert reward("two_gate").name == "two_gate(binary)"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nope", "unknown reward 'nope'"),
        ("collapsed(graded, map=cubic)", "collapsed"),
        ("collapsed(signal=fuzzy)", "collapsed"),
        ("collapsed(colour=red)", "parameters: signal, map"),
        ("correctness(graded)", "correctness"),
        ("naive(map=sqrt)", "naive"),
        ({}, "composition"),
    ],
)
def test_bad_reward_specs_raise_readable_errors(spec, message):
    with pytest.raises(ExecrlError, match=message.replace("(", r"\(")):
        reward(spec)


# --------------------------------------------------------------------------------------------
# rescore (replay) == Environment.outcome + the reward


@pytest.mark.parametrize(
    ("env", "spec"),
    [
        ("qar(p=0.5)", "collapsed(graded, map=linear)"),
        ("qp(p=0.3)", "two_gate(binary)"),
        ("abs_timeout(limit=0.5, rho=0.5)", "additive(graded, map=bucket)"),
        ("rel_timeout(p=50)", "naive(map=log)"),
        ("mc", "correctness"),
        ("ranked_timeout(p=50)", "multitask(binary)"),
    ],
)
def test_rescore_matches_outcome_then_reward(env, spec):
    refs = {"a": {"t0": 0.2, "t1": 1.0}, "b": {"t0": 0.4, "t1": 2.0}, "c": {"t0": 0.8}}
    problem = make_problem(refs, ["t0", "t1", "t2"])
    fast = {"c0": 0.01, "x0": 0.01}
    records = [
        make_record({**fast, "t0": 0.1, "t1": 0.5, "t2": 0.3}, "fast"),
        make_record({**fast, "t0": 0.6, "t1": 3.0, "t2": 0.3}, "slow"),
        make_record({**fast, "t0": (Status.TIMEOUT, 10), "t1": 1.5, "t2": 0.3}, "timeout"),
        make_record({**fast, "x0": (Status.WRONG_ANSWER, 0.01), "t0": 0.1, "t1": 0.5}, "wrong"),
        make_record({**fast, "t0": (Status.RUNTIME_ERROR, 0.1), "t1": 0.5, "t2": 1}, "crash"),
        make_record({**fast, "t0": (Status.INCONCLUSIVE, 0), "t1": 0.5, "t2": 1}, "infra"),
    ]
    e: Environment = environment(env)
    r = reward(spec)
    for group_index in (0, 1):
        got = rescore(problem, records, env=env, reward=spec, group_index=group_index)
        expected = [
            (r(e.outcome(problem, rec), group_index=group_index), e.outcome(problem, rec))
            for rec in records
        ]
        assert got == expected
        values = [value for value, _ in got]
        # the inconclusive run on t0 counts only where the environment runs t0
        assert (values[-1] is None) == e.config.optimization
        assert all(-1 <= v <= 1 for v in values[:-1])
