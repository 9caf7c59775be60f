"""``execrl train``: the reference trainer on a preset, a YAML config and overrides.

Bare ``execrl train`` is the README's main job: the ``demo`` preset (RLVR with dynamic
sampling, pass-rate prompt selection and LoRA), the bundled SmolLM2-135M on the starter
problems, held-out pass@1 before and after, and an HTML report in the run folder.
``--resume RUN`` continues a run from its latest checkpoint; ``--report RUN`` rebuilds a run's
report from its files. Exit codes: 0 trained, 2 bad config or missing model.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from execrl.cli._common import EXIT_OK, console
from execrl.cli._executor import add_executor_argument, executor_spec, executor_text
from execrl.cli._files import writable_folder
from execrl.errors import UsageError
from execrl.rl import train as training
from execrl.rl.config import preset_names, preset_text
from execrl.rl.runs import config_yaml, new_run_folder, resume_config
from execrl.rl.train_report import summary_lines, write_training_report

DEFAULT_PRESET = training.DEFAULT_PRESET


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "train",
        help="train a policy with the reference GRPO trainer (default: the CPU demo)",
        description="Train a policy on execution rewards. Settings come from a named preset "
        "(--preset), then a YAML file (--config), then key=value overrides (--set). The run "
        "folder receives metrics.jsonl, rollouts.jsonl, checkpoints, evaluations.json and "
        "report/index.html.",
    )
    p.add_argument("--preset", default=None, help=f"a named preset (default: {DEFAULT_PRESET})")
    p.add_argument("--config", type=Path, help="a YAML file of settings on top of the preset")
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one setting, e.g. --set optim.lr=1e-5 --set steps=20 (repeatable)",
    )
    p.add_argument("--out", type=Path, help="the run folder (default: runs/train-<time>)")
    p.add_argument("--resume", type=Path, metavar="RUN", help="continue RUN from its checkpoint")
    p.add_argument("--report", type=Path, metavar="RUN", help="only rebuild RUN's report")
    p.add_argument("--list-presets", action="store_true", help="list the presets and exit")
    p.add_argument("--show-config", action="store_true", help="print the resolved config, exit")
    p.add_argument("--quiet", action="store_true", help="no progress bar or per-step lines")
    add_executor_argument(p, fallback_timeout=False)  # (the config's `executor`; --resume)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.list_presets:
        return _list_presets(preset_names())
    if args.report is not None:
        path = write_training_report(args.report)
        console.print(f"report: {escape(str(path))}")
        return EXIT_OK
    if args.resume is not None:
        if args.preset or args.config or args.overrides:
            raise UsageError(
                "--resume takes the run's own config.yaml; drop --preset/--config/--set"
            )
        config = resume_config(args.resume, _executor_override(args))  # (before any model)
        out = args.resume
    else:
        overrides = [*args.overrides, *_executor_override(args)]
        config = training.load_config(args.preset or DEFAULT_PRESET, args.config, overrides)
        out = args.out or new_run_folder()
    if args.show_config:
        console.print(config_yaml(config))
        return EXIT_OK
    writable_folder(out, "--out")  # before the model loads
    log = None if args.quiet else (lambda line: console.print(escape(line)))
    console.print(
        f"training: preset {config.preset}, {config.steps} steps × {config.prompts_per_step} "
        f"prompts × {config.group_size} rollouts → {escape(str(out))}"
    )
    training.run_training(
        config, out, resume=args.resume is not None, progress=not args.quiet, log=log
    )
    for line in summary_lines(out):
        console.print(escape(line))
    console.print(f"report: {escape(str(out / 'report' / 'index.html'))}")
    return EXIT_OK


def _executor_override(args: argparse.Namespace) -> list[str]:
    """--executor (or $EXECRL_EXECUTOR) as the override of the config's ``executor``; none
    when neither is given, so the config's own setting stands."""
    executor_spec(args)  # (checked before the model loads, naming the flag)
    given = executor_text(args)
    return [] if given is None else [f"executor={json.dumps(given)}"]


def _list_presets(names: list[str]) -> int:
    table = Table(title="training presets (--preset)")
    table.add_column("name")
    table.add_column("what it is")
    for name in names:
        text = preset_text(name)
        comment = " ".join(
            line.lstrip("# ").strip() for line in text.splitlines() if line.startswith("#")
        )
        table.add_row(name, comment)
    console.print(table)
    return EXIT_OK
