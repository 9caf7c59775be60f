"""The verl adapter: compute_score on real executions of a bundled problem's references, the
batch form, and the parquet dataset whose ground truth feeds compute_score back."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from execrl.integrations.verl import (
    SCORE_KEYS,
    compute_score,
    compute_score_batch,
    write_verl_dataset,
)
from execrl.problems import load_bundled, save_problems
from execrl.problems.models import ReferenceLabel
from execrl.sandbox.executor import LocalExecutor

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
    from execrl.errors import ExecrlError

    with pytest.raises(ExecrlError, match="no-such-problem"):
        compute_score("s", "print(1)", json.dumps({"problem_id": "no-such-problem"}))
    with pytest.raises(ExecrlError, match="not execrl's JSON"):
        compute_score("s", "print(1)", "42 is the answer", executor=executor)
