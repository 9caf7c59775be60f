"""The environment operators and signals of spec §1–§2, against values worked out by hand.

Every expected number below is derived from the spec's formulas (the arithmetic is in the
comment next to it), not from running the code.
"""

from __future__ import annotations

from math import inf, nan

import numpy as np
import pytest

from execrl.envs import (
    PRESETS,
    AbsoluteFilter,
    AbsoluteLimit,
    CapLimit,
    Environment,
    EnvironmentConfig,
    IdentityFilter,
    LengthFilter,
    RankedReferenceLimit,
    RelativeFilter,
    RelativeLimit,
    Verdict,
    environment,
    qar,
    qp,
)
from execrl.envs.operators import best_references
from execrl.envs.operators import io_length as length_of
from execrl.errors import ExecrlError
from execrl.problems.models import (
    AssertTest,
    CallTest,
    Problem,
    Reference,
    ReferenceLabel,
    StdioTest,
    TestGroup,
)
from execrl.rewards import reward
from execrl.sandbox.records import ExecutionRecord, Status, TestResult
from execrl.timing import ReferencePool, per_test_percentiles, sanitise

# --------------------------------------------------------------------------------------------
# Helpers: problems, pools and records by hand.

CAP = 10.0


def make_problem(
    refs: dict[str, dict[str, float]],
    opt_ids: list[str],
    *,
    originals: tuple[str, ...] = ("c0",),
    extras: tuple[str, ...] = ("x0",),
    time_limit_s: float = CAP,
    inputs: dict[str, str] | None = None,
) -> Problem:
    """Original tests ``originals``, extra tests ``extras``, optimization tests ``opt_ids``;
    correct references with the given stored durations."""
    inputs = inputs or {}
    tests = [
        StdioTest(id=t, group=TestGroup.ORIGINAL, input="1\n", output="1\n") for t in originals
    ]
    tests += [StdioTest(id=t, group=TestGroup.EXTRA, input="2\n", output="2\n") for t in extras]
    tests += [
        StdioTest(id=t, group=TestGroup.OPTIMIZATION, input=inputs.get(t, "3\n"), output="3\n")
        for t in opt_ids
    ]
    references = [
        Reference(name=n, code="pass", label=ReferenceLabel.CORRECT, durations_s=d)
        for n, d in refs.items()
    ]
    return Problem(id="p", tests=tests, references=references, time_limit_s=time_limit_s)


def result(test_id: str, value: float | tuple[Status, float], wall: float | None = None):
    status, cpu = value if isinstance(value, tuple) else (Status.SUCCESS, value)
    return TestResult(
        test_id=test_id, status=status, cpu_s=cpu, wall_s=cpu if wall is None else wall
    )


def make_record(results: dict[str, float | tuple[Status, float]], timing: str = "cpu"):
    """A record: test id -> seconds (a success) or (status, seconds)."""
    return ExecutionRecord(
        problem_id="p",
        program_sha256="0" * 64,
        results=[result(t, v) for t, v in results.items()],
        timing=timing,
    )


def correct_fast(problem: Problem) -> dict[str, float]:
    """Every correctness test a 0.01 s success."""
    return {t.id: 0.01 for t in problem.correctness_tests}


def pool(rows: list[list[float]], cap: float = CAP) -> ReferencePool:
    """A sanitised pool from a (tests x references) table, NaN = missing."""
    D = np.array(rows, dtype=float)
    ids = tuple(f"t{i}" for i in range(D.shape[0]))
    names = tuple(f"h{j}" for j in range(D.shape[1]))
    return ReferencePool(ids, names, sanitise(D, cap), cap)


def stdio(test_id: str, input: str = "1\n", output: str = "1\n") -> StdioTest:
    return StdioTest(id=test_id, group=TestGroup.OPTIMIZATION, input=input, output=output)


def nan_eq(got, expected) -> bool:
    return np.allclose(np.asarray(got, float), np.asarray(expected, float), equal_nan=True)


# --------------------------------------------------------------------------------------------
# §1 Sanitisation: ψ(d) = d if d > 0 else cap; d̃ = min(cap, max(0, Γ(ψ(d)))).


def test_sanitise_replaces_invalid_durations_by_the_cap_and_keeps_missing_missing():
    raw = np.array([0.0, -1.0, nan, inf, -inf, 12.0, 3.5, 10.0])
    # 0 -> ψ = 10; -1 -> 10; NaN (missing) stays NaN; +inf > 0 -> min(10, inf) = 10;
    # -inf -> 10; 12 -> min(10, 12) = 10; 3.5 -> 3.5; 10 -> 10
    assert nan_eq(sanitise(raw, CAP), [10, 10, nan, 10, 10, 10, 3.5, 10])


