"""``execrl solver synthesize SEEDS``: solver-verified training pairs made from seed problems
(the SIRL pipeline: generate, augment, judge, solve, repair, label, filter, write; see
docs/solver.md). The work is :func:`execrl.synthesis.synthesize`.

Exit codes: 0 finished, 1 stopped cleanly by the budget (``--resume`` goes on), 2 an error
(one line naming the stage and row; the finished rows are kept).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from execrl.cli import _synthesis_options as opts
from execrl.problems.optim import BUNDLED, load_optim_problems
from execrl.synthesis import SynthesisConfig, synthesize


def register_synthesize(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "synthesize",
        help="make solver-verified training pairs from seed problems",
        description="Generate new optimisation problems from seeds and industry scenarios, "
        "augment and judge them, answer each with N solver roles in the sandbox, label by "
        "instance-enhanced self-consistency, drop near-duplicates and easy problems, and "
        "write train.jsonl with a funnel report.",
    )
    p.add_argument("seeds", nargs="?", default=BUNDLED, help="seed problems (default bundled)")
    opts.add_endpoint_arguments(p)
    p.add_argument("--n", type=int, default=10, help="problems to generate (default 10)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument(
        "--include-seeds",
        action="store_true",
        help="also label the seeds, to measure the labels' agreement with known answers",
    )
    p.add_argument(
        "--augment",
        nargs="*",
        default=["semantic", "modelling", "solution"],
        help="augmentation template ids (default: all three; none: no augmentation)",
    )
    p.add_argument("--scenarios", help="scenario file, 'slug: text' a line (default: bundled)")
    p.add_argument("--augment-file", help="YAML list of {id, text} templates (default: bundled)")
    p.add_argument(
        "--judge-threshold", type=float, default=3.0, help="minimum judge score 1-5 (default 3)"
    )
    opts.add_labelling_arguments(p)
    p.add_argument(
        "--dedup-threshold",
        type=float,
        default=0.7,
        help="TF-IDF cosine that marks a near-duplicate (default 0.7)",
    )
    p.add_argument(
        "--decontaminate",
        nargs="*",
        default=[],
        metavar="FILE",
        help="benchmark files (NL4OPT, MAMO, IndustryOR ...) whose near-duplicates are dropped",
    )
    opts.add_other_endpoint(p, "judge", "the judge")
    opts.add_other_endpoint(p, "solver", "the solver roles")
    opts.add_other_endpoint(p, "baseline", "difficulty filter (none: no filter)")
    p.add_argument(
        "--baseline-attempts", type=int, default=10, help="baseline attempts (default 10)"
    )
    p.add_argument(
        "--baseline-max-right",
        type=int,
        default=8,
        help="drop a problem the baseline answers right this often (default 8)",
    )
    opts.add_run_arguments(p)
    p.set_defaults(handler=cmd_synthesize)


def cmd_synthesize(args: argparse.Namespace) -> int:
    seeds = load_optim_problems(args.seeds, format=args.format)
    config = SynthesisConfig(
        endpoint=opts.endpoint(args),
        judge=opts.other_endpoint(args, "judge"),
        solver=opts.other_endpoint(args, "solver"),
        baseline=opts.other_endpoint(args, "baseline"),
        n_generate=args.n,
        seed=args.seed,
        include_seeds=args.include_seeds,
        augment=tuple(args.augment),
        judge_threshold=args.judge_threshold,
        dedup_threshold=args.dedup_threshold,
        decontaminate=tuple(str(Path(f)) for f in args.decontaminate),
        baseline_attempts=args.baseline_attempts,
        baseline_max_right=args.baseline_max_right,
        scenarios_file=args.scenarios,
        augment_file=args.augment_file,
        **opts.labelling(args),
    )
    result = synthesize(seeds, config, args.out, run=opts.run_settings(args), resume=args.resume)
    return opts.show(result, args)
