"""``execrl eval sample | run | metrics | replay | serve | judge``: evaluate models on a problem set
(spec optimization-rl.md §5; docs/evaluation.md).

1. ``sample``: n completions per problem from a model into an evaluation folder — the local
   SmolLM2 (``--model local``), a transformers folder, an OpenAI-compatible endpoint (a URL),
   or a JSONL file of completions sampled elsewhere. Repeat for each model.
2. ``run``: execute every model's samples and the references together, in one shuffled
   campaign, storing every per-test verdict and duration.
3. ``metrics``: p_τ pass@k, win rates against a baseline, bootstrap intervals, per-difficulty
   breakdown and degenerate-group ratios, recomputed from the stored records under any cap,
   limit, timing or reference calibration; an HTML report.
4. ``replay``: the same along a sweep (calibration α or β, cap, limit or τ), with plots.
5. ``serve``: put a local model behind an OpenAI-compatible endpoint.
6. ``judge``: why one source's programs are faster than another's (the pairwise speed judge,
   docs/judge.md).

Each subcommand lives in its own module (``eval_sample``, ``eval_run``, ``eval_metrics``,
``eval_judge``);
this one is the group's entry in the command table.

Exit codes: 0 done, 2 bad input or an execrl failure (missing model, unreachable endpoint,
folder not sampled or not executed yet).
"""

from __future__ import annotations

import argparse

from execrl.cli.eval_judge import register_judge
from execrl.cli.eval_metrics import register_metrics, register_replay
from execrl.cli.eval_run import register_run
from execrl.cli.eval_sample import register_sample, register_serve


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "eval",
        help="sample models, execute them together with the references, compute p_τ metrics",
        description="Evaluate models: sample, run one shuffled campaign, then compute (and "
        "replay) p_τ pass@k, win rates, bootstrap intervals and per-difficulty breakdowns.",
    )
    sub = p.add_subparsers(dest="eval_command", metavar="COMMAND", required=True)
    registers = (register_sample, register_run, register_metrics, register_replay, register_serve)
    for add in (*registers, register_judge):
        add(sub)