def test_sanitise_applies_the_calibration_after_psi_then_clamps():
    def gamma(d):  # Γ(d) = 2d − 1
        return 2 * d - 1

    raw = np.array([0.0, nan, 3.5, 0.25, 5.0, 12.0])
    # 0 -> ψ 10 -> Γ 19 -> clamp 10;  NaN stays NaN;  3.5 -> 6;  0.25 -> −0.5 -> clamp 0;
    # 5 -> 9;  12 -> Γ 23 -> clamp 10
    assert nan_eq(sanitise(raw, CAP, gamma), [10, nan, 6, 0, 9, 10])


def test_pool_from_mapping_absent_is_missing_but_a_stored_nan_is_slow():
    got = ReferencePool.from_mapping(
        {"a": {"t0": 1.0, "t1": nan}, "b": {"t0": 0.0, "t2": 20.0}},
        ["t0", "t1", "t2"],
        cap_s=CAP,
    )
    # a: t0 1, t1 stored NaN -> ψ(NaN) = 10 (NaN > 0 is false), t2 absent -> missing
    # b: t0 0 -> 10, t1 absent -> missing, t2 20 -> min(10, 20) = 10
    assert nan_eq(got.durations, [[1, 10], [10, nan], [nan, 10]])
    assert got.usable_counts().tolist() == [2, 1, 1]


def test_environment_pool_uses_the_environment_cap():
    problem = make_problem({"a": {"t0": 7.0, "t1": 2.0}}, ["t0", "t1"])
    env = Environment(EnvironmentConfig(cap_s=5.0))
    # cap 5: 7 -> min(5, 7) = 5; 2 stays 2
    assert nan_eq(env.pool(problem).durations, [[5], [2]])
    # a pool sanitised under another cap is refused
    with pytest.raises(ExecrlError, match="cap"):
        env.plan(problem, ReferencePool.from_problem(problem))


def test_calibration_maps_references_only_never_the_candidate():
    problem = make_problem({"a": {"t0": 1.0}, "b": {"t0": 2.0}}, ["t0"])
    env = Environment(EnvironmentConfig(limit=RelativeLimit(p=50), ranking="qar"))
    rec = make_record({**correct_fast(problem), "t0": 1.5})

    plain = env.outcome(problem, rec)
    # uncalibrated: D = {1, 2}, λ = median = 1.5, δ = 1.5 ≥ λ -> timeout, ranked at cap 10:
    # 2 references strictly faster -> p = 2/2 = 1
    (t0,) = plain.optimization_tests
    assert t0.verdict is Verdict.TIMEOUT and t0.limit_s == 1.5 and t0.percentile == 1.0

    calibrated_pool = env.pool(problem, calibration=lambda d: 2 * d)
    calibrated = env.outcome(problem, rec, pool=calibrated_pool)
    # Γ(d) = 2d: D = {2, 4}, λ = 3; δ = 1.5 is NOT doubled -> success, 0 faster -> p = 0
    (t0,) = calibrated.optimization_tests
    assert t0.verdict is Verdict.SUCCESS and t0.limit_s == 3.0
    assert t0.duration_s == 1.5 and t0.ranked_duration_s == 1.5 and t0.percentile == 0.0
    assert calibrated.q == 0.0


# --------------------------------------------------------------------------------------------
# Pre-execution filters


def test_identity_filter_keeps_everything():
    tests = [stdio("t0"), stdio("t1")]
    assert IdentityFilter().keep(tests, ReferencePool.empty(["t0", "t1"], CAP)) == [True, True]


def test_absolute_filter_mean_and_median_strict():
    tests = [stdio(f"t{i}") for i in range(4)]
    p = pool(
        [
            [0.1, 0.2, 10.0],  # mean 10.3/3 = 3.433 (≥ 2: drop); median 0.2 (< 2: keep)
            [1.0, 3.0, nan],  # mean 2 = a: strict < drops it; median (1+3)/2 = 2: drops it
            [1.0, 1.5, 2.9],  # mean 5.4/3 = 1.8 < 2 keep; median 1.5 keep
            [nan, nan, nan],  # d̄ undefined: dropped by F_abs
        ]
    )
    assert AbsoluteFilter(a=2.0).keep(tests, p) == [False, False, True, False]
    assert AbsoluteFilter(a=2.0, aggregate="median").keep(tests, p) == [True, False, True, False]
    # a just above 2 keeps the mean-2 test
    assert AbsoluteFilter(a=2.000001).keep(tests, p) == [False, True, True, False]


def test_length_filter_boundary_is_inclusive():
    tests = [
        stdio("s", input="abcd", output="ef"),  # 4 + 2 = 6 characters
        CallTest(id="c", group="optimization", fn_name="f", args=[1, 2], expected=3),
        AssertTest(id="a", group="optimization", code="check(f)", entry_point="f"),
    ]
    # call: json "[1, 2]" = 6 + json "3" = 1 -> 7; assert: len("check(f)") = 8
    assert [length_of(t) for t in tests] == [6, 7, 8]
    empty = ReferencePool.empty(["s", "c", "a"], CAP)  # works without references
    assert LengthFilter(max_chars=6).keep(tests, empty) == [True, False, False]
    assert LengthFilter(max_chars=5).keep(tests, empty) == [False, False, False]
    assert LengthFilter(max_chars=8).keep(tests, empty) == [True, True, True]


