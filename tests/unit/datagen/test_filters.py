"""The spec §9 filter rules on hand-worked counts, one boundary at a time (no sandbox: the rules
are pure functions of the verdicts the pipeline counted).

Most cases use four or eight generated tests, so the caps (floor(25%) for timeouts, floor(30%)
of the rest for failures) allow at least one removal and the threshold alone decides.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from execrl.datagen.filters import (
    FAILURE_CAP,
    MAX_FALSE_POSITIVE_RATE,
    MIN_ROBUST_CV,
    TIMEOUT_CAP,
    FilterResult,
    Removal,
    Round,
    SolutionOutcome,
    TestOutcomes,
    duration_filterable,
    false_positive_rate,
    filter_tests,
    keep_problem,
    length_filterable,
    robust_cv,
    solution_level,
    split_problems,
)
from execrl.errors import UsageError
from execrl.problems.models import ReferenceLabel

CORR, OPT = Round.CORRECTNESS, Round.OPTIMIZATION
CORRECT, INCORRECT = ReferenceLabel.CORRECT, ReferenceLabel.INCORRECT


def gen(test_id: str, *, runs: int = 1000, timeouts: int = 0, failures: int = 0) -> TestOutcomes:
    return TestOutcomes(test_id, True, runs, timeouts, failures)


def orig(test_id: str, *, runs: int = 1000, timeouts: int = 0, failures: int = 0) -> TestOutcomes:
    return TestOutcomes(test_id, False, runs, timeouts, failures)


def clean(n: int, prefix: str = "ok") -> list[TestOutcomes]:
    """n generated tests every correct reference passes."""
    return [gen(f"{prefix}{i}") for i in range(n)]


def removed_ids(result: FilterResult) -> list[str]:
    return [r.test_id for r in result.removed]


# --- thresholds -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("round_", "timeouts", "removed"),
    [(CORR, 200, False), (CORR, 201, True), (OPT, 900, False), (OPT, 901, True)],
    ids=["20%-kept", "20.1%-removed", "90%-kept", "90.1%-removed"],
)
def test_timeout_threshold_is_strictly_greater(round_: Round, timeouts: int, removed: bool):
    outcomes = [gen("t", timeouts=timeouts), *clean(3)]
    result = filter_tests(outcomes, round_)
    if removed:
        assert result.removed == [Removal("t", "timeout", timeouts / 1000)]
        assert result.kept == ["ok0", "ok1", "ok2"]
    else:
        assert result.removed == []
        assert result.kept == ["t", "ok0", "ok1", "ok2"]
    assert result.spared == []


def test_correctness_threshold_removes_what_the_optimization_round_keeps():
    outcomes = [gen("t", timeouts=500), *clean(3)]
    assert removed_ids(filter_tests(outcomes, CORR)) == ["t"]
    assert removed_ids(filter_tests(outcomes, OPT)) == []


@pytest.mark.parametrize("round_", [CORR, OPT])
@pytest.mark.parametrize(("failures", "removed"), [(400, False), (401, True)], ids=["40%", "40.1%"])
def test_failure_threshold_is_strictly_greater(round_: Round, failures: int, removed: bool):
    outcomes = [*clean(3), gen("f", failures=failures)]
    result = filter_tests(outcomes, round_)
    expected = [Removal("f", "failure", failures / 1000)] if removed else []
    assert result.removed == expected
    assert ("f" in result.kept) is not removed


def test_timeouts_and_failures_are_separate_shares():
    # 150 timeouts + 300 failures = 45% failing runs, but neither share crosses its threshold
    outcomes = [gen("t", timeouts=150, failures=300), *clean(3)]
    result = filter_tests(outcomes, CORR)
    assert result.removed == []
    assert outcomes[0].timeout_share == 0.15
    assert outcomes[0].failure_share == 0.3


# --- caps and worst-first order -------------------------------------------------------------


def test_timeout_cap_removes_the_two_worst_of_eight_and_spares_the_rest():
    shares = [30, 50, 40, 90, 60, 25, 80, 35]  # percent of correct references timing out
    outcomes = [gen(f"g{i}", runs=100, timeouts=s) for i, s in enumerate(shares)]
    result = filter_tests(outcomes, CORR)
    assert math.floor(TIMEOUT_CAP * 8) == 2
    assert result.removed == [Removal("g3", "timeout", 0.9), Removal("g6", "timeout", 0.8)]
    assert [(r.test_id, r.share) for r in result.spared] == [
        ("g4", 0.6),
        ("g1", 0.5),
        ("g2", 0.4),
        ("g7", 0.35),
        ("g0", 0.3),
        ("g5", 0.25),
    ]
    assert all(r.reason == "timeout" for r in result.spared)
    assert result.kept == ["g0", "g1", "g2", "g4", "g5", "g7"]


def test_equal_shares_keep_input_order():
    outcomes = [gen(f"g{i}", runs=10, timeouts=5) for i in range(8)]
    result = filter_tests(outcomes, CORR)
    assert removed_ids(result) == ["g0", "g1"]
    assert [r.test_id for r in result.spared] == ["g2", "g3", "g4", "g5", "g6", "g7"]


def test_equal_shares_from_different_run_counts_tie():
    # 1/2 and 500/1000 are the same share: the earlier test goes first
    outcomes = [gen("late", runs=1000, timeouts=500), gen("early", runs=2, timeouts=1)]
    outcomes += clean(2)
    assert removed_ids(filter_tests(outcomes, CORR)) == ["late"]


def test_failure_cap_counts_only_the_tests_left_after_timeout_removals():
    # 8 generated: 2 removed for timeouts -> 6 left -> floor(0.3 * 6) = 1 failure removal
    # (floor(0.3 * 8) would be 2); the six originals count in neither denominator
    outcomes = [orig(f"o{i}") for i in range(6)]
    outcomes += [gen("t1", timeouts=900), gen("t2", timeouts=800)]
    outcomes += [gen("f1", failures=500), gen("f2", failures=700), gen("f3", failures=600)]
    outcomes += clean(3)
    result = filter_tests(outcomes, CORR)
    assert math.floor(FAILURE_CAP * 6) == 1
    assert result.removed == [
        Removal("t1", "timeout", 0.9),
        Removal("t2", "timeout", 0.8),
        Removal("f2", "failure", 0.7),
    ]
    assert result.spared == [Removal("f3", "failure", 0.6), Removal("f1", "failure", 0.5)]
    assert result.kept == [f"o{i}" for i in range(6)] + ["f1", "f3", "ok0", "ok1", "ok2"]


def test_failure_cap_of_ten_left_allows_three():
    outcomes = [gen(f"f{i}", failures=410 + i) for i in range(5)] + clean(5)
    result = filter_tests(outcomes, OPT)
    assert removed_ids(result) == ["f4", "f3", "f2"]
    assert [r.test_id for r in result.spared] == ["f1", "f0"]


def test_a_test_spared_by_the_timeout_cap_can_still_be_removed_for_failures():
    outcomes = [gen("worst", timeouts=900), gen("slower", timeouts=800)]
    outcomes += [gen("both", timeouts=300, failures=600), *clean(5)]
    result = filter_tests(outcomes, CORR)
    # 8 generated: timeout cap 2 takes worst, slower; "both" spared; 6 left, failure cap 1
    assert result.removed == [
        Removal("worst", "timeout", 0.9),
        Removal("slower", "timeout", 0.8),
        Removal("both", "failure", 0.6),
    ]
    assert result.spared == []  # only tests that are kept are listed as spared


def test_original_tests_are_never_removed_and_not_in_the_caps_denominators():
    originals = [orig(f"o{i}", timeouts=1000 - 10 * i) for i in range(3)]
    originals += [orig(f"x{i}", failures=1000) for i in range(9)]
    generated = [gen("g0", timeouts=950), gen("g1", timeouts=990), gen("g2", failures=990)]
    result = filter_tests([*originals, *generated], OPT)
    # 3 generated: floor(0.75) = 0 timeout removals, floor(0.9) = 0 failure removals; with the
    # 12 originals counted, the caps would be 3 and 4
    assert result.removed == []
    assert result.kept == [o.test_id for o in [*originals, *generated]]
    assert result.spared == [
        Removal("g1", "timeout", 0.99),
        Removal("g0", "timeout", 0.95),
        Removal("g2", "failure", 0.99),
    ]


def test_only_original_tests_are_all_kept():
    outcomes = [orig("a", timeouts=10, runs=10), orig("b", failures=10, runs=10)]
    assert filter_tests(outcomes, CORR) == FilterResult(kept=["a", "b"], removed=[], spared=[])


def test_a_test_with_no_runs_has_zero_shares_and_stays():
    empty = gen("empty", runs=0)
    assert (empty.timeout_share, empty.failure_share) == (0.0, 0.0)
    result = filter_tests([empty, *clean(3)], CORR)
    assert result.kept == ["empty", "ok0", "ok1", "ok2"]
    assert result.removed == result.spared == []


@pytest.mark.parametrize(
    "counts", [{"runs": 5, "timeouts": 3, "failures": 3}, {"runs": 5, "timeouts": -1}]
)
def test_impossible_counts_are_refused(counts: dict[str, int]):
    with pytest.raises(UsageError, match="test t"):
        gen("t", **counts)


# --- solution level -------------------------------------------------------------------------


def sol(name: str, label: ReferenceLabel, *failed: str) -> SolutionOutcome:
    return SolutionOutcome(name, label, frozenset(failed))


def test_solution_level_sorts_by_the_kept_tests_only():
    kept = ["o1", "g1"]
    solutions = [
        sol("c-clean", CORRECT),
        sol("c-fails-kept", CORRECT, "g1"),
        sol("c-fails-removed", CORRECT, "g2"),
        sol("i-caught", INCORRECT, "o1", "g2"),
        sol("i-passes-kept", INCORRECT, "g2"),
        sol("i-passes-all", INCORRECT),
        sol("i-caught-new", INCORRECT, "g1"),
    ]
    level = solution_level(solutions, kept)
    assert level.kept_correct == ["c-clean", "c-fails-removed"]
    assert level.dropped_correct == ["c-fails-kept"]
    assert level.false_positives == ["i-passes-kept", "i-passes-all"]
    assert level.caught == ["i-caught", "i-caught-new"]
    assert level.false_positive_rate == 2 / 4


def test_false_positive_rate_before_and_after_the_build():
    solutions = [sol("c", CORRECT), sol("i1", INCORRECT, "g1"), sol("i2", INCORRECT, "o1")]
    solutions += [sol("i3", INCORRECT, "g2"), sol("i4", INCORRECT)]
    assert false_positive_rate(solutions, ["o1"]) == 3 / 4  # originals only
    assert false_positive_rate(solutions, ["o1", "g1", "g2"]) == 1 / 4  # after the build
    assert false_positive_rate(solutions, []) == 1.0  # no tests catch nothing


def test_rates_without_incorrect_solutions_are_none():
    solutions = [sol("a", CORRECT), sol("b", CORRECT, "g1")]
    assert false_positive_rate(solutions, ["g1"]) is None
    level = solution_level(solutions, ["g1"])
    assert level.false_positive_rate is None
    assert level.false_positives == level.caught == []
    assert (level.kept_correct, level.dropped_correct) == (["a"], ["b"])


# --- problem level --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("round_", "after", "keep"),
    [(CORR, 5, True), (CORR, 4, False), (OPT, 1, True), (OPT, 0, False)],
)
def test_minimum_surviving_correct_references(round_: Round, after: int, keep: bool):
    # before == after: nothing lost, so only the survivor rule can break
    decision = keep_problem(
        round_, correct_before=after, correct_after=after, false_positive_rate=None
    )
    assert decision.keep is keep
    if keep:
        assert decision.reasons == []
    else:
        needed = 5 if round_ is CORR else 1
        assert decision.reasons == [
            f"{after} correct reference(s) survive the {round_} round; at least {needed} needed"
        ]


@pytest.mark.parametrize(("before", "after", "keep"), [(8, 6, True), (20, 15, True), (7, 5, False)])
def test_at_most_a_quarter_of_correct_references_lost(before: int, after: int, keep: bool):
    decision = keep_problem(
        CORR, correct_before=before, correct_after=after, false_positive_rate=0.0
    )
    assert decision.keep is keep
    if not keep:
        assert decision.reasons == ["2 of 7 correct references lost (28.6%); at most 25% may be"]


def test_the_optimization_round_keeps_a_problem_one_reference_can_time():
    """Slow correct references time out on optimization tests (up to 90% per test are
    allowed): losing most of them there is not the correctness round's lost rule."""
    assert keep_problem(OPT, correct_before=7, correct_after=1, false_positive_rate=None).keep
    dropped = keep_problem(OPT, correct_before=7, correct_after=0, false_positive_rate=None)
    assert dropped.reasons == [
        "0 correct reference(s) survive the optimization round; at least 1 needed"
    ]


