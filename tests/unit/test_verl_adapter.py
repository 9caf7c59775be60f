"""The verl adapter: compute_score on real executions of a bundled problem's references, the
batch and async forms, the parquet dataset whose ground truth feeds compute_score back, and
the one executor per process (thread-safe, size-capped, on cores of its own, or a server)."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

import pyarrow.parquet as pq
import pytest

from execrl.errors import ConfigError, ExecrlError, UsageError
from execrl.integrations.verl import (
    SCORE_KEYS,
    VERL_REWARD_WORKERS,
    WORKERS_ENV_VAR,
    close_process_executors,
    compute_score,
    compute_score_async,
    compute_score_batch,
    process_executor,
    write_verl_dataset,
)
from execrl.problems import load_bundled, save_problems
from execrl.problems.models import ReferenceLabel
from execrl.sandbox.pool import LocalExecutor

PROBLEM_ID = "balanced-brackets"


@pytest.fixture(scope="module")
def executor():
    with LocalExecutor(workers=2) as pool:
        yield pool


@pytest.fixture(scope="module")
def problem():
    return load_bundled([PROBLEM_ID])[0]


def _fenced(code: str) -> str:
    return f"Here is my solution.\n```python\n{code}\n```\n"


def _reference(problem, label: ReferenceLabel) -> str:
    return _fenced(problem.references_labelled(label)[0].code)


def test_correct_reference_scores_one(problem, executor):
    truth = json.dumps({"problem_id": PROBLEM_ID})
    result = compute_score(
        "execrl/bundled", _reference(problem, ReferenceLabel.CORRECT), truth, executor=executor
    )
    assert result["score"] == 1.0
    assert result["c_cor"] == 1.0
    assert result["tests_passed_fraction"] == 1.0
    assert result["inconclusive"] == 0.0


def test_incorrect_reference_scores_minus_one(problem, executor):
    truth = json.dumps({"problem_id": PROBLEM_ID})
    result = compute_score(
        "execrl/bundled", _reference(problem, ReferenceLabel.INCORRECT), truth, executor=executor
    )
    assert result["score"] == -1.0
    assert result["c_cor"] == 0.0
    assert result["tests_passed_fraction"] < 1.0


def test_fixed_key_set_of_floats(problem, executor):
    for solution in (_reference(problem, ReferenceLabel.CORRECT), "no code at all"):
        result = compute_score(
            "execrl/bundled", solution, "", {"problem_id": PROBLEM_ID}, executor=executor
        )
        assert tuple(result) == SCORE_KEYS
        assert all(type(v) is float for v in result.values())


def test_extra_info_overrides_ground_truth(problem, executor):
    # correctness-only on a wrong program is −1 under every composition; two_gate too.
    truth = json.dumps({"problem_id": PROBLEM_ID, "reward": "correctness"})
    wrong = _reference(problem, ReferenceLabel.INCORRECT)
    assert compute_score("s", wrong, truth, executor=executor)["score"] == -1.0
    info = {"reward": "additive"}  # ½·s(0) + ½·s(g=1) = 0 under mc (no optimization tests)
    assert compute_score("s", wrong, truth, info, executor=executor)["score"] == 0.0


def test_batch_equals_single_calls(problem, executor):
    correct = problem.references_labelled(ReferenceLabel.CORRECT)
    incorrect = problem.references_labelled(ReferenceLabel.INCORRECT)
    solutions = [_fenced(r.code) for r in (correct[0], incorrect[0], correct[1], incorrect[1])]
    other = load_bundled(["anagram-groups"])[0]
    solutions.append(_reference(other, ReferenceLabel.CORRECT))
    truths = [json.dumps({"problem_id": PROBLEM_ID})] * 4 + [json.dumps({"problem_id": other.id})]
    sources = ["execrl/bundled"] * len(solutions)
    batch = compute_score_batch(sources, solutions, truths, [None] * 5, executor=executor)
    single = [
        compute_score(s, sol, gt, executor=executor)
        for s, sol, gt in zip(sources, solutions, truths, strict=True)
    ]
    assert [r["score"] for r in batch] == [1.0, -1.0, 1.0, -1.0, 1.0]
    assert [r["score"] for r in batch] == [r["score"] for r in single]
    assert [r["c_cor"] for r in batch] == [r["c_cor"] for r in single]


def test_dataset_round_trips_into_compute_score(problem, executor, tmp_path):
    path = write_verl_dataset([problem], tmp_path / "train.parquet", split="train")
    rows = pq.read_table(path).to_pylist()
    assert len(rows) == 1
    row = rows[0]
    assert set(row) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}
    assert row["data_source"] == f"execrl/{problem.source.dataset}"
    assert row["ability"] == "code"
    assert [m["role"] for m in row["prompt"]] == ["system", "user"]
    assert row["reward_model"]["style"] == "rule"
    assert row["extra_info"] == {"problem_id": PROBLEM_ID, "split": "train", "index": 0}
    truth = json.loads(row["reward_model"]["ground_truth"])
    assert truth == {"problem_id": PROBLEM_ID, "env": "mc", "reward": "collapsed"}

    result = compute_score(
        row["data_source"],
        _reference(problem, ReferenceLabel.CORRECT),
        row["reward_model"]["ground_truth"],
        row["extra_info"],
        executor=executor,
    )
    assert result["score"] == 1.0


def test_problem_source_from_extra_info(problem, executor, tmp_path):
    source = save_problems([problem], tmp_path / "set.jsonl")
    path = write_verl_dataset([problem], tmp_path / "t.parquet", problem_source=str(source))
    row = pq.read_table(path).to_pylist()[0]
    assert row["extra_info"]["problem_source"] == str(source)
    result = compute_score(
        row["data_source"],
        _reference(problem, ReferenceLabel.INCORRECT),
        row["reward_model"]["ground_truth"],
        row["extra_info"],
        executor=executor,
    )
    assert result["score"] == -1.0


def test_unknown_problem_is_an_error_not_a_score(executor):
    with pytest.raises(ExecrlError, match="no-such-problem"):
        compute_score("s", "print(1)", json.dumps({"problem_id": "no-such-problem"}))
    with pytest.raises(ExecrlError, match="not execrl's JSON"):
        compute_score("s", "print(1)", "42 is the answer", executor=executor)


# -- the async form ------------------------------------------------------------------------
def test_async_equals_sync_and_runs_concurrently(problem, executor):
    truth = json.dumps({"problem_id": PROBLEM_ID})
    solutions = [_reference(problem, label) for label in (ReferenceLabel.CORRECT,) * 2] + [
        _reference(problem, ReferenceLabel.INCORRECT)
    ] * 2

    async def all_at_once():
        return await asyncio.gather(
            *(compute_score_async("s", s, truth, executor=executor) for s in solutions)
        )

    scored = asyncio.run(all_at_once())
    assert [r["score"] for r in scored] == [1.0, 1.0, -1.0, -1.0]
    assert all(tuple(r) == SCORE_KEYS for r in scored)
    sync = [compute_score("s", s, truth, executor=executor) for s in solutions[1:3]]
    for key in ("score", "c_cor", "c_strict", "tests_passed_fraction", "inconclusive"):
        assert [r[key] for r in scored[1:3]] == [r[key] for r in sync], key


def test_async_is_a_coroutine_function_and_checks_before_running():
    # verl awaits a custom reward only when inspect says it is a coroutine function.
    assert inspect.iscoroutinefunction(compute_score_async)
    with pytest.raises(ExecrlError, match="no-such-problem"):
        asyncio.run(compute_score_async("s", "print(1)", {"problem_id": "no-such-problem"}))


# -- one executor per process ----------------------------------------------------------------
@pytest.fixture
def fresh_process_executors():
    """No executor of this process before or after the test."""
    close_process_executors()
    yield
    close_process_executors()


def test_concurrent_first_calls_open_one_pool(fresh_process_executors):
    # verl 0.9.1 calls compute_score from several threads at once: 4 first calls, 1 pool.
    barrier = threading.Barrier(4)

    def first_call(_):
        barrier.wait()
        return process_executor(workers=1)

    with ThreadPoolExecutor(4) as threads:
        opened = list(threads.map(first_call, range(4)))
    assert len({id(e) for e in opened}) == 1
    assert opened[0].workers == 1
    close_process_executors()
    assert process_executor(workers=1) is not opened[0]  # closed ones are forgotten


def test_pool_size_capped(fresh_process_executors, monkeypatch):
    cores = len(os.sched_getaffinity(0))
    assert process_executor(workers=10_000).workers == cores
    assert process_executor().workers == max(1, cores // VERL_REWARD_WORKERS)
    close_process_executors()
    monkeypatch.setenv(WORKERS_ENV_VAR, "2")
    assert process_executor().workers == min(2, cores)
    assert process_executor(workers=1).workers == 1  # the keyword comes first


@pytest.mark.parametrize("value", ["many", "0", "-3", "1.5"])
def test_bad_worker_count_is_a_config_error(fresh_process_executors, monkeypatch, value):
    monkeypatch.setenv(WORKERS_ENV_VAR, value)
    with pytest.raises(ConfigError, match=WORKERS_ENV_VAR):
        process_executor()


def test_bad_executor_spec_is_a_usage_error(fresh_process_executors):
    with pytest.raises(UsageError, match="expected 'local'"):
        compute_score("s", "print(1)", {"problem_id": PROBLEM_ID}, executor="ftp://somewhere")
    with pytest.raises(ConfigError, match="workers=0"):
        compute_score("s", "print(1)", {"problem_id": PROBLEM_ID}, workers=0)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
def test_processes_pin_their_pools_to_different_cores(
    fresh_process_executors, tmp_path, monkeypatch
):
    # verl's reward workers are processes on one node: each pool takes cores no other holds.
    # The core locks live in the temporary folder: this test's own, so that pools of other
    # test processes running at the same time (pytest -n) hold none of them.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from execrl.integrations.verl import process_executor; "
            "print(process_executor(workers=1).cores, flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    try:
        theirs = json.loads(child.stdout.readline())
        ours = process_executor(workers=1).cores
    finally:
        child.communicate("", timeout=30)
    assert len(theirs) == len(ours) == 1
    assert theirs != ours
