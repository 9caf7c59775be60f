"""``execrl eval metrics | replay``: every metric recomputed from an executed folder's records
(:func:`execrl.evaluate.write_report`), at one setting or along a sweep."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from pydantic import ValidationError
from rich.table import Table

from execrl.cli._common import (
    EXIT_OK,
    add_count_rate_argument,
    add_timing_argument,
    check_range,
    check_time_limit,
    console,
    safe_text,
)
from execrl.cli._files import writable_folder
from execrl.errors import ExecrlError, UsageError, validation_issues
from execrl.evaluate import (
    AXES,
    DEFAULT_KS,
    DEFAULT_TAUS,
    MetricOptions,
    ReplaySettings,
    load_eval,
    parse_ks,
    parse_taus,
    sweep,
    sweep_values,
    write_report,
)
from execrl.evaluate.report import pass_table, sweep_table, win_table, write_sweep_report
from execrl.evaluate.write_report import DEFAULT_ENV, DEFAULT_REWARDS, check_report_specs

REPLAY_FLAGS = {"cap_s": "--cap-s", "alpha": "--alpha", "beta": "--beta", "timing": "--timing"}
REPLAY_FLAGS["count_rate"] = "--count-rate"
"""The replay settings' fields and the options that set them."""


def add_replay_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", type=Path, help="an executed evaluation folder")
    p.add_argument("--tau", help=f"p_τ thresholds, comma-separated (default: {_csv(DEFAULT_TAUS)})")
    p.add_argument(
        "--baseline", help="the model win rates compare against (default: the first model sampled)"
    )
    p.add_argument("--cap-s", type=float, help="a hard budget per test, at most the executed cap")
    p.add_argument("--limit-s", type=float, help="an absolute intended limit on optimization tests")
    add_timing_argument(p, default=None, help="the durations to replay (default: as executed)")
    add_count_rate_argument(p)
    p.add_argument("--alpha", type=float, default=1.0, help="reference calibration slope α")
    p.add_argument(
        "--beta",
        type=float,
        default=0.0,
        help="reference calibration offset β (s, or a count under a counted --timing)",
    )
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    p.add_argument("--level", type=float, default=0.95, help="interval level (default: 0.95)")
    p.add_argument("--report", type=Path, help="report folder")


def register_metrics(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "metrics",
        help="p_τ pass@k, win rates, intervals and breakdowns from the stored records",
        description="Compute every evaluation metric from an executed folder (nothing runs "
        "again), print them, and write metrics.json and an HTML report.",
    )
    add_replay_options(p)
    p.add_argument("--k", help="pass@k values, comma-separated (default: 1,10)")
    p.add_argument(
        "--env", default=DEFAULT_ENV, help="degenerate-group ratio: the environment (qp(p=0.3))"
    )
    p.add_argument(
        "--reward",
        action="append",
        help="degenerate-group ratio: a reward (repeatable; default: correctness, collapsed)",
    )
    p.set_defaults(handler=cmd_metrics)


def register_replay(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="recompute the metrics along a sweep (calibration, cap, limit, τ) and plot them",
        description="Recompute every metric from the stored records at each value of one axis "
        "and plot how the model comparison moves. Values: LO:HI:N (evenly spaced) or a comma "
        "list.",
    )
    add_replay_options(p)
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument(
        "--sweep", metavar="AXIS=VALUES", help=f"the axis and its values; axes: {_csv(AXES)}"
    )
    group.add_argument(
        "--calibration-sweep",
        metavar="VALUES",
        help="shorthand for --sweep alpha=VALUES: scale the references' durations "
        "(< 1: the references look faster, > 1: slower)",
    )
    p.set_defaults(handler=cmd_replay)


