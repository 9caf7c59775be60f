"""The options of ``execrl simulate run | sweep`` and what they name: the stored runs (a
campaign, a records file or a synthetic corpus), the calibration map and the schedule, read
through :mod:`execrl.simulate.sources` (the commands: :mod:`execrl.cli.simulate`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from execrl.cli._common import add_count_rate_argument, add_source_arguments, add_timing_argument
from execrl.cli._files import STORE_HELP, open_store
from execrl.errors import ExecrlError
from execrl.problems.io import load_problems, select_problems
from execrl.problems.models import Problem
from execrl.simulate.diagnostics import DEFAULT_WINDOW
from execrl.simulate.runs import StoredRuns
from execrl.simulate.schedule import Schedule
from execrl.simulate.sources import load_stored_runs, load_synthetic_runs, quality_from_campaign
from execrl.timing.calibration import CalibrationMap, load_calibration


def add_simulate_arguments(p: argparse.ArgumentParser) -> None:
    """The options ``run`` and ``sweep`` share: SOURCE, the stored runs, the schedule."""
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


def calibration_of(args: argparse.Namespace) -> CalibrationMap | None:
    """The --calibration map of the store (None without one)."""
    return load_calibration(open_store(args.store), args.calibration) if args.calibration else None


def schedule_of(args: argparse.Namespace, runs: StoredRuns) -> Schedule:
    """The quality bands to replay ``runs`` over (from --quality-campaign when given)."""
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
