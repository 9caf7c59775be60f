"""Solver-verified training data from seed problems (the SIRL synthesis pipeline).

``synthesize(seeds, config, out)`` runs generate → augment → judge → solve → repair → label
→ filter → write, each stage a JSONL file in ``out`` with every row's provenance, and writes
``train.jsonl`` (execrl's optim problem format) and a funnel report. ``label_problems`` runs
solve → repair → label alone on problems a user already has. See docs/solver.md.
"""

from execrl.synthesis.client import BudgetExhausted, EndpointFailed, LLMClient, PromptCache
from execrl.synthesis.config import Budget, EndpointSettings, RunSettings, SynthesisConfig
from execrl.synthesis.context import STAGES, SynthesisStopped
from execrl.synthesis.pipeline import SynthesisResult, label_problems, synthesize
from execrl.synthesis.similarity import cosine_similarities

__all__ = [
    "STAGES",
    "Budget",
    "BudgetExhausted",
    "EndpointFailed",
    "EndpointSettings",
    "LLMClient",
    "PromptCache",
    "RunSettings",
    "SynthesisConfig",
    "SynthesisResult",
    "SynthesisStopped",
    "cosine_similarities",
    "label_problems",
    "synthesize",
]