def cmd_metrics(args: argparse.Namespace) -> int:
    data = load_eval(args.folder)
    out = writable_folder(args.report or args.folder / "report", "--report")  # before the work
    settings, options = replay_settings(args), metric_options(args, given_ks=args.k)
    rewards = args.reward or list(DEFAULT_REWARDS)
    check_report_specs(args.env, rewards)  # before any work
    options.estimation(data.models)  # (an unknown --baseline, before the work)
    report = write_report(
        data, out, settings=settings, options=options, env=args.env, rewards=rewards
    )
    for note in report.notes:
        print(f"warning: {note}", file=sys.stderr)
    metrics = report.metrics
    title = f"p_τ pass@k, {round(100 * metrics.level)}% intervals ({settings.describe()})"
    print_table(title, *pass_table(metrics, digits=2))
    if metrics.baseline is not None and len(metrics.models) > 1:
        print_table(f"win rates against {metrics.baseline}", *win_table(metrics, digits=2))
    console.print(f"report: {report.page}", highlight=False)
    return EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    text = f"alpha={args.calibration_sweep}" if args.calibration_sweep else args.sweep
    axis, _, values_text = text.partition("=")
    axis = axis.strip()
    if axis not in AXES or not values_text:
        raise ExecrlError(f"--sweep {text!r}: write AXIS=VALUES with AXIS one of {_csv(AXES)}")
    values = sweep_values(values_text)
    data = load_eval(args.folder)
    out = writable_folder(args.report or args.folder / f"replay-{axis}", "--report")
    base, options = replay_settings(args), metric_options(args)
    estimation = options.estimation(data.models)
    points = sweep(data, axis, values, base=base, taus=options.taus, progress=True, **estimation)
    page = write_sweep_report(points, axis, out, note=f"Other settings: {base.describe()}.")
    print_table(f"pass@1 along {axis}", *sweep_table(points, axis))
    console.print(f"report: {page}", highlight=False)
    return EXIT_OK


def replay_settings(args: argparse.Namespace) -> ReplaySettings:
    """The replay settings of the options, each refusal naming its option and value."""
    given = {"--cap-s": args.cap_s, "--limit-s": args.limit_s, "--alpha": args.alpha}
    given["--beta"] = args.beta
    for flag, value in given.items():
        if value is not None and not math.isfinite(value):
            raise UsageError(f"{flag} {value}: expected a finite number")
    check_time_limit("--cap-s", args.cap_s)
    check_time_limit("--limit-s", args.limit_s)
    try:
        return ReplaySettings.with_limit_s(
            args.limit_s,
            cap_s=args.cap_s,
            timing=args.timing,
            count_rate=args.count_rate,
            alpha=args.alpha,
            beta=args.beta,
        )
    except ValidationError as exc:
        first = validation_issues(exc)[0]
        flag = REPLAY_FLAGS.get(str(first.loc[0]) if first.loc else "", "a replay setting")
        raise UsageError(f"{flag} {first.got}: {first.message}") from None


def metric_options(args: argparse.Namespace, *, given_ks: str | None = None) -> MetricOptions:
    check_range("--resamples", args.resamples, 1, 10**6, "bootstrap resamples")
    check_range("--seed", args.seed, 0, 2**32 - 1, "(a bootstrap seed)")
    if not 0 < args.level < 1:
        raise UsageError(f"--level {args.level}: an interval level lies in (0, 1), e.g. 0.95")
    return MetricOptions(
        taus=parse_taus(args.tau) if args.tau else DEFAULT_TAUS,
        ks=parse_ks(given_ks) if given_ks else DEFAULT_KS,
        ks_given=bool(given_ks),
        baseline=args.baseline,
        resamples=args.resamples,
        seed=args.seed,
        level=args.level,
    )


def _csv(values) -> str:
    return ",".join(f"{v:g}" if isinstance(v, float | int) else str(v) for v in values)


def print_table(title: str, header: list[str], rows: list[list[object]]) -> None:
    table = Table(title=title, title_justify="left")
    for i, col in enumerate(header):
        table.add_column(col, justify="left" if i == 0 or col in ("model", "baseline") else "right")
    for row in rows:
        table.add_row(*(safe_text(c) for c in row))
    console.print(table)
