"""execrl's verl reward driven the way verl's reward managers drive it, end to end.

verl itself is not installed here: ``verl.protocol`` (imported by every reward manager)
imports ``ray`` and ``tensordict`` at module level, so ``NaiveRewardManager`` cannot be built
without them. This test replays what verl 0.9's managers do with a ``compute_score``
function, on rows read back from a parquet file written by ``write_verl_dataset``:

- ``NaiveRewardManager``: one keyword call per sample, ``compute_score(data_source=...,
  solution_str=..., ground_truth=row["reward_model"]["ground_truth"],
  extra_info=row["extra_info"])`` after adding ``num_turns`` and ``rollout_reward_scores`` to
  ``extra_info``; a dict result gives the reward from ``"score"`` and every key is appended
  to a per-key list (so every sample must return the same keys).
- ``BatchRewardManager``: one keyword call ``compute_score(data_sources=...,
  solution_strs=..., ground_truths=..., extra_infos=...)`` for the whole batch.
"""

from __future__ import annotations

from collections import defaultdict

import pyarrow.parquet as pq
import pytest

from execrl.integrations.verl import (
    SCORE_KEYS,
    compute_score,
    compute_score_batch,
    write_verl_dataset,
)
from execrl.problems import load_bundled
from execrl.problems.models import ReferenceLabel
from execrl.sandbox.executor import LocalExecutor

PROBLEMS = ["balanced-brackets", "anagram-groups"]


@pytest.fixture(scope="module")
def executor():
    with LocalExecutor(workers=2) as pool:
        yield pool


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """verl's non-tensor batch: each row repeated per rollout, with a decoded response."""
    problems = load_bundled(PROBLEMS)
    path = write_verl_dataset(problems, tmp_path_factory.mktemp("verl") / "train.parquet")
    rows = {row["extra_info"]["problem_id"]: row for row in pq.read_table(path).to_pylist()}
    samples, expected = [], []
    for problem in problems:
        for label, reward in ((ReferenceLabel.CORRECT, 1.0), (ReferenceLabel.INCORRECT, -1.0)):
            code = problem.references_labelled(label)[0].code
            response = f"Let me think.\n```python\n{code}```\nThis runs in linear time."
            samples.append((rows[problem.id], response))
            expected.append(reward)
    return samples, expected


def test_naive_reward_manager_loop(batch, executor):
    samples, expected = batch
    rewards, reward_extra_info = [], defaultdict(list)
    for row, response in samples:
        extra_info = dict(row["extra_info"])
        extra_info["num_turns"] = None
        extra_info["rollout_reward_scores"] = {}
        score = compute_score(
            data_source=row["data_source"],
            solution_str=response,
            ground_truth=row["reward_model"]["ground_truth"],
            extra_info=extra_info,
            executor=executor,
        )
        rewards.append(score["score"])
        for key, value in score.items():
            reward_extra_info[key].append(value)
    assert rewards == expected
    assert tuple(reward_extra_info) == SCORE_KEYS
    assert all(len(values) == len(samples) for values in reward_extra_info.values())


def test_batch_reward_manager_call(batch, executor):
    samples, expected = batch
    scores = compute_score_batch(
        data_sources=[row["data_source"] for row, _ in samples],
        solution_strs=[response for _, response in samples],
        ground_truths=[row["reward_model"]["ground_truth"] for row, _ in samples],
        extra_infos=[row["extra_info"] for row, _ in samples],
        executor=executor,
    )
    assert [s["score"] for s in scores] == expected
    assert all(s["inconclusive"] == 0.0 for s in scores)
