"""Evaluation (spec optimization-rl.md §5): sample models, execute them together with the
references in one shuffled campaign, and compute — or recompute, from the stored records —
unbiased pass@k, the strict p_τ pass@k, win rates against a baseline, bootstrap intervals
over problems, per-difficulty breakdowns and the degenerate-group ratio of a reward.

The path: :func:`sample_problems` (or :func:`samples_from_jsonl`) → :meth:`EvalFolder.add_samples`
→ :func:`run_campaign` → :func:`load_eval` → :func:`replay` (under any
:class:`ReplaySettings`) → :func:`evaluate` / :func:`by_difficulty` / :func:`sweep`. See
docs/evaluation.md.
"""

from execrl.evaluate.bootstrap import Estimate, bootstrap_ci, bootstrap_indices
from execrl.evaluate.campaign import campaign_requests, run_campaign
from execrl.evaluate.folder import EvalFolder, ManifestEntry, ModelInfo, Sample
from execrl.evaluate.metrics import (
    DEFAULT_KS,
    DEFAULT_TAUS,
    EvalMetrics,
    by_difficulty,
    compute_metrics,
    degenerate_ratios,
    evaluate,
    pass_counts,
)
from execrl.evaluate.passk import pass_at_k, pass_at_k_per_problem
from execrl.evaluate.replay import (
    EvalData,
    Replay,
    ReplaySettings,
    SampleScore,
    load_eval,
    reference_pool,
    replay,
)
from execrl.evaluate.sampling import (
    PolicySampler,
    Sampler,
    sample_problems,
    samples_from_jsonl,
    samples_from_programs,
)
from execrl.evaluate.sweep import AXES, SweepPoint, sweep
from execrl.evaluate.winrate import WinCount, compare, pick_duration, problem_verdicts

__all__ = [
    "AXES",
    "DEFAULT_KS",
    "DEFAULT_TAUS",
    "Estimate",
    "EvalData",
    "EvalFolder",
    "EvalMetrics",
    "ManifestEntry",
    "ModelInfo",
    "PolicySampler",
    "Replay",
    "ReplaySettings",
    "Sample",
    "SampleScore",
    "Sampler",
    "SweepPoint",
    "WinCount",
    "bootstrap_ci",
    "bootstrap_indices",
    "by_difficulty",
    "campaign_requests",
    "compare",
    "compute_metrics",
    "degenerate_ratios",
    "evaluate",
    "load_eval",
    "pass_at_k",
    "pass_at_k_per_problem",
    "pass_counts",
    "pick_duration",
    "problem_verdicts",
    "reference_pool",
    "replay",
    "run_campaign",
    "sample_problems",
    "samples_from_jsonl",
    "samples_from_programs",
    "sweep",
]
