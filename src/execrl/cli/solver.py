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
import hashlib
import math
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from execrl.cli._common import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    add_executor_argument,
    add_sandbox_arguments,
    console,
    executor_spec,
    open_executor_from_args,
    safe_markup,
    safe_text,
    sandbox_config,
    save_json,
    writable_file,
)
from execrl.errors import DataError, LoaderError, UsageError
from execrl.problems.optim import BUNDLED, OPTIM_FORMATS, OptimProblem, load_optim_problems
from execrl.report import pyplot
from execrl.results import ResultsFile
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
    solver_sandbox_config,
)
from execrl.rewards.solver.lpfile import DEFAULT_BIG_M_RATIO, lp_file_features
from execrl.rewards.solver.rewards import (
    SOLVER_PRESETS,
    TOLERANCE_PRESETS,
    Tolerance,
    Verdict,
    iter_solver_scores,
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
    p.add_argument("responses", type=Path, help=RESPONSES_HELP)
    _problem_arguments(p)
    p.add_argument(
        "--reward",
        choices=sorted(SOLVER_PRESETS),
        default="paper",
        help="the reward preset: paper (binary format 0.5 + execution 1 + accuracy 2, "
        "|y - y*| <= 0.01; at most 3.5) or authors (graded format, accuracy 1, "
        "|y - y*| / (|y| + 1) < 1e-6; at most 3) (default %(default)s)",
    )
    p.add_argument(
        "--stage",
        type=int,
        choices=(1, 2),
        default=1,
        help="1: format + execution + accuracy; 2: plus a bonus of 1 when a correct answer's "
        "model file shows advanced modelling (binaries, big-M, non-linear) (default "
        "%(default)s)",
    )
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

    p = _run_arguments(sub.add_parser("eval", help="pass@1, execution rate and error breakdown"))
    p.add_argument("responses", type=Path, help=RESPONSES_HELP + " (K rows per problem)")
    _problem_arguments(p)
    p.add_argument(
        "--tolerance",
        choices=(*TOLERANCE_PRESETS, *TOLERANCE_RULES),
        default="strict-relative",
        help="when a reported objective y matches the ground truth y*: a named preset "
        "(strict-relative: |y - y*| / |y*| < 1e-6, SIRL's numbers; orlm-rounded-5pct: "
        "rounded, relative < 5%%, ORLM's; paper-reward: |y - y*| <= 0.01; authors-code: "
        "|y - y*| / (|y| + 1) < 1e-6) or a rule (relative, absolute, authors, "
        "rounded_relative) whose value --tolerance-value gives (default %(default)s)",
    )
    p.add_argument(
        "--tolerance-value",
        type=float,
        metavar="VALUE",
        help="the value of a --tolerance rule: a finite number above 0 (default 1e-6); not "
        "with a preset",
    )
    p.add_argument("--out", type=Path, help="write the report (JSON) here")
    p.add_argument("--plot", type=Path, help="write a PNG of the breakdown here (matplotlib)")
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

    p = sub.add_parser(
        "features",
        help="the model features of an LP file",
        description="Parse an LP file (CPLEX LP format, as HiGHS, PuLP, OR-Tools and Gurobi "
        "write it) and print what it says about the model: direction, variables by kind, "
        "constraints, quadratic terms, big-M rows, and whether it counts as advanced "
        "modelling for the stage-2 bonus.",
    )
    p.add_argument("lp_file", type=Path, help="the LP file (UTF-8 text)")
    p.add_argument(
        "--big-m-ratio",
        type=float,
        default=DEFAULT_BIG_M_RATIO,
        help="a row is big-M style when an integer variable's coefficient is at least this "
        "many times every other coefficient of the row; a finite number above 1 (default "
        "%(default)g)",
    )
    p.set_defaults(handler=cmd_features)


RESPONSES_HELP = (
    'JSONL rows {"problem_id", "response"} (.jsonl or .jsonl.gz); an "answer" field overrides '
    "the problem set's ground truth"
)
TOLERANCE_RULES = ("relative", "absolute", "authors", "rounded_relative")
MAX_WORKERS = 256


def _run_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
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


def _executor(args: argparse.Namespace):
    """The solver sandboxes (local or on Ray nodes) with the solver packages and the
    --site-path folders importable; or the servers of --executor URL, with their own."""
    config = solver_sandbox_config(sandbox_config(args))
    return open_executor_from_args(
        args, workers=args.workers, config=config, workers_option="--workers"
    )


def _problem_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--problems",
        default=BUNDLED,
        help="the problem set the ids refer to, for rows without an 'answer': 'bundled' "
        "(default) or a file",
    )
    parser.add_argument("--format", choices=OPTIM_FORMATS, help="its format (guessed)")


