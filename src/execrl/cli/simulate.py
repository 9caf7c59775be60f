"""``execrl simulate run | sweep``: the offline reward simulator (spec §7).

Stored runs come from a timing campaign (``--campaign ID``, on the problems of SOURCE), from
scoring records (``--records FILE``, e.g. what ``execrl score`` writes) or from a synthetic
corpus (``--synthetic N``). ``run`` replays chosen environments × rewards and prints their
diagnostics; ``sweep`` replays the whole screening grid of spec §2 and writes an HTML report
with the ranked table and heatmaps. Nothing is executed.

Exit codes: 0 done, 2 bad input (unknown campaign or preset, no stored runs, …).
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

from execrl.cli._common import EXIT_OK, console, print_table
from execrl.cli._simulate_options import (
    add_simulate_arguments,
    calibration_of,
    load_source,
    schedule_of,
)
from execrl.errors import ExecrlError
from execrl.simulate.grid import FAMILIES, REWARD_SHAPES, environment_grid
from execrl.simulate.report import write_simulation_report, write_sweep_report
from execrl.simulate.simulation import simulate
from execrl.simulate.sources import describe_schedule, simulation_table, sweep_table
from execrl.simulate.sweep import sweep


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "simulate",
        help="screen environments and rewards offline on stored durations (no execution)",
        description="The offline reward simulator: replay reference solutions from weak to "
        "strong quality bands through environments and rewards, with stored per-test "
        "verdicts and durations, and diagnose the reward curves (spec §7).",
    )
    sub = p.add_subparsers(dest="simulate_command", metavar="COMMAND", required=True)
    run = sub.add_parser(
        "run",
        help="curves and diagnostics of chosen environments × rewards",
        description="Replay every correct reference under each --env × --reward and print "
        "the diagnostics of its curve; --out writes an HTML report with the curves.",
    )
    add_simulate_arguments(run)
    run.add_argument(
        "--env",
        action="append",
        metavar="SPEC",
        help="an environment such as 'qp(p=0.3)' (repeatable; default: qp(p=0.3))",
    )
    run.add_argument(
        "--reward",
        action="append",
        metavar="SPEC",
        help="a reward such as 'collapsed(graded, map=bucket)' (repeatable; default: collapsed)",
    )
    run.add_argument(
        "--path",
        choices=("vectorised", "replay"),
        default="vectorised",
        help="vectorised engine (default) or execrl's own per-outcome code, one pair at a time",
    )
    run.add_argument("--out", type=Path, metavar="DIR", help="write an HTML report here")
    run.set_defaults(handler=cmd_run)

    grid = sub.add_parser(
        "sweep",
        help="the screening grid of spec §2 × every reward shape, ranked, with heatmaps",
        description="Replay every environment family × parameter value × reward shape, flag "
        "degenerate configurations, rank the others and write an HTML report (ranked table, "
        "heatmaps per family, curves) and configurations.csv.",
    )
    add_simulate_arguments(grid)
    grid.add_argument(
        "--families",
        metavar="LIST",
        help=f"comma-separated families (default: all of {', '.join(FAMILIES)})",
    )
    grid.add_argument(
        "--rewards", metavar="LIST", help="semicolon-separated reward specs (default: all 28)"
    )
    grid.add_argument("--top", type=int, default=20, help="rows of the ranked table (20)")
    grid.add_argument(
        "--out", type=Path, metavar="DIR", help="report folder (default: runs/simulate-<time>)"
    )
    grid.set_defaults(handler=cmd_sweep)


def cmd_run(args: argparse.Namespace) -> int:
    runs, corpus = load_source(args)
    schedule = schedule_of(args, runs)
    calibration = calibration_of(args)
    simulations = [
        simulate(
            runs, env, rew, schedule=schedule, metric=args.metric, window=args.window,
            calibration=calibration, path=args.path,
        )
        for env in args.env or ["qp(p=0.3)"]
        for rew in args.reward or ["collapsed"]
    ]  # fmt: skip
    described = describe_schedule(schedule, args.quality_campaign)
    title = f"{corpus}; {described} (~: smoothed)"
    print_table(*simulation_table(simulations), title=title, align="lllR")
    if args.out:
        path = write_simulation_report(simulations, args.out, corpus=corpus, schedule=described)
        console.print(f"report: {path}", highlight=False)
    return EXIT_OK


def cmd_sweep(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise ExecrlError(f"--top {args.top}: show at least 1 row")
    families = [f.strip() for f in args.families.split(",")] if args.families else None
    rewards = [r.strip() for r in args.rewards.split(";")] if args.rewards else None
    grid = environment_grid(families)
    runs, corpus = load_source(args)
    schedule = schedule_of(args, runs)
    out = args.out or Path("runs") / f"simulate-{datetime.now(UTC):%Y%m%d-%H%M%S}"
    quality = f" (quality from {args.quality_campaign})" if args.quality_campaign else ""
    result = sweep(
        runs, grid, rewards or list(REWARD_SHAPES), schedule=schedule, metric=args.metric,
        window=args.window, calibration=calibration_of(args), corpus=corpus + quality,
    )  # fmt: skip
    title = (
        f"best {args.top} distinct curves of {len(result.ranked):,} non-degenerate configurations"
    )
    print_table(*sweep_table(result, args.top), title=title, align="rllr")
    console.print(
        f"{len(result.rows):,} configurations on {corpus} in {result.seconds:.1f} s; "
        f"{len(result.degenerate):,} degenerate",
        highlight=False,
    )
    highlight = [("qp(p=0.3)", "collapsed(binary)")]
    path = write_sweep_report(result, out, top=args.top, highlight=highlight)
    console.print(f"report: {path}", highlight=False)
    return EXIT_OK