@pytest.mark.parametrize(
    ("rate", "keep"), [(0.049, True), (MAX_FALSE_POSITIVE_RATE, False), (0.5, False)]
)
def test_false_positive_rate_must_be_below_five_percent(rate: float, keep: bool):
    decision = keep_problem(CORR, correct_before=10, correct_after=10, false_positive_rate=rate)
    assert decision.keep is keep
    if not keep:
        assert decision.reasons == [
            f"false-positive rate of the original incorrect solutions is {rate:.1%}; "
            "must be below 5%"
        ]


def test_false_positive_rule_is_ignored_in_the_optimization_round():
    decision = keep_problem(OPT, correct_before=3, correct_after=3, false_positive_rate=0.9)
    assert decision.keep is True
    assert decision.reasons == []


def test_no_incorrect_solutions_does_not_break_the_false_positive_rule():
    decision = keep_problem(CORR, correct_before=5, correct_after=5, false_positive_rate=None)
    assert decision.keep is True


def test_every_broken_rule_is_named():
    decision = keep_problem(CORR, correct_before=6, correct_after=2, false_positive_rate=0.25)
    assert decision.keep is False
    assert decision.reasons == [
        "2 correct reference(s) survive the correctness round; at least 5 needed",
        "4 of 6 correct references lost (66.7%); at most 25% may be",
        "false-positive rate of the original incorrect solutions is 25.0%; must be below 5%",
    ]