def _limits(args: argparse.Namespace) -> Limits:
    """The run limits, after checking the run arguments (before any sandbox starts)."""
    if not 0 < args.timeout_s <= 600:
        raise UsageError(f"--timeout-s must be in (0, 600] seconds, got {args.timeout_s}")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    if args.workers is not None and args.workers > MAX_WORKERS:
        raise UsageError(f"--workers must be at most {MAX_WORKERS}, got {args.workers}")
    executor_spec(args)
    value = getattr(args, "tolerance_value", None)
    if value is not None and not (math.isfinite(value) and value > 0):
        raise UsageError(f"--tolerance-value must be a finite number above 0, got {value}")
    return DEFAULT_SOLVER_LIMITS.model_copy(update={"cpu_time_s": args.timeout_s})


# -- score -------------------------------------------------------------------------------------
def cmd_score(args: argparse.Namespace) -> int:
    limits = _limits(args)
    config = solver_reward_config(args.reward, stage=args.stage, answers=args.answers)
    if args.resume and args.out is None:
        raise UsageError("--resume continues the --out file of an interrupted run; give --out")
    _not_an_input(args)
    rows = read_responses(args.responses)
    answers = _answers(rows, args, _problem_set(rows, args))
    keys = [_response_key(i, row) for i, row in enumerate(rows)]
    settings = _settings(args)
    # Opened before any response runs: an unwritable --out fails now, not after the work.
    with _results_file(args) as out:
        _same_responses(out, set(keys), settings, args)
        todo = [i for i, key in enumerate(keys) if not out.has(key)]
        if out.resumed:
            console.print(
                f"resuming {args.out}: {len(rows) - len(todo)} of {len(rows)} responses "
                "already scored",
                highlight=False,
            )
        done = {row.get("index"): row for row in out.rows}
        if todo:
            with _executor(args) as executor:
                scores = iter_solver_scores(
                    [rows[i].response for i in todo],
                    [answers[i] for i in todo],
                    reward=config,
                    executor=executor,
                    limits=limits,
                    progress=True,
                )
                for i, score in zip(todo, scores, strict=True):
                    done[i] = _score_row(i, rows[i], score, settings)
                    out.write(done[i])  # flushed: it survives an interruption from here on
    scored = [done[i] for i in range(len(rows))]
    console.print(_score_table(scored))
    rewards = [r["reward"] for r in scored if r["reward"] is not None]
    mean = (
        f"mean reward {sum(rewards) / len(rewards):.3f} over {len(rewards)} with a reward"
        if rewards
        else "none got a reward (every run inconclusive or solver_unavailable)"
    )
    console.print(
        f"{len(scored)} responses, {mean} (maximum {config.max_reward:g}, {args.reward}, "
        f"stage {args.stage})"
    )
    missing: dict[str, int] = {}
    for r in scored:
        if r["verdict"] == Verdict.SOLVER_UNAVAILABLE.value:
            module = unavailable_module(r.get("detail") or "")
            missing[module] = missing.get(module, 0) + 1
    _warn_unavailable(missing, "no reward (left out of the mean)")
    if args.out:
        console.print(f"scores in {args.out}", highlight=False)
    return EXIT_OK