def test_relative_filter_percentile_boundary_and_unreferenced_tests_kept():
    tests = [stdio(f"t{i}") for i in range(6)]
    # d̄ = 1, 2, 3, 4, 5 and t5 without references
    p = pool([[1.0], [2.0], [3.0], [4.0], [5.0], [nan]])
    # r = 50: percentile of {1..5} = 3 (the middle one); ≤ 3 keeps t0..t2, t5 kept (no d̄)
    assert RelativeFilter(r=50).keep(tests, p) == [True, True, True, False, False, True]
    # r = 25: position 0.25·4 = 1 -> 2; keeps t0, t1 (2 ≤ 2 at the boundary), t5
    assert RelativeFilter(r=25).keep(tests, p) == [True, True, False, False, False, True]
    # r = 10: position 0.4 -> 1 + 0.4·(2 − 1) = 1.4; only t0 and t5
    assert RelativeFilter(r=10).keep(tests, p) == [True, False, False, False, False, True]
    # r = 100: the maximum, everything
    assert RelativeFilter(r=100).keep(tests, p) == [True] * 6
    # no d̄ anywhere: nothing to compare, everything kept
    assert RelativeFilter(r=10).keep(tests[:2], pool([[nan], [nan]])) == [True, True]


def test_filters_choose_the_planned_optimization_tests():
    refs = {"a": {"t0": 0.5, "t1": 3.0}, "b": {"t0": 1.5, "t1": 3.0}}
    problem = make_problem(refs, ["t0", "t1", "t2"])
    # F_abs a = 2 (mean): t0 mean 1 < 2 keep; t1 mean 3 drop; t2 no references drop
    plan = environment("abs_filter").plan(problem)
    assert [t.id for t in plan.optimization] == ["t0"]
    assert plan.limits_s.tolist() == [0.5]  # the preset's λ = 0.5 s
    assert [t.id for t in plan.correctness] == ["c0", "x0"]  # T_C = T0 ∪ T+


# --------------------------------------------------------------------------------------------
# Intra-execution limits


def test_cap_and_absolute_limits():
    p = pool([[1.0], [nan]])
    assert CapLimit().limits(p).tolist() == [10.0, 10.0]
    assert AbsoluteLimit(seconds=0.5).limits(p).tolist() == [0.5, 0.5]  # λ_t = ℓ
    assert AbsoluteLimit(seconds=20).limits(p).tolist() == [10.0, 10.0]  # min(20, cap 10)


def test_relative_limit_is_the_quantile_of_the_reference_durations():
    p = pool([[1.0, 2.0, 3.0, 4.0], [nan, 6.0, nan, 2.0], [nan] * 4])
    # t0: median of {1,2,3,4} = 2.5; t1: median of {6, 2} = 4; t2: no D_t -> undefined
    assert nan_eq(RelativeLimit(p=50).limits(p), [2.5, 4.0, nan])
    # p = 25 on t0: position 0.25·3 = 0.75 -> 1 + 0.75·(2 − 1) = 1.75; on t1: 2 + 0.25·4 = 3
    assert nan_eq(RelativeLimit(p=25).limits(p), [1.75, 3.0, nan])
    assert nan_eq(RelativeLimit(p=100).limits(p), [4.0, 6.0, nan])  # the maximum


# Ranked-reference example: references A, B, C, D on two tests.
#   t0: A 1, B 2, C 3, D 4 -> ranks A1 B2 C3 D4
#   t1: A 3, B 1, C 4, D 2 -> ranks A3 B1 C4 D2
#   mean ranks A 2, B 1.5, C 3.5, D 3 -> order B, A, D, C
RANKED = [[1.0, 2.0, 3.0, 4.0], [3.0, 1.0, 4.0, 2.0]]


@pytest.mark.parametrize(
    ("p", "best", "max_", "median"),
    [
        # ⌈25·4/100⌉ = 1 -> {B}: t0 2, t1 1 (max = median = B's own)
        (25, [1], [2, 1], [2, 1]),
        # ⌈1·4/100⌉ = ⌈0.04⌉ = 1: at least one -> {B}
        (1, [1], [2, 1], [2, 1]),
        # ⌈50·4/100⌉ = 2 -> {A, B}: t0 max(1,2) = 2, median 1.5; t1 max(3,1) = 3, median 2
        (50, [0, 1], [2, 3], [1.5, 2]),
        # ⌈75·4/100⌉ = 3 -> {A, B, D}: t0 {1,2,4} max 4 median 2; t1 {3,1,2} max 3 median 2
        (75, [0, 1, 3], [4, 3], [2, 2]),
        # ⌈26·4/100⌉ = ⌈1.04⌉ = 2 -> {A, B}
        (26, [0, 1], [2, 3], [1.5, 2]),
        # all four: t0 max 4 median 2.5; t1 max 4 median 2.5
        (100, [0, 1, 2, 3], [4, 4], [2.5, 2.5]),
    ],
)
def test_ranked_reference_limit(p, best, max_, median):
    pl = pool(RANKED)
    assert best_references(pl, p).tolist() == best
    assert RankedReferenceLimit(p=p).limits(pl).tolist() == max_
    assert RankedReferenceLimit(p=p, aggregate="median").limits(pl).tolist() == median


