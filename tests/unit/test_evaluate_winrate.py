"""Win rates WR_b and WR_m on hand-built cases (spec §5): the fastest or median passing
sample per problem by accumulated duration, wins counted, draws excluded."""

from __future__ import annotations

import math

import pytest

from execrl.errors import ExecrlError
from execrl.evaluate import SampleScore, compare, compute_metrics, pick_duration
from execrl.evaluate.winrate import DRAW, LOSS, WIN, WinCount, problem_verdicts


def score(model: str, pid: str, i: int, duration: float, passing: bool = True) -> SampleScore:
    return SampleScore(model, pid, i, int(passing), int(passing), 0.0, duration, False)


def test_pick_fastest_and_lower_median():
    assert pick_duration([3.0, 1.0, 2.0], "best") == 1.0
    assert pick_duration([3.0, 1.0, 2.0], "median") == 2.0
    assert pick_duration([4.0, 1.0, 3.0, 2.0], "median") == 2.0  # lower middle of 1,2,3,4
    assert pick_duration([], "best") is None
    with pytest.raises(ExecrlError, match="WR_b"):
        pick_duration([1.0], "mean")  # type: ignore[arg-type]


def test_compare_rules():
    assert compare(1.0, 2.0) == WIN
    assert compare(2.0, 1.0) == LOSS
    assert compare(1.0, 1.0) == DRAW
    assert compare(1.0, None) == WIN  # a passing sample beats none
    assert compare(None, 1.0) == LOSS
    assert compare(None, None) == DRAW
    assert compare(1.0, 1.04, rel_tol=0.05) == DRAW


def test_hand_built_win_rates():
    # Problem → durations of each model's passing samples.
    model = {"p1": [1.0, 5.0, 6.0], "p2": [3.0, 3.5], "p3": [2.0], "p5": [1.0]}
    base = {"p1": [2.0, 2.5, 3.0], "p2": [1.0, 4.0], "p3": [2.0], "p4": [9.0]}
    problems = ["p1", "p2", "p3", "p4", "p5", "p6"]
    best = problem_verdicts(model, base, problems, "best")
    median = problem_verdicts(model, base, problems, "median")
    # p1: 1.0 < 2.0 win; p2: 3.0 > 1.0 loss; p3 draw; p4: model none, loss; p5: base none,
    # win; p6: neither, draw.
    assert best.tolist() == [WIN, LOSS, DRAW, LOSS, WIN, DRAW]
    # medians: p1 5.0 vs 2.5 loss; p2 3.0 vs 1.0 loss; p3 draw; p4 loss; p5 win; p6 draw.
    assert median.tolist() == [LOSS, LOSS, DRAW, LOSS, WIN, DRAW]
    assert WinCount.of(best) == WinCount(2, 2, 2) and WinCount.of(best).rate == 0.5
    assert WinCount.of(median).rate == pytest.approx(1 / 4)
    assert math.isnan(WinCount(0, 0, 3).rate)


def test_compute_metrics_win_rates_against_the_baseline():
    scores = [
        score("new", "p1", 0, 1.0),
        score("new", "p1", 1, 9.0),
        score("new", "p1", 2, 0.5, passing=False),  # faster but wrong: never picked
        score("new", "p2", 0, 2.0),
        score("old", "p1", 0, 3.0),
        score("old", "p2", 0, 1.0),
        score("old", "p2", 1, 1.5),
    ]
    m = compute_metrics(scores, ["old", "new"], ["p1", "p2"], baseline="old", resamples=200)
    count_b, wr_b = m.win_rates[("new", "WR_b")]
    count_m, wr_m = m.win_rates[("new", "WR_m")]
    assert count_b == WinCount(1, 1, 0) and wr_b.value == 0.5  # p1 1.0 < 3.0; p2 2.0 > 1.0
    # medians: new p1 lower median of (1, 9) = 1.0 < 3.0 win; p2 2.0 vs 1.0 loss
    assert count_m == WinCount(1, 1, 0) and wr_m.value == 0.5
    assert ("old", "WR_b") not in m.win_rates
    assert 0.0 <= wr_b.low <= wr_b.high <= 1.0


def test_unknown_baseline_is_a_clear_error():
    with pytest.raises(ExecrlError, match="unknown baseline model 'gpt'"):
        compute_metrics([score("a", "p", 0, 1.0)], ["a"], ["p"], baseline="gpt")
