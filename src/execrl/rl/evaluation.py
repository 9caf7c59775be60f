"""Held-out pass@1 of the policy: ``eval.samples`` samples per held-out problem at
``eval.temperature``, each judged by the scorer (every correctness test, or the right
optimum), sampled ``eval.batch`` conversations per generate call; c/n per problem,
averaged, with the standard error over problems."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from execrl.rl.config import TrainConfig
from execrl.rl.policy import prompt_messages, sample_in_chunks
from execrl.rl.scorers import ProgramScorer


def heldout_pass_at_1(
    model: Any,
    tokenizer: Any,
    scorer: ProgramScorer,
    problem_ids: Sequence[str],
    train: TrainConfig,
    *,
    seed: int,
) -> dict[str, Any]:
    """``pass_at_1``, ``stderr``, ``per_problem`` (and the sampling settings) on ``problem_ids``,
    sampled as ``train.policy`` says at ``train.eval.temperature``."""
    config = train.eval
    n = config.samples
    ids = [pid for pid in problem_ids for _ in range(n)]
    conversations = [prompt_messages(scorer.problems[pid]) for pid in ids]
    samples = sample_in_chunks(
        model,
        tokenizer,
        conversations,
        train.policy,
        batch=config.batch,
        temperature=config.temperature,
        seed=seed,
    )
    passed = scorer.passed(ids, [s.text for s in samples])
    per_problem = {p: sum(passed[i * n : (i + 1) * n]) / n for i, p in enumerate(problem_ids)}
    values = list(per_problem.values())
    return {
        "samples": n,
        "temperature": config.temperature,
        "pass_at_1": float(np.mean(values)) if values else math.nan,
        "stderr": float(np.std(values, ddof=1) / math.sqrt(len(values)))
        if len(values) > 1
        else 0.0,
        "per_problem": per_problem,
    }
