"""The options shared by ``execrl solver synthesize`` and ``execrl solver label``, the
settings they build, and the funnel table both print (docs/solver.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from execrl.cli._common import EXIT_CHECK_FAILED, EXIT_OK, check_time_limit, console, print_table
from execrl.cli._flags import as_flags
from execrl.problems.optim import OPTIM_FORMATS
from execrl.rewards.solver.execution import DEFAULT_SOLVER_LIMITS
from execrl.synthesis import Budget, EndpointSettings, RunSettings, SynthesisResult
from execrl.synthesis.report import COSTS


def add_endpoint_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=OPTIM_FORMATS, help="the problems' file format (guessed)")
    p.add_argument(
        "--endpoint", required=True, help="OpenAI-compatible base URL (e.g. http://host/v1)"
    )
    p.add_argument("--model", required=True, help="the model name the endpoint serves")
    p.add_argument("--out", type=Path, required=True, help="the run's folder (created)")
    p.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        help="environment variable holding the key (default %(default)s)",
    )
    p.add_argument(
        "--temperature", type=float, default=0.7, help="sampling temperature (default 0.7)"
    )
    p.add_argument(
        "--max-tokens", type=int, default=2048, help="completion tokens per call (default 2048)"
    )


def add_other_endpoint(p: argparse.ArgumentParser, name: str, purpose: str) -> None:
    """--NAME-endpoint and --NAME-model: another endpoint for one part of the pipeline."""
    p.add_argument(f"--{name}-endpoint", help=f"{purpose}: base URL (default --endpoint)")
    p.add_argument(f"--{name}-model", help=f"{purpose}: model name (default --model)")


def other_endpoint(args: argparse.Namespace, name: str) -> EndpointSettings | None:
    """The endpoint ``add_other_endpoint`` names (None when neither option is given)."""
    url, model = getattr(args, f"{name}_endpoint"), getattr(args, f"{name}_model")
    if url is None and model is None:
        return None
    return endpoint(args).model_copy(
        update={"url": url or args.endpoint, "model": model or args.model}
    )


def add_labelling_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--roles", type=int, default=10, help="solver roles per problem (default 10)")
    p.add_argument("--roles-file", help="YAML list of {id, text} roles (default: bundled)")
    p.add_argument("--prompts", help="YAML of the stage prompts (default: bundled)")
    p.add_argument(
        "--repair-rounds", type=int, default=2, help="repair/regenerate rounds (default 2)"
    )
    p.add_argument(
        "--weights",
        type=float,
        nargs=4,
        default=(1.0, 1.0, 1.0, 1.0),
        metavar=("W_OBJ", "W_DIR", "W_BIN", "W_INT"),
        help="self-consistency weights w1..w4 (default 1 1 1 1)",
    )
    p.add_argument(
        "--min-consensus",
        type=float,
        default=0.75,
        help="drop a row whose best S(r)/(sum(w)*sqrt(roles)) is below this (default 0.75)",
    )
    p.add_argument(
        "--timeout-s",
        type=float,
        default=DEFAULT_SOLVER_LIMITS.cpu_time_s,
        help="CPU-time limit per program (default %(default)s)",
    )


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-calls", type=int, help="budget: LLM calls (cache hits are free)")
    p.add_argument("--max-total-tokens", type=int, help="budget: prompt + completion tokens")
    p.add_argument("--max-executions", type=int, help="budget: programs run in the sandbox")
    p.add_argument(
        "--concurrency", type=int, default=4, help="LLM calls in flight at once (default 4)"
    )
    p.add_argument("--retries", type=int, default=4, help="retries per call (default 4)")
    p.add_argument("--cache", type=Path, help="prompt cache file (default OUT/cache.jsonl)")
    p.add_argument("--workers", type=int, help="sandbox workers (default: one per core)")
    p.add_argument(
        "--resume", action="store_true", help="continue the run in --out where it stopped"
    )


def endpoint(args: argparse.Namespace) -> EndpointSettings:
    return EndpointSettings(
        url=args.endpoint,
        model=args.model,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        api_key_variable=args.api_key_env,
    )


def labelling(args: argparse.Namespace) -> dict:
    """The settings of solve, repair and label from the arguments."""
    check_time_limit("--timeout-s", args.timeout_s)
    return {
        "n_roles": args.roles,
        "roles_file": args.roles_file,
        "prompts_file": args.prompts,
        "repair_rounds": args.repair_rounds,
        "weights": tuple(args.weights),
        "min_consensus": args.min_consensus,
        "program_timeout_s": args.timeout_s,
    }


def run_settings(args: argparse.Namespace) -> RunSettings:
    budget = Budget(
        max_calls=args.max_calls,
        max_tokens=args.max_total_tokens,
        max_executions=args.max_executions,
    )
    return RunSettings(
        budget=budget,
        concurrency=args.concurrency,
        retries=args.retries,
        cache=args.cache,
        workers=args.workers,
    )


def show(result: SynthesisResult, args: argparse.Namespace) -> int:
    """Print the funnel and where the files are; exit 1 when a budget stopped the run."""
    rows = [
        [
            s["stage"],
            s["rows_in"],
            s["rows_out"],
            ", ".join(f"{k} {v}" for k, v in s["dropped"].items()) or "-",
            *(s["cost"][k] for k in COSTS),
        ]
        for s in result.report["stages"]
    ]
    print_table(["stage", "in", "out", "dropped", *COSTS], rows, plain=True)
    agreement = result.report["agreement"]
    if agreement["rows_with_known_answer"]:
        console.print(
            f"labels agree with the known answer on {agreement['label_agrees']} of "
            f"{agreement['rows_with_known_answer']}; where most runnable roles gave it: "
            f"{agreement['label_agrees_there']} of "
            f"{agreement['rows_where_most_runnable_roles_agree_with_it']}",
            highlight=False,
        )
    console.print(
        f"{result.report['kept_pairs']} pairs in {result.train_file}; report in "
        f"{result.folder / 'report.html'}",
        highlight=False,
    )
    if not result.complete:
        print(as_flags(result.stopped or "", args.param_flags))  # one unwrapped line
        return EXIT_CHECK_FAILED
    return EXIT_OK