def test_ranked_reference_ties_and_missing_durations():
    # t0: A 1, B 1, C 2 -> exact tie takes the earlier rank: A1 B1 C3
    # t1: A 5, B missing, C 1 -> C1 A2
    # t2: nobody
    # mean over present tests: A (1+2)/2 = 1.5, B 1, C (3+1)/2 = 2 -> order B, A, C
    pl = pool([[1.0, 1.0, 2.0], [5.0, nan, 1.0], [nan, nan, nan]])
    assert best_references(pl, 33).tolist() == [1]  # ⌈33·3/100⌉ = ⌈0.99⌉ = 1 -> {B}
    assert best_references(pl, 34).tolist() == [0, 1]  # ⌈34·3/100⌉ = ⌈1.02⌉ = 2 -> {B, A}
    # {B}: t0 1; t1 B has no duration -> undefined; t2 undefined
    assert nan_eq(RankedReferenceLimit(p=33).limits(pl), [1.0, nan, nan])
    # {A, B}: t0 max(1, 1) = 1; t1 max over {A 5} = 5; t2 undefined
    assert nan_eq(RankedReferenceLimit(p=34).limits(pl), [1.0, 5.0, nan])


def test_ranked_reference_count_is_exact_ceil_of_p_n_over_100():
    # 25 references on one test with durations 1..25 s: the best 28% are
    # ⌈28·25/100⌉ = ⌈7⌉ = 7 references (durations 1..7), so the ranked-worst λ = 7.
    pl = pool([[float(d) for d in range(1, 26)]], cap=100.0)
    assert len(best_references(pl, 28)) == 7
    assert RankedReferenceLimit(p=28).limits(pl).tolist() == [7.0]


def test_limits_drop_tests_without_usable_references_or_keep_them_under_the_cap():
    refs = {"a": {"t0": 1.0, "t1": 2.0}, "b": {"t0": 3.0}}
    problem = make_problem(refs, ["t0", "t1", "t2"])  # t2: no references at all
    # relative p = 50: t0 median{1,3} = 2; t1 median{2} = 2; t2 undefined -> dropped
    plan = environment("rel_timeout(p=50)").plan(problem)
    assert [t.id for t in plan.optimization] == ["t0", "t1"]
    assert plan.limits_s.tolist() == [2.0, 2.0]
    # kept under the 10 s cap when drop_unreferenced=False
    keep = Environment(EnvironmentConfig(limit=RelativeLimit(p=50), drop_unreferenced=False))
    plan = keep.plan(problem)
    assert [t.id for t in plan.optimization] == ["t0", "t1", "t2"]
    assert plan.limits_s.tolist() == [2.0, 2.0, 10.0]
    # ranked p = 50 (N = 2 -> ⌈1⌉ = 1): ranks t0 a1 b2, t1 a1 -> a mean 1, b mean 2 -> {a}
    # t0 λ = 1, t1 λ = 2, t2 dropped
    plan = environment("ranked_timeout(p=50)").plan(problem)
    assert [t.id for t in plan.optimization] == ["t0", "t1"]
    assert plan.limits_s.tolist() == [1.0, 2.0]
    # absolute and cap limits never drop: t2 stays under ℓ
    plan = environment("abs_timeout(limit=0.5)").plan(problem)
    assert [t.id for t in plan.optimization] == ["t0", "t1", "t2"]


# --------------------------------------------------------------------------------------------
# Post-execution ranking


def test_per_test_percentile_with_earlier_rank_for_ties():
    delta = np.array([2.5, 2.0, 7.5, 0.1, 1.0])
    D = np.array(
        [
            # sorted {1, 2, 2.5δ, 3, 4}: rank 3, n = 5 -> (3 − 1)/(5 − 1) = 0.5
            [1.0, 2.0, 3.0, 4.0],
            # {2δ, 2, 2, 4}: exact ties take the earlier rank -> rank 1, n = 4 -> 0/3 = 0
            [2.0, 2.0, 4.0, nan],
            # slower than all 4 -> rank 5 -> 4/4 = 1
            [1.0, 3.0, 5.0, 7.0],
            # no references -> undefined
            [nan, nan, nan, nan],
            # ties with all four -> rank 1 -> 0
            [1.0, 1.0, 1.0, 1.0],
        ]
    )
    assert nan_eq(per_test_percentiles(delta, D), [0.5, 0.0, 1.0, nan, 0.0])
    # QAR: mean over the usable tests (0.5 + 0 + 1 + 0)/4 = 0.375
    assert qar(delta, D) == pytest.approx(0.375)
    assert qar(np.array([1.0]), np.array([[nan, nan]])) is None
    assert qp(np.array([1.0]), np.array([[nan, nan]])) is None


