"""``execrl timing drift | report``: whether a calibration map still holds on this machine
(sentinel references rerun now), and an HTML report of a campaign's noise, a calibration and
a contention test.

Exit codes: 0 done (``drift``: no sentinel drifted), 1 ``drift`` found a sentinel outside its
band, 2 bad input (unknown campaign or map, matplotlib missing for ``report``).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from execrl.cli._common import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    add_source_arguments,
    console,
    print_table,
    require_counting,
)
from execrl.cli._files import STORE_HELP, open_store, writable_folder
from execrl.errors import ExecrlError, UsageError
from execrl.problems.io import load_problems
from execrl.timing.calibration import load_calibration
from execrl.timing.drift import DEFAULT_K, monitor
from execrl.timing.report import write_report
from execrl.timing.store import describe_timing


def register(sub: argparse._SubParsersAction) -> None:
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
    title = (
        f"drift of {args.calibration!r} ({cmap.formula}), {describe_timing(report.timing)}, band "
        f"fresh/predicted in [{low:.3f}, {high:.3f}]"
    )
    print_table(header, rows, title=title)
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
