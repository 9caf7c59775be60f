"""``execrl eval judge DIR A B``: the pairwise speed judge (spec pairwise-judge.md) on an
executed evaluation folder — why source A's programs are faster than B's, or the other way
(:mod:`execrl.evaluate.judge`, docs/judge.md). ``B`` may be ``references``: the fastest
correct reference per problem.

The pairs are chosen and printed before the judge model loads (a folder without a campaign or
an unknown source fails first, in one line); then every call, a progress bar over them,
``OUT/judge.jsonl`` (resumable), ``OUT/judge.json`` and ``OUT/index.html``.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from execrl.cli._common import EXIT_OK, check_range, console, print_table
from execrl.cli._files import writable_folder
from execrl.errors import UsageError
from execrl.evaluate.judge import CALLS_PER_PAIR, MIN_SPEED_CORRECT, REFERENCES, SPEED_TIE
from execrl.evaluate.judge_report import calls_table, selection_table
from execrl.evaluate.judge_run import JudgeSettings, judge_pairs, load_pairs, open_judge
from execrl.evaluate.samplers import LOCAL, SamplingSettings, is_endpoint
from execrl.integrations.openai import DEFAULT_KEY_VARIABLE, api_key_from_env


def register_judge(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "judge",
        help="ask a judge model why one source's programs are faster than another's",
        description="Pair the best passing program of two sources per problem (model labels, "
        f"or a model and '{REFERENCES}'), show each pair to a judge model R times in a random "
        "order, and report its speed-identification accuracy and the kinds of improvement "
        "(category bars) in OUT/index.html.",
    )
    p.add_argument("folder", type=Path, help="an executed evaluation folder (after eval run)")
    p.add_argument("a", metavar="A", help="a model label")
    p.add_argument("b", metavar="B", help=f"another model label, or '{REFERENCES}'")
    p.add_argument(
        "--judge",
        default=LOCAL,
        help="'local' (the bundled SmolLM2-135M), a transformers model folder, or an "
        "OpenAI-compatible base URL (http://host:port/v1); default: local",
    )
    p.add_argument(
        "--judge-model-name",
        help="endpoints: the model to ask for (default: the only one the endpoint lists)",
    )
    p.add_argument(
        "--api-key-env",
        default=DEFAULT_KEY_VARIABLE,
        metavar="VAR",
        help=f"endpoints: the variable holding the API key (default: {DEFAULT_KEY_VARIABLE})",
    )
    p.add_argument(
        "--calls",
        type=int,
        default=CALLS_PER_PAIR,
        help=f"R, judge calls per pair (default: {CALLS_PER_PAIR})",
    )
    p.add_argument(
        "--min-speed-correct",
        type=int,
        default=MIN_SPEED_CORRECT,
        help=f"speed-correct calls a pair needs to be classifiable (default: {MIN_SPEED_CORRECT})",
    )
    p.add_argument(
        "--tie",
        type=float,
        default=SPEED_TIE,
        help=f"relative speed difference below which a pair is a tie (default: {SPEED_TIE})",
    )
    p.add_argument("--seed", type=int, default=0, help="seeds the orders and sampling (0)")
    p.add_argument("--out", type=Path, help="output folder (default: FOLDER/judge/A-vs-B)")
    p.add_argument("--max-new-tokens", type=int, default=1024, help="default: 1024")
    p.add_argument("--temperature", type=float, default=0.7, help="default: 0.7")
    p.add_argument("--top-p", type=float, default=0.95, help="default: 0.95")
    p.add_argument("--batch-size", type=int, default=10, help="local judges: calls per batch")
    p.add_argument("--threads", type=int, help="local judges: torch CPU threads")
    p.add_argument("--device", default="cpu", help="local judges: torch device (default: cpu)")
    p.set_defaults(handler=cmd_judge)


def cmd_judge(args: argparse.Namespace) -> int:
    settings, sampling = judge_settings(args)
    selection = load_pairs(args.folder, args.a, args.b, tie=settings.tie)
    out = writable_folder(args.out or args.folder / "judge" / f"{args.a}-vs-{args.b}", "--out")
    console.print(f"pairs: {selection.describe()}", highlight=False)
    if selection.judged_pairs and settings.calls_per_pair < settings.min_speed_correct:
        console.print(
            f"warning: {settings.calls_per_pair} calls per pair can never reach "
            f"{settings.min_speed_correct} speed-correct calls: no pair will be classifiable",
            highlight=False,
        )
    key = api_key_from_env(args.api_key_env) if is_endpoint(args.judge) else None
    sampler, judge = open_judge(args.judge, sampling, model_name=args.judge_model_name, api_key=key)
    result = judge_pairs(selection, sampler, out, judge=judge, settings=settings)
    print_table(*selection_table(result.metrics), title="pair selection", align="r")
    print_table(*calls_table(result.metrics), title=f"judge calls ({judge})", align="r")
    console.print(
        f"{result.new_calls} calls made, {result.resumed} taken from an earlier run\n"
        f"report: {result.page}",
        highlight=False,
    )
    return EXIT_OK


def judge_settings(args: argparse.Namespace) -> tuple[JudgeSettings, SamplingSettings]:
    """The judge's settings from the flags, checked before anything loads."""
    check_range("--calls", args.calls, 1, 1000, "calls per pair")
    check_range("--min-speed-correct", args.min_speed_correct, 1, 1000, "calls")
    check_range("--max-new-tokens", args.max_new_tokens, 1, 1_000_000, "tokens")
    check_range("--batch-size", args.batch_size, 1, 1024, "calls")
    check_range("--threads", args.threads, 1, 1024, "threads")
    if not 0 <= args.tie < 1:
        raise UsageError(f"--tie {args.tie}: give a relative difference in [0, 1)")
    if not 0 <= args.temperature < math.inf:
        raise UsageError(f"--temperature {args.temperature}: give 0 or more")
    if not 0 < args.top_p <= 1:
        raise UsageError(f"--top-p {args.top_p}: give a value in (0, 1]")
    judge = JudgeSettings(
        calls_per_pair=args.calls,
        seed=args.seed,
        tie=args.tie,
        min_speed_correct=args.min_speed_correct,
    )
    sampling = SamplingSettings(
        max_new_tokens=args.max_new_tokens,
        temperature=args.temperature,
        top_p=args.top_p,
        seed=args.seed,
        batch_size=args.batch_size,
        threads=args.threads,
        device=args.device,
    )
    return judge, sampling
