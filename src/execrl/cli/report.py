"""``execrl report PATH``: (re)build the HTML report of whatever PATH holds.

- a training run (``metrics.jsonl`` + ``config.yaml``): ``execrl train --report``;
- an executed evaluation folder (``eval.json``): ``execrl eval metrics`` with its defaults
  (:func:`execrl.evaluate.write_report`);
- a timing campaign id in the store (or ``latest``): ``execrl timing report`` with its
  defaults (:func:`execrl.timing.report.write_report`).

Simulations write their report when they run (``execrl simulate run|sweep --out DIR``); their
folders hold the finished page, which this command points to.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.markup import escape

from execrl.cli._common import EXIT_OK, console
from execrl.errors import UsageError
from execrl.evaluate import write_report
from execrl.rl.train_report import write_training_report
from execrl.timing.report import write_report as write_timing_report
from execrl.timing.store import DurationStore


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "report",
        help="build the HTML report of a training run, evaluation folder or timing campaign",
        description="Detect what PATH is (a training run, an executed evaluation folder, a "
        "timing campaign id or folder, a simulation output) and write its HTML report.",
    )
    p.add_argument("path", help="a run folder, an evaluation folder, a campaign id (or 'latest')")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    path = Path(args.path)
    if (path / "metrics.jsonl").is_file() and (path / "config.yaml").is_file():
        return _done("training run", write_training_report(path))
    if (path / "eval.json").is_file():
        report = write_report(path)  # `execrl eval metrics PATH` with its defaults
        for note in report.notes:
            print(f"warning: {note}", file=sys.stderr)
        return _done("evaluation", report.page)
    if (path / "index.html").is_file() and (path / "configurations.csv").is_file():
        return _done("simulation sweep (written when it ran)", path / "index.html")
    store = DurationStore()
    if args.path == "latest" or any(i.startswith(args.path) for i in store.ids()):
        campaign = store.load(None if args.path == "latest" else args.path)
        out = store.root / "reports" / campaign.id  # where `execrl timing report` writes it
        return _done("timing campaign", write_timing_report(campaign, out))
    raise UsageError(
        f"{args.path}: not a training run (metrics.jsonl), an evaluation folder (eval.json), "
        "a simulation output or a timing campaign"
    )


def _done(what: str, page: Path) -> int:
    console.print(f"{what}: {escape(str(page))}")
    return EXIT_OK
