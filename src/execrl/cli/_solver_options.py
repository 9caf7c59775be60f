"""The options of ``execrl solver …`` and their checks, made before any sandbox starts (the
commands themselves are in :mod:`execrl.cli.solver`)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from execrl.cli._common import check_time_limit
from execrl.cli._executor import (
    add_executor_argument,
    add_sandbox_arguments,
    executor_spec,
    open_executor_from_args,
    sandbox_config,
)
from execrl.cli._files import writable_file
from execrl.errors import UsageError
from execrl.problems.optim import BUNDLED, OPTIM_FORMATS
from execrl.report import pyplot
from execrl.rewards.solver.answers import ANSWER_CONVENTIONS, DEFAULT_CONVENTION
from execrl.rewards.solver.execution import DEFAULT_SOLVER_LIMITS, solver_sandbox_config
from execrl.rewards.solver.lpfile import DEFAULT_BIG_M_RATIO
from execrl.rewards.solver.rewards import SOLVER_PRESETS, TOLERANCE_PRESETS, Tolerance
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import Executor

RESPONSES_HELP = (
    'JSONL rows {"problem_id", "response"} (.jsonl or .jsonl.gz); an "answer" field overrides '
    "the problem set's ground truth"
)
SOURCE_HELP = (
    "'bundled' (default), a folder of problem folders (<id>/problem.yaml, as the bundled set "
    "in data/optim/), or a problems file (optim JSONL or JSON; a benchmark's with --format)"
)
TOLERANCE_RULES = ("relative", "absolute", "authors", "rounded_relative")
MAX_WORKERS = 256


def add_run_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """--timeout-s, --workers, --answers, --site-path and --executor: how responses run."""
    parser.add_argument(
        "--timeout-s",
        type=float,
        default=DEFAULT_SOLVER_LIMITS.cpu_time_s,
        help="CPU-time limit per program, all threads together; the wall-clock limit is "
        "3x (default %(default)s)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        help=f"sandbox workers, 1 to {MAX_WORKERS} (default: one per core)",
    )
    parser.add_argument(
        "--answers",
        choices=sorted(ANSWER_CONVENTIONS),
        default=DEFAULT_CONVENTION,
        help="how the program's printed answer is read (default %(default)s)",
    )
    add_sandbox_arguments(parser)  # --site-path: a solver installed elsewhere
    add_executor_argument(parser)  # a server must have the solvers installed itself
    return parser


def add_problem_arguments(parser: argparse.ArgumentParser) -> None:
    """--problems and --format: the set the response rows' ids refer to."""
    parser.add_argument(
        "--problems",
        default=BUNDLED,
        help="the problem set the ids refer to, for rows without an 'answer': " + SOURCE_HELP,
    )
    parser.add_argument("--format", choices=OPTIM_FORMATS, help="its format (guessed)")


def add_reward_arguments(parser: argparse.ArgumentParser) -> None:
    """--reward and --stage of ``solver score``."""
    parser.add_argument(
        "--reward",
        choices=sorted(SOLVER_PRESETS),
        default="paper",
        help="the reward preset: paper (binary format 0.5 + execution 1 + accuracy 2, "
        "|y - y*| <= 0.01; at most 3.5) or authors (graded format, accuracy 1, "
        "|y - y*| / (|y| + 1) < 1e-6; at most 3) (default %(default)s)",
    )
    parser.add_argument(
        "--stage",
        type=int,
        choices=(1, 2),
        default=1,
        help="1: format + execution + accuracy; 2: plus a bonus of 1 when a correct answer's "
        "model file shows advanced modelling (binaries, big-M, non-linear) (default "
        "%(default)s)",
    )


