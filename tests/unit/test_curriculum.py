"""Dynamic sampling (DAPO) and pass-rate selection: which groups count, which problems are drawn."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from execrl.errors import UsageError
from execrl.rl.curriculum import PassRateSelector, informative

IDS = [f"p{i}" for i in range(10)]


@pytest.mark.parametrize(
    ("rewards", "expected"),
    [
        ([0.0, 0.0, 0.0, 0.0], False),  # all failed: zero advantage
        ([1.0, 1.0, 1.0], False),  # all passed
        ([-1.0, -1.0 + 1e-12], False),  # within the tolerance
        ([0.0, 1.0, 0.0, 0.0], True),
        ([0.25, 0.5], True),
        ([0.7], False),  # one reward: no group to compare against
        ([], False),
    ],
)
def test_informative_keeps_only_groups_whose_rewards_differ(rewards, expected):
    assert informative(rewards) is expected


def test_informative_tolerance_is_a_setting():
    assert informative([0.0, 0.01]) is True
    assert informative([0.0, 0.01], tolerance=0.05) is False


def test_informative_refuses_nan_in_one_line():
    with pytest.raises(UsageError, match="NaN") as caught:
        informative([0.0, float("nan")])
    assert "\n" not in str(caught.value)


def test_take_draws_distinct_problems_deterministically_from_the_seed():
    first = PassRateSelector(IDS, seed=3).take(6)
    again = PassRateSelector(IDS, seed=3).take(6)
    other = PassRateSelector(IDS, seed=4).take(6)
    assert first == again
    assert len(set(first)) == 6 and set(first) <= set(IDS)
    assert first != other


def test_take_beyond_the_problem_count_repeats_in_rounds_of_distinct_draws():
    drawn = PassRateSelector(IDS[:3], seed=0).take(7)
    assert len(drawn) == 7
    assert sorted(drawn[:3]) == IDS[:3] and sorted(drawn[3:6]) == IDS[:3]


def test_take_leaves_out_excluded_problems_while_others_remain():
    selector = PassRateSelector(IDS[:4], seed=0)
    assert set(selector.take(2, exclude={"p0", "p1"})) == {"p2", "p3"}
    assert set(selector.take(4, exclude=set(IDS[:4]))) == set(IDS[:4])  # nothing else left


def test_pass_rate_covers_the_last_window_rollouts_only():
    selector = PassRateSelector(IDS, seed=0, window=4)
    assert selector.pass_rate("p0") is None and not selector.saturated("p0")
    selector.observe("p0", [True, True, False, False])
    assert selector.pass_rate("p0") == 0.5
    selector.observe("p0", [False, False])  # window now False False False False
    assert selector.pass_rate("p0") == 0.0 and selector.saturated("p0")
    selector.observe("p0", [])  # an all-inconclusive group records nothing
    assert selector.pass_rate("p0") == 0.0
    selector.observe("p0", [True])
    assert selector.pass_rate("p0") == 0.25 and not selector.saturated("p0")


def _counts(selector: PassRateSelector, takes: int, n: int) -> Counter:
    return Counter(p for _ in range(takes) for p in selector.take(n))


def test_saturated_problems_are_drawn_rarely_but_not_never():
    selector = PassRateSelector(IDS, seed=0, window=4, explore=0.1)
    for p in IDS[:4]:
        selector.observe(p, [False] * 4)  # never solved
    for p in IDS[4:7]:
        selector.observe(p, [True] * 4)  # always solved
    for p in IDS[7:]:
        selector.observe(p, [True, False, False, False])  # mixed: informative
    counts = _counts(selector, takes=2000, n=2)
    saturated = sum(counts[p] for p in IDS[:7])
    # Each slot goes to a saturated problem with probability 0.1: 400 of 4000 expected.
    assert 340 <= saturated <= 460
    assert min(counts[p] for p in IDS[:7]) > 20  # every saturated problem still comes back
    assert min(counts[p] for p in IDS[7:]) > 1100  # the three mixed ones: ~1200 each


def test_unseen_problems_are_preferred_like_mixed_ones():
    selector = PassRateSelector(IDS[:4], seed=1, window=2, explore=0.0)
    selector.observe("p0", [False, False])
    selector.observe("p1", [True, True])
    selector.observe("p2", [True, False])
    counts = _counts(selector, takes=500, n=2)  # p2 (mixed) and p3 (unseen): every draw
    assert counts == Counter({"p2": 500, "p3": 500})
    assert _counts(selector, takes=1, n=3)["p2"] == 1  # a third slot must take a saturated one


def test_state_round_trips_through_json_and_continues_exactly():
    selector = PassRateSelector(IDS, seed=7, window=3)
    for step in range(5):
        for i, p in enumerate(selector.take(3)):
            selector.observe(p, [(step + i) % 2 == 0, step % 3 == 0])
    state = json.loads(json.dumps(selector.state_dict()))
    resumed = PassRateSelector(IDS, seed=7, window=3)
    resumed.load_state_dict(state)
    assert resumed.state_dict() == selector.state_dict()
    assert [resumed.take(3) for _ in range(5)] == [selector.take(3) for _ in range(5)]


def test_a_state_from_other_settings_is_refused():
    state = PassRateSelector(IDS, seed=7).state_dict()
    with pytest.raises(UsageError, match=r"other settings \(\['seed', 'window'\]\)"):
        PassRateSelector(IDS, seed=8, window=2).load_state_dict(state)
    with pytest.raises(UsageError, match="not a execrl-pass-rate-selector/1 state"):
        PassRateSelector(IDS, seed=7).load_state_dict({"takes": 3})


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: PassRateSelector([], seed=0), "no problems to draw from"),
        (lambda: PassRateSelector(["a", "b", "a"], seed=0), r"distinct, repeated: \['a'\]"),
        (lambda: PassRateSelector(IDS, seed=0, window=0), "window must be >= 1 rollouts, got 0"),
        (lambda: PassRateSelector(IDS, seed=0, explore=1.5), r"explore must lie in \[0, 1\]"),
        (lambda: PassRateSelector(IDS, seed=0).take(-1), "n must be >= 0, got -1"),
        (lambda: PassRateSelector(IDS, seed=0).observe("zz", [True]), "unknown problem id 'zz'"),
    ],
)
def test_bad_arguments_are_one_line_usage_errors(build, message):
    with pytest.raises(UsageError, match=message) as caught:
        build()
    assert "\n" not in str(caught.value)
