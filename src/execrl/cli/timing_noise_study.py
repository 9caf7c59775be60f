"""``execrl timing study``: the synthetic noise study (spec §5, §6) — how often a timeout count
and a per-test win rate identify the faster of two solutions under growing timing noise.

Prints the key numbers and writes ``noise_study.json`` (every curve, as tidy rows) and four PNGs
into ``--out``. Needs no sandbox and no data: the durations are drawn from fixed seeds.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.table import Table

from execrl.cli._common import EXIT_OK, console
from execrl.cli._files import writable_folder
from execrl.timing.noise_study import STRUCTURES, NoiseStudy, plot_noise_study, run_noise_study

STRUCTURE_NAMES = {share: name for name, share in STRUCTURES.items()}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "study",
        help="synthetic noise study: timeout count versus per-test win rate",
        description="Simulate two solutions (B 20% faster than A) on short and long tests under "
        "additive and multiplicative timing noise, independent or shared by A and B, and measure "
        "how often a timeout count and a per-test win rate identify B.",
    )
    p.add_argument("--trials", type=int, default=2000, help="trials per point (2000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (0)")
    p.add_argument(
        "--out",
        type=Path,
        default=Path("runs/noise-study"),
        help="folder for noise_study.json and the PNGs (runs/noise-study)",
    )
    p.set_defaults(handler=cmd_study)


def cmd_study(args: argparse.Namespace) -> int:
    writable_folder(args.out, "--out")  # before the simulation
    study = run_noise_study(seed=args.seed, trials=args.trials)
    console.print(summary_table(study))
    report = args.out / "noise_study.json"
    report.write_text(study.model_dump_json(indent=2) + "\n", encoding="utf-8")
    console.print(f"curves in {report}")
    for path in plot_noise_study(study, args.out):
        console.print(f"plot in {path}")
    return EXIT_OK


def summary_table(study: NoiseStudy) -> Table:
    table = Table(
        title=f"noise study: accuracy identifying the faster solution ({study.trials} trials, "
        f"seed {study.seed}; chance = 0.5)",
        title_justify="left",
    )
    for column in ("tests", "noise", "sd", "structure"):
        table.add_column(column)
    for column in ("timeout, oracle τ", "timeout, best τ", "win rate"):
        table.add_column(column, justify="right")
    for row in study.summary():
        unit = " s" if row.noise_kind == "additive" else ""
        table.add_row(
            row.regime,
            row.noise_kind if row.noise_sd else "none",
            f"{row.noise_sd:g}{unit}" if row.noise_sd else "—",
            STRUCTURE_NAMES[row.shared_share] if row.noise_sd else "—",
            f"{row.timeout_oracle:.3f}",
            f"{row.timeout_best:.3f}",
            f"{row.win_rate:.3f}",
        )
    return table
