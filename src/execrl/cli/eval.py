"""``execrl eval sample | run | metrics | replay | serve``: evaluate models on a problem set
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

Exit codes: 0 done, 2 bad input or an execrl failure (missing model, unreachable endpoint,
folder not sampled or not executed yet).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
from pathlib import Path
from typing import Any

from rich.table import Table

from execrl.cli._common import EXIT_OK, console, safe_text
from execrl.errors import ExecrlError
from execrl.evaluate import (
    AXES,
    DEFAULT_KS,
    DEFAULT_TAUS,
    EvalFolder,
    ModelInfo,
    PolicySampler,
    ReplaySettings,
    by_difficulty,
    degenerate_ratios,
    evaluate,
    load_eval,
    replay,
    run_campaign,
    sample_problems,
    samples_from_jsonl,
    sweep,
)
from execrl.evaluate.folder import load_problem_set
from execrl.evaluate.report import pass_table, win_table, write_metrics_report, write_sweep_report
from execrl.integrations.openai import (
    DEFAULT_KEY_VARIABLE,
    ChatCompletionServer,
    OpenAIChatClient,
    api_key_from_env,
)
from execrl.problems.io import BUNDLED, FORMATS, load_problems, select_problems
from execrl.sandbox.records import Status

LOCAL = "local"
LOCAL_LABEL = "smollm2-135m"


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "eval",
        help="sample models, execute them together with the references, compute p_τ metrics",
        description="Evaluate models: sample, run one shuffled campaign, then compute (and "
        "replay) p_τ pass@k, win rates, bootstrap intervals and per-difficulty breakdowns.",
    )
    sub = p.add_subparsers(dest="eval_command", metavar="COMMAND", required=True)
    _register_sample(sub)
    _register_run(sub)
    _register_metrics(sub)
    _register_replay(sub)
    _register_serve(sub)


# --------------------------------------------------------------------------------------------
# sample


def _register_sample(sub: argparse._SubParsersAction) -> None:
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
    p.add_argument("--max-new-tokens", type=int, default=512, help="default: 512")
    p.add_argument("--temperature", type=float, default=0.8, help="default: 0.8")
    p.add_argument("--top-p", type=float, default=0.95, help="default: 0.95")
    p.add_argument("--seed", type=int, default=0, help="default: 0")
    p.add_argument("--batch-size", type=int, default=8, help="local models: completions per batch")
    p.add_argument("--threads", type=int, help="local models: torch CPU threads")
    p.add_argument("--device", default="cpu", help="local models: torch device (default: cpu)")
    p.add_argument(
        "--replace", action="store_true", help="overwrite samples already stored for --label"
    )
    p.set_defaults(handler=cmd_sample)


def cmd_sample(args: argparse.Namespace) -> int:
    folder = EvalFolder(args.out)
    if args.n < 1:
        raise ExecrlError(f"--n must be >= 1, got {args.n}")
    sampler, info = resolve_model(args)
    if info.kind == "file":
        samples = samples_from_jsonl(args.model, info.label)
        info = info.model_copy(update={"n": _max_per_problem(samples)})
        # Without a problem selection, a new folder holds the problems the file answers.
        answered = list(dict.fromkeys(s.problem_id for s in samples))
        source, fmt, problems = resolve_problems(args, folder, default_ids=answered)
    else:
        source, fmt, problems = resolve_problems(args, folder)
        samples = sample_problems(problems, sampler, model=info.label, n=args.n)
    path = folder.add_samples(
        info, samples, problems, source=source, format=fmt, replace=args.replace
    )
    fenced = sum("```" in s.completion for s in samples)
    console.print(
        f"{len(samples)} samples of {info.label} on {len(problems)} problems "
        f"({fenced} with a fenced code block) → {path}\n"
        f"next: sample another model into {args.out}, or `execrl eval run {args.out}`",
        highlight=False,
    )
    return EXIT_OK


def resolve_model(args: argparse.Namespace) -> tuple[Any, ModelInfo]:
    """The sampler for --model and how it is described in eval.json (checked before any
    problem is loaded, so a wrong model fails fast)."""
    spec: str = args.model
    settings = {
        "max_new_tokens": args.max_new_tokens,
        "temperature": args.temperature,
        "top_p": args.top_p,
        "seed": args.seed,
    }
    if spec.startswith(("http://", "https://")):
        client = OpenAIChatClient(
            spec,
            args.model_name or "",
            api_key=api_key_from_env(args.api_key_env),
            temperature=args.temperature,
            top_p=args.top_p,
            max_tokens=args.max_new_tokens,
            seed=args.seed,
        )
        if not args.model_name:
            listed = client.models()  # also checks that the endpoint answers
            if len(listed) != 1:
                raise ExecrlError(
                    f"{spec} serves {len(listed)} models ({', '.join(listed[:5])}); "
                    "choose one with --model-name"
                )
            client.model = listed[0]
        label = args.label or _slug(client.model)
        return client, ModelInfo(
            label=label,
            kind="endpoint",
            model=f"{spec} {client.model}",
            n=args.n,
            settings=settings,
        )
    path = Path(spec)
    if spec.endswith((".jsonl", ".jsonl.gz")):
        if not path.is_file():
            raise ExecrlError(f"--model {spec}: no such file of completions")
        label = args.label or _slug(path.name.removesuffix(".gz").removesuffix(".jsonl"))
        return None, ModelInfo(label=label, kind="file", model=str(path.resolve()), n=0)
    if spec != LOCAL and not path.is_dir():
        raise ExecrlError(
            f"--model {spec!r} is not 'local', a model folder, an http(s) URL or a .jsonl "
            "file of completions"
        )
    policy, where = local_policy(spec, args)
    label = args.label or (LOCAL_LABEL if spec == LOCAL else _slug(path.name))
    info = ModelInfo(
        label=label,
        kind="local",
        model=str(where),
        n=args.n,
        settings={**settings, "device": args.device},
    )
    return PolicySampler(policy, batch_size=args.batch_size), info


def local_policy(spec: str, args: argparse.Namespace):
    from execrl.rl.generation import HFChatPolicy, smollm2_path

    path = smollm2_path() if spec == LOCAL else Path(spec)
    policy = HFChatPolicy(
        path,
        max_new_tokens=args.max_new_tokens,
        temperature=args.temperature,
        top_p=args.top_p,
        seed=args.seed,
        device=args.device,
        threads=args.threads,
    )
    return policy, path


def resolve_problems(
    args: argparse.Namespace, folder: EvalFolder, *, default_ids: list[str] | None = None
):
    """(source, format, problems): --id/--problems from SOURCE; else the folder's own set;
    else ``default_ids``; else every problem of SOURCE (default: bundled)."""
    ids = list(args.ids) + [i.strip() for i in (args.problems or "").split(",") if i.strip()]
    if folder.exists() and args.source is None and not ids:
        stored = folder.manifest().problems
        return (
            stored.source,
            stored.format,
            load_problem_set(stored.source, stored.format, stored.ids),
        )
    source = args.source or BUNDLED
    ids = ids or default_ids or []
    if ids:
        problems = load_problem_set(source, args.format, ids)
    else:
        problems = select_problems(load_problems(source, format=args.format), None)
    if not problems:
        raise ExecrlError(f"no problems in {source}")
    return source, args.format, problems


def _slug(text: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.\-]+", "-", text).strip("-.")
    return slug or "model"


def _max_per_problem(samples) -> int:
    counts: dict[str, int] = {}
    for s in samples:
        counts[s.problem_id] = counts.get(s.problem_id, 0) + 1
    return max(counts.values())


# --------------------------------------------------------------------------------------------
# run


def _register_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="execute every model's samples and the references in one shuffled campaign",
        description="Execute all samples (all tests, under the cap) and every correct "
        "reference (optimization tests) in one shuffled order, and store every per-test "
        "verdict and duration in the folder.",
    )
    p.add_argument("folder", type=Path, help="the evaluation folder")
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="sandbox workers (default: 1, so timed runs do not share the machine)",
    )
    p.add_argument("--repeats", type=int, default=1, help="timed repeats per test (median kept)")
    p.add_argument("--seed", type=int, default=0, help="shuffle seed (default: 0)")
    p.add_argument("--cap-s", type=float, help="hard cap per test (default: each problem's limit)")
    p.add_argument("--timing", choices=("cpu", "wall"), default="cpu", help="default: cpu")
    p.add_argument(
        "--max-opt-tests",
        type=int,
        metavar="N",
        help="only the N smallest optimization tests per problem (cheaper; default: all)",
    )
    p.set_defaults(handler=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from execrl.sandbox.executor import LocalExecutor

    folder = EvalFolder(args.folder)
    folder.manifest()  # fail before starting a sandbox
    if args.jobs < 1 or args.repeats < 1:
        raise ExecrlError(f"--jobs and --repeats must be >= 1, got {args.jobs}, {args.repeats}")
    with LocalExecutor(workers=args.jobs, reserve_host_core=True) as executor:
        info = run_campaign(
            folder,
            executor,
            seed=args.seed,
            cap_s=args.cap_s,
            repeats=args.repeats,
            timing=args.timing,
            max_optimization_tests=args.max_opt_tests,
        )
    data = load_eval(args.folder)
    table = Table(
        title=f"campaign: {info.samples} samples, {info.references} reference runs, "
        f"{info.wall_s:.0f} s",
        title_justify="left",
    )
    for col in ("model", "samples", "strictly correct", "inconclusive"):
        table.add_column(col, justify="left" if col == "model" else "right")
    scores = replay(data).scores
    for model in data.models:
        mine = [s for s in scores if s.model == model]
        table.add_row(
            safe_text(model),
            str(len(mine)),
            str(sum(s.c_strict for s in mine)),
            str(sum(s.inconclusive for s in mine)),
        )
    console.print(table)
    failing = sum(
        r.status not in (Status.SUCCESS, Status.TIMEOUT)
        for refs in data.references.values()
        for record in refs.values()
        for r in record.results
    )
    if failing:
        console.print(
            f"[yellow]{failing} reference test run(s) neither succeeded nor timed out[/]: those "
            "references are left out of D_t on those tests"
        )
    console.print(
        f"records in {args.folder}; next: `execrl eval metrics {args.folder}`", highlight=False
    )
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# metrics and replay


def _add_replay_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", type=Path, help="an executed evaluation folder")
    p.add_argument("--tau", help=f"p_τ thresholds, comma-separated (default: {_csv(DEFAULT_TAUS)})")
    p.add_argument(
        "--baseline", help="the model win rates compare against (default: the first model sampled)"
    )
    p.add_argument("--cap-s", type=float, help="a hard budget per test, at most the executed cap")
    p.add_argument("--limit-s", type=float, help="an absolute intended limit on optimization tests")
    p.add_argument("--timing", choices=("cpu", "wall"), help="default: as executed")
    p.add_argument("--alpha", type=float, default=1.0, help="reference calibration slope α")
    p.add_argument("--beta", type=float, default=0.0, help="reference calibration offset β (s)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    p.add_argument("--level", type=float, default=0.95, help="interval level (default: 0.95)")
    p.add_argument("--report", type=Path, help="report folder")


def _register_metrics(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "metrics",
        help="p_τ pass@k, win rates, intervals and breakdowns from the stored records",
        description="Compute every evaluation metric from an executed folder (nothing runs "
        "again), print them, and write metrics.json and an HTML report.",
    )
    _add_replay_options(p)
    p.add_argument("--k", help="pass@k values, comma-separated (default: 1,10)")
    p.add_argument(
        "--env", default="qp(p=0.3)", help="degenerate-group ratio: the environment (qp(p=0.3))"
    )
    p.add_argument(
        "--reward",
        action="append",
        help="degenerate-group ratio: a reward (repeatable; default: correctness, collapsed)",
    )
    p.set_defaults(handler=cmd_metrics)


def _register_replay(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="recompute the metrics along a sweep (calibration, cap, limit, τ) and plot them",
        description="Recompute every metric from the stored records at each value of one axis "
        "and plot how the model comparison moves. Values: LO:HI:N (evenly spaced) or a comma "
        "list.",
    )
    _add_replay_options(p)
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument(
        "--sweep", metavar="AXIS=VALUES", help=f"the axis and its values; axes: {_csv(AXES)}"
    )
    group.add_argument(
        "--calibration-sweep",
        metavar="VALUES",
        help="shorthand for --sweep alpha=VALUES: scale the references' durations "
        "(< 1: the references look faster, > 1: slower)",
    )
    p.set_defaults(handler=cmd_replay)


def replay_settings(args: argparse.Namespace) -> ReplaySettings:
    try:
        return ReplaySettings.with_limit_s(
            args.limit_s, cap_s=args.cap_s, timing=args.timing, alpha=args.alpha, beta=args.beta
        )
    except ValueError as exc:
        raise ExecrlError(f"invalid replay setting: {_first_line(exc)}") from None


def metric_options(args: argparse.Namespace, models: list[str]) -> dict[str, Any]:
    baseline = args.baseline or (models[0] if len(models) > 1 else None)
    if args.resamples < 1:
        raise ExecrlError(f"--resamples must be >= 1, got {args.resamples}")
    return {
        "baseline": baseline,
        "resamples": args.resamples,
        "seed": args.seed,
        "level": args.level,
    }


def cmd_metrics(args: argparse.Namespace) -> int:
    data = load_eval(args.folder)
    settings = replay_settings(args)
    taus = _numbers(args.tau, "--tau") if args.tau else DEFAULT_TAUS
    ks = tuple(int(k) for k in _numbers(args.k, "--k")) if args.k else DEFAULT_KS
    options = metric_options(args, data.models)
    scored = replay(data, settings)
    metrics = evaluate(scored, taus=taus, ks=ks, **options)
    breakdown = by_difficulty(scored, taus=taus, ks=ks, **options)
    rewards = args.reward or ["correctness", "collapsed"]
    degenerate = {
        f"{reward} @ {args.env}": degenerate_ratios(
            data, env=args.env, reward=reward, settings=settings
        )
        for reward in rewards
    }
    degenerate_json = {
        name: {m: (None if math.isnan(v) else v) for m, v in ratios.items()}
        for name, ratios in degenerate.items()
    }
    out = args.report or args.folder / "report"
    page = write_metrics_report(scored, metrics, out, breakdown=breakdown, degenerate=degenerate)
    (out / "metrics.json").write_text(
        json.dumps(
            {
                "settings": settings.model_dump(mode="json"),
                "all": metrics.to_dict(),
                "by_difficulty": {d: m.to_dict() for d, m in breakdown.items()},
                "degenerate_group_ratio": degenerate_json,
            },
            indent=2,
        )
        + "\n"
    )
    level = round(100 * metrics.level)
    title = f"p_τ pass@k, {level}% intervals ({settings.describe()})"
    _print_table(title, *pass_table(metrics, digits=2))
    if metrics.baseline is not None and len(metrics.models) > 1:
        _print_table(f"win rates against {metrics.baseline}", *win_table(metrics, digits=2))
    console.print(f"report: {page}", highlight=False)
    return EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    text = f"alpha={args.calibration_sweep}" if args.calibration_sweep else args.sweep
    axis, _, values_text = text.partition("=")
    axis = axis.strip()
    if axis not in AXES or not values_text:
        raise ExecrlError(f"--sweep {text!r}: write AXIS=VALUES with AXIS one of {_csv(AXES)}")
    values = sweep_values(values_text)
    data = load_eval(args.folder)
    base = replay_settings(args)
    taus = _numbers(args.tau, "--tau") if args.tau else DEFAULT_TAUS
    points = sweep(
        data,
        axis,
        values,
        base=base,
        taus=taus,
        progress=True,
        **metric_options(args, data.models),
    )
    out = args.report or args.folder / f"replay-{axis}"
    page = write_sweep_report(points, axis, out, note=f"Other settings: {base.describe()}.")
    from execrl.evaluate.report import sweep_table

    _print_table(f"pass@1 along {axis}", *sweep_table(points, axis))
    console.print(f"report: {page}", highlight=False)
    return EXIT_OK


def sweep_values(text: str) -> list[float]:
    """``LO:HI:N`` (N evenly spaced values) or a comma list."""
    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise ExecrlError(f"sweep values {text!r}: write LO:HI:N or a comma list")
        lo, hi = _numbers(parts[0], "LO")[0], _numbers(parts[1], "HI")[0]
        try:
            n = int(parts[2])
        except ValueError:
            raise ExecrlError(f"sweep values {text!r}: N must be a whole number") from None
        if n < 1:
            raise ExecrlError(f"sweep values {text!r}: N must be >= 1")
        return [lo + (hi - lo) * i / max(1, n - 1) for i in range(n)]
    return list(_numbers(text, "sweep values"))


# --------------------------------------------------------------------------------------------
# serve


def _register_serve(sub: argparse._SubParsersAction) -> None:
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
    p.add_argument("--max-new-tokens", type=int, default=512, help="the most a request gets")
    p.add_argument("--temperature", type=float, default=0.8, help="default: 0.8")
    p.add_argument("--top-p", type=float, default=0.95, help="default: 0.95")
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
    policy, where = local_policy(args.model, args)
    name = args.name or (LOCAL_LABEL if args.model == LOCAL else _slug(Path(where).name))
    server = ChatCompletionServer(
        policy, model_name=name, host=args.host, port=args.port, api_key=key
    )
    console.print(f"serving {name} at {server.url} (Ctrl-C to stop)", highlight=False)
    try:
        server.serve_forever()
    finally:
        server.close()
    return EXIT_OK


# --------------------------------------------------------------------------------------------


def _numbers(text: str, what: str) -> tuple[float, ...]:
    try:
        values = tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise ExecrlError(f"{what}: expected numbers, got {text!r}") from None
    if not values:
        raise ExecrlError(f"{what}: no values in {text!r}")
    return values


def _csv(values) -> str:
    return ",".join(f"{v:g}" if isinstance(v, float | int) else str(v) for v in values)


def _first_line(exc: Exception) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return " ".join(lines[1:3]) if len(lines) > 1 else (lines[0] if lines else "")


def _print_table(title: str, header: list[str], rows: list[list[object]]) -> None:
    table = Table(title=title, title_justify="left")
    for i, col in enumerate(header):
        table.add_column(col, justify="left" if i == 0 or col in ("model", "baseline") else "right")
    for row in rows:
        table.add_row(*(safe_text(c) for c in row))
    console.print(table)