def test_qp_leaderboard_with_missing_references():
    # Candidate y, references A, B, C on t0, t1 (t2 has no references: not ranked).
    #   t0: A 1, B 2, C 3, y 2 -> entrants ranked A1, y2, B2 (tie: earlier), C4; n = 4
    #       percentiles /(n − 1 = 3): A 0, y 1/3, B 1/3, C 1
    #   t1: A 2, B missing, C 1, y 1.5 -> C1, y2, A3; n = 3: C 0, y 1/2, A 1
    # scores: y (1/3 + 1/2)/2 = 5/12, A (0 + 1)/2 = 1/2, B 1/3 (t0 only), C (1 + 0)/2 = 1/2
    # leaderboard B 1/3, y 5/12, A 1/2, C 1/2 -> b(y) = 1, N_rank = 4 -> q = 1/3
    delta = np.array([2.0, 1.5, 5.0])
    D = np.array([[1.0, 2.0, 3.0], [2.0, nan, 1.0], [nan, nan, nan]])
    assert qp(delta, D) == pytest.approx(1 / 3)
    # QAR of the same candidate: t0 1 of 3 faster = 1/3, t1 1 of 2 = 1/2 -> 5/12
    assert qar(delta, D) == pytest.approx(5 / 12)


def test_qp_ties_between_the_candidate_and_references_take_the_earlier_position():
    # One test, A 1, B 2; y 1 ties A: ranks y1 A1 B3, n = 3 -> y 0, A 0, B 1
    # y and A tie on the leaderboard: y takes the earlier position 0 -> q = 0/(3 − 1) = 0
    assert qp(np.array([1.0]), np.array([[1.0, 2.0]])) == 0.0
    # y 2 ties B: A1, y2, B2 -> A 0, y 1/2, B 1/2 -> b(y) = 1 -> 1/2
    assert qp(np.array([2.0]), np.array([[1.0, 2.0]])) == 0.5


def test_qp_ties_in_exact_arithmetic_survive_float_summation():
    # Entrants y, R0..R5 on 3 tests (n_t = 5, 6, 6 entrants present):
    #   t0: y 3, R0 3, R3 4, R4 4, R5 5      -> /4: y 0, R0 0, R3 2/4, R4 2/4, R5 1
    #   t1: y 4, R0 4, R2 2, R3 1, R4 2, R5 3 -> /5: y 4/5, R0 4/5, R2 1/5, R3 0, R4 1/5, R5 3/5
    #   t2: y 3, R0 1, R1 4, R2 4, R4 4, R5 1 -> /5: y 2/5, R0 0, R1 3/5, R2 3/5, R4 3/5, R5 0
    # y = (0 + 4/5 + 2/5)/3 = 2/5 and R2 = (1/5 + 3/5)/2 = 2/5 tie exactly, but in floats
    # y is 0.4000000000000001 and R2 0.4, which used to put R2 ahead of y. Ahead of y: R0 4/15
    # and R3 1/4 -> b(y) = 2 of N_rank − 1 = 6 -> q = 1/3.
    delta = np.array([3.0, 4.0, 3.0])
    D = np.array(
        [
            [3.0, nan, nan, 4.0, 4.0, 5.0],
            [4.0, nan, 2.0, 1.0, 2.0, 3.0],
            [1.0, 4.0, 4.0, nan, 4.0, 1.0],
        ]
    )
    scores = _exact_leaderboard(delta, D)
    ahead = sum(1 for s in scores[1:] if s < scores[0])
    assert scores[0] in scores[1:]  # an exact tie: the candidate takes the earlier position
    assert qp(delta, D) == pytest.approx(ahead / (len(scores) - 1)) == pytest.approx(1 / 3)


def _exact_leaderboard(delta, D) -> list:
    """QP leaderboard scores in rational arithmetic (candidate first)."""
    from fractions import Fraction

    E = np.concatenate([delta[:, None], D], axis=1)
    scores = []
    for j in range(E.shape[1]):
        column = []
        for t in range(E.shape[0]):
            if np.isnan(E[t, j]):
                continue
            present = E[t][~np.isnan(E[t])]
            column.append(Fraction(int((present < E[t, j]).sum()), len(present) - 1))
        scores.append(sum(column) / len(column))
    return scores


def test_qp_denominator_is_n_rank_minus_one():
    # One reference: N_rank = 2 -> denominator max(1, 1) = 1. Slower -> b = 1 -> q = 1
    assert qp(np.array([3.0]), np.array([[1.0]])) == 1.0
    assert qp(np.array([0.5]), np.array([[1.0]])) == 0.0
    # 10 references 1..10, y = 3.5 -> y's percentile 3/10; references 1, 2, 3 score
    # 0, 1/10, 2/10 and 4.. score ≥ 4/10 -> b(y) = 3, N_rank = 11 -> q = 3/10
    refs = np.arange(1.0, 11.0)[None, :]
    assert qp(np.array([3.5]), refs) == pytest.approx(0.3)
    # a reference with no duration on any ranked test is not an entrant:
    # A 1, B 2, C missing; y 1.5 -> A 0, y 1/2, B 1 -> b = 1, N_rank = 3 -> 1/2
    assert qp(np.array([1.5]), np.array([[1.0, 2.0, nan]])) == 0.5


