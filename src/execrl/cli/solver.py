"""``execrl solver``: solver-verified rewards for optimisation modelling (docs/solver-rewards.md).

- ``execrl solver score RESPONSES`` — the reward of every response (JSONL rows
  ``{"problem_id", "response"}``), under a preset and stage;
- ``execrl solver eval RESPONSES`` — pass@1, execution rate, error breakdown per benchmark and
  the self-consistency accuracies (K rows per problem);
- ``execrl solver check [SOURCE]`` — every reference earns the maximum stage-1 reward and every
  incorrect response fails for its stated reason (exit 1 otherwise);
- ``execrl solver features MODEL.lp`` — what the LP file says about the model.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from execrl.cli._common import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    add_sandbox_arguments,
    console,
    safe_markup,
    safe_text,
    sandbox_config,
    save_json,
)
from execrl.errors import ExecrlError, LoaderError
from execrl.problems.optim import BUNDLED, OPTIM_FORMATS, OptimProblem, load_optim_problems
from execrl.rewards.solver.answers import ANSWER_CONVENTIONS, DEFAULT_CONVENTION
from execrl.rewards.solver.checks import check_responses
from execrl.rewards.solver.evaluation import (
    CATEGORIES,
    EvaluationReport,
    ResponseRow,
    evaluate_solver_samples,
    plot_breakdown,
    read_responses,
    unavailable_module,
)
from execrl.rewards.solver.execution import (
    DEFAULT_SOLVER_LIMITS,
    install_hint,
    solver_executor,
)
from execrl.rewards.solver.lpfile import DEFAULT_BIG_M_RATIO, lp_features
from execrl.rewards.solver.rewards import (
    SOLVER_PRESETS,
    TOLERANCE_PRESETS,
    Tolerance,
    Verdict,
    score_solver_responses,
    solver_reward_config,
)
from execrl.sandbox.limits import Limits


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "solver",
        help="solver-verified rewards for optimisation modelling",
        description="Run optimisation-modelling responses with solvers in the sandbox: "
        "rewards, evaluation, checks of a problem set, LP-file features.",
    )
    sub = parser.add_subparsers(dest="solver_command", metavar="SUBCOMMAND", required=True)

    p = _run_arguments(sub.add_parser("score", help="the solver reward of every response"))
    p.add_argument("responses", type=Path, help='JSONL rows {"problem_id", "response"}')
    _problem_arguments(p)
    p.add_argument("--reward", choices=sorted(SOLVER_PRESETS), default="paper")
    p.add_argument("--stage", type=int, choices=(1, 2), default=1)
    p.add_argument("--out", type=Path, help="write one JSON row per response here")
    p.set_defaults(handler=cmd_score)

    p = _run_arguments(sub.add_parser("eval", help="pass@1, execution rate and error breakdown"))
    p.add_argument("responses", type=Path, help='JSONL rows {"problem_id", "response"}')
    _problem_arguments(p)
    p.add_argument(
        "--tolerance",
        choices=(*TOLERANCE_PRESETS, "relative", "absolute", "authors", "rounded_relative"),
        default="strict-relative",
        help="a named preset (orlm-rounded-5pct reproduces ORLM's numbers, strict-relative "
        "SIRL's) or a rule with --tolerance-value (default %(default)s)",
    )
    p.add_argument("--tolerance-value", type=float, help="the rule's value (with a rule name)")
    p.add_argument("--out", type=Path, help="write the report (JSON) here")
    p.add_argument("--plot", type=Path, help="write a PNG of the breakdown here")
    p.set_defaults(handler=cmd_eval)

    p = _run_arguments(
        sub.add_parser(
            "check",
            help="references earn the maximum stage-1 reward; incorrect responses fail as stated",
        )
    )
    p.add_argument("source", nargs="?", default=BUNDLED, help="'bundled' (default) or a file")
    p.add_argument("--format", choices=OPTIM_FORMATS, help="the source's format (guessed)")
    p.add_argument("--id", action="append", dest="ids", help="only these problem ids")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("features", help="the model features of an LP file")
    p.add_argument("lp_file", type=Path)
    p.add_argument("--big-m-ratio", type=float, default=DEFAULT_BIG_M_RATIO)
    p.set_defaults(handler=cmd_features)


def _run_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument(
        "--timeout-s",
        type=float,
        default=DEFAULT_SOLVER_LIMITS.cpu_time_s,
        help="CPU-time limit per program, all threads together; the wall-clock limit is "
        "3x (default %(default)s)",
    )
    parser.add_argument("--workers", type=int, help="sandbox workers (default: one per core)")
    parser.add_argument(
        "--answers",
        choices=sorted(ANSWER_CONVENTIONS),
        default=DEFAULT_CONVENTION,
        help="how the program's printed answer is read (default %(default)s)",
    )
    add_sandbox_arguments(parser)  # --site-path: a solver installed elsewhere
    return parser


def _executor(args: argparse.Namespace):
    """The solver sandboxes, with the --site-path folders importable too."""
    return solver_executor(workers=args.workers, config=sandbox_config(args))


def _problem_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--problems", default=BUNDLED, help="the problem set the ids refer to (bundled)"
    )
    parser.add_argument("--format", choices=OPTIM_FORMATS, help="its format (guessed)")


def _limits(args: argparse.Namespace) -> Limits:
    """The run limits, after checking the run arguments (before any sandbox starts)."""
    if not 0 < args.timeout_s <= 600:
        raise ExecrlError(f"--timeout-s must be in (0, 600], got {args.timeout_s}")
    if args.workers is not None and args.workers < 1:
        raise ExecrlError(f"--workers must be at least 1, got {args.workers}")
    if (getattr(args, "tolerance_value", None) or 1.0) <= 0:
        raise ExecrlError(f"--tolerance-value must be positive, got {args.tolerance_value}")
    return DEFAULT_SOLVER_LIMITS.model_copy(update={"cpu_time_s": args.timeout_s})


# -- score -------------------------------------------------------------------------------------
def cmd_score(args: argparse.Namespace) -> int:
    limits = _limits(args)
    rows = read_responses(args.responses)
    answers = _answers(rows, args)
    config = solver_reward_config(args.reward, stage=args.stage, answers=args.answers)
    with _executor(args) as executor:
        scores = score_solver_responses(
            [r.response for r in rows],
            answers,
            reward=config,
            executor=executor,
            limits=limits,
            progress=True,
        )
    table = Table("problem", "reward", "format", "exec", "acc", "bonus", "verdict", box=None)
    for row, s in zip(rows, scores, strict=True):
        reward = "—" if s.reward is None else f"{s.reward:.3g}"
        table.add_row(
            safe_text(row.problem_id),
            reward,
            f"{s.format_score:.3g}",
            f"{s.execution_score:g}",
            f"{s.accuracy_score:g}",
            f"{s.bonus_score:g}",
            s.verdict.value,
        )
    console.print(table)
    rewards = [s.reward for s in scores if s.reward is not None]
    mean = sum(rewards) / len(rewards) if rewards else float("nan")
    console.print(
        f"{len(scores)} responses, mean reward {mean:.3f} (maximum {config.max_reward:g}, "
        f"{args.reward}, stage {args.stage})"
    )
    missing: dict[str, int] = {}
    for s in scores:
        if s.verdict is Verdict.SOLVER_UNAVAILABLE:
            module = unavailable_module(s.run.detail)
            missing[module] = missing.get(module, 0) + 1
    _warn_unavailable(missing, "no reward (left out of the mean)")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("w", encoding="utf-8") as f:
            for row, s in zip(rows, scores, strict=True):
                f.write(json.dumps({"problem_id": row.problem_id, **s.to_dict()}) + "\n")
        console.print(f"scores in {args.out}")
    return EXIT_OK


def _answers(rows: list[ResponseRow], args: argparse.Namespace) -> list:
    if all(r.answer is not None for r in rows):
        return [r.answer for r in rows]
    by_id = {p.id: p for p in load_optim_problems(args.problems, format=args.format)}
    answers = []
    for row in rows:
        if row.answer is not None:
            answers.append(row.answer)
        elif row.problem_id in by_id:
            answers.append(by_id[row.problem_id].answer)
        else:
            raise LoaderError(
                f"no problem {row.problem_id!r} in {args.problems}; pass --problems, or give "
                "the row an 'answer'"
            )
    return answers


# -- eval --------------------------------------------------------------------------------------
def cmd_eval(args: argparse.Namespace) -> int:
    limits = _limits(args)
    rows = read_responses(args.responses)
    answers = _answers(rows, args)
    known = (
        {}
        if all(r.answer is not None for r in rows)
        else {p.id: p for p in load_optim_problems(args.problems, format=args.format)}
    )
    problems: dict[str, OptimProblem] = {}
    samples: dict[str, list[str]] = {}
    for row, answer in zip(rows, answers, strict=True):
        if row.problem_id not in problems:
            base = known.get(row.problem_id)
            problems[row.problem_id] = (
                base.model_copy(update={"answer": answer})
                if base is not None
                else OptimProblem(id=row.problem_id, question="-", answer=answer, source="given")
            )
        samples.setdefault(row.problem_id, []).append(row.response)
    tolerance = _tolerance(args)
    with _executor(args) as executor:
        result = evaluate_solver_samples(
            list(problems.values()),
            [samples[pid] for pid in problems],
            tolerance=tolerance,
            executor=executor,
            limits=limits,
            answers=args.answers,
        )
    console.print(evaluation_table(result.report))
    _warn_unavailable(result.report.overall.unavailable_solvers, "left out of the rates")
    if args.out:
        save_json(result.report, args.out)
    if args.plot:
        console.print(f"plot in {plot_breakdown(result.report, args.plot)}")
    return EXIT_OK


def _warn_unavailable(counts: dict[str, int], consequence: str) -> None:
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


def _tolerance(args: argparse.Namespace) -> Tolerance:
    if args.tolerance in TOLERANCE_PRESETS:
        if args.tolerance_value is not None:
            raise ExecrlError(
                f"--tolerance {args.tolerance} is a preset; --tolerance-value goes with a rule "
                "(relative, absolute, authors, rounded_relative)"
            )
        return TOLERANCE_PRESETS[args.tolerance]
    value = 1e-6 if args.tolerance_value is None else args.tolerance_value
    return Tolerance(rule=args.tolerance, value=value)


def evaluation_table(report: EvaluationReport) -> Table:
    table = Table(
        title=f"solver evaluation (tolerance {report.tolerance})", title_justify="left", box=None
    )
    for column in ("benchmark", "problems", "samples", "pass@1", "exec rate", *CATEGORIES):
        table.add_column(column, justify="left" if column == "benchmark" else "right")
    table.add_column("vote / IE-SC", justify="right")
    for name, s in [("overall", report.overall), *report.by_source.items()]:
        vote = (
            f"{_pct(s.majority_accuracy)} / {_pct(s.instance_enhanced_accuracy)}"
            if s.majority_accuracy is not None
            else "—"
        )
        table.add_row(
            escape(name),
            str(s.n_problems),
            str(s.n_samples),
            _pct(s.pass_at_1),
            _pct(s.execution_rate),
            *(str(s.breakdown[c]) for c in CATEGORIES),
            vote,
        )
    return table


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


# -- check -------------------------------------------------------------------------------------
def cmd_check(args: argparse.Namespace) -> int:
    limits = _limits(args)
    problems = load_optim_problems(args.source, format=args.format)
    if args.ids:
        by_id = {p.id: p for p in problems}
        missing = [i for i in args.ids if i not in by_id]
        if missing:
            raise LoaderError(f"no problem with id {missing[0]!r} in {args.source}")
        problems = [by_id[i] for i in args.ids]
    with _executor(args) as executor:
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


# -- features ----------------------------------------------------------------------------------
def cmd_features(args: argparse.Namespace) -> int:
    if not args.lp_file.is_file():
        raise LoaderError(f"{args.lp_file}: no such file")
    features = lp_features(args.lp_file.read_text(encoding="utf-8"), big_m_ratio=args.big_m_ratio)
    table = Table("feature", "value", box=None)
    for name, value in features.model_dump().items():
        table.add_row(name, escape(str(value)))
    for name in ("big_m", "nonlinear", "advanced"):
        table.add_row(name, str(getattr(features, name)))
    console.print(table)
    return EXIT_OK
