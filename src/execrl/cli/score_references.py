"""``execrl score`` without ``--programs``: the main job. Every correct and incorrect
reference of the problem set runs on every test (:func:`execrl.datagen.verify.verify_problem`),
one row per reference written as it finishes (``--resume`` keeps them), and a table says per
problem whether the suite accepts every correct one, catches every incorrect one, and how far
apart the correct references' speeds are."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.table import Table

from execrl.cli._common import EXIT_CHECK_FAILED, EXIT_OK, console, fmt_ms, safe_text
from execrl.cli._executor import jobs, open_executor_from_args, sandbox_config
from execrl.datagen.verify import ProblemReport, ReferenceReport, verify_problem
from execrl.errors import UsageError
from execrl.problems.io import load_problems, select_problems
from execrl.problems.models import Problem, ReferenceLabel
from execrl.results import ResultsFile
from execrl.sandbox.protocol import Executor
from execrl.sandbox.records import ExecutionRecord


def verify_references(args: argparse.Namespace, out: Path) -> int:
    problems = select_problems(load_problems(args.source, format=args.format), args.ids)
    table = summary_table()
    reports = []
    with (
        ResultsFile(
            out, key=reference_key, resume=args.resume
        ) as results,  # fails now if unwritable
        open_executor_from_args(args, workers=jobs(args), config=sandbox_config(args)) as executor,
    ):
        if any(set(REFERENCE_ROW) - row.keys() for row in results.rows):
            raise UsageError(
                f"{out}: its rows are not reference checks (written by `execrl score` without "
                "--programs); resume with the command that wrote it, or choose another --out"
            )
        for i, problem in enumerate(problems, start=1):
            report = verify_resumable(problem, results, executor)
            reports.append(report)
            add_summary_row(table, report)
            console.print(
                f"[{i}/{len(problems)}] {problem.id}: {'ok' if report.ok else 'FAILED'}",
                highlight=False,
            )
    console.print(table)
    failed = [r.problem.id for r in reports if not r.ok]
    earlier = f" ({results.resumed} rows from an earlier run)" if results.resumed else ""
    console.print(
        f"{len(reports) - len(failed)}/{len(reports)} problems as expected; records in "
        f"{out}{earlier}"
    )
    if failed:
        console.print(
            f"[red]not as expected:[/] {', '.join(failed)} "
            "(see `execrl problems check --id ID` for details)"
        )
    return EXIT_CHECK_FAILED if failed else EXIT_OK


REFERENCE_ROW = ("problem_id", "reference", "label", "as_expected", "record")
"""The fields of a row of the reference check."""


def reference_key(row: dict) -> tuple:
    return (row.get("problem_id"), row.get("reference"))


def verify_resumable(problem: Problem, results: ResultsFile, executor: Executor) -> ProblemReport:
    """The problem's report: references already in ``results`` (an earlier run) are read
    back, the others run now and are written as each finishes."""
    groups = {t.id: t.group for t in problem.tests}
    kept = {row["reference"]: row for row in results.rows if row["problem_id"] == problem.id}
    done = {
        name: ReferenceReport(ref, ExecutionRecord.model_validate(kept[name]["record"]), groups)
        for ref in problem.references
        if (name := ref.name) in kept
    }
    for ref in problem.references:
        if ref.name not in done:  # one reference at a time: each row is written as it finishes
            (report,) = verify_problem(
                problem, executor=executor, show_progress=True, references=[ref]
            ).references
            results.write(reference_row(problem.id, report))
            done[ref.name] = report
    return ProblemReport(problem, [done[r.name] for r in problem.references])


def summary_table() -> Table:
    table = Table(title="reference solutions on their problems", title_justify="left")
    for col, justify in (
        ("problem", "left"),
        ("difficulty", "left"),
        ("T_C", "right"),
        ("T_O", "right"),
        ("correct pass", "right"),
        ("incorrect caught", "right"),
        ("fastest ms", "right"),
        ("slowest ms", "right"),
        ("spread", "right"),
    ):
        table.add_column(col, justify=justify)
    return table


def add_summary_row(table: Table, report: ProblemReport) -> None:
    problem = report.problem
    correct = report.labelled(ReferenceLabel.CORRECT)
    incorrect = report.labelled(ReferenceLabel.INCORRECT)
    speeds = [s for r in correct if (s := r.mean_cpu_s()) is not None]
    fastest, slowest = (min(speeds), max(speeds)) if speeds else (None, None)

    def ratio(good: int, total: int) -> str:
        colour = "green" if good == total else "red"
        return f"[{colour}]{good}/{total}[/]"

    table.add_row(
        safe_text(problem.id),
        problem.difficulty,
        str(len(problem.correctness_tests)),
        str(len(problem.optimization_tests)),
        ratio(sum(r.as_expected for r in correct), len(correct)),
        ratio(sum(r.as_expected for r in incorrect), len(incorrect)),
        fmt_ms(fastest),
        fmt_ms(slowest),
        f"{slowest / fastest:.1f}×" if fastest and slowest else "—",
    )


def reference_row(problem_id: str, report: ReferenceReport) -> dict:
    return {
        "problem_id": problem_id,
        "reference": report.reference.name,
        "label": report.label.value,
        "as_expected": report.as_expected,
        "record": report.record.model_dump(mode="json"),
    }
