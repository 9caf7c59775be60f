"""``execrl eval run``: execute every model's samples and the references in one shuffled
campaign (:func:`execrl.evaluate.run_eval_campaign`), then show what it holds."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.table import Table

from execrl.cli._common import (
    EXIT_OK,
    add_timing_argument,
    check_range,
    check_time_limit,
    console,
    require_counting,
    safe_text,
)
from execrl.cli._executor import (
    MAX_JOBS,
    add_executor_argument,
    add_timed_jobs_argument,
    executor_spec,
    open_timed_executor,
)
from execrl.cli._files import check_resume
from execrl.errors import UsageError
from execrl.evaluate import EvalFolder, load_eval, run_eval_campaign
from execrl.evaluate.summary import failing_reference_runs, model_tallies

MAX_REPEATS = 100
"""The most timed repeats per test a run takes (the sandbox's own bound)."""


def register_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="execute every model's samples and the references in one shuffled campaign",
        description="Execute all samples (all tests, under the cap) and every correct "
        "reference (optimization tests) in one shuffled order, and store every per-test "
        "verdict and duration in the folder.",
    )
    p.add_argument("folder", type=Path, help="the evaluation folder")
    add_timed_jobs_argument(p)
    add_executor_argument(p)
    p.add_argument("--repeats", type=int, default=1, help="timed repeats per test (median kept)")
    p.add_argument("--seed", type=int, default=0, help="shuffle seed (default: 0)")
    p.add_argument("--cap-s", type=float, help="hard cap per test (default: each problem's limit)")
    add_timing_argument(p)
    p.add_argument(
        "--max-opt-tests",
        type=int,
        metavar="N",
        help="only the N smallest optimization tests per problem (cheaper; default: all)",
    )
    again = p.add_mutually_exclusive_group()
    again.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted campaign (same settings): runs that finished are kept",
    )
    again.add_argument(
        "--restart", action="store_true", help="discard an interrupted campaign and start over"
    )
    p.set_defaults(handler=cmd_run)


def check_run_options(args: argparse.Namespace, folder: EvalFolder) -> None:
    """Every option a user can get wrong, before a sandbox starts."""
    folder.manifest()
    check_range("--jobs", args.jobs, 1, MAX_JOBS, "sandbox workers")
    executor_spec(args)  # (a bad --executor is refused before anything is read or started)
    check_range("--repeats", args.repeats, 1, MAX_REPEATS, "timed repeats per test")
    require_counting(args.timing)
    check_time_limit("--cap-s", args.cap_s)
    if args.max_opt_tests is not None and args.max_opt_tests < 1:
        raise UsageError(f"--max-opt-tests {args.max_opt_tests}: give at least 1")
    finished = None if args.restart else folder.interrupted_campaign()  # (--restart: unread)
    check_resume(args, finished, args.folder)


def cmd_run(args: argparse.Namespace) -> int:
    folder = EvalFolder(args.folder)
    check_run_options(args, folder)
    try:
        with open_timed_executor(args) as executor:
            info = run_eval_campaign(
                folder,
                executor,
                seed=args.seed,
                cap_s=args.cap_s,
                repeats=args.repeats,
                timing=args.timing,
                max_optimization_tests=args.max_opt_tests,
                resume=args.resume,
            )
    except KeyboardInterrupt:
        kept = folder.interrupted_campaign() or 0
        print(
            f"{kept} finished runs kept in {args.folder}; continue with "
            f"`execrl eval run {args.folder} --resume`",
            file=sys.stderr,
        )
        raise
    data = load_eval(args.folder)
    title = (
        f"campaign: {info.samples} samples, {info.references} reference runs, {info.wall_s:.0f} s"
    )
    table = Table(title=title, title_justify="left")
    for col in ("model", "samples", "strictly correct", "inconclusive"):
        table.add_column(col, justify="left" if col == "model" else "right")
    for t in model_tallies(data):
        table.add_row(
            safe_text(t.model), *map(str, (t.samples, t.strictly_correct, t.inconclusive))
        )
    console.print(table)
    failing = failing_reference_runs(data)
    if failing:
        console.print(
            f"[yellow]{failing} reference test run(s) neither succeeded nor timed out[/]: those "
            "references are left out of D_t on those tests"
        )
    console.print(
        f"records in {args.folder}; next: `execrl eval metrics {args.folder}`", highlight=False
    )
    return EXIT_OK