def _response_key(index: int, row: ResponseRow) -> tuple[int, str, str]:
    """What identifies a scored response in --out: its place, its problem and its text."""
    return (index, row.problem_id, _sha256(row.response))


def _row_key(row: dict) -> tuple:
    return (row.get("index"), row.get("problem_id"), row.get("response_sha256"))


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _settings(args: argparse.Namespace) -> dict:
    """What a score depends on besides the response: a resumed row must share it."""
    return {
        "reward": args.reward,
        "stage": args.stage,
        "answers": args.answers,
        "timeout_s": args.timeout_s,
    }


def _score_row(index: int, row: ResponseRow, score, settings: dict) -> dict:
    return {
        "index": index,
        "problem_id": row.problem_id,
        "response_sha256": _sha256(row.response),
        **score.to_dict(),
        "scored_with": settings,
    }


def _results_file(args: argparse.Namespace) -> ResultsFile | _NoResultsFile:
    if args.out is None:
        return _NoResultsFile()
    return ResultsFile(args.out, key=_row_key, resume=args.resume)


class _NoResultsFile:
    """Where scores go without --out: nowhere (the table shows them)."""

    def __init__(self) -> None:
        self.rows: list[dict] = []
        self.resumed = 0

    def has(self, key: object) -> bool:
        return False

    def write(self, row: dict) -> None:
        pass

    def __enter__(self) -> _NoResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _not_an_input(args: argparse.Namespace) -> None:
    """--out naming the responses file (or the problem set) would replace it with scores."""
    if args.out is None:
        return
    inputs = {"the responses file": args.responses}
    if str(args.problems) != BUNDLED:
        inputs["the --problems file"] = Path(args.problems)
    for what, path in inputs.items():
        if args.out.resolve() == path.resolve():
            raise UsageError(f"--out {args.out} is {what}; give another file for the scores")


def _same_responses(
    out: ResultsFile | _NoResultsFile, keys: set, settings: dict, args: argparse.Namespace
) -> None:
    """With --resume, the rows already in --out must be scores of these responses, scored
    the way this run would score them."""
    ours = [_row_key(row) in keys and _is_score(row) for row in out.rows]
    foreign = [row for row, mine in zip(out.rows, ours, strict=True) if not mine]
    other = [
        row
        for row, mine in zip(out.rows, ours, strict=True)
        if mine and row["scored_with"] != settings
    ]
    if other:
        was = other[0]["scored_with"]
        changed = [k for k in settings if was.get(k) != settings[k]]
        flags = [f"--{k.replace('_', '-')} {was.get(k)}" for k in changed]
        raise UsageError(
            f"--resume: {len(other)} rows in {args.out} were scored with {', '.join(flags)}; "
            "resume with the same options, or drop --resume to score everything again"
        )
    if foreign:
        raise UsageError(
            f"--resume: {len(foreign)} of the {len(out.rows)} rows in {args.out} are not "
            f"scores of the responses in {args.responses} (another file, or it changed); "
            "drop --resume to score everything again, or give another --out"
        )


_SCORE_TERMS = ("format", "execution", "accuracy", "bonus")


def _is_score(row: dict) -> bool:
    """A row this command wrote: the reward, its terms and a verdict."""
    numbers = [row.get(term) for term in _SCORE_TERMS]
    reward = row.get("reward")
    return (
        all(isinstance(x, int | float) and not isinstance(x, bool) for x in numbers)
        and (reward is None or isinstance(reward, int | float))
        and isinstance(row.get("verdict"), str)
        and isinstance(row.get("scored_with"), dict)
    )


