"""``execrl solver label PROBLEMS``: answers for problems a user already has, chosen by
instance-enhanced self-consistency among N solver roles run in the sandbox, with the
agreement of the labels with the problems' known answers (docs/solver.md). The work is
:func:`execrl.synthesis.label_problems`.

Exit codes: 0 finished, 1 stopped cleanly by the budget (``--resume`` goes on), 2 an error.
"""

from __future__ import annotations

import argparse

from execrl.cli import _synthesis_options as opts
from execrl.problems.optim import load_optim_problems
from execrl.synthesis import SynthesisConfig, label_problems


def register_label(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "label",
        help="label problems by self-consistency among solver roles",
        description="Answer each problem with N solver roles (repairing failures), run every "
        "program in the sandbox, choose the answer by instance-enhanced self-consistency, "
        "and report how often it agrees with the problems' known answers.",
    )
    p.add_argument("problems", help="'bundled', a folder of problem folders, or a problems file")
    opts.add_endpoint_arguments(p)
    opts.add_labelling_arguments(p)
    opts.add_run_arguments(p)
    p.set_defaults(handler=cmd_label)


def cmd_label(args: argparse.Namespace) -> int:
    problems = load_optim_problems(args.problems, format=args.format)
    config = SynthesisConfig(endpoint=opts.endpoint(args), n_generate=0, **opts.labelling(args))
    result = label_problems(
        problems, config, args.out, run=opts.run_settings(args), resume=args.resume
    )
    return opts.show(result, args)
