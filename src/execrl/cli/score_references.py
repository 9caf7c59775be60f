"""``execrl score`` without ``--programs``: the main job. Every correct and incorrect
reference of the problem set runs on every test, one row per reference written as it finishes
(``--resume`` keeps them), and a table says per problem whether the suite accepts every
correct one, catches every incorrect one, and how far apart the correct references' speeds
are. The work: :func:`execrl.datagen.reference_checks.check_references`."""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

from rich.table import Table

from execrl.cli._common import EXIT_CHECK_FAILED, EXIT_OK, console, fmt_ms, safe_text
from execrl.cli._executor import jobs, open_executor_from_args, sandbox_config
from execrl.datagen.reference_checks import NotReferenceChecks, check_references
from execrl.datagen.verify import ProblemReport
from execrl.errors import UsageError
from execrl.problems.io import load_problems, select_problems
from execrl.problems.models import ReferenceLabel


def verify_references(args: argparse.Namespace, out: Path) -> int:
    problems = select_problems(load_problems(args.source, format=args.format), args.ids)
    table = summary_table()
    progress = itertools.count(1)

    def say(report: ProblemReport) -> None:
        add_summary_row(table, report)
        console.print(
            f"[{next(progress)}/{len(problems)}] {report.problem.id}: "
            f"{'ok' if report.ok else 'FAILED'}",
            highlight=False,
        )

    try:
        checks = check_references(
            problems,
            out,
            executor=lambda: open_executor_from_args(
                args, workers=jobs(args), config=sandbox_config(args)
            ),
            resume=args.resume,
            on_problem=say,
        )
    except NotReferenceChecks:
        raise UsageError(
            f"{out}: its rows are not reference checks (written by `execrl score` without "
            "--programs); resume with the command that wrote it, or choose another --out"
        ) from None
    console.print(table)
    failed = checks.failed
    earlier = f" ({checks.resumed} rows from an earlier run)" if checks.resumed else ""
    console.print(
        f"{len(checks.reports) - len(failed)}/{len(checks.reports)} problems as expected; "
        f"records in {out}{earlier}"
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
