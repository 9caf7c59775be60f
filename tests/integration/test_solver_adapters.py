"""Solver rewards through the TRL and verl adapters, on the fixture problems' worked responses
(real sandbox runs): the values are the spec's (3.5 / 3 / 4.5 …), whichever door they come in
by."""

from __future__ import annotations

import asyncio
import json
import pickle
from importlib.util import find_spec
from pathlib import Path

import pytest

from execrl.errors import ExecrlError
from execrl.integrations import SolverRewardFunction, solver_dataset
from execrl.integrations.verl import (
    SOLVER_SCORE_KEYS,
    compute_solver_score,
    compute_solver_score_batch,
    write_solver_verl_dataset,
)
from execrl.problems.optim import load_optim_problems
from execrl.rewards.solver import solver_executor

for module in ("highspy", "pulp", "ortools"):
    pytest.importorskip(module)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "optim"


@pytest.fixture(scope="module")
def problems():
    return {p.id: p for p in load_optim_problems(FIXTURES / "problems.jsonl")}


@pytest.fixture(scope="module")
def executor():
    with solver_executor(workers=2) as pool:
        yield pool


def test_trl_style_call(problems, executor):
    furniture, depots = problems["furniture-lp"], problems["depots-fixed-charge"]
    fn = SolverRewardFunction("paper", executor=executor)
    logged = {}
    completions = [
        [{"role": "assistant", "content": furniture.reference}],  # chat format
        furniture.incorrect[3].response,  # wrong answer: format 0.5 + execution 1
        depots.reference,
        "I cannot solve this.",  # nothing to run
    ]
    rewards = fn(
        prompts=["p"] * 4,
        completions=completions,
        completion_ids=[[1, 2]] * 4,
        trainer_state=None,
        log_metric=lambda key, value: logged.__setitem__(key, value),
        answer=["34.0", "34.0", "320.0", "34.0"],  # a string column, as solver_dataset builds
        problem_id=["furniture-lp", "furniture-lp", "depots-fixed-charge", "furniture-lp"],
    )
    assert rewards == [3.5, 1.5, 3.5, 0.0]
    assert fn.__name__ == "execrl_solver_paper"
    assert logged == {
        "execrl_solver_paper/accuracy": 0.5,
        "execrl_solver_paper/inconclusive_frac": 0,
    }

    stage2 = SolverRewardFunction({"preset": "paper", "stage": 2}, executor=executor)
    assert stage2(prompts=["p"], completions=[depots.reference], answer=["320"]) == [4.5]
    authors = SolverRewardFunction("authors", executor=executor)
    assert authors(prompts=["p"], completions=[depots.reference], answer=[320.0]) == [3.0]


def test_trl_function_pickles_and_opens_its_own_solver_pool(problems):
    fn = pickle.loads(pickle.dumps(SolverRewardFunction("paper", workers=1)))
    trap = problems["machines-infeasible"]
    try:
        assert fn(prompts=["p"], completions=[trap.reference], answer=["infeasible"]) == [3.5]
    finally:
        fn.close()


def test_trl_errors_are_actionable():
    with pytest.raises(ExecrlError, match="unknown solver reward preset"):
        SolverRewardFunction("best")
    fn = SolverRewardFunction("paper", workers=1)
    with pytest.raises(ExecrlError, match=r"column 'answer'.*'problem_id'"):
        fn(prompts=["p"], completions=["x"], problem_id=["a"], log_metric=print)


@pytest.mark.skipif(find_spec("datasets") is None, reason="needs datasets")
def test_solver_dataset_rows(problems):
    data = solver_dataset(list(problems.values()))
    assert data.column_names == ["prompt", "answer", "problem_id"]
    assert data["answer"] == ["34.0", "320.0", "187.0", "infeasible"]
    assert (
        data[0]["prompt"][0]["role"] == "system" and "model.lp" in data[0]["prompt"][0]["content"]
    )


def test_verl_compute_score(problems, executor):
    furniture, trap = problems["furniture-lp"], problems["machines-infeasible"]
    one = compute_solver_score("execrl/optim", furniture.reference, "34", executor=executor)
    assert list(one) == list(SOLVER_SCORE_KEYS)
    assert one == {
        "score": 3.5,
        "format": 0.5,
        "execution": 1.0,
        "accuracy": 2.0,
        "bonus": 0.0,
        "correct": 1.0,
        "inconclusive": 0.0,
    }
    batch = compute_solver_score_batch(
        ["execrl/optim"] * 4,
        [furniture.reference, furniture.incorrect[0].response, trap.reference, trap.reference],
        [
            34.0,  # a number
            json.dumps({"answer": 34.0, "reward": "authors"}),  # per-row preset
            "infeasible",  # a status word
            {"answer": "infeasible"},
        ],
        [None, None, None, {"reward": {"preset": "paper", "stage": 2}}],
        executor=executor,
    )
    assert [b["score"] for b in batch] == pytest.approx([3.5, 0.5 * (2 - 1 / 3) + 2, 3.5, 3.5])
    assert {tuple(b) for b in batch} == {SOLVER_SCORE_KEYS}
    # verl's reward_kwargs: the authors' preset at stage 2 for every row
    (kw,) = compute_solver_score_batch(
        ["s"],
        [problems["depots-fixed-charge"].reference],
        ["320"],
        executor=executor,
        reward="authors",
        stage=2,
    )
    assert (kw["score"], kw["bonus"]) == (4.0, 1.0)


def test_verl_errors_and_dataset(problems, tmp_path):
    with pytest.raises(ExecrlError, match="pass one of each"):
        compute_solver_score_batch(["a"], ["x", "y"], ["1"])
    with pytest.raises(ExecrlError, match="answer 0: 'lots' is neither a number"):
        compute_solver_score("s", "<python>print(1)</python>", "lots")
    pq = pytest.importorskip("pyarrow.parquet")
    path = write_solver_verl_dataset(list(problems.values()), tmp_path / "train.parquet")
    rows = pq.read_table(path).to_pylist()
    assert [json.loads(r["reward_model"]["ground_truth"])["answer"] for r in rows] == [
        34.0,
        320.0,
        187.0,
        "infeasible",
    ]
    assert rows[0]["data_source"] == "execrl/problems" and rows[0]["prompt"][1]["role"] == "user"


def test_async_callers_can_use_a_thread(problems, executor):
    """TRL awaits async reward functions; the sync one runs fine in a worker thread."""
    fn = SolverRewardFunction("paper", executor=executor)
    furniture = problems["furniture-lp"]

    async def main():
        return await asyncio.to_thread(fn, ["p"], [furniture.reference], answer=[furniture.answer])

    assert asyncio.run(main()) == [3.5]


MISSING_SOLVER = "<think>t</think><model>m</model><python>\nimport mosek\n</python>"


@pytest.mark.skipif(find_spec("mosek") is not None, reason="mosek present")
def test_a_missing_solver_is_inconclusive_in_verl_and_none_in_trl(executor):
    """Regression (issue 17): a missing solver scored the format term with verdict
    execution_error and verl's inconclusive stayed 0."""
    (verl,) = compute_solver_score_batch(["s"], [MISSING_SOLVER], ["3"], executor=executor)
    assert (verl["inconclusive"], verl["score"], verl["correct"]) == (1.0, 0.0, 0.0)
    trl = SolverRewardFunction("paper", executor=executor)
    assert trl(prompts=["p"], completions=[MISSING_SOLVER], answer=["3"]) == [None]
