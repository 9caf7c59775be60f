"""``execrl solver``: solver-verified rewards for optimisation modelling (docs/solver-rewards.md).

- ``execrl solver score RESPONSES`` — the reward of every response (JSONL rows
  ``{"problem_id", "response"}``), under a preset and stage;
- ``execrl solver eval RESPONSES`` — pass@1, execution rate, error breakdown per benchmark and
  the self-consistency accuracies (K rows per problem);
- ``execrl solver check [SOURCE]`` — every reference earns the maximum stage-1 reward and every
  incorrect response fails for its stated reason (exit 1 otherwise);
- ``execrl solver features MODEL.lp`` — what the LP file says about the model.

The work: :mod:`execrl.rewards.solver` (a responses file: its ``response_files``); the
options: :mod:`execrl.cli._solver_options`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape

from execrl.cli import _solver_options as opts
from execrl.cli._common import EXIT_CHECK_FAILED, EXIT_OK, console, print_table, safe_markup
from execrl.cli._files import save_json, writable_file
from execrl.cli.solver_label import register_label
from execrl.cli.solver_synthesize import register_synthesize
from execrl.errors import DataError, LoaderError, UsageError
from execrl.problems.optim import BUNDLED, OPTIM_FORMATS, load_optim_problems
from execrl.rewards.solver import response_files as files
from execrl.rewards.solver import tables
from execrl.rewards.solver.checks import check_responses
from execrl.rewards.solver.evaluation import evaluate_solver_samples, plot_breakdown, read_responses
from execrl.rewards.solver.execution import install_hint
from execrl.rewards.solver.lpfile import lp_file_features
from execrl.rewards.solver.rewards import solver_reward_config


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "solver",
        help="solver-verified rewards for optimisation modelling",
        description="Run optimisation-modelling responses with solvers in the sandbox: "
        "rewards, evaluation, checks of a problem set, LP-file features.",
    )
    sub = parser.add_subparsers(dest="solver_command", metavar="SUBCOMMAND", required=True)

    p = opts.add_run_arguments(sub.add_parser("score", help="the solver reward of every response"))
    p.add_argument("responses", type=Path, help=opts.RESPONSES_HELP)
    opts.add_problem_arguments(p)
    opts.add_reward_arguments(p)
    p.add_argument(
        "--out",
        type=Path,
        help="write one JSON row per response here (JSONL, .jsonl.gz gzipped), each as soon as "
        "it is scored",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep the rows already in --out (an interrupted run's) and score only the "
        "responses they lack",
    )
    p.set_defaults(handler=cmd_score)

    p = opts.add_run_arguments(
        sub.add_parser("eval", help="pass@1, execution rate and error breakdown")
    )
    p.add_argument("responses", type=Path, help=opts.RESPONSES_HELP + " (K rows per problem)")
    opts.add_problem_arguments(p)
    opts.add_tolerance_arguments(p)
    p.add_argument("--out", type=Path, help="write the report (JSON) here")
    p.add_argument("--plot", type=Path, help="write a PNG of the breakdown here (matplotlib)")
    p.set_defaults(handler=cmd_eval)

    p = opts.add_run_arguments(
        sub.add_parser(
            "check",
            help="references earn the maximum stage-1 reward; incorrect responses fail as stated",
        )
    )
    p.add_argument("source", nargs="?", default=BUNDLED, help=opts.SOURCE_HELP)
    p.add_argument("--format", choices=OPTIM_FORMATS, help="the source's format (guessed)")
    p.add_argument("--id", action="append", dest="ids", help="only these problem ids")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser(
        "features",
        help="the model features of an LP file",
        description="Parse an LP file (CPLEX LP format, as HiGHS, PuLP, OR-Tools and Gurobi "
        "write it) and print what it says about the model: direction, variables by kind, "
        "constraints, quadratic terms, big-M rows, and whether it counts as advanced "
        "modelling for the stage-2 bonus.",
    )
    p.add_argument("lp_file", type=Path, help="the LP file (UTF-8 text)")
    opts.add_big_m_argument(p)
    p.set_defaults(handler=cmd_features)
    register_synthesize(sub)  # execrl solver synthesize (cli/solver_synthesize.py)
    register_label(sub)  # execrl solver label (cli/solver_label.py)


def cmd_score(args: argparse.Namespace) -> int:
    limits = opts.solver_limits(args)
    config = solver_reward_config(args.reward, stage=args.stage, answers=args.answers)
    if args.resume and args.out is None:
        raise UsageError("--resume continues the --out file of an interrupted run; give --out")
    opts.check_not_an_input(args)
    rows = read_responses(args.responses)
    known = files.problems_for(rows, args.problems, format=args.format)
    answers = files.ground_truths(rows, known, responses=args.responses, source=args.problems)
    settings = files.ScoreSettings(args.reward, args.stage, args.answers, args.timeout_s)
    scored = files.score_responses(
        rows, answers, settings,
        executor=lambda: opts.open_solver_executor(args),
        limits=limits, out=args.out, resume=args.resume, responses=args.responses, progress=True,
        on_resumed=lambda kept: console.print(
            f"resuming {args.out}: {kept} of {len(rows)} responses already scored", highlight=False
        ),
    )  # fmt: skip
    print_table(*tables.score_table(scored), align="l", plain=True)
    mean, n = files.mean_reward(scored)
    said = f"mean reward {mean:.3f} over {n} with a reward" if mean is not None else None
    console.print(
        f"{len(scored)} responses, "
        f"{said or 'none got a reward (every run inconclusive or solver_unavailable)'} "
        f"(maximum {config.max_reward:g}, {args.reward}, stage {args.stage})"
    )
    warn_unavailable(files.unavailable_solvers(scored), "no reward (left out of the mean)")
    if args.out:
        console.print(f"scores in {args.out}", highlight=False)
    return EXIT_OK


def cmd_eval(args: argparse.Namespace) -> int:
    limits = opts.solver_limits(args)
    tolerance = opts.tolerance_of(args)
    writable_file(args.out, "--out")
    opts.check_plot_file(args.plot, "--plot")
    rows = read_responses(args.responses)
    known = files.problems_for(rows, args.problems, format=args.format)
    answers = files.ground_truths(rows, known, responses=args.responses, source=args.problems)
    problems, samples = files.samples_by_problem(rows, answers, known, responses=args.responses)
    with opts.open_solver_executor(args) as executor:
        result = evaluate_solver_samples(
            problems, samples, tolerance=tolerance, executor=executor, limits=limits,
            answers=args.answers,
        )  # fmt: skip
    title = f"solver evaluation (tolerance {result.report.tolerance})"
    print_table(*tables.evaluation_table(result.report), title=title, align="lr", plain=True)
    warn_unavailable(result.report.overall.unavailable_solvers, "left out of the rates")
    if args.out:
        save_json(result.report, args.out)
    if args.plot:
        console.print(f"plot in {plot_breakdown(result.report, args.plot)}")
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    limits = opts.solver_limits(args)
    problems = load_optim_problems(args.source, format=args.format)
    if not problems:
        raise DataError(f"{args.source}: no problems to check (the file has no rows)")
    by_id = {p.id: p for p in problems}
    missing = [i for i in args.ids or [] if i not in by_id]
    if missing:
        raise LoaderError(f"no problem with id {missing[0]!r} in {args.source}")
    problems = [by_id[i] for i in args.ids] if args.ids else problems
    with opts.open_solver_executor(args) as executor:
        checks = check_responses(problems, executor=executor, limits=limits, answers=args.answers)
    failed = [c for c in checks if not c.ok]
    for c in failed:
        where = c.label if c.index < 0 else f"incorrect[{c.index}] ({c.label})"
        console.print(f"[red]✗[/red] {safe_markup(c.problem_id)} {where}: {safe_markup(c.problem)}")
    references = sum(c.label == "reference" for c in checks)
    console.print(
        f"{len(problems)} problems: {references} references and {len(checks) - references} "
        f"incorrect responses checked, {len(failed)} failed"
    )
    return EXIT_CHECK_FAILED if failed else EXIT_OK


def cmd_features(args: argparse.Namespace) -> int:
    features = lp_file_features(args.lp_file, big_m_ratio=opts.check_big_m_ratio(args.big_m_ratio))
    rows = [[name, str(value)] for name, value in features.model_dump().items()]
    rows += [[name, str(getattr(features, name))] for name in ("big_m", "nonlinear", "advanced")]
    print_table(["feature", "value"], rows, plain=True)
    return EXIT_OK


def warn_unavailable(counts: dict[str, int], consequence: str) -> None:
    """One warning line per solver the responses need and this machine lacks."""
    for module, count in sorted(counts.items()):
        hint = install_hint(module)
        console.print(
            f"[yellow]warning:[/yellow] {count} samples need {escape(module)}, which is not "
            f"available here (not installed, or its licence is too small for the model); "
            f"scored solver_unavailable, {consequence}"
            + (f"; install it with: {escape(hint)}" if hint else ""),
            highlight=False,
        )
