"""``execrl build``: spec §9's test builder on a problem set with labelled solutions (the work:
:func:`execrl.datagen.pipeline.build_problem_set`)."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from execrl.cli._common import (
    EXIT_OK,
    add_languages_argument,
    add_source_arguments,
    check_range,
    console,
    print_table,
)
from execrl.cli._executor import (
    add_executor_argument,
    add_jobs_argument,
    executor_spec,
    jobs,
    open_executor_from_args,
)
from execrl.datagen.pipeline import (
    REPORT_FILE,
    BuildSettings,
    build_problem_set,
    check_build_folder,
)
from execrl.errors import UsageError
from execrl.evaluate.samplers import SamplingSettings, open_sampler
from execrl.problems.io import load_problems, select_problems
from execrl.results import Row


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "build",
        help="build verified generated tests for a problem set with labelled solutions",
        description="Verify every labelled solution, generate tests accepted by agreement of "
        "the correct ones, filter them (spec §9), keep the problems that pass the rules, and "
        "write them in execrl's format to OUT/problems with a report (OUT/report.html) and a "
        "dataset card (OUT/README.md). Rerunning resumes from OUT/cache.",
    )
    add_languages_argument(add_source_arguments(p))
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="the build's folder")
    p.add_argument("--id", action="append", dest="ids", default=[], help="a problem id")
    p.add_argument(
        "--generators",
        type=Path,
        metavar="DIR",
        help="generator programs: DIR/<problem id>.py or DIR/<problem id>/*.py, each run as "
        "`python gen.py MODE SEED` in the sandbox",
    )
    p.add_argument(
        "--generator-model",
        metavar="SPEC",
        help="a model that writes generators: 'local' (SmolLM2-135M), a model folder, or an "
        "OpenAI-compatible URL",
    )
    p.add_argument("--generator-model-name", help="the endpoint's model (when it serves several)")
    p.add_argument(
        "--model-generators", type=int, default=2, metavar="N", help="per problem (default 2)"
    )
    p.add_argument("--generator-max-tokens", type=int, default=768, metavar="N", help="default 768")
    p.add_argument("--attempts", type=int, default=2, help="per generator (default 2)")
    p.add_argument(
        "--max-solutions", type=int, metavar="N", help="of each label per problem (default: all)"
    )
    p.add_argument("--heldout-share", type=float, default=0.2, help="default 0.2")
    p.add_argument("--split-seed", type=int, default=0)
    p.add_argument(
        "--require-duration-filterable",
        action="store_true",
        help="drop problems whose reference durations do not spread (robust CV < 0.3)",
    )
    p.add_argument("--fresh", action="store_true", help="forget OUT/cache and run everything")
    add_jobs_argument(p)
    add_executor_argument(p)
    p.set_defaults(handler=cmd_build)


def cmd_build(args: argparse.Namespace) -> int:
    settings = _settings(args)
    workers = jobs(args)
    executor_spec(args)
    problems = select_problems(
        load_problems(args.source, format=args.format, languages=args.languages), args.ids
    )
    if args.generators is not None and not args.generators.is_dir():
        raise UsageError(f"--generators {args.generators}: no such folder")
    check_build_folder(args.out)  # before any sandbox or model starts
    if args.fresh and (args.out / "cache").is_dir():
        shutil.rmtree(args.out / "cache")
    sampler = _OnFirstUse(args, settings) if args.generator_model else None
    with open_executor_from_args(args, workers=workers) as executor:
        result = build_problem_set(
            problems,
            args.out,
            executor=executor,
            settings=settings,
            generators=args.generators,
            sampler=sampler,
            source=str(args.source),
            on_problem=_print_problem,
        )
    stages = result.summary["stages"]
    print_table(
        ["stage", "problems", "counts"],
        [[s["stage"], str(s["problems"]), _counts(s)] for s in stages],
        title="build",
        align="lrl",
    )
    console.print(
        f"kept {len(result.problems)} of {len(problems)} problems → {args.out / 'problems'}; "
        f"report {args.out / 'report.html'}, card {args.out / 'README.md'}, "
        f"summary {args.out / REPORT_FILE}",
        highlight=False,
    )
    return EXIT_OK


def _settings(args: argparse.Namespace) -> BuildSettings:
    check_range("--attempts", args.attempts, 1, 1000, "attempts per generator")
    check_range("--model-generators", args.model_generators, 1, 100, "generators per problem")
    check_range("--max-solutions", args.max_solutions, 1, 100_000, "solutions per label")
    check_range("--generator-max-tokens", args.generator_max_tokens, 16, 32_768, "tokens")
    if not 0 <= args.heldout_share < 1:
        raise UsageError(f"--heldout-share {args.heldout_share}: expected 0 to < 1")
    return BuildSettings(
        attempts=args.attempts,
        model_generators=args.model_generators if args.generator_model else 0,
        max_solutions=args.max_solutions,
        heldout_share=args.heldout_share,
        split_seed=args.split_seed,
        require_duration_filterable=args.require_duration_filterable,
    )


class _OnFirstUse:
    """The generator model, opened when a problem first needs generators written (a resumed
    build has them cached and loads no model)."""

    def __init__(self, args: argparse.Namespace, settings: BuildSettings) -> None:
        self.args, self.settings, self.sampler = args, settings, None

    def sample(self, conversation, n: int) -> list[str]:
        if self.sampler is None:
            self.sampler, _ = open_sampler(
                self.args.generator_model,
                SamplingSettings(max_new_tokens=self.args.generator_max_tokens, temperature=0.8),
                n=self.settings.model_generators,
                model_name=self.args.generator_model_name,
            )
        return self.sampler.sample(conversation, n)


def _print_problem(row: Row) -> None:
    fp = row["false_positive_rate"]
    verdict = "kept" if row["kept"] else "dropped: " + "; ".join(row["reasons"])
    console.print(
        f"{row['problem_id']}: {row['verify']['correct_verified']} verified correct, "
        f"{row['tests']['generated']} tests generated, {row['tests']['kept']} kept, "
        f"false positives {_rate(fp['before'])} → {_rate(fp['after'])}; {verdict}",
        highlight=False,
    )


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _counts(stage: Row) -> str:
    return ", ".join(f"{k} {v}" for k, v in stage.items() if k not in ("stage", "problems"))
