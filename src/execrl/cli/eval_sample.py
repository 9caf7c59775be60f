"""``execrl eval sample | serve``: n completions per problem from a model into an evaluation
folder (:func:`execrl.evaluate.sample_model`), and a local model behind an OpenAI-compatible
endpoint."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from execrl.cli._common import EXIT_OK, console
from execrl.cli._files import writable_folder
from execrl.errors import ExecrlError, UsageError
from execrl.evaluate import (
    EvalFolder,
    ProblemChoice,
    SamplingSettings,
    local_policy,
    sample_model,
)
from execrl.evaluate.folder import check_label
from execrl.evaluate.samplers import (
    LOCAL,
    default_label,
    is_completions_file,
    is_endpoint,
    slug,
)
from execrl.integrations.openai import DEFAULT_KEY_VARIABLE, ChatCompletionServer, api_key_from_env
from execrl.problems.io import FORMATS


def add_generation_options(p: argparse.ArgumentParser) -> None:
    """The sampling settings both commands take."""
    p.add_argument("--max-new-tokens", type=int, default=512, help="default: 512")
    p.add_argument("--temperature", type=float, default=0.8, help="default: 0.8")
    p.add_argument("--top-p", type=float, default=0.95, help="default: 0.95")


def register_sample(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sample",
        help="sample n completions per problem from a model into an evaluation folder",
        description="Sample N completions per problem and store them (with the extracted "
        "programs) under --out. Sample each model into the same folder, then `execrl eval run`.",
    )
    p.add_argument(
        "source",
        nargs="?",
        help="problem set: 'bundled', a problem folder, a folder of them, a .jsonl[.gz] file, "
        "or a dataset file with --format (default: the folder's own set, else bundled)",
    )
    p.add_argument("--format", choices=FORMATS, help="the source's format")
    p.add_argument("--id", action="append", dest="ids", default=[], help="a problem id")
    p.add_argument("--problems", help="problem ids, comma-separated (with or instead of --id)")
    p.add_argument(
        "--model",
        required=True,
        help="'local' (the bundled SmolLM2-135M), a transformers model folder, an "
        "OpenAI-compatible base URL (http://host:port/v1), or a .jsonl[.gz] of completions "
        "(rows with problem_id and completion)",
    )
    p.add_argument("--label", help="the model's name in reports (default: from --model)")
    p.add_argument("--n", type=int, default=4, help="samples per problem (default: 4)")
    p.add_argument("--out", type=Path, required=True, help="the evaluation folder")
    p.add_argument(
        "--model-name",
        help="endpoints: the model to ask for (default: the only one the endpoint lists)",
    )
    p.add_argument(
        "--api-key-env",
        default=DEFAULT_KEY_VARIABLE,
        metavar="VAR",
        help=f"endpoints: the environment variable holding the API key (default: "
        f"{DEFAULT_KEY_VARIABLE}; unset is fine for local servers)",
    )
    add_generation_options(p)
    p.add_argument("--seed", type=int, default=0, help="default: 0")
    p.add_argument("--batch-size", type=int, default=8, help="local models: completions per batch")
    p.add_argument("--threads", type=int, help="local models: torch CPU threads")
    p.add_argument("--device", default="cpu", help="local models: torch device (default: cpu)")
    p.add_argument(
        "--replace", action="store_true", help="overwrite samples already stored for --label"
    )
    p.set_defaults(handler=cmd_sample)


def cmd_sample(args: argparse.Namespace) -> int:
    settings = sampling_settings(args)
    if not is_completions_file(args.model):
        writable_folder(args.out / "samples", "--out")  # before a model loads
    ids = [*args.ids, *(i.strip() for i in (args.problems or "").split(",") if i.strip())]
    sampled = sample_model(
        EvalFolder(args.out),
        args.model,
        n=args.n,
        choice=ProblemChoice(args.source, args.format, tuple(ids)),
        settings=settings,
        label=args.label,
        replace=args.replace,
        model_name=args.model_name,
        api_key=api_key_from_env(args.api_key_env) if is_endpoint(args.model) else None,
    )
    console.print(
        f"{len(sampled.samples)} samples of {sampled.info.label} on {len(sampled.problems)} "
        f"problems ({sampled.fenced} with a fenced code block) → {sampled.path}\n"
        f"next: sample another model into {args.out}, or `execrl eval run {args.out}`",
        highlight=False,
    )
    return EXIT_OK


def sampling_settings(args: argparse.Namespace) -> SamplingSettings:
    """The sampling settings, checked before a model loads or an endpoint is asked."""
    checks = [
        ("--n", args.n, args.n >= 1, "at least 1 sample per problem"),
        ("--max-new-tokens", args.max_new_tokens, args.max_new_tokens >= 1, "at least 1"),
        ("--temperature", args.temperature, 0 <= args.temperature < math.inf, "0 or more"),
        ("--top-p", args.top_p, 0 < args.top_p <= 1, "a value in (0, 1]"),
        ("--batch-size", args.batch_size, args.batch_size >= 1, "at least 1"),
        ("--threads", args.threads, args.threads is None or args.threads >= 1, "at least 1"),
    ]
    for flag, value, ok, wanted in checks:
        if not ok:
            raise UsageError(f"{flag} {value}: give {wanted}")
    if args.label is not None:
        check_label(args.label)
    return _settings(args, batch_size=args.batch_size)


def _settings(args: argparse.Namespace, **extra: int) -> SamplingSettings:
    """The generation settings both ``eval sample`` and ``eval serve`` take from their flags."""
    return SamplingSettings(
        max_new_tokens=args.max_new_tokens,
        temperature=args.temperature,
        top_p=args.top_p,
        seed=args.seed,
        threads=args.threads,
        device=args.device,
        **extra,
    )


def register_serve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="serve a local model as an OpenAI-compatible chat endpoint",
        description="Serve POST /v1/chat/completions and GET /v1/models from a local "
        "transformers model (default: the bundled SmolLM2-135M) until interrupted.",
    )
    p.add_argument("--model", default=LOCAL, help="'local' or a transformers model folder")
    p.add_argument("--name", help="the model id the endpoint lists (default: from --model)")
    p.add_argument("--host", default="127.0.0.1", help="default: 127.0.0.1")
    p.add_argument("--port", type=int, default=8000, help="default: 8000")
    p.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="require the API key held in this environment variable (default: no key)",
    )
    add_generation_options(p)
    p.add_argument(
        "--seed", type=int, default=0, help="torch seed; call i uses seed + i (default: 0)"
    )
    p.add_argument("--threads", type=int, help="torch CPU threads")
    p.add_argument(
        "--device", default="cpu", help="torch device, e.g. cpu or cuda:0 (default: cpu)"
    )
    p.set_defaults(handler=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    if args.model != LOCAL and not Path(args.model).is_dir():
        raise ExecrlError(f"--model {args.model!r} is neither 'local' nor a model folder")
    key = None
    if args.api_key_env:
        key = os.environ.get(args.api_key_env)
        if not key:
            raise ExecrlError(f"--api-key-env {args.api_key_env}: that variable is not set")
    settings = _settings(args)
    policy, where = local_policy(args.model, settings)
    name = args.name or default_label(args.model) or slug(Path(where).name)
    server = ChatCompletionServer(
        policy, model_name=name, host=args.host, port=args.port, api_key=key
    )
    console.print(f"serving {name} at {server.url} (Ctrl-C to stop)", highlight=False)
    try:
        server.serve_forever()
    finally:
        server.close()
    return EXIT_OK