@pytest.mark.parametrize(("before", "after"), [(3, 4), (3, -1), (-1, 0)])
def test_impossible_reference_counts_are_refused(before: int, after: int):
    with pytest.raises(UsageError, match="between 0 and"):
        keep_problem(CORR, correct_before=before, correct_after=after, false_positive_rate=None)


# --- filterability --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [
        [0.011, 0.013, 0.02, 0.5],
        [1.0, 2.0],
        [3.5, 0.25, 7.75, 1.0, 2.0, 9.0, 4.25],
        list(np.random.default_rng(7).lognormal(-3.0, 0.8, size=57)),
    ],
)
def test_robust_cv_is_iqr_over_median_with_linear_percentiles(values: list[float]):
    p25, p50, p75 = (np.percentile(values, q, method="linear") for q in (25, 50, 75))
    assert robust_cv(values) == pytest.approx((p75 - p25) / p50, abs=1e-12)


def test_robust_cv_by_hand():
    # sorted 1, 2, 4, 8: p25 at index 0.75 -> 1.75, median 3, p75 at index 2.25 -> 5
    assert robust_cv([8.0, 1.0, 4.0, 2.0]) == pytest.approx((5 - 1.75) / 3, abs=1e-12)


def test_robust_cv_of_exactly_the_threshold_is_filterable():
    # 7, 10, 13: p25 8.5, median 10, p75 11.5 -> IQR 3 / 10 = 0.3
    assert duration_filterable([7.0, 10.0, 13.0]) == (MIN_ROBUST_CV, True)
    assert length_filterable([13, 7, 10]) == (MIN_ROBUST_CV, True)


