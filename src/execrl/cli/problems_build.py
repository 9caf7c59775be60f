"""``execrl problems build``: regenerate problems' generated tests from their generators, in
place or in a copy of a bundled problem (the work: :mod:`execrl.datagen.build_plan` and
:func:`execrl.datagen.build.build_tests`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from execrl.cli._common import EXIT_OK, console
from execrl.cli._executor import (
    add_executor_argument,
    add_jobs_argument,
    executor_spec,
    jobs,
    open_executor_from_args,
)
from execrl.datagen.build import build_tests
from execrl.datagen.build_plan import copy_bundled, plan_build
from execrl.problems import tables
from execrl.problems.folder import read_problem_folder


def register(sub: argparse._SubParsersAction) -> None:
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


def cmd_build(args: argparse.Namespace) -> int:
    workers = jobs(args)
    executor_spec(args)
    plans = [plan_build(name, args.out) for name in args.folders]  # every name, before work
    for plan in plans:
        if plan.bundled is not None:
            copy_bundled(plan)
            console.print(
                f"copied bundled problem {plan.bundled.name} to {plan.folder}", highlight=False
            )
    with open_executor_from_args(args, workers=workers) as executor:
        for plan in plans:
            tests = build_tests(plan.folder, executor=executor)
            problem = read_problem_folder(plan.folder)
            counts = tables.tests_by_group(problem)
            console.print(f"{problem.id}: built {len(tests)} generated tests ({counts})")
    return EXIT_OK