def add_tolerance_arguments(parser: argparse.ArgumentParser) -> None:
    """--tolerance and --tolerance-value of ``solver eval``."""
    parser.add_argument(
        "--tolerance",
        choices=(*TOLERANCE_PRESETS, *TOLERANCE_RULES),
        default="strict-relative",
        help="when a reported objective y matches the ground truth y*: a named preset "
        "(strict-relative: |y - y*| / |y*| < 1e-6, SIRL's numbers; orlm-rounded-5pct: "
        "rounded, relative < 5%%, ORLM's; paper-reward: |y - y*| <= 0.01; authors-code: "
        "|y - y*| / (|y| + 1) < 1e-6) or a rule (relative, absolute, authors, "
        "rounded_relative) whose value --tolerance-value gives (default %(default)s)",
    )
    parser.add_argument(
        "--tolerance-value",
        type=float,
        metavar="VALUE",
        help="the value of a --tolerance rule: a finite number above 0 (default 1e-6); not "
        "with a preset",
    )


def add_big_m_argument(parser: argparse.ArgumentParser) -> None:
    """--big-m-ratio of ``solver features``."""
    parser.add_argument(
        "--big-m-ratio",
        type=float,
        default=DEFAULT_BIG_M_RATIO,
        help="a row is big-M style when an integer variable's coefficient is at least this "
        "many times every other coefficient of the row; a finite number above 1 (default "
        "%(default)g)",
    )


def solver_limits(args: argparse.Namespace) -> Limits:
    """The run limits, after checking the run arguments (before any sandbox starts)."""
    check_time_limit("--timeout-s", args.timeout_s)
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    if args.workers is not None and args.workers > MAX_WORKERS:
        raise UsageError(f"--workers must be at most {MAX_WORKERS}, got {args.workers}")
    executor_spec(args)
    value = getattr(args, "tolerance_value", None)
    if value is not None and not (math.isfinite(value) and value > 0):
        raise UsageError(f"--tolerance-value must be a finite number above 0, got {value}")
    return DEFAULT_SOLVER_LIMITS.model_copy(update={"cpu_time_s": args.timeout_s})


def open_solver_executor(args: argparse.Namespace) -> Executor:
    """The solver sandboxes (local or on Ray nodes) with the solver packages and the
    --site-path folders importable; or the servers of --executor URL, with their own."""
    config = solver_sandbox_config(sandbox_config(args))
    return open_executor_from_args(
        args, workers=args.workers, config=config, workers_option="--workers"
    )


def tolerance_of(args: argparse.Namespace) -> Tolerance:
    """The --tolerance preset, or its rule with --tolerance-value (default 1e-6)."""
    if args.tolerance in TOLERANCE_PRESETS:
        if args.tolerance_value is not None:
            raise UsageError(
                f"--tolerance {args.tolerance} is a preset; --tolerance-value goes with a rule "
                "(relative, absolute, authors, rounded_relative)"
            )
        return TOLERANCE_PRESETS[args.tolerance]
    value = 1e-6 if args.tolerance_value is None else args.tolerance_value
    return Tolerance(rule=args.tolerance, value=value)


def check_not_an_input(args: argparse.Namespace) -> None:
    """--out naming the responses file (or the problem set) would replace it with scores."""
    if args.out is None:
        return
    inputs = {"the responses file": args.responses}
    if str(args.problems) != BUNDLED:
        inputs["the --problems file"] = Path(args.problems)
    for what, path in inputs.items():
        if args.out.resolve() == path.resolve():
            raise UsageError(f"--out {args.out} is {what}; give another file for the scores")


def check_plot_file(path: Path | None, flag: str) -> None:
    """Fail now, before any response runs, when the picture ``path`` cannot be written: no
    matplotlib, a format it cannot write, or an unwritable place."""
    if path is None:
        return
    plt = pyplot("breakdown plots")  # (matplotlib missing: say so now)
    kinds = plt.gcf().canvas.get_supported_filetypes()
    plt.close("all")
    if path.suffix.lstrip(".").lower() not in kinds:
        raise UsageError(
            f"{flag} {path}: unknown picture format {path.suffix or '(none)'!r}; name the "
            "file .png (or .svg, .pdf)"
        )
    writable_file(path, flag)


def check_big_m_ratio(ratio: float) -> float:
    """--big-m-ratio: a finite number above 1."""
    if not (math.isfinite(ratio) and ratio > 1):
        raise UsageError(f"--big-m-ratio must be a finite number above 1, got {ratio}")
    return ratio
