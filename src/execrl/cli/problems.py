"""``execrl problems``: list, show, validate, convert, build and check problem sets."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.table import Table

from execrl.cli._common import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    add_sandbox_arguments,
    add_source_arguments,
    console,
    fmt_ms,
    safe_markup,
    safe_text,
    sandbox_config,
)
from execrl.datagen.build import build_tests
from execrl.datagen.verify import ProblemReport, verify_problem
from execrl.errors import LoaderError
from execrl.problems.bundled import bundled_dir
from execrl.problems.folder import is_problem_folder, read_problem_folder
from execrl.problems.io import (
    load_problem,
    load_problems,
    save_problems,
    select_problems,
)
from execrl.problems.models import Reference, ReferenceLabel, TestGroup
from execrl.sandbox.executor import LocalExecutor


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "problems",
        help="inspect, validate, convert and build problem sets",
        description="Inspect, validate, convert and build problem sets.",
    )
    sub = parser.add_subparsers(dest="problems_command", metavar="SUBCOMMAND", required=True)

    p = add_source_arguments(sub.add_parser("list", help="one line per problem"))
    p.set_defaults(handler=cmd_list)

    p = add_source_arguments(
        sub.add_parser("show", help="a problem's statement, limits, tests and references")
    )
    p.add_argument("id", help="the problem id")
    p.set_defaults(handler=cmd_show)

    p = add_source_arguments(
        sub.add_parser("validate", help="read and validate every problem; print counts")
    )
    p.set_defaults(handler=cmd_validate)

    p = add_source_arguments(
        sub.add_parser("convert", help="convert a problem set to the folder or JSONL format")
    )
    p.add_argument("dest", help="output folder, or a .jsonl / .jsonl.gz file")
    p.set_defaults(handler=cmd_convert)

    p = sub.add_parser("build", help="regenerate a problem's generated tests from its generator")
    p.add_argument("folders", nargs="+", type=Path, help="problem folders (or bundled problem ids)")
    p.add_argument("--jobs", type=int, help="sandbox workers (default: one per core)")
    p.set_defaults(handler=cmd_build)

    p = add_source_arguments(
        sub.add_parser(
            "check",
            help="run every reference on every test: correct ones must pass, incorrect ones fail",
        )
    )
    p.add_argument("--id", action="append", dest="ids", help="only these problem ids (repeatable)")
    p.add_argument("--jobs", type=int, help="sandbox workers (default: one per core)")
    add_sandbox_arguments(p)
    p.set_defaults(handler=cmd_check)


def cmd_list(args: argparse.Namespace) -> int:
    problems = load_problems(args.source, format=args.format)
    table = Table("id", "title", "difficulty", "T0", "T+", "T_O", "refs ✓/✗", box=None)
    for p in problems:
        table.add_row(
            p.id,
            p.title,
            p.difficulty,
            *(str(len(p.tests_in(g))) for g in TestGroup),
            f"{len(p.references_labelled('correct'))}/{len(p.references_labelled('incorrect'))}",
        )
    console.print(table)
    console.print(f"{len(problems)} problems")
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    problem = load_problem(args.source, args.id, format=args.format)
    console.rule(f"{problem.id} — {problem.title}")
    console.print(problem.statement.strip() or "(no statement)", highlight=False, markup=False)
    console.rule()
    console.print(
        f"difficulty {problem.difficulty} · time limit {problem.time_limit_s} s · "
        f"memory {problem.memory_limit_mb} MB · checker {problem.checker.kind} · "
        f"source {problem.source.dataset}"
    )
    console.print("tests: " + ", ".join(f"{g.value} {len(problem.tests_in(g))}" for g in TestGroup))
    for ref in problem.references:
        note = ref.tier or ref.flaw or ""
        line = f"  {ref.label.value:9} {ref.name:28} {note}"
        console.print(safe_text(line), highlight=False)
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    problems = load_problems(args.source, format=args.format)
    tests = sum(len(p.tests) for p in problems)
    refs = sum(len(p.references) for p in problems)
    console.print(f"[green]ok[/]: {len(problems)} problems, {tests} tests, {refs} references")
    return EXIT_OK


def cmd_convert(args: argparse.Namespace) -> int:
    problems = load_problems(args.source, format=args.format)
    dest = save_problems(problems, args.dest)
    console.print(f"wrote {len(problems)} problems to {dest}")
    return EXIT_OK


def _resolve_folder(name: Path) -> Path:
    if is_problem_folder(name):
        return name
    candidate = bundled_dir() / str(name)
    if is_problem_folder(candidate):
        return candidate
    raise LoaderError(f"{name}: not a problem folder and not a bundled problem id")


def cmd_build(args: argparse.Namespace) -> int:
    folders = [_resolve_folder(name) for name in args.folders]
    with LocalExecutor(workers=args.jobs) as executor:
        for folder in folders:
            _build_one(folder, executor)
    return EXIT_OK


def _build_one(folder: Path, executor: LocalExecutor) -> None:
    tests = build_tests(folder, executor=executor)
    problem = read_problem_folder(folder)
    counts = ", ".join(f"{g.value} {len(problem.tests_in(g))}" for g in TestGroup)
    console.print(f"{problem.id}: built {len(tests)} generated tests ({counts})")


def cmd_check(args: argparse.Namespace) -> int:
    problems = select_problems(load_problems(args.source, format=args.format), args.ids)
    all_ok = True
    with LocalExecutor(workers=args.jobs, config=sandbox_config(args)) as executor:
        for problem in problems:
            report = verify_problem(problem, executor=executor)
            console.print(check_table(report))
            all_ok &= report.ok
    return EXIT_OK if all_ok else EXIT_CHECK_FAILED


def check_table(report: ProblemReport) -> Table:
    """Per-reference verdict counts and CPU times on the optimization tests."""
    problem = report.problem
    status = "[green]ok[/]" if report.ok else "[red]FAILED[/]"
    table = Table(title=f"{problem.id} ({problem.difficulty}) {status}", title_justify="left")
    for col in (
        "reference",
        "label",
        "tier / flaw",
        "expects",
        "verdicts",
        "passed",
        "opt mean ms",
        "opt max ms",
        "failed tests",
    ):
        table.add_column(col, justify="right" if "ms" in col or col == "passed" else "left")
    opt_ids = {t.id for t in problem.optimization_tests}
    for ref_report in report.references:
        ref = ref_report.reference
        results = ref_report.record.results
        passed = sum(r.passed for r in results)
        opt = [r.cpu_s for r in results if r.test_id in opt_ids]
        failed = ref_report.failed_test_ids
        mark = "" if ref_report.as_expected else "[red]✗ [/]"
        table.add_row(
            mark + safe_markup(ref.name),
            ref.label.value,
            safe_markup(ref.tier or ref.flaw or ""),
            _expects(ref),
            ", ".join(f"{status} {n}" for status, n in ref_report.verdict_counts.items()),
            f"{passed}/{len(results)}",
            fmt_ms(sum(opt) / len(opt) if opt else None),
            fmt_ms(max(opt) if opt else None),
            safe_text(", ".join(failed[:4]) + (" …" if len(failed) > 4 else ""))
            if ref.label is ReferenceLabel.INCORRECT or failed
            else "",
        )
    return table


def _expects(ref: Reference) -> str:
    """What the check requires of a reference: pass all, fail one, or one given verdict."""
    if ref.label is ReferenceLabel.CORRECT:
        return "all success"
    return f"≥1 {ref.expected_verdict}" if ref.expected_verdict else "≥1 failure"