def test_robust_cv_just_below_the_threshold_is_not_filterable():
    # 70, 100, 129: IQR 114.5 - 85 = 29.5 over 100
    cv, filterable = length_filterable([70, 100, 129])
    assert cv == pytest.approx(0.295, abs=1e-12)
    assert filterable is False
    assert duration_filterable([1.0, 1.0, 1.0, 1.0]) == (0.0, False)


@pytest.mark.parametrize("values", [[], [0.5], [0.0, 0.0, 1.0], [-3.0, -1.0]])
def test_too_few_values_or_no_positive_median_is_nan_and_not_filterable(values: list[float]):
    assert math.isnan(robust_cv(values))
    cv, filterable = duration_filterable(values)
    assert math.isnan(cv)
    assert filterable is False


# --- split ----------------------------------------------------------------------------------

IDS = [f"problem-{i:03d}" for i in range(40)]


def heldout(split: dict[str, str]) -> set[str]:
    return {pid for pid, side in split.items() if side == "heldout"}


def test_split_is_deterministic_and_covers_every_id():
    first = split_problems(IDS, heldout_share=0.2, seed=3)
    assert first == split_problems(list(IDS), heldout_share=0.2, seed=3)
    assert list(first) == IDS
    assert set(first.values()) == {"train", "heldout"}


