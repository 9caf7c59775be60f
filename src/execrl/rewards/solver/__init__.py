"""Solver-verified rewards for optimisation modelling (spec solver-rewards.md).

A response ``<think>…</think><model>…</model><python>…</python>`` is parsed, its code runs in
the sandbox with open-source solvers (HiGHS, CBC through PuLP, OR-Tools), and the reward adds
a format, an execution and an accuracy term (stage 1), plus a bonus for advanced modelling
read from the LP file the code writes (stage 2). See docs/solver-rewards.md.
"""

from execrl.rewards.solver.answers import (
    ANSWER_CONVENTIONS,
    AnswerConvention,
    answer_convention,
    parse_report,
)
from execrl.rewards.solver.checks import ResponseCheck, check_responses
from execrl.rewards.solver.consistency import (
    Vote,
    consensus_counts,
    instance_enhanced_scores,
    instance_enhanced_vote,
    majority_vote,
)
from execrl.rewards.solver.evaluation import (
    EvaluationReport,
    EvaluationResult,
    evaluate_solver_samples,
    plot_breakdown,
    summarise_evaluation,
)
from execrl.rewards.solver.execution import (
    DEFAULT_SOLVER_LIMITS,
    MODEL_FILE,
    RunStatus,
    SolveFeatures,
    SolverRun,
    install_hint,
    iter_solver_runs,
    run_solver_code,
    run_solver_codes,
    solver_executor,
    solver_sandbox_config,
)
from execrl.rewards.solver.lpfile import (
    LpFormatError,
    LpModel,
    ModelFeatures,
    lp_features,
    lp_file_features,
    model_features,
    parse_lp,
)
from execrl.rewards.solver.parsing import (
    ParsedResponse,
    binary_format_score,
    graded_format_score,
    parse_response,
)
from execrl.rewards.solver.prompts import SOLVER_SYSTEM_PROMPT, solver_messages
from execrl.rewards.solver.rewards import (
    ABSOLUTE,
    AUTHORS,
    ORLM,
    RELATIVE,
    SOLVER_PRESETS,
    TOLERANCE_PRESETS,
    SolverRewardConfig,
    SolverScore,
    Tolerance,
    Verdict,
    iter_solver_scores,
    score_solver_response,
    score_solver_responses,
    solver_reward,
    solver_reward_config,
    tolerance_preset,
    verdict_of,
)

__all__ = [
    "ABSOLUTE",
    "ANSWER_CONVENTIONS",
    "AUTHORS",
    "DEFAULT_SOLVER_LIMITS",
    "MODEL_FILE",
    "ORLM",
    "RELATIVE",
    "SOLVER_PRESETS",
    "SOLVER_SYSTEM_PROMPT",
    "TOLERANCE_PRESETS",
    "AnswerConvention",
    "EvaluationReport",
    "EvaluationResult",
    "LpFormatError",
    "LpModel",
    "ModelFeatures",
    "ParsedResponse",
    "ResponseCheck",
    "RunStatus",
    "SolveFeatures",
    "SolverRewardConfig",
    "SolverRun",
    "SolverScore",
    "Tolerance",
    "Verdict",
    "Vote",
    "answer_convention",
    "binary_format_score",
    "check_responses",
    "consensus_counts",
    "evaluate_solver_samples",
    "graded_format_score",
    "install_hint",
    "instance_enhanced_scores",
    "instance_enhanced_vote",
    "iter_solver_runs",
    "iter_solver_scores",
    "lp_features",
    "lp_file_features",
    "majority_vote",
    "model_features",
    "parse_lp",
    "parse_report",
    "parse_response",
    "plot_breakdown",
    "run_solver_code",
    "run_solver_codes",
    "score_solver_response",
    "score_solver_responses",
    "solver_executor",
    "solver_messages",
    "solver_reward",
    "solver_reward_config",
    "solver_sandbox_config",
    "summarise_evaluation",
    "tolerance_preset",
    "verdict_of",
]
