"""``execrl problems``: list, show, validate, convert, build and check problem sets."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any

from rich.table import Table

from execrl.cli._common import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    add_executor_argument,
    add_jobs_argument,
    add_sandbox_arguments,
    add_source_arguments,
    console,
    executor_spec,
    fmt_ms,
    jobs,
    open_executor_from_args,
    safe_markup,
    safe_text,
    sandbox_config,
)
from execrl.datagen.build import build_tests
from execrl.datagen.verify import ReferenceReport, iter_reference_reports
from execrl.errors import LoaderError, OutputError, ProblemFormatError, UsageError
from execrl.problems.bundled import bundled_dir
from execrl.problems.folder import is_problem_folder, read_problem_folder
from execrl.problems.io import (
    load_problem,
    load_problems,
    problem_issues,
    save_problems,
    select_problems,
)
from execrl.problems.models import Problem, Reference, ReferenceLabel, TestGroup
from execrl.results import ResultsFile
from execrl.sandbox.protocol import Executor


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
        sub.add_parser(
            "validate",
            help="read and validate every problem (a problem without tests is an error); "
            "print counts",
        )
    )
    p.set_defaults(handler=cmd_validate)

    p = add_source_arguments(
        sub.add_parser("convert", help="convert a problem set to the folder or JSONL format")
    )
    p.add_argument("dest", help="output folder, or a .jsonl / .jsonl.gz file")
    p.set_defaults(handler=cmd_convert)

    p = sub.add_parser("build", help="regenerate a problem's generated tests from its generator")
    p.add_argument(
        "folders",
        nargs="+",
        type=Path,
        help="problem folders, built in place; or bundled problem ids, copied to --out first",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="where a bundled problem named by its id is copied (as DIR/ID) and built "
        "(default: the current folder); the installed package is never written",
    )
    add_jobs_argument(p)
    add_executor_argument(p)
    p.set_defaults(handler=cmd_build)

    p = add_source_arguments(
        sub.add_parser(
            "check",
            help="run every reference on every test: correct ones must pass, incorrect ones fail",
        )
    )
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
    _require_usable(problems, args.source)
    tests = sum(len(p.tests) for p in problems)
    refs = sum(len(p.references) for p in problems)
    console.print(f"[green]ok[/]: {len(problems)} problems, {tests} tests, {refs} references")
    return EXIT_OK


def _require_usable(problems: list[Problem], source: str) -> None:
    """One line naming the problems that cannot be used (e.g. without tests), if any."""
    if not problems:
        raise ProblemFormatError(f"{source}: holds no problems")
    bad = [(p.id, issue) for p in problems for issue in problem_issues(p)]
    if not bad:
        return
    first_id, issue = bad[0]
    others = sorted({pid for pid, _ in bad[1:]} - {first_id})
    more = f"; so do {len(others)} more ({', '.join(others[:5])}{', …' if len(others) > 5 else ''})"
    raise ProblemFormatError(f"{source}: problem {first_id!r} {issue}{more if others else ''}")


def cmd_convert(args: argparse.Namespace) -> int:
    problems = load_problems(args.source, format=args.format)
    dest = save_problems(problems, args.dest)
    console.print(f"wrote {len(problems)} problems to {dest}")
    return EXIT_OK


def _installed_package_dir() -> Path | None:
    """The bundled problems' folder when it is inside an installed package (site-packages),
    where nothing may be written; None in a source checkout (an editable install)."""
    root = bundled_dir().resolve()
    return root if {"site-packages", "dist-packages"} & set(root.parts) else None


def _plan_folder(name: Path, out: Path) -> tuple[Path, Path | None]:
    """(the folder to build, the bundled folder to copy there first or None)."""
    installed = _installed_package_dir()
    if is_problem_folder(name):
        if installed is not None and name.resolve().is_relative_to(installed):
            raise UsageError(
                f"{name}: is inside the installed execrl package, which is never written; "
                f"build a copy: execrl problems build {name.resolve().name} --out DIR"
            )
        return name, None
    bundled = bundled_dir() / str(name)
    if len(name.parts) != 1 or not is_problem_folder(bundled):
        raise LoaderError(f"{name}: not a problem folder and not a bundled problem id")
    dest = out / name.name
    if dest.exists():
        raise UsageError(
            f"{dest}: already exists, so bundled problem {name.name!r} is not copied over it; "
            f"build that folder (execrl problems build {dest}) or choose another --out"
        )
    return dest, bundled


def cmd_build(args: argparse.Namespace) -> int:
    workers = jobs(args)
    executor_spec(args)
    plans = [_plan_folder(name, args.out) for name in args.folders]  # every name, before work
    for dest, bundled in plans:
        if bundled is not None:
            _copy_bundled(bundled, dest)
    with open_executor_from_args(args, workers=workers) as executor:
        for folder, _ in plans:
            _build_one(folder, executor)
    return EXIT_OK


def _copy_bundled(bundled: Path, dest: Path) -> None:
    try:
        shutil.copytree(bundled, dest)
    except OSError as exc:
        raise OutputError(
            f"{dest}: cannot copy bundled problem {bundled.name!r} there "
            f"({exc.strerror or exc}); choose a folder you can write to with --out"
        ) from None
    console.print(f"copied bundled problem {bundled.name} to {dest}", highlight=False)


def _build_one(folder: Path, executor: Executor) -> None:
    tests = build_tests(folder, executor=executor)
    problem = read_problem_folder(folder)
    counts = ", ".join(f"{g.value} {len(problem.tests_in(g))}" for g in TestGroup)
    console.print(f"{problem.id}: built {len(tests)} generated tests ({counts})")


def _check_key(row: dict[str, Any]) -> tuple[Any, Any]:
    return row.get("problem_id"), row.get("reference")


def cmd_check(args: argparse.Namespace) -> int:
    workers = jobs(args)
    executor_spec(args)
    if args.resume and args.out is None:
        raise UsageError("--resume continues a results file: give it with --out FILE")
    if args.out is not None and args.out.resolve() == Path(args.source).resolve():
        raise UsageError(
            f"--out {args.out}: is the problem set being checked; name another file for the rows"
        )
    problems = select_problems(load_problems(args.source, format=args.format), args.ids)
    if not problems:
        raise ProblemFormatError(f"{args.source}: holds no problems, so there is nothing to check")
    config = sandbox_config(args)
    out = ResultsFile(args.out, key=_check_key, resume=args.resume) if args.out else None
    if out is not None and out.resumed:
        console.print(f"resuming: {out.resumed} references already checked in {args.out}")
    all_ok = True
    try:
        with open_executor_from_args(args, workers=workers, config=config) as executor:
            for problem in problems:
                rows = _check_problem(problem, executor, out)
                console.print(check_table(problem, rows))
                for row in rows:
                    if row.get("issue"):
                        console.print(f"  [red]FAILED[/]: {safe_markup(row['issue'])}")
                if not problem.references and problem.tests:
                    console.print("  no references: nothing to check")
                all_ok &= all(row.get("as_expected") is True for row in rows)
    finally:
        if out is not None:
            out.close()
    if out is not None:
        console.print(f"rows in {args.out}", highlight=False)
    return EXIT_OK if all_ok else EXIT_CHECK_FAILED


def _check_problem(
    problem: Problem, executor: Executor, out: ResultsFile | None
) -> list[dict[str, Any]]:
    """The problem's rows: those a resumed file holds, then the rest as each is checked
    (each written to ``out`` as soon as it is known)."""
    issues = problem_issues(problem)
    if issues:  # nothing can be checked: one row that says why
        row = _issue_row(problem, "; ".join(issues))
        if out is not None and not out.has(_check_key(row)):
            out.write(row)
        return [row]
    resumed = out.rows if out is not None else []
    earlier = {_check_key(r)[1]: r for r in resumed if _check_key(r)[0] == problem.id}
    todo = [ref for ref in problem.references if ref.name not in earlier]
    fresh: dict[str, dict[str, Any]] = {}
    for report in iter_reference_reports(problem, executor=executor, references=todo):
        row = reference_row(problem, report)
        if out is not None:
            out.write(row)
        fresh[row["reference"]] = row
    return [fresh.get(ref.name) or earlier[ref.name] for ref in problem.references]


def _issue_row(problem: Problem, issue: str) -> dict[str, Any]:
    return {
        "problem_id": problem.id,
        "difficulty": problem.difficulty,
        "reference": None,
        "label": None,
        "as_expected": False,
        "issue": f"problem {issue}",
    }


def reference_row(problem: Problem, report: ReferenceReport) -> dict[str, Any]:
    """One reference's check as a JSON-ready row (what --out writes, and the table shows)."""
    ref = report.reference
    results = report.record.results
    opt_ids = {t.id for t in problem.optimization_tests}
    opt = [r.cpu_s for r in results if r.test_id in opt_ids]
    return {
        "problem_id": problem.id,
        "difficulty": problem.difficulty,
        "reference": ref.name,
        "label": ref.label.value,
        "note": ref.tier or ref.flaw or "",
        "expects": _expects(ref),
        "as_expected": report.as_expected,
        "verdicts": report.verdict_counts,
        "passed": sum(r.passed for r in results),
        "tests": len(results),
        "opt_mean_s": sum(opt) / len(opt) if opt else None,
        "opt_max_s": max(opt) if opt else None,
        "failed_tests": report.failed_test_ids,
        "issue": None,
    }


