"""``execrl problems``: list, show, validate, convert and check problem sets (``build``:
:mod:`execrl.cli.problems_build`). The work: :mod:`execrl.problems.io`,
:mod:`execrl.problems.tables` and :mod:`execrl.datagen.checking`."""

from __future__ import annotations

import argparse
from contextlib import nullcontext
from pathlib import Path

from rich.text import Text

from execrl.cli import problems_build
from execrl.cli._common import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    add_languages_argument,
    add_source_arguments,
    console,
    print_table,
    safe_markup,
    safe_text,
)
from execrl.cli._executor import (
    add_executor_argument,
    add_jobs_argument,
    add_sandbox_arguments,
    executor_spec,
    jobs,
    open_executor_from_args,
    sandbox_config,
)
from execrl.cli._kattis_check import add_kattis_arguments, check_kattis, is_kattis
from execrl.datagen import checking
from execrl.datagen.checking import check_key, check_problem, problem_ok, require_usable
from execrl.errors import ProblemFormatError, UsageError
from execrl.problems import tables
from execrl.problems.io import load_problem, load_problems, save_problems, select_problems
from execrl.problems.models import Problem
from execrl.results import ResultsFile


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "problems",
        help="inspect, validate, convert and build problem sets",
        description="Inspect, validate, convert and build problem sets.",
    )
    sub = parser.add_subparsers(dest="problems_command", metavar="SUBCOMMAND", required=True)

    _source_command(sub, "list", "one line per problem", cmd_list)
    p = _source_command(
        sub, "show", "a problem's statement, limits, tests and references", cmd_show
    )
    p.add_argument("id", help="the problem id")
    _source_command(
        sub, "validate", "read and validate every problem (a problem without tests is an "
        "error); print counts", cmd_validate,
    )  # fmt: skip
    p = _source_command(
        sub, "convert", "convert a problem set to the folder or JSONL format", cmd_convert
    )
    p.add_argument("dest", help="output folder, or a .jsonl / .jsonl.gz file")

    problems_build.register(sub)

    p = _source_command(
        sub, "check", "run every reference on every test: correct ones must pass, incorrect "
        "ones fail", cmd_check,
    )  # fmt: skip
    p.add_argument("--id", action="append", dest="ids", help="only these problem ids (repeatable)")
    add_jobs_argument(p)
    add_executor_argument(p)
    p.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="also write one JSON line per reference (.jsonl or .jsonl.gz), each as soon as "
        "it is checked, so an interrupted check keeps what finished",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="with --out: keep the rows already in FILE and check only the references it lacks",
    )
    add_kattis_arguments(p)
    add_sandbox_arguments(p)


def _source_command(sub, name: str, help: str, handler) -> argparse.ArgumentParser:
    """A subcommand reading a problem set SOURCE (with --format), run by ``handler``."""
    p = add_languages_argument(add_source_arguments(sub.add_parser(name, help=help)))
    p.set_defaults(handler=handler)
    return p


def _load(args: argparse.Namespace) -> list[Problem]:
    return load_problems(args.source, format=args.format, languages=args.languages)


def cmd_list(args: argparse.Namespace) -> int:
    problems = _load(args)
    print_table(*tables.list_table(problems), align="l", plain=True)
    console.print(f"{len(problems)} problems")
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    problem = load_problem(args.source, args.id, format=args.format, languages=args.languages)
    console.rule(safe_text(f"{problem.id} — {problem.title}"))  # (data: never markup)
    console.print(safe_text(problem.statement.strip() or "(no statement)"), highlight=False)
    console.rule()
    console.print(safe_text(tables.facts_line(problem)), highlight=False)
    console.print(f"tests: {tables.tests_by_group(problem)}")
    for line in tables.reference_lines(problem):
        console.print(safe_text(line), highlight=False)
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    problems = _load(args)
    require_usable(problems, args.source)
    tests = sum(len(p.tests) for p in problems)
    refs = sum(len(p.references) for p in problems)
    console.print(f"[green]ok[/]: {len(problems)} problems, {tests} tests, {refs} references")
    return EXIT_OK


def cmd_convert(args: argparse.Namespace) -> int:
    problems = _load(args)
    dest = save_problems(problems, args.dest)
    console.print(f"wrote {len(problems)} problems to {dest}")
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    workers = jobs(args)
    executor_spec(args)
    if args.resume and args.out is None:
        raise UsageError("--resume continues a results file: give it with --out FILE")
    if args.out is not None and args.out.resolve() == Path(args.source).resolve():
        raise UsageError(
            f"--out {args.out}: is the problem set being checked; name another file for the rows"
        )
    problems = select_problems(_load(args), args.ids)
    if not problems:
        raise ProblemFormatError(f"{args.source}: holds no problems, so there is nothing to check")
    require_usable(problems, args.source)  # (validate's line: a problem without tests)
    config = sandbox_config(args)
    results = ResultsFile(args.out, key=check_key, resume=args.resume) if args.out else None
    all_ok = True
    with (
        results or nullcontext() as out,
        open_executor_from_args(args, workers=workers, config=config) as executor,
    ):
        if out is not None and out.resumed:
            console.print(f"resuming: {out.resumed} references already checked in {args.out}")
        for problem in problems:
            if is_kattis(problem):  # judged as Kattis judges, with its own summary
                rows = check_kattis(problem, args, executor=executor, out=out).rows
            else:
                rows = check_problem(problem, executor=executor, out=out)
                print_check_table(problem, rows)
            all_ok &= problem_ok(rows)
    if args.out is not None:
        console.print(f"rows in {args.out}", highlight=False)
    return EXIT_OK if all_ok else EXIT_CHECK_FAILED


def print_check_table(problem: Problem, rows: list[dict]) -> None:
    """Per-reference verdict counts and CPU times on the optimization tests (a reference that
    did not behave as its label says marked with a red ✗), then what kept it from a check."""
    status = "[green]ok[/]" if problem_ok(rows) else "[red]FAILED[/]"
    header, cells = checking.check_table(rows)
    mark = checking.FAILED_MARK
    for row in cells:
        if row[0].startswith(mark):
            row[0] = Text(mark, style="red") + safe_text(row[0].removeprefix(mark))
    title = f"{safe_markup(problem.id)} ({problem.difficulty}) {status}"
    print_table(header, cells, title=title, align="llllllrrrl")
    for row in rows:
        if row.get("issue"):
            console.print(f"  [red]FAILED[/]: {safe_markup(row['issue'])}")
    for note in checking.skipped_notes(rows):  # (a toolchain missing here is not a failure)
        console.print(f"  [yellow]skipped[/]: {safe_markup(note)}")
    if not problem.references and problem.tests:
        console.print("  no references: nothing to check")
