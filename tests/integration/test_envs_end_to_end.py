"""Every environment preset on real executions of the bundled references.

The references' durations are measured once (the pool H(x)); then every reference, correct
and incorrect, runs once more on all of its problem's tests, and each record is rescored under
every preset — a correct reference against the *other* references (leave-one-out). Rewards
must follow the references' measured speed, and incorrect code must get the failure reward.
"""

from __future__ import annotations

import math
import statistics

import pytest

from execrl.envs import PRESETS, environment
from execrl.problems import load_bundled
from execrl.problems.models import ReferenceLabel
from execrl.rewards import rescore
from execrl.sandbox.protocol import ExecutionRequest
from execrl.stats import spearman
from execrl.timing import measure_reference_durations

PROBLEMS = ["balanced-brackets", "anagram-groups"]
"""Two problems whose tiers are far apart (5–12× between fastest and slowest on CPU time)."""

GRADED = "collapsed(graded, map=linear)"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def scored_runs(executor):
    problems, _ = measure_reference_durations(load_bundled(PROBLEMS), executor, progress=False)
    requests = [
        ExecutionRequest.for_problem(problem, ref.code, program_name=ref.name)
        for problem in problems
        for ref in problem.references
    ]
    records = list(executor.run_batch(requests, progress=False))
    by_problem = {}
    for problem in problems:
        by_problem[problem.id] = (
            problem,
            {r.program_name: r for r in records if r.problem_id == problem.id},
        )
    return by_problem


def _rewards(problem, records, preset: str, reward: str) -> dict[str, float]:
    env = environment(preset)
    out = {}
    for ref in problem.references:
        pool = env.pool(problem)
        if ref.label is ReferenceLabel.CORRECT:
            pool = pool.without(ref.name)
        ((value, _),) = rescore(problem, [records[ref.name]], env=env, reward=reward, pool=pool)
        out[ref.name] = value
    return out


def _spearman_or_0(xs: list[float], ys: list[float]) -> float:
    """Spearman, with a constant side (all rewards equal) counting as no agreement."""
    rho = spearman(xs, ys)
    return 0.0 if math.isnan(rho) else rho


def _speed_order(problem) -> list[str]:
    """Correct references, fastest first, by their stored (first-run) total duration."""
    correct = problem.references_labelled(ReferenceLabel.CORRECT)
    return [r.name for r in sorted(correct, key=lambda r: sum(r.durations_s.values()))]


@pytest.mark.parametrize("problem_id", PROBLEMS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_incorrect_references_get_the_failure_reward(scored_runs, problem_id, preset):
    problem, records = scored_runs[problem_id]
    for reward in ("collapsed", GRADED, "two_gate(graded)", "correctness"):
        rewards = _rewards(problem, records, preset, reward)
        for ref in problem.references_labelled(ReferenceLabel.INCORRECT):
            original = {t.id for t in problem.tests_in("original")}
            fails_t0 = any(not r.passed for r in records[ref.name].results if r.test_id in original)
            caught = preset != "rlvr" or fails_t0  # rlvr judges on T0 alone
            if caught:
                assert rewards[ref.name] == -1.0, (preset, reward, ref.name)


@pytest.mark.parametrize("problem_id", PROBLEMS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_rewards_follow_the_speed_of_correct_references(scored_runs, problem_id, preset):
    problem, records = scored_runs[problem_id]
    order = _speed_order(problem)
    for reward in ("collapsed", GRADED, "two_gate(graded)"):
        rewards = _rewards(problem, records, preset, reward)
        values = [rewards[name] for name in order]  # fastest first
        assert all(-1.0 <= v <= 1.0 for v in values)
        half = len(values) // 2
        fast, slow = values[:half], values[-half:]
        assert statistics.fmean(fast) >= statistics.fmean(slow), (preset, reward, values)
        if preset in ("rlvr", "mc"):  # no optimization tests: every correct program is equal
            assert set(values) == {1.0}, values
        if preset.startswith(("qp", "qar")) and "graded" in reward:
            # ranking presets grade every speed: fastest > slowest, and order agrees
            assert values[0] > values[-1], values
            assert _spearman_or_0(list(range(len(values))), [-v for v in values]) >= 0.6, values
