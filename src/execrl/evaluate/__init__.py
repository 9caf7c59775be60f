"""Evaluation (spec optimization-rl.md §5): sample models, execute them together with the
references in one shuffled campaign, and compute — or recompute, from the stored records —
unbiased pass@k, the strict p_τ pass@k, win rates against a baseline, bootstrap intervals
over problems, per-difficulty breakdowns and the degenerate-group ratio of a reward.

The path: :func:`sample_model` (a model spec opened by :func:`open_sampler`, or completions
read by :func:`read_completions`) → :func:`run_eval_campaign` → :func:`write_report` (every metric
under any :class:`ReplaySettings`, as metrics.json and an HTML page). Below it:
:func:`sample_problems` → :meth:`EvalFolder.add_samples`, :func:`load_eval` → :func:`replay` →
:func:`evaluate` / :func:`by_difficulty` / :func:`sweep`. See docs/evaluation.md.
"""

from execrl.errors import deprecated_names
from execrl.evaluate.bootstrap import Estimate, bootstrap_ci, bootstrap_indices
from execrl.evaluate.campaign import campaign_requests, run_eval_campaign
from execrl.evaluate.completions import Completion, read_completions
from execrl.evaluate.folder import EvalFolder, ManifestEntry, ModelInfo, Sample
from execrl.evaluate.judge import PairSelection, select_pairs
from execrl.evaluate.judge_parse import parse_judgement
from execrl.evaluate.judge_run import JudgeSettings, judge_pairs, load_pairs
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
from execrl.evaluate.sample_model import ProblemChoice, SampledModel, sample_model
from execrl.evaluate.samplers import SamplingSettings, local_policy, open_sampler
from execrl.evaluate.sampling import (
    PolicySampler,
    sample_problems,
    samples_from_jsonl,
    samples_from_programs,
)
from execrl.evaluate.sweep import (
    AXES,
    SweepPoint,
    parse_ks,
    parse_numbers,
    parse_taus,
    sweep,
    sweep_values,
)
from execrl.evaluate.winrate import WinCount, compare, pick_duration, problem_verdicts
from execrl.evaluate.write_report import EvalReport, MetricOptions, write_report
from execrl.sandbox.protocol import CompletionSampler

__getattr__ = deprecated_names(
    __name__,
    {
        "Sampler": ("execrl.sandbox.protocol", "CompletionSampler"),
        "run_campaign": ("execrl.evaluate.campaign", "run_eval_campaign"),
    },
)

__all__ = [
    "AXES",
    "DEFAULT_KS",
    "DEFAULT_TAUS",
    "Completion",
    "CompletionSampler",
    "Estimate",
    "EvalData",
    "EvalFolder",
    "EvalMetrics",
    "EvalReport",
    "JudgeSettings",
    "ManifestEntry",
    "MetricOptions",
    "ModelInfo",
    "PairSelection",
    "PolicySampler",
    "ProblemChoice",
    "Replay",
    "ReplaySettings",
    "Sample",
    "SampleScore",
    "SampledModel",
    "SamplingSettings",
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
    "judge_pairs",
    "load_eval",
    "load_pairs",
    "local_policy",
    "open_sampler",
    "parse_judgement",
    "parse_ks",
    "parse_numbers",
    "parse_taus",
    "pass_at_k",
    "pass_at_k_per_problem",
    "pass_counts",
    "pick_duration",
    "problem_verdicts",
    "read_completions",
    "reference_pool",
    "replay",
    "run_eval_campaign",
    "sample_model",
    "sample_problems",
    "samples_from_jsonl",
    "samples_from_programs",
    "select_pairs",
    "sweep",
    "sweep_values",
    "write_report",
]
