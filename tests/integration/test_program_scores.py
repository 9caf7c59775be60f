"""The library behind ``execrl score --programs``: :func:`score_programs` called directly, on
the real sandbox, with the sum-list problem (tests/conftest.py)."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from execrl.errors import UsageError
from execrl.evaluate.programs import Program
from execrl.problems.io import load_problem
from execrl.problems.models import Problem
from execrl.rewards.program_scores import MeasuredReferences, score_programs
from execrl.rewards.score_config import env_and_reward
from execrl.sandbox.protocol import Executor
from execrl.timing.store import DurationStore
from tests.conftest import SUM_REFERENCES

PROBLEM = "sum-list"
GOOD = Program(PROBLEM, "good.py", SUM_REFERENCES["builtin"])
BAD = Program(PROBLEM, "bad.py", "input()\nprint(0)\n")


class CountingOpener:
    """An executor opener that counts its calls and hands out the shared pool."""

    def __init__(self, pool: Executor) -> None:
        self.pool, self.calls = pool, 0

    def __call__(self) -> AbstractContextManager[Executor]:
        from contextlib import nullcontext

        self.calls += 1
        return nullcontext(self.pool)


@pytest.fixture(scope="module")
def problems(built_sum_problem_dir: Path) -> dict[str, Problem]:
    return {PROBLEM: load_problem(built_sum_problem_dir.parent, PROBLEM)}


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_rewards_and_rows_of_correct_and_incorrect_programs(problems, executor, tmp_path):
    env, reward_fn = env_and_reward("mc", "collapsed")
    out = tmp_path / "scores.jsonl"
    scores = score_programs(
        [GOOD, BAD], problems, out, env=env, reward_fn=reward_fn, executor=executor, progress=False
    )
    assert scores.rewards == [1.0, -1.0] and scores.inconclusive == 0 and scores.resumed == 0
    assert scores.path == out and lines(out) == scores.rows
    assert [r["program_name"] for r in scores.rows] == ["good.py", "bad.py"]
    assert {r["references"] for r in scores.rows} == {"stored"}  # mc ranks nothing
    assert scores.rows[0]["record"]["problem_id"] == PROBLEM  # replayable


def test_resume_scores_only_what_the_file_lacks(problems, executor, tmp_path):
    env, reward_fn = env_and_reward("mc", "collapsed")
    out = tmp_path / "scores.jsonl"
    score_programs([GOOD], problems, out, env=env, reward_fn=reward_fn, executor=executor)
    opener = CountingOpener(executor)
    scores = score_programs(
        [GOOD, BAD], problems, out, env=env, reward_fn=reward_fn, executor=opener, resume=True
    )
    assert scores.resumed == 1 and scores.rewards == [1.0, -1.0] and opener.calls == 1
    assert [r["program_name"] for r in lines(out)] == ["good.py", "bad.py"]
    # every row present: no executor is opened at all
    again = score_programs(
        [GOOD, BAD], problems, out, env=env, reward_fn=reward_fn, executor=opener, resume=True
    )
    assert again.resumed == 2 and again.rows == scores.rows and opener.calls == 1


def test_resume_under_another_environment_is_refused_before_anything_runs(
    problems, executor, tmp_path
):
    out = tmp_path / "scores.jsonl"
    env, reward_fn = env_and_reward("rlvr", "collapsed")
    score_programs([GOOD], problems, out, env=env, reward_fn=reward_fn, executor=executor)
    before = out.read_bytes()
    opener = CountingOpener(executor)
    other, _ = env_and_reward("mc", "collapsed")
    with pytest.raises(UsageError, match="scored under environment rlvr"):
        score_programs(
            [GOOD, BAD], problems, out, env=other, reward_fn=reward_fn, executor=opener, resume=True
        )
    assert opener.calls == 0 and out.read_bytes() == before


def test_measured_references_are_saved_beside_the_results(problems, executor, tmp_path):
    env, reward_fn = env_and_reward("qp(p=0.5)", "collapsed")
    out = tmp_path / "scores.jsonl"
    told: list[MeasuredReferences] = []
    scores = score_programs(
        [GOOD],
        problems,
        out,
        env=env,
        reward_fn=reward_fn,
        executor=executor,
        on_measured=told.append,
        progress=False,
    )
    (measured,) = told
    assert measured.references == 2 and measured.problems == 1  # the two correct references
    assert measured.campaign_file.is_file()
    assert measured.campaign_file.parent.parent == tmp_path / "scores.references"
    (row,) = scores.rows
    assert row["references"] == "measure" and row["c_cor"] == 1
    assert row["ranked_tests"] == len(problems[PROBLEM].optimization_tests)
    campaign = DurationStore(tmp_path / "scores.references").load()
    assert campaign.info.problems == [PROBLEM]


def test_stored_references_that_are_missing_are_told(problems, executor, tmp_path):
    env, reward_fn = env_and_reward("qp(p=0.5)", "collapsed")
    told: list[Problem] = []
    scores = score_programs(
        [GOOD],
        problems,
        tmp_path / "scores.jsonl",
        env=env,
        reward_fn=reward_fn,
        executor=executor,
        references="stored",
        on_unreferenced=told.append,
        progress=False,
    )
    assert [p.id for p in told] == [PROBLEM]
    assert scores.rows[0]["references"] == "stored" and scores.rows[0]["ranked_tests"] == 0