# --------------------------------------------------------------------------------------------
# Signals: Environment.outcome on hand-made records


def test_c_cor_and_strict_c_cor():
    problem = make_problem({"a": {"t0": 1.0, "t1": 1.0}}, ["t0", "t1"])
    env = environment("mc_mo")  # cap limit, ρ = 0
    ok = {**correct_fast(problem), "t0": 0.5, "t1": 0.5}

    o = env.outcome(problem, make_record(ok))
    assert (o.c_cor, o.c_strict, o.g, o.timeout_fraction) == (1, 1, 1, 0.0)
    # a wrong answer on the extra test: c_cor = 0 -> c̃ = 0
    o = env.outcome(problem, make_record({**ok, "x0": (Status.WRONG_ANSWER, 0.01)}))
    assert (o.c_cor, o.c_strict) == (0, 0)
    # a timeout on a correctness test also breaks c_cor
    o = env.outcome(problem, make_record({**ok, "c0": (Status.TIMEOUT, 10.0)}))
    assert (o.c_cor, o.c_strict) == (0, 0)
    # an optimization timeout is allowed by c̃ (φ = 1/2 > ρ = 0 closes g)
    o = env.outcome(problem, make_record({**ok, "t1": (Status.TIMEOUT, 10.0)}))
    assert (o.c_cor, o.c_strict, o.timeout_fraction, o.g) == (1, 1, 0.5, 0)
    # an optimization failure is not
    o = env.outcome(problem, make_record({**ok, "t1": (Status.RUNTIME_ERROR, 0.1)}))
    assert (o.c_cor, o.c_strict) == (1, 0)
    # memory limit is a failure too
    o = env.outcome(problem, make_record({**ok, "t0": (Status.MEMORY_LIMIT, 0.1)}))
    assert o.c_strict == 0


def test_rlvr_uses_the_original_tests_only():
    problem = make_problem({}, [], originals=("c0",), extras=("x0",))
    rec = make_record({"c0": 0.1, "x0": (Status.WRONG_ANSWER, 0.1)})
    assert environment("rlvr").outcome(problem, rec).c_cor == 1  # T_C = T0
    assert environment("mc").outcome(problem, rec).c_cor == 0  # T_C = T0 ∪ T+


def test_timeout_tolerance_at_the_exact_boundary_and_the_intended_limit():
    ids = [f"t{i}" for i in range(10)]
    problem = make_problem({"a": dict.fromkeys(ids, 0.1)}, ids)
    env = environment("abs_timeout(limit=0.5, rho=0.1)")
    base = {**correct_fast(problem), **dict.fromkeys(ids, 0.4)}

    # δ = 0.5 == λ on one test: a success with δ ≥ λ becomes a timeout.
    # φ = 1/10 = 0.1 ≤ ρ = 0.1 -> g_to = 1
    o = env.outcome(problem, make_record({**base, "t0": 0.5}))
    t0 = o.optimization_tests[0]
    assert t0.verdict is Verdict.TIMEOUT and t0.ranked_duration_s == CAP
    assert (o.timeout_fraction, o.g_to, o.g, o.c_strict) == (0.1, 1, 1, 1)
    assert o.q == 0.1  # no ranking: q = q_to = φ

    # just under λ: still a success
    o = env.outcome(problem, make_record({**base, "t0": 0.4999}))
    assert o.optimization_tests[0].verdict is Verdict.SUCCESS and o.timeout_fraction == 0.0

    # two timeouts: φ = 2/10 = 0.2 > 0.1 -> g_to = 0 (c̃ unaffected)
    o = env.outcome(problem, make_record({**base, "t0": 0.5, "t1": 0.7}))
    assert (o.timeout_fraction, o.g_to, o.g, o.c_strict) == (0.2, 0, 0, 1)


def test_correctness_tests_are_judged_under_the_cap():
    problem = make_problem({}, [])
    # δ = 10 == cap: a success at the cap is a timeout (§1), δ = 9.99 is not
    o = environment("mc").outcome(problem, make_record({"c0": 10.0, "x0": 9.99}))
    verdicts = [t.verdict for t in o.correctness_tests]
    assert verdicts == [Verdict.TIMEOUT, Verdict.SUCCESS] and o.c_cor == 0


