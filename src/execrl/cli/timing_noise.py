"""``execrl timing noise | contention | floor | drift | report``: how noisy the stored
durations are, how much a loaded machine moves them, how noisy the machine itself is, whether a
calibration still holds, and an HTML report.

Exit codes: 0 done (``drift``: no sentinel drifted), 1 ``drift`` found a sentinel outside its
band or ``floor`` found the machine too noisy, 2 bad input (unknown campaign or map, bad
--loads, matplotlib missing for ``report``).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from execrl.cli._common import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    TIMING_HELP,
    add_source_arguments,
    add_timing_argument,
    console,
    require_counting,
    save_json,
    writable_file,
    writable_folder,
)
from execrl.cli.timing_campaign import STORE_HELP, open_store
from execrl.errors import ExecrlError, UsageError
from execrl.problems.io import load_problems, select_problems
from execrl.sandbox.batch import _progress
from execrl.timing.calibration import load_calibration
from execrl.timing.contention import contention_test
from execrl.timing.diagnostics import diagnose
from execrl.timing.drift import DEFAULT_K, monitor
from execrl.timing.floor import FLOOR_TARGET_CV, measure_floor
from execrl.timing.report import write_report
from execrl.timing.store import describe_timing

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

    p = sub.add_parser(
        "drift",
        help="rerun sentinel references and check a calibration map still holds",
        description="Rerun a few sentinel references now and flag any whose fresh durations "
        "leave the calibration's band (±k residual std in log space). Exit 1 when one does.",
    )
    add_source_arguments(p)
    p.add_argument("--calibration", required=True, metavar="NAME", help="a map in the store")
    p.add_argument("--store", type=Path, metavar="DIR", help=STORE_HELP)
    p.add_argument(
        "--sentinel",
        action="append",
        dest="sentinels",
        metavar="PROBLEM:REFERENCE",
        help="a sentinel (repeatable; default: the fastest and slowest correct reference of "
        "3 problems of the stored campaign)",
    )
    p.add_argument("--k", type=float, default=DEFAULT_K, help=f"band width (default: {DEFAULT_K})")
    p.add_argument("--reruns", type=int, default=3, metavar="K", help="default: 3")
    p.set_defaults(handler=cmd_drift)

    p = sub.add_parser(
        "report",
        help="write an HTML report with PNGs: noise, calibration, contention",
        description="One self-contained HTML file with the PNGs next to it: the noise tables "
        "and plots of a campaign; with --calibration, the stored-vs-fresh scatter before and "
        "after the map and its residuals; with --contention, CPU vs wall noise per load.",
    )
    p.add_argument("--campaign", metavar="ID", help="campaign id or prefix (default: latest)")
    p.add_argument(
        "--fresh",
        metavar="ID",
        help="the fresh campaign for the calibration plots (default: the one the map was "
        "fitted against)",
    )
    p.add_argument("--calibration", metavar="NAME", help="a map in the store")
    p.add_argument(
        "--contention", type=Path, metavar="FILE", help="a JSON from `execrl timing contention`"
    )
    p.add_argument("--out", type=Path, metavar="DIR", help="default: <store>/reports/<campaign id>")
    p.add_argument("--store", type=Path, metavar="DIR", help=STORE_HELP)
    p.set_defaults(handler=cmd_report)


def finite(flag: str, value: float, low: float, high: float) -> None:
    """A number option in [low, high] (NaN and infinities refused)."""
    if not (math.isfinite(value) and low <= value <= high):
        raise UsageError(f"{flag} {value}: expected a number from {low:g} to {high:g}")


# --------------------------------------------------------------------------------------------
# noise


def cmd_noise(args: argparse.Namespace) -> int:
    campaign = open_store(args.store).load(args.campaign)
    report = diagnose(campaign)
    console.print(
        f"campaign {campaign.id} · {campaign.info.machine.describe()} · {report.reruns} reruns",
        highlight=False,
    )
    for title, header, rows in report.tables(per_test=args.per_test):
        print_table(title, header, rows)
    return EXIT_OK


def print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    table = Table(title=title, title_justify="left")
    for i, col in enumerate(header):
        table.add_column(escape(col), justify="left" if i < 2 else "right")
    for row in rows:
        table.add_row(*(escape(c) for c in row))
    console.print(table)


# --------------------------------------------------------------------------------------------
# contention


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
    print_table(f"contention · {report.machine.describe()}", header, rows)
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


# --------------------------------------------------------------------------------------------
# floor


def cmd_floor(args: argparse.Namespace) -> int:
    finite("--seconds", args.seconds, 0.001, 3600)
    finite("--run-ms", args.run_ms, 0.001, 60_000)
    writable_file(args.out, "--out")
    with _progress(True) as bar:
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
    print_table(
        f"CPU time of identical work · core {report.core} · {report.machine.describe()}",
        header,
        rows,
    )
    console.print(report.verdict(), highlight=False)
    if args.out:
        save_json(report, args.out)
    return EXIT_OK if report.cv <= FLOOR_TARGET_CV else EXIT_CHECK_FAILED


# --------------------------------------------------------------------------------------------
# drift


def cmd_drift(args: argparse.Namespace) -> int:
    if not (math.isfinite(args.k) and args.k > 0) or args.reruns < 1:
        raise UsageError(f"--k {args.k} and --reruns {args.reruns}: both take a positive number")
    sentinels = [parse_sentinel(s) for s in args.sentinels or []]
    store = open_store(args.store)
    cmap = load_calibration(store, args.calibration)
    require_counting(cmap.timing)  # (a counted map's sentinels are rerun counted)
    problems = load_problems(args.source, format=args.format)
    report = monitor(
        store, cmap, problems, k=args.k, sentinels=sentinels or None, reruns=args.reruns,
        progress=True,
    )  # fmt: skip
    header, rows = report.table()
    low, high = report.band_ratio
    print_table(
        f"drift of {args.calibration!r} ({cmap.formula}), {describe_timing(report.timing)}, band "
        f"fresh/predicted in [{low:.3f}, {high:.3f}]",
        header,
        rows,
    )
    if report.drifted:
        console.print(
            "DRIFTED: this machine no longer times the sentinels as the calibration predicts; "
            "run a fresh campaign and `execrl timing calibrate` again",
            highlight=False,
        )
        return EXIT_CHECK_FAILED
    console.print("no drift: every sentinel is within the band", highlight=False)
    return EXIT_OK


def parse_sentinel(text: str) -> tuple[str, str]:
    problem, sep, reference = text.partition(":")
    if not sep or not problem or not reference:
        raise ExecrlError(f"--sentinel {text!r}: write it as PROBLEM:REFERENCE")
    return problem, reference


# --------------------------------------------------------------------------------------------
# report


def cmd_report(args: argparse.Namespace) -> int:
    store = open_store(args.store)
    campaign = store.load(args.campaign)
    cmap = load_calibration(store, args.calibration) if args.calibration else None
    fresh_id = args.fresh or (cmap.fitted_on[-1] if cmap and cmap.fitted_on else None)
    if cmap is not None and fresh_id is None:
        raise ExecrlError("--calibration needs a fresh campaign to compare with; give --fresh")
    fresh = store.load(fresh_id) if fresh_id else None
    out = args.out or store.root / "reports" / campaign.id
    writable_folder(out, "--out")
    path = write_report(campaign, out, fresh=fresh, calibration=cmap, contention=args.contention)
    console.print(f"report written to {path}", highlight=False)
    return EXIT_OK
