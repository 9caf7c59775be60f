"""``execrl problems check`` on a Kattis package (issue 35): its options (``--kattis-python``,
``--full``), the check as Kattis judges (:mod:`execrl.datagen.kattis_judging`), the derived
time limit stored in the package, and the summary: agreement per folder × language and every
disagreement."""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

from execrl.cli._common import console, print_table, safe_markup
from execrl.datagen import kattis_judging
from execrl.datagen.checking import problem_ok, skipped_notes
from execrl.datagen.kattis_judging import KattisCheck
from execrl.problems.kattis import SkippedSubmissionsWarning, read_kattis_package
from execrl.problems.models import Problem, Reference
from execrl.results import ResultsFile
from execrl.sandbox.protocol import Executor


def add_kattis_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kattis-python",
        choices=sorted(kattis_judging.PYTHON_RUNTIMES),
        default=None,
        help="Kattis packages: the runtime of Python 3 submissions (default: pypy when "
        "installed, as Kattis runs them, else cpython)",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="Kattis packages: run every test of every submission (correct ones must pass "
        "all, the others get their folder's verdict on one) instead of stopping at the first "
        "failing test, whose verdict decides",
    )


def is_kattis(problem: Problem) -> bool:
    return problem.source.dataset == "kattis"


def check_kattis(
    problem: Problem,
    args: argparse.Namespace,
    *,
    executor: Executor,
    out: ResultsFile | None,
) -> KattisCheck:
    """Check one Kattis package as Kattis judges it; store a derived limit in the package
    and print the limit, the agreement table and the disagreements."""
    folder = kattis_judging.package_folder(args.source, problem)
    check = kattis_judging.check_kattis_problem(
        problem,
        executor=executor,
        out=out,
        python_runtime=args.kattis_python,
        full=args.full,
        accepted=_every_accepted(folder) if args.languages and folder else None,
    )
    stored = kattis_judging.store_time_limit(folder, check.limit) if folder else None
    print_kattis_summary(check, stored)
    return check


def _every_accepted(folder: Path) -> list[Reference]:
    """The package's accepted submissions in every language (a limit comes from them all,
    whatever ``--languages`` keeps)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkippedSubmissionsWarning)
        return read_kattis_package(folder).references_labelled("correct")


def print_kattis_summary(check: KattisCheck, stored: Path | None) -> None:
    """One line per submission, the limit and where it came from, the Python runtime, the
    agreement table and one line per disagreement."""
    ok = problem_ok(check.rows)
    status = "[green]ok[/]" if ok else "[red]FAILED[/]"
    header, cells = kattis_judging.submission_table(check.rows)
    print_table(header, cells, title=f"{safe_markup(check.problem.id)} {status}", align="llllllr")
    for note in skipped_notes(check.rows):  # (a toolchain missing here is not a failure)
        console.print(f"  [yellow]skipped[/]: {safe_markup(note)}")
    console.print(safe_markup(kattis_judging.limit_line(check.limit)), highlight=False)
    if stored is not None:
        console.print(f"  stored in {safe_markup(str(stored))}", highlight=False)
    python = "PyPy" if check.python_language == "pypy" else "CPython"
    console.print(f"Python 3 submissions ran on {python}", highlight=False)
    header, cells = kattis_judging.agreement_table(check.rows)
    title = f"{safe_markup(check.problem.id)}: agreement with the submissions' folders"
    print_table(header, cells, title=title, align="lr")
    for line in kattis_judging.disagreements(check.rows):
        console.print(f"  [red]disagrees[/]: {safe_markup(line)}", highlight=False)