@pytest.mark.parametrize(
    ("n", "share", "held"), [(40, 0.2, 8), (7, 0.3, 2), (9, 0.25, 2), (10, 0.25, 2), (5, 0.0, 0)]
)
def test_split_holds_out_the_rounded_share(n: int, share: float, held: int):
    # round(2.1) = 2, round(2.25) = 2, round(2.5) = 2 (halves to even)
    assert len(heldout(split_problems(IDS[:n], heldout_share=share, seed=0))) == held


def test_split_is_independent_of_input_order():
    forward = split_problems(IDS, heldout_share=0.25, seed=11)
    backward = split_problems(IDS[::-1], heldout_share=0.25, seed=11)
    assert forward == backward  # dict equality ignores order
    assert list(backward) == IDS[::-1]  # the result follows the caller's order


def test_split_depends_on_the_seed():
    assert heldout(split_problems(IDS, heldout_share=0.25, seed=1)) != heldout(
        split_problems(IDS, heldout_share=0.25, seed=2)
    )


def test_split_is_stable_when_a_problem_is_added():
    # 40 -> 41 ids at 20%: round(8.0) = 8 and round(8.2) = 8 held out. A newcomer ordered after
    # the held-out ones joins train and nobody moves; one ordered among them displaces exactly
    # one (the count is fixed, so someone must give way); any newcomer moves at most one.
    before = split_problems(IDS, heldout_share=0.2, seed=5)
    moved_counts = {}
    for i in range(200):
        newcomer = f"new-{i}"
        after = split_problems([*IDS, newcomer], heldout_share=0.2, seed=5)
        moved = [pid for pid in IDS if after[pid] != before[pid]]
        if after[newcomer] == "train":
            assert moved == []
        else:
            assert len(moved) == 1
            assert before[moved[0]] == "heldout"
        moved_counts[after[newcomer]] = len(moved)
    assert moved_counts == {"train": 0, "heldout": 1}  # both cases happened


def test_split_refuses_a_share_outside_zero_to_one_and_duplicate_ids():
    with pytest.raises(UsageError, match=r"heldout share 1\.5"):
        split_problems(IDS, heldout_share=1.5, seed=0)
    with pytest.raises(UsageError, match="unique"):
        split_problems(["a", "a"], heldout_share=0.5, seed=0)
