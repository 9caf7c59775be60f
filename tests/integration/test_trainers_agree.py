"""One completion, the same reward through every trainer integration as through
``execrl.rewards`` directly: a correct, a wrong, a crashing and a slow program, each scored
through each integration's real public path (verl, TRL, OpenRLHF's reward file and its HTTP
endpoint on ``execrl serve``, SkyRL's ``make``/``step``, a verifiers rubric), on one local
pool (or one real server for the HTTP endpoint)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest

from execrl.integrations.rows import row_label
from execrl.problems.models import Problem
from execrl.rewards import score
from execrl.sandbox.pool import LocalExecutor

# Three tests and a 1 s limit: the slow program costs three timeouts, not a suite's worth.
PROBLEM = Problem.model_validate(
    {
        "id": "sum-of-two",
        "title": "Sum of two",
        "statement": "Read two integers a and b on one line; print a + b.",
        "time_limit_s": 1.0,
        "tests": [
            {"kind": "stdio", "id": f"example-{i}", "input": f"{a} {b}\n", "output": f"{a + b}\n"}
            for i, (a, b) in enumerate([(1, 2), (-5, 5), (10**12, 7)])
        ],
    }
)

PROGRAMS = {
    "correct": "a, b = map(int, input().split())\nprint(a + b)\n",
    "wrong": "a, b = map(int, input().split())\nprint(a - b)\n",
    "crashing": "a, b = map(int, input().split())\nraise ValueError(f'no sum for {a}')\n",
    "slow": "while True:\n    pass\n",
}


def _completion(program: str) -> str:
    return f"Let me think about it.\n\n```python\n{program}```\nThat should do it."


@pytest.fixture(scope="module")
def executor():
    with LocalExecutor(workers=2) as pool:
        yield pool


@pytest.fixture(scope="module")
def expected(executor) -> dict[str, float | None]:
    names = list(PROGRAMS)
    scored = score(PROBLEM, [PROGRAMS[n] for n in names], executor=executor)
    rewards = {name: one.reward for name, one in zip(names, scored, strict=True)}
    # the four are told apart: the reward is not the same number for all of them
    assert rewards["correct"] == 1.0 and rewards["wrong"] < 1.0
    assert all(reward is not None for reward in rewards.values())
    return rewards


# -- one scorer per integration: (label, completion, executor) -> (reward, inconclusive) -----
Scorer = Callable[[dict, str, object], tuple[float | None, bool]]


def via_verl(label: dict, completion: str, executor) -> tuple[float | None, bool]:
    from execrl.integrations.verl import compute_score

    got = compute_score("execrl/bundled", completion, json.dumps(label), executor=executor)
    return (None if got["inconclusive"] else got["score"]), bool(got["inconclusive"])


def via_verl_async(label: dict, completion: str, executor) -> tuple[float | None, bool]:
    from execrl.integrations.verl import compute_score_async

    got = asyncio.run(compute_score_async("s", completion, label, executor=executor))
    return (None if got["inconclusive"] else got["score"]), bool(got["inconclusive"])


def via_trl(label: dict, completion: str, executor) -> tuple[float | None, bool]:
    from execrl.integrations.trl import ExecrlRewardFunction

    fn = ExecrlRewardFunction(executor=executor, problems=[PROBLEM])
    messages = [{"role": "assistant", "content": completion}]
    (reward,) = fn(prompts=["p"], completions=[messages], problem_id=[PROBLEM.id])
    return reward, reward is None


def via_verifiers(label: dict, completion: str, executor) -> tuple[float | None, bool]:
    """verifiers' own rollout loop (``env.serving`` + ``run_slot``) against a scripted
    OpenAI-compatible endpoint that answers ``completion``."""
    pytest.importorskip("verifiers.v1", reason="verifiers 0.4 is not installed")
    from execrl.integrations.rows import resolve_row
    from execrl.integrations.verifiers import aevaluate, load_environment
    from tests._chat_endpoint import ChatEndpoint

    row = resolve_row(label)
    env = load_environment(
        [row.problem], env=row.env, reward=row.reward, language=row.language, executor=executor
    )
    with ChatEndpoint(lambda body: completion) as endpoint:
        (episode,) = asyncio.run(aevaluate(env, model="scripted", base_url=endpoint.url))
    (trace,) = episode.traces
    inconclusive = trace.metrics.get("inconclusive") == 1.0
    reward = trace.rewards.get("execrl")
    return (None if inconclusive or reward is None else reward.score), inconclusive


def via_skyrl(label: dict, completion: str, executor) -> tuple[float | None, bool]:
    """skyrl-gym's ``make`` / ``init`` / ``step``, the row as SkyRL's generator passes it."""
    skyrl_gym = pytest.importorskip("skyrl_gym", reason="skyrl-gym is not installed")
    import execrl.integrations.skyrl  # noqa: F401  (registers "execrl")

    env = skyrl_gym.make(
        "execrl",
        env_config={"executor": executor},
        extras={
            "reward_spec": {"method": "rule", "ground_truth": json.dumps(label)},
            "extra_info": {},
            "max_turns": 1,
        },
    )
    env.init([{"role": "user", "content": "Sum of two"}])
    out = env.step(completion)
    assert out["done"]
    return out["metadata"]["reward"], out["metadata"]["inconclusive"]


CHAT_PROMPT = "<|im_start|>user\nSum of two.<|im_end|>\n<|im_start|>assistant\n"


def via_openrlhf(label: dict, completion: str, executor) -> tuple[float | None, bool]:
    """The reward file as OpenRLHF calls it: ``reward_func(queries, prompts, labels)``, the
    query being the prompt and response decoded together."""
    from execrl.integrations.openrlhf import reward_func

    query = CHAT_PROMPT + completion + "<|im_end|>"
    out = reward_func([query], [CHAT_PROMPT], [json.dumps(label)], executor=executor)
    inconclusive = float(out["extra_logs"]["inconclusive"][0]) == 1.0
    return (None if inconclusive else float(out["rewards"][0])), inconclusive


SCORERS: dict[str, Scorer] = {
    "verl": via_verl,
    "verl-async": via_verl_async,
    "trl": via_trl,
    "verifiers": via_verifiers,
    "skyrl": via_skyrl,
    "openrlhf": via_openrlhf,
}


@pytest.mark.parametrize("kind", list(PROGRAMS))
@pytest.mark.parametrize("integration", list(SCORERS))
def test_every_integration_gives_execrls_reward(integration, kind, executor, expected):
    label = row_label(PROBLEM, inline=True)
    reward, inconclusive = SCORERS[integration](label, _completion(PROGRAMS[kind]), executor)
    assert not inconclusive
    assert reward == pytest.approx(expected[kind], abs=1e-9), (integration, kind)


@pytest.mark.parametrize("kind", list(PROGRAMS))
def test_openrlhf_endpoint_gives_execrls_reward(kind, server, expected):
    """OpenRLHF's own HTTP client (``SingleTurnAgentExecutor._fetch_rewards_via_http``)
    against ``/get_reward`` on a real ``execrl serve``: programs run in the server's sandbox."""
    agent = pytest.importorskip("openrlhf.utils.agent", reason="openrlhf is not installed")

    query = CHAT_PROMPT + _completion(PROGRAMS[kind]) + "<|im_end|>"
    label = json.dumps(row_label(PROBLEM, inline=True))
    client = agent.SingleTurnAgentExecutor(remote_rm_url=f"{server.url}/get_reward")
    (answer,) = asyncio.run(client._fetch_rewards_via_http([query], [CHAT_PROMPT], [label]))
    assert answer["extra_logs"]["inconclusive"] == [0.0]
    assert answer["rewards"] == pytest.approx([expected[kind]], abs=1e-9)


