"""``execrl timing noise | contention | floor``: how noisy the stored durations are, how much
a loaded machine moves them, and how noisy the machine itself is (``drift`` and ``report``:
:mod:`execrl.cli.timing_drift`).

Exit codes: 0 done, 1 ``floor`` found the machine too noisy, 2 bad input (unknown campaign,
bad --loads).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from execrl.cli._common import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    TIMING_HELP,
    add_source_arguments,
    add_timing_argument,
    console,
    print_table,
    require_counting,
)
from execrl.cli._files import STORE_HELP, open_store, save_json, writable_file
from execrl.errors import ExecrlError, UsageError
from execrl.problems.io import load_problems, select_problems
from execrl.sandbox.batch import progress_bar
from execrl.timing.contention import contention_test
from execrl.timing.diagnostics import diagnose
from execrl.timing.floor import FLOOR_TARGET_CV, measure_floor

MAX_LOAD = 16.0
"""The most busy-loop processes per core the contention test starts."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "noise",
        help="rerun noise of a stored campaign: per test, per solution, orderings",
        description="Per test: rerun CV and std; per solution: std and range over reruns of "
        "its mean per-test percentile; between- vs within-solution variance; stability of "
        "each problem's reference ordering. CPU and wall time side by side, and the count of a "
        "campaign run with a counted --timing.",
    )
    p.add_argument("--campaign", metavar="ID", help="campaign id or prefix (default: latest)")
    p.add_argument("--store", type=Path, metavar="DIR", help=STORE_HELP)
    p.add_argument("--per-test", action="store_true", help="also print one row per test")
    p.set_defaults(handler=cmd_noise)

    p = sub.add_parser(
        "contention",
        help="rerun noise of CPU vs wall time while busy loops load the machine",
        description="For each load level, start round(load × cores) busy-loop processes, run "
        "a small campaign, stop them, and compare the CPU- and wall-time rerun noise of the "
        "mean-percentile scores. Nothing is saved in the store.",
    )
    add_source_arguments(p)
    p.add_argument("--id", action="append", dest="ids", help="only these problem ids (repeatable)")
    p.add_argument(
        "--loads",
        default="0,0.5,1,2",
        metavar="LIST",
        help="busy-loop processes per core, comma-separated (default: 0,0.5,1,2)",
    )
    p.add_argument("--reruns", type=int, default=5, metavar="K", help="per load (default: 5)")
    p.add_argument(
        "--max-tests",
        type=int,
        default=3,
        metavar="N",
        help="the N smallest optimization tests per problem (default: 3)",
    )
    p.add_argument("--out", type=Path, metavar="FILE.json", help="also save the report as JSON")
    add_timing_argument(p, help="also report the noise of a count: " + TIMING_HELP)
    p.set_defaults(handler=cmd_contention)

    p = sub.add_parser(
        "floor",
        help="the machine's own CPU-time noise for identical work (no sandbox involved)",
        description="Repeat a fixed pure-Python workload in one thread pinned to one core and "
        "report how much its CPU time varies: the floor under every speed measurement on this "
        "machine. Exit 1 when the CV is above 5%.",
    )
    p.add_argument("--seconds", type=float, default=10.0, help="how long (default: 10)")
    p.add_argument("--run-ms", type=float, default=20.0, help="CPU time of one run (default: 20)")
    p.add_argument("--core", type=int, help="the core to pin to (default: the last one)")
    p.add_argument("--out", type=Path, metavar="FILE.json", help="also save the runs as JSON")
    p.set_defaults(handler=cmd_floor)


def finite(flag: str, value: float, low: float, high: float) -> None:
    """A number option in [low, high] (NaN and infinities refused)."""
    if not (math.isfinite(value) and low <= value <= high):
        raise UsageError(f"{flag} {value}: expected a number from {low:g} to {high:g}")


def cmd_noise(args: argparse.Namespace) -> int:
    campaign = open_store(args.store).load(args.campaign)
    report = diagnose(campaign)
    console.print(
        f"campaign {campaign.id} · {campaign.info.machine.describe()} · {report.reruns} reruns",
        highlight=False,
    )
    for title, header, rows in report.tables(per_test=args.per_test):
        print_table(header, rows, title=title)
    return EXIT_OK


def cmd_contention(args: argparse.Namespace) -> int:
    loads = parse_loads(args.loads)
    if args.reruns < 2:
        # (ExecrlError, not its UsageError: tests/integration/test_timing_noise_cli.py reads
        # the class name in the line)
        raise ExecrlError(f"--reruns {args.reruns}: rerun noise needs at least 2")
    if args.max_tests < 1:
        raise UsageError(f"--max-tests {args.max_tests}: take at least 1 test")
    require_counting(args.timing)
    writable_file(args.out, "--out")  # before minutes of measuring
    problems = select_problems(load_problems(args.source, format=args.format), args.ids)
    report = contention_test(
        problems,
        loads,
        reruns=args.reruns,
        max_tests=args.max_tests,
        progress=True,
        timing=args.timing,
    )
    header, rows = report.table()
    print_table(header, rows, title=f"contention · {report.machine.describe()}")
    verdict = "met" if report.target_met() else "not met"
    console.print(
        f"target (CPU std mean ≤ {report.target_points:g} points at every load, wall above it "
        f"at some load): {verdict}",
        highlight=False,
    )
    if args.out:
        save_json(report, args.out)
    return EXIT_OK


def parse_loads(text: str) -> list[float]:
    try:
        loads = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ExecrlError(
            f"--loads {text!r}: give comma-separated numbers such as 0,0.5,1,2"
        ) from None
    if not loads or not all(math.isfinite(x) and 0 <= x <= MAX_LOAD for x in loads):
        raise UsageError(
            f"--loads {text!r}: give numbers from 0 to {MAX_LOAD:g} busy loops per core, "
            "such as 0,0.5,1,2"
        )
    return loads


def cmd_floor(args: argparse.Namespace) -> int:
    finite("--seconds", args.seconds, 0.001, 3600)
    finite("--run-ms", args.run_ms, 0.001, 60_000)
    writable_file(args.out, "--out")
    with progress_bar(True) as bar:
        task = bar.add_task("CPU-time floor", total=100)
        try:
            report = measure_floor(
                args.seconds,
                run_ms=args.run_ms,
                core=args.core,
                progress=lambda done: bar.update(task, completed=round(done * 100)),
            )
        except ValueError as exc:  # a bad --seconds, --run-ms or --core
            raise ExecrlError(str(exc)) from None
    header, rows = report.table()
    title = f"CPU time of identical work · core {report.core} · {report.machine.describe()}"
    print_table(header, rows, title=title)
    console.print(report.verdict(), highlight=False)
    if args.out:
        save_json(report, args.out)
    return EXIT_OK if report.cv <= FLOOR_TARGET_CV else EXIT_CHECK_FAILED
