"""The TRL adapter without a model: batch order, chat completions, pickling, helpful errors.

These run real programs in the sandbox (a few tiny ones), since the adapter's whole job is to
route each completion to the right problem and back."""

from __future__ import annotations

import asyncio
import pickle

import pytest

from execrl.errors import ExecrlError
from execrl.integrations import AsyncExecrlRewardFunction, ExecrlRewardFunction, execrl_dataset
from execrl.problems import load_bundled
from execrl.rewards import score

IDS = ["distinct-count", "staircase-climb"]
WRONG = "print(1)"


@pytest.fixture(scope="module")
def problems():
    return load_bundled(IDS)


@pytest.fixture(scope="module")
def reward_fn(problems):
    fn = ExecrlRewardFunction("mc", "correctness", problems=problems, workers=2)
    yield fn
    fn.close()


def correct(problem) -> str:
    return next(r.code for r in problem.references if r.label == "correct")


def fenced(code: str) -> str:
    return f"Here is my solution.\n```python\n{code}\n```\nDone."


def test_order_is_kept_across_interleaved_problems(problems, reward_fn):
    distinct, stairs = problems
    # (problem, program, expected reward): the two problems alternate in the batch
    batch = [
        (distinct, correct(distinct), 1.0),
        (stairs, WRONG, -1.0),
        (distinct, WRONG, -1.0),
        (stairs, correct(stairs), 1.0),
        (stairs, WRONG, -1.0),
    ]
    rewards = reward_fn(
        prompts=["p"] * len(batch),
        completions=[fenced(code) for _, code, _ in batch],
        problem_id=[p.id for p, _, _ in batch],
    )
    assert rewards == [expected for _, _, expected in batch]


def test_chat_completions_use_the_last_assistant_message(problems, reward_fn):
    distinct, _ = problems
    good = [
        {"role": "assistant", "content": fenced(WRONG)},
        {"role": "user", "content": "try again"},
        {"role": "assistant", "content": fenced(correct(distinct))},
    ]
    parts = [{"role": "assistant", "content": [{"type": "text", "text": fenced(WRONG)}]}]
    rewards = reward_fn(prompts=[[], []], completions=[good, parts], problem_id=[distinct.id] * 2)
    assert rewards == [1.0, -1.0]


def test_rewards_are_floats_in_range_and_match_direct_scoring(problems, executor):
    distinct, _ = problems
    fn = ExecrlRewardFunction(problems=problems, workers=1)  # default env and reward
    programs = [correct(distinct), WRONG]
    rewards = fn(prompts=["p", "p"], completions=programs, problem_id=[distinct.id] * 2)
    fn.close()
    assert all(isinstance(r, float) and -1.0 <= r <= 1.0 for r in rewards)
    assert rewards[0] > rewards[1]
    direct = [
        s.reward for s in score(distinct, programs, executor=executor, env="mc", reward="collapsed")
    ]
    assert rewards == direct


def test_pickle_round_trip_opens_a_fresh_pool(problems, reward_fn):
    distinct, _ = problems
    reward_fn(prompts=["p"], completions=[WRONG], problem_id=[distinct.id])  # opens the pool
    copy = pickle.loads(pickle.dumps(reward_fn))
    assert copy._own is None
    assert copy.__name__ == reward_fn.__name__ == "execrl_correctness"
    rewards = copy(prompts=["p"], completions=[correct(distinct)], problem_id=[distinct.id])
    copy.close()
    assert rewards == [1.0]


def test_missing_column_says_which_and_what_to_do(reward_fn):
    with pytest.raises(ExecrlError, match=r"problem_id.*execrl_dataset"):
        reward_fn(prompts=["p"], completions=[WRONG], task=["x"], trainer_state=None)


def test_unknown_problem_id_is_named(reward_fn):
    with pytest.raises(ExecrlError, match="'no-such-problem'"):
        reward_fn(prompts=["p"], completions=[WRONG], problem_id=["no-such-problem"])


def test_a_bad_reward_spec_fails_at_construction(problems):
    with pytest.raises(ExecrlError):
        ExecrlRewardFunction(reward="no-such-reward", problems=problems)


def test_log_metric_gets_the_inconclusive_fraction(problems, reward_fn):
    logged = {}
    reward_fn(
        prompts=["p"],
        completions=[WRONG],
        problem_id=[problems[0].id],
        log_metric=lambda name, value: logged.__setitem__(name, value),
    )
    assert logged == {"execrl_correctness/inconclusive_frac": 0.0}


def test_async_variant_gives_the_same_rewards(problems):
    distinct, _ = problems
    fn = AsyncExecrlRewardFunction("mc", "correctness", problems=problems, workers=1)
    rewards = asyncio.run(
        fn(prompts=["p", "p"], completions=[correct(distinct), WRONG], problem_id=[distinct.id] * 2)
    )
    fn.close()
    assert rewards == [1.0, -1.0]


def test_dataset_has_chat_prompts_and_ids(problems):
    data = execrl_dataset(problems)
    assert data.column_names == ["prompt", "problem_id"]
    assert data["problem_id"] == IDS
    system, user = data[0]["prompt"]
    assert (system["role"], user["role"]) == ("system", "user")
    assert problems[0].statement.strip() in user["content"]
    assert "standard input" in user["content"]  # stdin problems are told how they are run
    assert "```python" in system["content"]
    text = execrl_dataset(problems, prompt_style="text")
    assert isinstance(text[0]["prompt"], str)
    with pytest.raises(ExecrlError, match="prompt_style"):
        execrl_dataset(problems, prompt_style="xml")