# -- tinker-cookbook: the recipe grades with its own harness and a 0/1 reward ----------------
@pytest.fixture(scope="module")
def server():
    from tests.service._server import running_server

    with running_server(workers=2) as running:
        yield running


@pytest.mark.parametrize("kind", list(PROGRAMS))
def test_tinker_recipe_passes_what_execrl_passes(kind, server, expected, monkeypatch):
    """The recipe's reward is 1 for a pass and 0 otherwise (its harness, its scale): through
    ``execrl serve`` it passes exactly the completions execrl's reward gives 1.0."""
    pytest.importorskip("tinker_cookbook.sandbox", reason="tinker-cookbook is not installed")
    from tinker_cookbook.recipes.code_rl import code_grading

    from execrl.integrations.tinker import inconclusive, lcb_tests, per_test_timeout_s

    monkeypatch.setenv("SANDBOX_URL", f"{server.url}/run_code")
    code = code_grading.extract_code_from_model(_completion(PROGRAMS[kind]))

    async def grade():
        code_grading._sandboxfusion_client = None  # its aiohttp session is per event loop
        try:
            return await code_grading.sandbox_check_correctness(
                lcb_tests(PROBLEM), code, timeout=per_test_timeout_s(PROBLEM)
            )
        finally:
            await code_grading._get_sandboxfusion_client().close()

    passed, details = asyncio.run(grade())
    assert not inconclusive(details)
    assert passed == (expected[kind] == 1.0), details
