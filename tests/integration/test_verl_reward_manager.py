"""execrl's verl reward driven the way verl's reward managers drive it, without verl.

verl is not a dependency of execrl's dev environment (tests/integration/test_verl_real.py
runs the real verl 0.9.1 where it is installed). These tests replay what verl's managers do
with a ``compute_score`` function, on rows read back from a parquet file written by
``write_verl_dataset``:

- 0.9.1's ``naive`` reward-loop manager: one keyword call per sample,
  ``compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...,
  **reward_kwargs)`` after adding ``num_turns`` and ``rollout_reward_scores`` to
  ``extra_info`` (on a thread, or awaited when the function is a coroutine function); a dict
  result gives the reward from ``"score"`` and every key is appended to a per-key list (so
  every sample must return the same keys).
- older verl's ``BatchRewardManager``: one keyword call ``compute_score(data_sources=...,
  solution_strs=..., ground_truths=..., extra_infos=...)`` for the whole batch.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import pyarrow.parquet as pq
import pytest

from execrl.integrations.executors import _open_executor
from execrl.integrations.verl import (
    SCORE_KEYS,
    close_process_executors,
    compute_score,
    compute_score_async,
    compute_score_batch,
    process_executor,
    write_verl_dataset,
)
from execrl.problems import load_bundled
from execrl.problems.models import ReferenceLabel, StdioTest
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.records import Status

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


def _naive_call(function, row: dict, response: str, reward_kwargs: dict):
    """One sample called as verl's naive manager calls it (reward_kwargs merged in)."""
    extra_info = dict(row["extra_info"])
    extra_info["num_turns"] = None
    extra_info["rollout_reward_scores"] = {}
    return function(
        data_source=row["data_source"],
        solution_str=response,
        ground_truth=row["reward_model"]["ground_truth"],
        extra_info=extra_info,
        **reward_kwargs,
    )


def test_naive_reward_manager_loop(batch, executor):
    samples, expected = batch
    rewards, reward_extra_info = [], defaultdict(list)
    for row, response in samples:
        score = _naive_call(compute_score, row, response, {"executor": executor})
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


def test_reward_kwargs_executor_sends_executions_to_execrl_serve(batch):
    # verl's reward_kwargs.executor=http://...: every sample runs on the server, through this
    # process's one RemoteExecutor, in both the threaded and the awaited form.
    pytest.importorskip("fastapi", reason="execrl serve needs the serve extra")
    from tests.service._server import running_server

    samples, expected = batch
    close_process_executors()
    with running_server(workers=2) as server:
        kwargs = {"executor": server.url}
        with ThreadPoolExecutor(len(samples)) as threads:  # verl's threads, all at once
            threaded = list(threads.map(lambda s: _naive_call(compute_score, *s, kwargs), samples))
        remote = process_executor(server.url)
        assert remote.backend != LocalExecutor.backend

        async def awaited():
            calls = [_naive_call(compute_score_async, r, s, kwargs) for r, s in samples]
            return await asyncio.gather(*calls)

        gathered = asyncio.run(awaited())
        close_process_executors()
    assert [s["score"] for s in threaded] == [s["score"] for s in gathered] == expected
    assert all(s["inconclusive"] == 0.0 for s in threaded + gathered)


def test_a_solver_reward_given_a_server_url_opens_a_remote_executor():
    # The server's sandboxes are its own (`execrl serve --solvers`): the solver sandbox config
    # is for pools this process starts, and giving it with a URL was a UsageError.
    pytest.importorskip("fastapi", reason="execrl serve needs the serve extra")
    from tests.service._server import running_server

    with running_server(workers=1) as server:
        executor, locks = _open_executor(server.url, None, solver=True)
        with executor:
            assert executor.backend != LocalExecutor.backend and locks == []
            record = executor.run("print(6 * 7)", [StdioTest(id="t", input="", output="42\n")])
    assert [t.status for t in record.results] == [Status.SUCCESS]