def test_duration_gate_at_exactly_q_equal_p():
    # 10 references 1..10 s on one test (cap 100 so nothing is clamped)
    refs = {f"h{k}": {"t0": float(k)} for k in range(1, 11)}
    problem = make_problem(refs, ["t0"], time_limit_s=100.0)
    for preset in ("qar(p=0.3)", "qp(p=0.3)"):
        env = environment(preset)
        # δ = 3.5: 3 references faster -> QAR 3/10 = 0.3; QP b = 3 of N_rank − 1 = 10 -> 0.3
        o = env.outcome(problem, make_record({**correct_fast(problem), "t0": 3.5}))
        assert o.q_dur == pytest.approx(0.3) and o.q == o.q_dur
        assert (o.g_dur, o.g, o.g_to) == (1, 1, 1)  # q == p -> gate open (≤)
        # δ = 4.5: 4/10 = 0.4 > 0.3 -> closed
        o = env.outcome(problem, make_record({**correct_fast(problem), "t0": 4.5}))
        assert o.q_dur == pytest.approx(0.4) and (o.g_dur, o.g) == (0, 0)


def test_timeouts_and_failures_are_ranked_at_the_cap():
    refs = {"a": {"t0": 1.0, "t1": 1.0}, "b": {"t0": 2.0, "t1": 2.0}}
    problem = make_problem(refs, ["t0", "t1"])
    env = environment("qar(p=0.5)")
    rec = make_record(
        {**correct_fast(problem), "t0": (Status.TIMEOUT, 0.2), "t1": (Status.WRONG_ANSWER, 0.1)}
    )
    o = env.outcome(problem, rec)
    # both ranked at δ = cap 10: 2 of 2 references faster -> p = 1 on each, q = 1
    assert [t.ranked_duration_s for t in o.optimization_tests] == [CAP, CAP]
    assert [t.percentile for t in o.optimization_tests] == [1.0, 1.0]
    assert o.q == 1.0 and o.g_dur == 0
    # the measured time is still reported
    assert [t.duration_s for t in o.optimization_tests] == [0.2, 0.1]
    # a timeout ties a reference sanitised to the cap: earlier rank -> 1 of 2 faster
    tied = make_problem({"a": {"t0": 1.0}, "b": {"t0": 0.0}}, ["t0"])  # b: ψ(0) = 10
    o = env.outcome(tied, make_record({**correct_fast(tied), "t0": (Status.TIMEOUT, 10.0)}))
    assert o.q == 0.5


def test_tests_missing_from_the_record_are_failures():
    problem = make_problem({"a": {"t0": 1.0}}, ["t0"])
    env = environment("qar")
    o = env.outcome(problem, make_record({"c0": 0.1, "t0": 0.5}))  # x0 not run
    missing = o.correctness_tests[1]
    assert missing.verdict is Verdict.FAILURE and missing.duration_s is None
    assert "not run" in missing.detail and o.c_cor == 0
    o = env.outcome(problem, make_record(correct_fast(problem)))  # t0 not run
    t0 = o.optimization_tests[0]
    assert t0.verdict is Verdict.FAILURE and t0.ranked_duration_s == CAP
    assert (o.c_cor, o.c_strict) == (1, 0)


def test_inconclusive_is_flagged_and_gives_no_reward():
    problem = make_problem({"a": {"t0": 1.0}}, ["t0"])
    env = environment("qp")
    for where in ("c0", "t0"):
        rec = make_record({**correct_fast(problem), "t0": 0.5, where: (Status.INCONCLUSIVE, 0)})
        o = env.outcome(problem, rec)
        assert o.inconclusive
        assert any(t.verdict is Verdict.INCONCLUSIVE for t in o.tests)
        for name in ("correctness", "collapsed(graded, map=linear)", "two_gate", "naive"):
            assert reward(name)(o) is None
    # an inconclusive result on a test the environment does not use does not count
    rec = make_record({**correct_fast(problem), "t0": (Status.INCONCLUSIVE, 0)})
    assert not environment("mc").outcome(problem, rec).inconclusive


def test_empty_optimization_pool_gives_phi_zero_and_q_zero():
    problem = make_problem({}, [])
    rec = make_record(correct_fast(problem))
    for preset in ("mc_mo", "qar(p=0.3)", "qp(p=0.3)", "abs_timeout", "mc"):
        o = environment(preset).outcome(problem, rec)
        assert (o.timeout_fraction, o.q, o.g, o.c_strict) == (0.0, 0.0, 1, 1), preset
        assert o.q_dur is None and o.optimization_tests == []


def test_tests_without_usable_references_fall_back_to_phi_with_the_gate_open():
    problem = make_problem({}, ["t0", "t1"])  # no stored durations at all
    env = environment("qar(p=0.1)")
    o = env.outcome(problem, make_record({**correct_fast(problem), "t0": 9.0, "t1": 9.0}))
    # nothing to rank: q_dur undefined, g_dur = 1; q = φ = 0/2
    assert (o.q_dur, o.g_dur, o.g, o.q, o.ranked_tests) == (None, 1, 1, 0.0, 0)
    rec = make_record({**correct_fast(problem), "t0": (Status.TIMEOUT, 10), "t1": 1.0})
    o = env.outcome(problem, rec)
    # φ = 1/2, ρ = 1 under ranking-only -> g_to = 1; q = φ = 0.5
    assert (o.q_dur, o.g_dur, o.g, o.q, o.timeout_fraction) == (None, 1, 1, 0.5, 0.5)


