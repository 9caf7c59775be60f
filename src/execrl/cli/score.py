"""``execrl score``: the main job — run every reference on every test and summarise.

At this stage it scores the problem set's correct and incorrect references and prints, per
problem, whether the suite accepts every correct one, catches every incorrect one, and how far
apart the correct references' speeds are. Every record is written to a JSONL file.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path

from rich.table import Table

from execrl.cli._common import EXIT_CHECK_FAILED, EXIT_OK, add_source_arguments, console, fmt_ms
from execrl.datagen.verify import ProblemReport, verify_problem
from execrl.problems.io import load_problems, select_problems
from execrl.problems.models import ReferenceLabel
from execrl.sandbox.executor import LocalExecutor


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "score",
        help="score every reference solution of a problem set (the main job)",
        description="Run every correct and incorrect reference on every test; print a summary "
        "and write all execution records to a JSONL file.",
    )
    add_source_arguments(p)
    p.add_argument("--id", action="append", dest="ids", help="only these problem ids (repeatable)")
    p.add_argument("--jobs", type=int, help="sandbox workers (default: one per core)")
    p.add_argument("--out", type=Path, help="records file (default: runs/score-<time>.jsonl)")
    p.set_defaults(handler=cmd_score)


def cmd_score(args: argparse.Namespace) -> int:
    problems = select_problems(load_problems(args.source, format=args.format), args.ids)
    out = args.out or Path("runs") / f"score-{datetime.now(UTC):%Y%m%d-%H%M%S}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    table = summary_table()
    reports = []
    with out.open("w", encoding="utf-8") as f, LocalExecutor(workers=args.jobs) as executor:
        for i, problem in enumerate(problems, start=1):
            report = verify_problem(problem, executor=executor, show_progress=True)
            reports.append(report)
            write_report(report, f)
            f.flush()  # a crash later never loses what was already scored
            add_summary_row(table, report)
            console.print(
                f"[{i}/{len(problems)}] {problem.id}: {'ok' if report.ok else 'FAILED'}",
                highlight=False,
            )
    console.print(table)
    failed = [r.problem.id for r in reports if not r.ok]
    console.print(
        f"{len(reports) - len(failed)}/{len(reports)} problems as expected; records in {out}"
    )
    if failed:
        console.print(
            f"[red]not as expected:[/] {', '.join(failed)} "
            "(see `execrl problems check --id ID` for details)"
        )
    return EXIT_CHECK_FAILED if failed else EXIT_OK


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
        problem.id,
        problem.difficulty,
        str(len(problem.correctness_tests)),
        str(len(problem.optimization_tests)),
        ratio(sum(r.as_expected for r in correct), len(correct)),
        ratio(sum(r.as_expected for r in incorrect), len(incorrect)),
        fmt_ms(fastest),
        fmt_ms(slowest),
        f"{slowest / fastest:.1f}×" if fastest and slowest else "—",
    )


def write_report(report: ProblemReport, f) -> None:
    for ref_report in report.references:
        row = {
            "problem_id": report.problem.id,
            "reference": ref_report.reference.name,
            "label": ref_report.label.value,
            "as_expected": ref_report.as_expected,
            "record": ref_report.record.model_dump(mode="json"),
        }
        f.write(json.dumps(row) + "\n")
