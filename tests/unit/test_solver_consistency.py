"""Self-consistency over K samples: hand-built sets where value-only voting picks a wrong
answer and instance-enhanced scoring picks the right one (scores computed by hand)."""

from __future__ import annotations

import math

import pytest

from execrl.errors import ExecrlError
from execrl.rewards.solver import (
    ABSOLUTE,
    RELATIVE,
    SolveFeatures,
    consensus_counts,
    instance_enhanced_scores,
    instance_enhanced_vote,
    majority_vote,
)


def sample(objective, direction="min", n_binary=0, n_integer=0) -> SolveFeatures:
    status = "error" if objective is None else "optimal"
    return SolveFeatures(objective, direction, n_binary, n_integer, 3, status)


# Truth is 10. Three samples agree on 12 but on nothing else; the two samples answering 10
# agree with each other and with a third (answering 11) on direction and variable counts.
SAMPLES = [
    sample(12.0, "min", 0, 3),
    sample(12.0, "max", 1, 0),
    sample(12.0, "min", 2, 1),
    sample(10.0, "max", 2, 0),
    sample(10.0, "max", 2, 0),
    sample(11.0, "max", 2, 0),
    SolveFeatures(None, None, None, None, None, "error"),  # its code failed
]
r = math.sqrt


def test_consensus_counts_by_hand():
    psi = consensus_counts(SAMPLES)
    assert psi[0] == {"objective": 3, "direction": 2, "n_binary": 1, "n_integer": 1}
    assert psi[3] == {"objective": 2, "direction": 4, "n_binary": 4, "n_integer": 4}
    assert psi[5] == {"objective": 1, "direction": 4, "n_binary": 4, "n_integer": 4}
    assert psi[6] == dict.fromkeys(psi[6], 0)  # unknown features equal nothing


def test_value_only_voting_fails_and_instance_enhanced_picks_the_truth():
    majority = majority_vote([s.objective for s in SAMPLES])
    assert (majority.answer, majority.index) == (12.0, 0)
    assert majority.scores == (3, 3, 3, 2, 2, 1, None)

    vote = instance_enhanced_vote(SAMPLES)
    expected = [
        r(3) + r(2) + r(1) + r(1),  # 5.146
        r(3) + r(4) + r(1) + r(4),  # 6.732
        r(3) + r(2) + r(4) + r(1),  # 6.146
        r(2) + r(4) + r(4) + r(4),  # 7.414 (first of the two best: kept)
        r(2) + r(4) + r(4) + r(4),
        r(1) + r(4) + r(4) + r(4),  # 7.0
        None,
    ]
    assert vote.scores == pytest.approx(expected)
    assert (vote.answer, vote.index) == (10.0, 3)


def test_weights():
    # only the objective counts: the same choice as value-only voting
    assert instance_enhanced_vote(SAMPLES, weights=(1, 0, 0, 0)).answer == 12.0
    assert instance_enhanced_vote(SAMPLES, weights={"direction": 0, "n_binary": 0}).answer == 12.0
    doubled = instance_enhanced_scores(SAMPLES, weights={"objective": 2})
    assert doubled[3] == pytest.approx(2 * r(2) + 3 * r(4))
    with pytest.raises(ExecrlError, match="4 weights"):
        instance_enhanced_vote(SAMPLES, weights=(1, 1))
    with pytest.raises(ExecrlError, match="unknown self-consistency features"):
        instance_enhanced_vote(SAMPLES, weights={"objective_value": 1})


def test_objectives_are_equal_within_the_tolerance():
    close = [sample(10.0), sample(10.000001), sample(10.004), sample(9.0)]
    assert majority_vote([s.objective for s in close], tolerance=RELATIVE).scores == (2, 2, 1, 1)
    assert majority_vote([s.objective for s in close], tolerance=ABSOLUTE).scores == (3, 3, 3, 1)


def test_statuses_vote_like_values():
    answers = ["infeasible", 5.0, "infeasible", "unbounded"]
    assert majority_vote(answers).answer == "infeasible"
    samples = [sample(a) for a in answers]
    assert instance_enhanced_vote(samples).answer == "infeasible"


def test_nobody_answered():
    empty = [SolveFeatures(None, "min", 0, 0, 1, "error")] * 3
    vote = instance_enhanced_vote(empty)
    assert (vote.index, vote.answer, vote.scores) == (None, None, (None, None, None))
    assert majority_vote([None, None]).answer is None