def test_ranked_tests_count_and_partial_references():
    # t0 has references, t1 does not: q_QAR averages over t0 only
    problem = make_problem({"a": {"t0": 1.0}, "b": {"t0": 3.0}}, ["t0", "t1"])
    o = environment("qar").outcome(
        problem, make_record({**correct_fast(problem), "t0": 2.0, "t1": 9.0})
    )
    # t0: 1 of 2 references faster -> 1/2
    assert o.ranked_tests == 1 and o.q == 0.5
    assert [t.percentile for t in o.optimization_tests] == [0.5, None]


def test_wall_or_cpu_timing():
    problem = make_problem({"a": {"t0": 1.0}}, ["t0"])
    results = [result(t, 0.01) for t in ("c0", "x0")] + [result("t0", 0.1, wall=0.6)]

    def rec(timing):
        return ExecutionRecord(
            problem_id="p", program_sha256="0" * 64, results=results, timing=timing
        )

    # λ = 0.5: cpu 0.1 passes, wall 0.6 ≥ 0.5 times out
    cpu_env = environment("abs_timeout(limit=0.5)")
    assert cpu_env.outcome(problem, rec("cpu")).timeout_fraction == 0.0
    assert cpu_env.outcome(problem, rec("wall")).timeout_fraction == 1.0  # the record says
    wall_cfg = cpu_env.config.model_copy(update={"timing": "wall"})
    o = Environment(wall_cfg).outcome(problem, rec("cpu"))  # the environment overrides
    assert o.timeout_fraction == 1.0 and o.optimization_tests[0].duration_s == 0.6
    cpu_cfg = cpu_env.config.model_copy(update={"timing": "cpu"})
    assert Environment(cpu_cfg).outcome(problem, rec("wall")).timeout_fraction == 0.0


# --------------------------------------------------------------------------------------------
# Presets and the naming language


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_builds_and_plans(name):
    env = environment(name)
    assert isinstance(env, Environment) and env.config.name.startswith(name)
    problem = make_problem({"a": {"t0": 0.1}}, ["t0"])
    o = env.outcome(problem, make_record({**correct_fast(problem), "t0": 0.05}))
    assert o.c_cor == 1 and not o.inconclusive


def test_preset_defaults_follow_the_spec():
    assert environment("rlvr").config.correctness == "original"
    assert environment("rlvr").config.optimization is False
    assert environment("mc").config.correctness == "all"
    assert environment("mc_mo").config.tolerance == 0.0
    cfg = environment("abs_filter").config  # the strongest: a = 2 s, λ = 0.5 s, ρ = 0.1
    assert (cfg.filter.a, cfg.limit.seconds, cfg.tolerance) == (2.0, 0.5, 0.1)
    for name in ("qar", "qp"):  # ranking-only: ρ = 1, the cap as the limit, gate p = 0.3
        cfg = environment(name).config
        assert (cfg.ranking, cfg.tolerance, cfg.limit, cfg.gate) == (name, 1.0, CapLimit(), 0.3)


def test_call_string_mapping_and_yaml_agree(tmp_path):
    by_call = environment("qp(p=0.3)")
    by_mapping = environment({"preset": "qp", "p": 0.3})
    assert by_call.config == by_mapping.config
    assert environment("qp(0.3)").config == by_call.config  # positional
    path = tmp_path / "run.yaml"
    path.write_text("env: qp(p=0.3)\nreward: collapsed\n")
    assert environment(path).config == by_call.config
    assert environment(str(path)).config == by_call.config
    path.write_text("env: {preset: qp, p: 0.3}\n")
    assert environment(path).config == by_call.config
    # the fields of EnvironmentConfig as a mapping
    fields = environment({"ranking": "qar", "gate": 0.5})
    assert fields.config.ranking == "qar" and fields.config.gate == 0.5


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nope", "unknown environment 'nope'"),
        ("qp(q=0.3)", "parameters: p, cap_s"),
        ("qp(p=1.5)", "qp"),  # gate must be ≤ 1
        ("rel_timeout(p=0)", "rel_timeout"),  # p must be > 0
        ("abs_filter(aggregate=mode)", "abs_filter"),
        ("ranked_timeout(agg=min)", "ranked_timeout"),
        ("qp(p=0.3", "cannot read"),
        ({"preset": "nope"}, "unknown environment"),
        ({"tolerance": 2}, "tolerance"),
        ({"bogus": 1}, "bogus"),
    ],
)
def test_bad_environment_specs_raise_readable_errors(spec, message):
    with pytest.raises(ExecrlError, match=message.replace("(", r"\(")) as info:
        environment(spec)
    assert "Traceback" not in str(info.value) and len(str(info.value)) < 500


def test_yaml_errors_are_readable(tmp_path):
    missing = tmp_path / "missing.yaml"
    with pytest.raises(ExecrlError, match=r"missing\.yaml"):
        environment(missing)
    bad = tmp_path / "bad.yaml"
    bad.write_text("- a list\n")
    with pytest.raises(ExecrlError, match="mapping"):
        environment(bad)