def check_table(problem: Problem, rows: list[dict[str, Any]]) -> Table:
    """Per-reference verdict counts and CPU times on the optimization tests."""
    ok = all(row.get("as_expected") is True for row in rows)
    status = "[green]ok[/]" if ok else "[red]FAILED[/]"
    title = f"{safe_markup(problem.id)} ({problem.difficulty}) {status}"
    table = Table(title=title, title_justify="left")
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
    for row in rows:
        if row.get("reference") is None:
            continue  # a problem-level issue, printed under the table
        failed = list(row.get("failed_tests") or [])
        mark = "" if row.get("as_expected") else "[red]✗ [/]"
        table.add_row(
            mark + safe_markup(row["reference"]),
            safe_markup(row.get("label", "")),
            safe_markup(row.get("note", "")),
            safe_markup(row.get("expects", "")),
            ", ".join(f"{status} {n}" for status, n in dict(row.get("verdicts") or {}).items()),
            f"{row.get('passed', '?')}/{row.get('tests', '?')}",
            fmt_ms(row.get("opt_mean_s")),
            fmt_ms(row.get("opt_max_s")),
            safe_text(", ".join(failed[:4]) + (" …" if len(failed) > 4 else ""))
            if row.get("label") == ReferenceLabel.INCORRECT.value or failed
            else "",
        )
    return table


def _expects(ref: Reference) -> str:
    """What the check requires of a reference: pass all, fail one, or one given verdict."""
    if ref.label is ReferenceLabel.CORRECT:
        return "all success"
    return f"≥1 {ref.expected_verdict}" if ref.expected_verdict else "≥1 failure"