def _score_table(rows: list[dict]) -> Table:
    table = Table("problem", "reward", "format", "exec", "acc", "bonus", "verdict", box=None)
    for r in rows:
        table.add_row(
            safe_text(r["problem_id"]),
            "—" if r["reward"] is None else f"{r['reward']:.3g}",
            f"{r['format']:.3g}",
            f"{r['execution']:g}",
            f"{r['accuracy']:g}",
            f"{r['bonus']:g}",
            safe_text(r["verdict"]),
        )
    return table


def _problem_set(rows: list[ResponseRow], args: argparse.Namespace) -> dict[str, OptimProblem]:
    """The problems the rows without an answer refer to (none are loaded when all have one)."""
    if all(r.answer is not None for r in rows):
        return {}
    return {p.id: p for p in load_optim_problems(args.problems, format=args.format)}


def _answers(
    rows: list[ResponseRow], args: argparse.Namespace, known: dict[str, OptimProblem]
) -> list:
    answers = []
    for row in rows:
        if row.answer is not None:
            answers.append(row.answer)
        elif row.problem_id in known:
            answers.append(known[row.problem_id].answer)
        else:
            raise LoaderError(
                f"{args.responses}, line {row.line}: no problem {row.problem_id!r} in "
                f"{args.problems}; pass --problems, or give the row an 'answer'"
            )
    return answers


# -- eval --------------------------------------------------------------------------------------
def cmd_eval(args: argparse.Namespace) -> int:
    limits = _limits(args)
    tolerance = _tolerance(args)
    _writable(args.out, "--out")
    _writable(args.plot, "--plot", plot=True)
    rows = read_responses(args.responses)
    known = _problem_set(rows, args)
    answers = _answers(rows, args, known)
    problems: dict[str, OptimProblem] = {}
    samples: dict[str, list[str]] = {}
    first: dict[str, ResponseRow] = {}
    for row, answer in zip(rows, answers, strict=True):
        if row.problem_id not in problems:
            first[row.problem_id] = row
            base = known.get(row.problem_id)
            problems[row.problem_id] = (
                base.model_copy(update={"answer": answer})
                if base is not None
                else OptimProblem(id=row.problem_id, question="-", answer=answer, source="given")
            )
        elif answer != problems[row.problem_id].answer:
            raise DataError(
                f"{args.responses}, line {row.line}: answer {answer!r} for problem "
                f"{row.problem_id!r}, which line {first[row.problem_id].line} gives as "
                f"{problems[row.problem_id].answer!r}; one ground truth per problem"
            )
        samples.setdefault(row.problem_id, []).append(row.response)
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


def _writable(path: Path | None, flag: str, *, plot: bool = False) -> None:
    """Fail now, before any response runs, when ``path`` cannot be written (not after)."""
    if path is None:
        return
    if plot:
        plt = pyplot("breakdown plots")  # (matplotlib missing: say so now)
        kinds = plt.gcf().canvas.get_supported_filetypes()
        plt.close("all")
        if path.suffix.lstrip(".").lower() not in kinds:
            raise UsageError(
                f"{flag} {path}: unknown picture format {path.suffix or '(none)'!r}; name the "
                "file .png (or .svg, .pdf)"
            )
    writable_file(path, flag)


def _tolerance(args: argparse.Namespace) -> Tolerance:
    if args.tolerance in TOLERANCE_PRESETS:
        if args.tolerance_value is not None:
            raise UsageError(
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
    if not problems:
        raise DataError(f"{args.source}: no problems to check (the file has no rows)")
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
    ratio = args.big_m_ratio
    if not (math.isfinite(ratio) and ratio > 1):
        raise UsageError(f"--big-m-ratio must be a finite number above 1, got {ratio}")
    features = lp_file_features(args.lp_file, big_m_ratio=ratio)
    table = Table("feature", "value", box=None)
    for name, value in features.model_dump().items():
        table.add_row(name, escape(str(value)))
    for name in ("big_m", "nonlinear", "advanced"):
        table.add_row(name, str(getattr(features, name)))
    console.print(table)
    return EXIT_OK
