"""``execrl score``: the main job, and rewards for any programs under any environment.

Without ``--programs`` it scores the problem set's correct and incorrect references and
prints, per problem, whether the suite accepts every correct one, catches every incorrect one,
and how far apart the correct references' speeds are (the ``make demo`` job).

With ``--programs`` it scores the given programs (.py files, folders of them, or a JSONL of
model completions) under an environment and a reward (``execrl.rewards.streaming``): one
row per program, with the reward and every signal of its Outcome, goes to a JSONL file as it
is scored. Each mode is a module of its own (``score_programs``, ``score_references``).

Exit codes: 0 scored, 2 bad input or an inconclusive execution (the sandbox failed, not the
program).
"""

from __future__ import annotations

import argparse
import re
from datetime import UTC, datetime
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from execrl.cli._common import (
    EXIT_OK,
    add_count_rate_argument,
    add_source_arguments,
    add_timing_argument,
    console,
)
from execrl.cli._executor import (
    add_executor_argument,
    add_jobs_argument,
    add_sandbox_arguments,
    executor_spec,
    jobs,
)
from execrl.cli.score_programs import score_programs
from execrl.cli.score_references import verify_references
from execrl.envs.presets import PRESETS, describe_presets
from execrl.errors import UsageError
from execrl.rewards import REWARDS
from execrl.rewards.score_config import DEFAULT_ENV, DEFAULT_REWARD


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "score",
        help="score programs under an environment (default: every reference solution)",
        description="Without --programs: run every correct and incorrect reference of the "
        "problem set on every test and summarise (the main job). With --programs: score those "
        "programs under --env and --reward and write one row per program to a JSONL file.",
    )
    add_source_arguments(p)
    p.add_argument("--id", action="append", dest="ids", help="only these problem ids (repeatable)")
    p.add_argument(
        "--programs",
        action="append",
        type=Path,
        metavar="PATH",
        help="a source file (.py, .cpp, .java...: its extension gives its language), a folder "
        "of them (both need exactly one --id), or a .jsonl[.gz] of rows with problem_id and "
        "completion (or program/code); repeatable",
    )
    p.add_argument(
        "--language",
        metavar="NAME",
        help="the language of every program given with --programs (default: each file's "
        "extension; python for .jsonl rows); `execrl languages` lists the names",
    )
    p.add_argument(
        "--env",
        metavar="SPEC",
        help=f"environment: a preset such as 'qp(p=0.3)' or a YAML file (default: {DEFAULT_ENV})",
    )
    p.add_argument(
        "--reward",
        metavar="SPEC",
        help="reward composition, such as 'collapsed(graded, map=linear)' "
        f"(default: {DEFAULT_REWARD})",
    )
    p.add_argument(
        "--config", type=Path, metavar="FILE", help="a YAML file with env: and/or reward: keys"
    )
    p.add_argument(
        "--references",
        metavar="measure|stored|CAMPAIGN",
        help="reference durations: measure them now on the optimization tests (saved as a "
        "timing-store campaign next to the output, in <out>.references/), use those stored in "
        "the problems, or score against a saved campaign (a campaign .jsonl.gz file, or a "
        "timing store folder for its latest) to get exactly the same durations (default: "
        "measure when the environment ranks, filters or limits by them)",
    )
    add_timing_argument(
        p,
        default=None,
        help="the duration the environment ranks and limits by (default: the environment's "
        "own, else cpu); instructions and cycles_estimate count under Valgrind",
    )
    add_count_rate_argument(p)
    p.add_argument(
        "--list-presets", action="store_true", help="list the environments and rewards, then exit"
    )
    add_jobs_argument(p)
    add_executor_argument(p)
    p.add_argument(
        "--out",
        type=Path,
        help="results file, one JSON row per program (or reference) written as each finishes "
        "(default: runs/score-<time>.jsonl)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep the rows already in --out and score only what they lack (after an "
        "interrupted run); needs the same --env, --reward and --references",
    )
    add_sandbox_arguments(p)
    p.set_defaults(handler=cmd_score)


def cmd_score(args: argparse.Namespace) -> int:
    if args.list_presets:
        return list_presets()
    jobs(args)  # (checked before anything is read or started)
    executor_spec(args)
    if args.resume and args.out is None:
        raise UsageError("--resume continues the results file given with --out; pass --out")
    if args.programs:
        return score_programs(args, default_out(args.out))
    for flag in ("env", "reward", "config", "references", "timing", "count_rate", "language"):
        if getattr(args, flag) is not None:
            raise UsageError(
                f"--{flag.replace('_', '-')} applies to programs given with --programs; "
                "without them `execrl score` checks the problem set's own references"
            )
    return verify_references(args, default_out(args.out))


def default_out(out: Path | None) -> Path:
    return out or Path("runs") / f"score-{datetime.now(UTC):%Y%m%d-%H%M%S}.jsonl"


# --------------------------------------------------------------------------------------------
# --list-presets


def list_presets() -> int:
    for title, registry in (("environments (--env)", PRESETS), ("rewards (--reward)", REWARDS)):
        table = Table(title=title, title_justify="left")
        for col in ("name", "parameters", "what it is"):
            table.add_column(col)
        for name, params, doc in describe_presets(registry):
            table.add_row(name, escape(params), escape(plain(doc)))
        console.print(table)
    console.print(
        "Call one with parameters, e.g. --env 'qp(p=0.5)' --reward 'collapsed(graded, "
        "map=linear)'; see docs/environments.md",
        highlight=False,
    )
    return EXIT_OK


def plain(doc: str) -> str:
    """A docstring's reST markup as plain text: ````limit```` → ``limit``."""
    return re.sub(r"``(.+?)``", r"\1", doc)
