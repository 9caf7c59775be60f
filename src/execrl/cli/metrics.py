"""``execrl metrics``: screen the 17 ranking metrics (spec §3) on reruns of reference solutions.

``execrl metrics screen RECORDS`` reads the records of the problems' correct references (from
``execrl score`` or ``save_records``, made with repeats > 1 to measure rerun noise), scores
each reference against the others and prints one row per metric.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.table import Table

from execrl.cli._common import EXIT_OK, add_count_rate_argument, add_timing_argument, console
from execrl.cli._files import save_json
from execrl.envs.outcome import describe_timing
from execrl.envs.screening import ScreeningReport, plot_screening, read_records, screen_metrics
from execrl.errors import DataError
from execrl.problems.io import BUNDLED, FORMATS, load_problems


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "metrics",
        help="screen ranking metrics on reference solutions",
        description="Ranking metrics of spec §3: screen them on reruns of reference solutions.",
    )
    sub = p.add_subparsers(dest="metrics_command", metavar="COMMAND", required=True)
    screen = sub.add_parser(
        "screen",
        help="harshness, dynamic range, rerun noise and agreement of the 17 ranking metrics",
        description="Score every correct reference against the others (leave-one-out) on each "
        "rerun and summarise each ranking metric on four axes.",
    )
    screen.add_argument(
        "records", type=Path, help="records file (.jsonl[.gz] / .parquet, e.g. from execrl score)"
    )
    screen.add_argument(
        "--source", default=BUNDLED, help="the problem set the records were made from (bundled)"
    )
    screen.add_argument("--format", choices=FORMATS, help="the source's format (guessed)")
    add_timing_argument(screen, help="which duration to rank")
    add_count_rate_argument(screen)
    screen.add_argument("--plot", type=Path, help="write a PNG of the four axes here")
    screen.add_argument("--out", type=Path, help="write the full report (JSON) here")
    screen.set_defaults(handler=cmd_screen)


def cmd_screen(args: argparse.Namespace) -> int:
    records = read_records(args.records)
    problems = load_problems(args.source, format=args.format)
    report = screen_metrics(problems, records, timing=args.timing, count_rate=args.count_rate)
    if not report.solutions:  # an empty table would look like a result
        raise DataError(
            f"{args.records}: no records of correct reference solutions to screen "
            f"({len(records)} records, {report.ignored_records} of other programs); record the "
            "references' reruns as docs/ranking-metrics.md shows"
        )
    console.print(screening_table(report))
    console.print(
        f"{len(report.solutions)} reference solutions on {report.problems} problems, "
        f"{report.reruns} reruns, {describe_timing(report.timing)}"
        + (f"; {report.ignored_records} other records ignored" if report.ignored_records else "")
    )
    if args.out:
        save_json(report, args.out)
    if args.plot:
        console.print(f"plot in {plot_screening(report, args.plot)}")
    return EXIT_OK


def screening_table(report: ScreeningReport) -> Table:
    table = Table(
        title=f"ranking metrics (worst band = worst {report.worst_band:.0%} of the range)",
        title_justify="left",
    )
    table.add_column("metric")
    table.add_column("better", justify="center")
    for col in ("harshness", "dynamic range", "rerun std (pts)", "agreement"):
        table.add_column(col, justify="right")
    for row in report.rows:
        table.add_row(*row.cells())
    return table
