"""``execrl timing campaign | list | calibrate``: measure reference durations into the store,
list the stored campaigns, and fit a calibration map between two of them (spec §1, §6).

With ``--timing instructions`` (or ``cycles_estimate``) every passing test is also counted under
Valgrind: the campaign keeps the counts beside the native CPU and wall times, and the count rate
of this machine (counts per CPU second, ``fit_count_rate``) is saved under the campaign's id.

Exit codes: 0 done (a campaign with failed or inconclusive reruns is still saved and reported),
2 bad input (unknown campaign, nothing to pair, a store path that is not a folder, a counted
timing without a working Valgrind).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.text import Text

from execrl.cli._common import (
    EXIT_OK,
    TIMING_HELP,
    add_source_arguments,
    add_timing_argument,
    check_range,
    console,
    print_table,
    require_counting,
)
from execrl.cli._executor import (
    MAX_JOBS,
    add_executor_argument,
    add_timed_jobs_argument,
    executor_spec,
    open_timed_executor,
)
from execrl.cli._files import STORE_HELP, check_resume, open_store
from execrl.cli._flags import also_flags
from execrl.errors import DataError, UsageError
from execrl.problems.io import load_problems, select_problems
from execrl.sandbox.limits import is_counted
from execrl.timing import campaigns
from execrl.timing.calibration import calibrate, save_calibration
from execrl.timing.store import Campaign, DurationStore, describe_timing, run_campaign


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "campaign",
        help="measure every correct reference's durations and save them as a campaign",
        description="Run every correct reference on its problem's optimization tests, K full "
        "shuffled passes without fallback, and save every rerun as a campaign in the store.",
    )
    add_source_arguments(p)
    p.add_argument("--id", action="append", dest="ids", help="only these problem ids (repeatable)")
    p.add_argument("--reruns", type=int, default=3, metavar="K", help="passes (default: 3)")
    p.add_argument(
        "--max-tests",
        type=int,
        metavar="N",
        help="only the N smallest optimization tests per problem (default: all)",
    )
    p.add_argument("--store", type=Path, metavar="DIR", help=STORE_HELP)
    p.add_argument("--note", default="", metavar="TEXT", help="a note kept in the campaign")
    add_timing_argument(
        p, help="what the campaign measures besides CPU and wall time: " + TIMING_HELP
    )
    add_timed_jobs_argument(p)
    add_executor_argument(p)
    again = p.add_mutually_exclusive_group()
    again.add_argument(
        "--resume",
        action="store_true",
        help="continue the store's interrupted campaign (same problems and settings)",
    )
    again.add_argument(
        "--restart", action="store_true", help="discard an interrupted campaign and start over"
    )
    p.set_defaults(handler=cmd_campaign)

    p = sub.add_parser("list", help="list the campaigns in the store")
    p.add_argument("--store", type=Path, metavar="DIR", help=STORE_HELP)
    p.set_defaults(handler=cmd_list)

    p = sub.add_parser(
        "calibrate",
        help="fit a map from a stored campaign's durations to a fresh campaign's",
        description="Fit the multiplicative, affine, power-law and quadratic maps stored → "
        "fresh with leave-one-problem-out cross-validation, print them, and save the chosen "
        "one (best R²_CV) in the store. The map is for reference durations only.",
    )
    p.add_argument("--stored", required=True, metavar="ID", help="the stored campaign (id prefix)")
    p.add_argument("--fresh", required=True, metavar="ID", help="the fresh campaign (id prefix)")
    p.add_argument("--name", help="save the chosen map under this name (default: the fresh id)")
    add_timing_argument(
        p, help="which durations to pair (a count: both campaigns counted it): " + TIMING_HELP
    )
    p.add_argument("--store", type=Path, metavar="DIR", help=STORE_HELP)
    p.add_argument(
        "--mix-machines",
        action="store_true",
        help="calibrate a campaign whose reruns ran on several machines (refused by default)",
    )
    also_flags(p, allow_mixed_machines="--mix-machines")
    p.set_defaults(handler=cmd_calibrate)


def cmd_campaign(args: argparse.Namespace) -> int:
    check_range("--reruns", args.reruns, 1, 1000, "passes")
    check_range("--max-tests", args.max_tests, 1, 10**6, "tests per problem")
    check_range("--jobs", args.jobs, 1, MAX_JOBS, "sandbox workers")
    executor_spec(args)  # (a bad --executor is refused before anything is read or started)
    require_counting(args.timing)
    store = open_store(args.store)
    campaigns.prepare_store(store)  # before the sandbox starts
    finished = None if args.restart else store.interrupted()  # (--restart: unread)
    check_resume(args, finished, store.journal_path)
    problems = select_problems(load_problems(args.source, format=args.format), args.ids)
    try:
        with open_timed_executor(args) as executor:
            campaign = run_campaign(
                problems, executor, reruns=args.reruns, max_tests=args.max_tests, note=args.note,
                journal=store.journal_path, resume=args.resume, timing=args.timing,
            )  # fmt: skip
    except KeyboardInterrupt:
        print(
            f"{store.interrupted() or 0} finished runs kept in {store.journal_path}; continue "
            "with `execrl timing campaign --resume` (same options)",
            file=sys.stderr,
        )
        raise
    path = campaigns.save_campaign(store, campaign)
    failed, inconclusive = campaigns.unsuccessful(campaign)
    console.print(
        f"campaign {campaign.id} ({args.timing}): {len(campaign.measurements)} triples over "
        f"{len(campaign.info.problems)} problems × {args.reruns} reruns · "
        f"{failed} with a failed or timed-out rerun · {inconclusive} with an inconclusive "
        f"rerun · saved to {path}",
        highlight=False,
    )
    if is_counted(campaign.timing):
        save_rate(store, campaign)
    return EXIT_OK


def save_rate(store: DurationStore, campaign: Campaign) -> None:
    """Fit this machine's count rate on a counted campaign and save it under the campaign's id
    (a note instead when no passing test was counted)."""
    try:
        rate, path = campaigns.save_campaign_rate(store, campaign)
    except (DataError, UsageError) as exc:  # (nothing counted; reruns on several machines)
        console.print(f"no count rate: {exc}", highlight=False)
        return
    console.print(f"count rate: {rate.describe()} · saved to {path}", highlight=False)


def cmd_list(args: argparse.Namespace) -> int:
    store = open_store(args.store)
    if not store.ids():
        console.print(
            f"no campaigns in {store.campaigns_dir}; run `execrl timing campaign`",
            highlight=False,
        )
        return EXIT_OK
    title = f"campaigns in {store.campaigns_dir}"
    print_table(*campaigns.campaigns_table(store), title=title, align="llllrrrl")
    return EXIT_OK


def cmd_calibrate(args: argparse.Namespace) -> int:
    store = open_store(args.store)
    stored, fresh = store.load(args.stored), store.load(args.fresh)
    report = calibrate(stored, fresh, timing=args.timing, allow_mixed_machines=args.mix_machines)
    m = report.chosen.metrics
    header, rows = campaigns.calibration_table(report, args.timing)
    cells = [[Text(r[0], style="bold") if r[0].endswith(" ✓") else r[0], *r[1:]] for r in rows]
    title = (
        f"{stored.id} (stored) → {fresh.id} (fresh), {describe_timing(args.timing)}: "
        f"{m.triples} triples, {m.problems} problems, leave-one-problem-out"
    )
    print_table(header, cells, title=title, align="LLr")
    path = save_calibration(store, report.chosen, args.name or fresh.id)
    console.print(
        "ρ: Spearman correlation with the fresh durations before → after calibration, over all "
        "triples or inside each problem (mean); bias: (predicted − fresh)/fresh per held-out "
        "problem\n"
        f"chosen: {report.chosen.kind} ({report.chosen.formula}) · saved to {path} · "
        "apply it to reference durations only, never to candidates",
        highlight=False,
    )
    return EXIT_OK
