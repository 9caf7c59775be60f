"""``execrl report PATH``: (re)build the HTML report of whatever PATH holds.

- a training run (``metrics.jsonl`` + ``config.yaml``): ``execrl train --report``;
- an executed evaluation folder (``eval.json``): ``execrl eval metrics`` with its defaults;
- a timing campaign id in the store (or ``latest``): ``execrl timing report``.

Simulations write their report when they run (``execrl simulate run|sweep --out DIR``); their
folders hold the finished page, which this command points to.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape

from execrl.cli._common import EXIT_OK, console
from execrl.errors import UsageError


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
        from execrl.rl.train_report import write_training_report

        return _done("training run", write_training_report(path))
    if (path / "eval.json").is_file():
        from execrl.cli.main import main

        return main(["eval", "metrics", str(path)])
    if (path / "index.html").is_file() and (path / "configurations.csv").is_file():
        return _done("simulation sweep (written when it ran)", path / "index.html")
    from execrl.timing.store import DurationStore

    if args.path == "latest" or any(i.startswith(args.path) for i in DurationStore().ids()):
        from execrl.cli.main import main

        campaign = [] if args.path == "latest" else ["--campaign", args.path]
        return main(["timing", "report", *campaign])
    raise UsageError(
        f"{args.path}: not a training run (metrics.jsonl), an evaluation folder (eval.json), "
        "a simulation output or a timing campaign"
    )


def _done(what: str, page: Path) -> int:
    console.print(f"{what}: {escape(str(page))}")
    return EXIT_OK
