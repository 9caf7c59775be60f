"""``execrl timing …``: reference-duration campaigns, calibration, noise diagnostics, the noise
study and reports (spec §1, §5, §6). Each sub-command group lives in its own module; this one
is their command table."""

from __future__ import annotations

import argparse

from execrl.cli import timing_campaign, timing_drift, timing_noise, timing_noise_study


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "timing",
        help="measure, calibrate and diagnose reference durations",
        description="Reference-duration campaigns, calibration maps, noise diagnostics, the "
        "contention test, the drift monitor, the synthetic noise study and campaign reports.",
    )
    sub = p.add_subparsers(dest="timing_command", metavar="COMMAND", required=True)
    timing_campaign.register(sub)
    timing_noise.register(sub)
    timing_drift.register(sub)
    timing_noise_study.register(sub)
