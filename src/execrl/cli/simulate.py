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

from execrl.cli._common import (
    EXIT_OK,
    STORE_HELP,
    add_count_rate_argument,
    add_source_arguments,
    add_timing_argument,
    console,
    open_store,
    print_table,
)
from execrl.errors import ExecrlError
from execrl.problems.io import load_problems, select_problems
from execrl.problems.models import Problem
from execrl.simulate.diagnostics import DEFAULT_WINDOW
from execrl.simulate.grid import FAMILIES, REWARD_SHAPES, environment_grid
from execrl.simulate.report import write_simulation_report, write_sweep_report
from execrl.simulate.runs import StoredRuns
from execrl.simulate.schedule import Schedule
from execrl.simulate.simulation import simulate
from execrl.simulate.sources import (
    describe_schedule,
    load_stored_runs,
    load_synthetic_runs,
    quality_from_campaign,
    simulation_table,
    sweep_table,
)
from execrl.simulate.sweep import sweep
from execrl.timing.calibration import CalibrationMap, load_calibration


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
    _add_common(run)
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
    _add_common(grid)
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


def _add_common(p: argparse.ArgumentParser) -> None:
    add_source_arguments(p)
    p.add_argument("--id", action="append", dest="ids", help="only these problem ids (repeatable)")
    src = p.add_argument_group("stored runs (exactly one)")
    src.add_argument("--campaign", metavar="ID", help="a timing campaign (id prefix, or latest)")
    src.add_argument("--records", type=Path, metavar="FILE", help="scoring records (JSONL)")
    src.add_argument("--synthetic", type=int, metavar="N", help="a synthetic corpus of N problems")
    p.add_argument(
        "--quality-campaign",
        metavar="ID",
        help="take the quality bands from this campaign (of the same problems) and replay the "
        "durations of --campaign/--records: ranks not judged on the replayed durations",
    )
    p.add_argument("--store", type=Path, metavar="DIR", help=STORE_HELP)
    p.add_argument("--tests", type=int, default=120, help="synthetic: tests per problem (120)")
    p.add_argument(
        "--references", type=int, default=100, help="synthetic: references per problem (100)"
    )
    add_timing_argument(p, help="which stored durations to replay")
    add_count_rate_argument(p)
    p.add_argument("--calibration", metavar="NAME", help="a calibration map in the store")
    p.add_argument("--points", type=int, default=21, help="quality points x_i (21)")
    p.add_argument("--half-width", type=float, help="band half-width (default: tiling bands)")
    p.add_argument(
        "--draws", type=int, help="references drawn per problem and point (default: band mean)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed for draws and --synthetic (0)")
    p.add_argument(
        "--metric",
        choices=("reward", "pass"),
        default="reward",
        help="curve of the mean normalised reward (r+1)/2 (default) or the share with r > 0",
    )
    p.add_argument("--window", type=int, default=DEFAULT_WINDOW, help="moving-average window (3)")


def load_source(args: argparse.Namespace) -> tuple[StoredRuns, str]:
    """The stored runs the arguments name, and a one-line description of them."""
    given = [n for n in ("campaign", "records", "synthetic") if getattr(args, n) is not None]
    if len(given) != 1:
        raise ExecrlError(
            "give the stored runs: exactly one of --campaign ID, --records FILE or --synthetic N"
            + (f" (got {', '.join('--' + g for g in given)})" if given else "")
        )
    if args.synthetic is not None:
        if args.ids:
            raise ExecrlError("--id selects problems of SOURCE; a synthetic corpus has its own")
        return load_synthetic_runs(
            args.synthetic, tests=args.tests, references=args.references, seed=args.seed
        )
    campaign = None
    if args.campaign is not None:
        campaign = open_store(args.store).load(None if args.campaign == "latest" else args.campaign)
    return load_stored_runs(
        _problems(args), campaign=campaign, records=args.records, timing=args.timing,
        count_rate=args.count_rate,
    )  # fmt: skip


def _problems(args: argparse.Namespace) -> list[Problem]:
    return select_problems(load_problems(args.source, format=args.format), args.ids)


def _calibration(args: argparse.Namespace) -> CalibrationMap | None:
    return load_calibration(open_store(args.store), args.calibration) if args.calibration else None


def _schedule(args: argparse.Namespace, runs: StoredRuns) -> Schedule:
    quality = None
    if args.quality_campaign:
        if args.synthetic is not None:
            raise ExecrlError("--quality-campaign needs the runs of a campaign or records")
        campaign = open_store(args.store).load(args.quality_campaign)
        quality = quality_from_campaign(
            _problems(args), campaign, runs, timing=args.timing, count_rate=args.count_rate
        )
    return Schedule.build(
        runs, points=args.points, half_width=args.half_width, draws=args.draws, seed=args.seed,
        quality=quality,
    )  # fmt: skip


def cmd_run(args: argparse.Namespace) -> int:
    runs, corpus = load_source(args)
    schedule = _schedule(args, runs)
    calibration = _calibration(args)
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
    print_table(*simulation_table(simulations), title=title, align="lllr")
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
    schedule = _schedule(args, runs)
    out = args.out or Path("runs") / f"simulate-{datetime.now(UTC):%Y%m%d-%H%M%S}"
    quality = f" (quality from {args.quality_campaign})" if args.quality_campaign else ""
    result = sweep(
        runs, grid, rewards or list(REWARD_SHAPES), schedule=schedule, metric=args.metric,
        window=args.window, calibration=_calibration(args), corpus=corpus + quality,
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
