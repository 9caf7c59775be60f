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
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.table import Table

from execrl.cli._common import (
    EXIT_OK,
    MAX_JOBS,
    add_count_rate_argument,
    add_executor_argument,
    add_timed_jobs_argument,
    add_timing_argument,
    check_range,
    check_resume,
    console,
    executor_spec,
    open_timed_executor,
    require_counting,
    safe_text,
    writable_folder,
)
from execrl.errors import ExecrlError, UsageError
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
from execrl.evaluate.folder import check_label, load_problem_set
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
MAX_REPEATS = 100
"""The most timed repeats per test a run takes (the sandbox's own bound)."""
MAX_SWEEP_POINTS = 200
"""The most values a replay sweep recomputes every metric at."""


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
    check_sampling(args)
    label = args.label or (LOCAL_LABEL if args.model == LOCAL else None)
    taken = [m.label for m in folder.manifest().models] if folder.exists() else []
    if label in taken and not args.replace:  # before a model loads
        raise UsageError(
            f"{args.out} already has samples from model {label!r}; "
            "choose another --label or pass --replace"
        )
    if args.model.endswith((".jsonl", ".jsonl.gz")):
        _, info = resolve_model(args)
        samples = samples_from_jsonl(args.model, info.label)
        info = info.model_copy(update={"n": _max_per_problem(samples)})
        # Without a problem selection, a new folder holds the problems the file answers.
        answered = list(dict.fromkeys(s.problem_id for s in samples))
        source, fmt, problems = resolve_problems(args, folder, default_ids=answered)
        folder.check_can_add(info.label, problems, source=source, format=fmt, replace=args.replace)
    else:
        # The problems first: they load in a moment, a model takes much longer.
        source, fmt, problems = resolve_problems(args, folder)
        if label is not None:
            folder.check_can_add(label, problems, source=source, format=fmt, replace=args.replace)
        sampler, info = resolve_model(args)
        # Everything add_samples would refuse is refused before the sampling work.
        folder.check_can_add(info.label, problems, source=source, format=fmt, replace=args.replace)
        writable_folder(args.out / "samples", "--out")
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


def check_sampling(args: argparse.Namespace) -> None:
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
    add_timed_jobs_argument(p)
    add_executor_argument(p)
    p.add_argument("--repeats", type=int, default=1, help="timed repeats per test (median kept)")
    p.add_argument("--seed", type=int, default=0, help="shuffle seed (default: 0)")
    p.add_argument("--cap-s", type=float, help="hard cap per test (default: each problem's limit)")
    add_timing_argument(p)
    p.add_argument(
        "--max-opt-tests",
        type=int,
        metavar="N",
        help="only the N smallest optimization tests per problem (cheaper; default: all)",
    )
    again = p.add_mutually_exclusive_group()
    again.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted campaign (same settings): runs that finished are kept",
    )
    again.add_argument(
        "--restart", action="store_true", help="discard an interrupted campaign and start over"
    )
    p.set_defaults(handler=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    folder = EvalFolder(args.folder)
    folder.manifest()  # fail before starting a sandbox
    check_range("--jobs", args.jobs, 1, MAX_JOBS, "sandbox workers")
    executor_spec(args)  # (a bad --executor is refused before anything is read or started)
    check_range("--repeats", args.repeats, 1, MAX_REPEATS, "timed repeats per test")
    require_counting(args.timing)
    if args.cap_s is not None and not 0 < args.cap_s <= 600:
        raise UsageError(f"--cap-s {args.cap_s}: the cap must lie in (0, 600] seconds")
    if args.max_opt_tests is not None and args.max_opt_tests < 1:
        raise UsageError(f"--max-opt-tests {args.max_opt_tests}: give at least 1")
    finished = None if args.restart else folder.interrupted_campaign()  # (--restart: unread)
    check_resume(args, finished, args.folder)
    try:
        with open_timed_executor(args) as executor:
            info = run_campaign(
                folder,
                executor,
                seed=args.seed,
                cap_s=args.cap_s,
                repeats=args.repeats,
                timing=args.timing,
                max_optimization_tests=args.max_opt_tests,
                resume=args.resume,
            )
    except KeyboardInterrupt:
        kept = folder.interrupted_campaign() or 0
        print(
            f"{kept} finished runs kept in {args.folder}; continue with "
            f"`execrl eval run {args.folder} --resume`",
            file=sys.stderr,
        )
        raise
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
    add_timing_argument(p, default=None, help="the durations to replay (default: as executed)")
    add_count_rate_argument(p)
    p.add_argument("--alpha", type=float, default=1.0, help="reference calibration slope α")
    p.add_argument(
        "--beta",
        type=float,
        default=0.0,
        help="reference calibration offset β (s, or a count under a counted --timing)",
    )
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


REPLAY_FLAGS = {
    "cap_s": "--cap-s",
    "alpha": "--alpha",
    "beta": "--beta",
    "timing": "--timing",
    "count_rate": "--count-rate",
}
"""The replay settings' fields and the options that set them."""


def replay_settings(args: argparse.Namespace) -> ReplaySettings:
    given = {"--cap-s": args.cap_s, "--limit-s": args.limit_s, "--alpha": args.alpha}
    given["--beta"] = args.beta
    for flag, value in given.items():
        if value is not None and not math.isfinite(value):
            raise UsageError(f"{flag} {value}: expected a finite number")
    if args.limit_s is not None and args.limit_s <= 0:
        raise UsageError(f"--limit-s {args.limit_s:g}: an intended limit must be > 0 seconds")
    try:
        return ReplaySettings.with_limit_s(
            args.limit_s,
            cap_s=args.cap_s,
            timing=args.timing,
            count_rate=args.count_rate,
            alpha=args.alpha,
            beta=args.beta,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        flag = REPLAY_FLAGS.get(str(first["loc"][0]) if first["loc"] else "", "a replay setting")
        message = str(first["msg"]).removeprefix("Value error, ")
        raise UsageError(f"{flag} {first.get('input')}: {message}") from None


def metric_options(args: argparse.Namespace, models: list[str]) -> dict[str, Any]:
    baseline = args.baseline or (models[0] if len(models) > 1 else None)
    if args.baseline is not None and args.baseline not in models:
        raise UsageError(
            f"--baseline: unknown baseline model {args.baseline!r}; models: {', '.join(models)}"
        )
    check_range("--resamples", args.resamples, 1, 10**6, "bootstrap resamples")
    check_range("--seed", args.seed, 0, 2**32 - 1, "(a bootstrap seed)")
    if not 0 < args.level < 1:
        raise UsageError(f"--level {args.level}: an interval level lies in (0, 1), e.g. 0.95")
    return {
        "baseline": baseline,
        "resamples": args.resamples,
        "seed": args.seed,
        "level": args.level,
    }


def cmd_metrics(args: argparse.Namespace) -> int:
    data = load_eval(args.folder)
    out = writable_folder(args.report or args.folder / "report", "--report")  # before the work
    settings = replay_settings(args)
    taus = _taus(args.tau) if args.tau else DEFAULT_TAUS
    ks = _ks(args.k) if args.k else DEFAULT_KS
    options = metric_options(args, data.models)
    rewards = args.reward or ["correctness", "collapsed"]
    check_specs(args.env, rewards)  # before any work
    scored = replay(data, settings)
    ks = computable_ks(scored, ks, explicit=bool(args.k))
    metrics = evaluate(scored, taus=taus, ks=ks, **options)
    breakdown = by_difficulty(scored, taus=taus, ks=ks, **options)
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
    level = round(100 * metrics.level)
    title = f"p_τ pass@k, {level}% intervals ({settings.describe()})"
    _print_table(title, *pass_table(metrics, digits=2))
    if metrics.baseline is not None and len(metrics.models) > 1:
        _print_table(f"win rates against {metrics.baseline}", *win_table(metrics, digits=2))
    # The numbers first (shown above, then metrics.json), the page with its figures last.
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
    page = write_metrics_report(scored, metrics, out, breakdown=breakdown, degenerate=degenerate)
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
    out = writable_folder(args.report or args.folder / f"replay-{axis}", "--report")
    base = replay_settings(args)
    taus = _taus(args.tau) if args.tau else DEFAULT_TAUS
    points = sweep(
        data,
        axis,
        values,
        base=base,
        taus=taus,
        progress=True,
        **metric_options(args, data.models),
    )
    page = write_sweep_report(points, axis, out, note=f"Other settings: {base.describe()}.")
    from execrl.evaluate.report import sweep_table

    _print_table(f"pass@1 along {axis}", *sweep_table(points, axis))
    console.print(f"report: {page}", highlight=False)
    return EXIT_OK


def check_specs(env: str, rewards: list[str]) -> None:
    """Build the environment and rewards named for the degenerate-group ratio."""
    from execrl.envs.presets import validate_env_spec
    from execrl.rewards.compositions import reward

    for flag, build, spec in [
        ("--env", validate_env_spec, env),
        *(("--reward", reward, r) for r in rewards),
    ]:
        try:
            build(spec)
        except ExecrlError as exc:
            raise UsageError(f"{flag} {spec!r}: {exc}") from None


def computable_ks(scored, ks: tuple[int, ...], *, explicit: bool) -> tuple[int, ...]:
    """The k that pass@k has a value for: some model must have at least k conclusive samples
    of a problem. An asked-for k above that is refused; a default one is dropped, saying so."""
    per_problem: dict[tuple[str, str], int] = {}
    for s in scored.scores:
        if not s.inconclusive:
            per_problem[(s.model, s.problem_id)] = per_problem.get((s.model, s.problem_id), 0) + 1
    n = max(per_problem.values(), default=0)
    dropped = [k for k in ks if k > n]
    if dropped and explicit:
        raise UsageError(
            f"--k {_csv(dropped)}: pass@k needs k conclusive samples of a problem and there are "
            f"at most {n}; lower k, or sample more (`execrl eval sample --n`)"
        )
    if dropped:
        print(
            f"warning: pass@{_csv(dropped)} left out: at most {n} conclusive samples per "
            f"problem (sample with --n {max(dropped)} or more for it)",
            file=sys.stderr,
        )
    kept = tuple(k for k in ks if k <= n)
    if not kept:
        raise UsageError(f"{scored.data.path}: no conclusive samples to compute pass@k from")
    return kept


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
        if not 1 <= n <= MAX_SWEEP_POINTS:
            raise UsageError(f"sweep values {text!r}: N must lie in 1 to {MAX_SWEEP_POINTS}")
        return [lo + (hi - lo) * i / max(1, n - 1) for i in range(n)]
    values = list(_numbers(text, "sweep values"))
    if len(values) > MAX_SWEEP_POINTS:
        raise UsageError(f"sweep values: {len(values)} given, at most {MAX_SWEEP_POINTS}")
    return values


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
        raise UsageError(f"{what}: expected numbers, got {text!r}") from None
    if not values or not all(math.isfinite(v) for v in values):
        raise UsageError(f"{what}: expected finite numbers, got {text!r}")
    return values


def _ks(text: str) -> tuple[int, ...]:
    """--k: whole numbers >= 1 (pass@1.5 means nothing)."""
    values = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            k = int(part)
        except ValueError:
            raise UsageError(
                f"--k {text!r}: {part!r} is not a whole number, e.g. --k 1,10"
            ) from None
        if k < 1:
            raise UsageError(f"--k {text!r}: pass@k needs k >= 1, got {k}")
        values.append(k)
    if not values:
        raise UsageError(f"--k: no values in {text!r}")
    return tuple(dict.fromkeys(values))


def _taus(text: str) -> tuple[float, ...]:
    taus = _numbers(text, "--tau")
    bad = [t for t in taus if not 0 <= t <= 100]
    if bad:
        raise UsageError(f"--tau {text!r}: τ is a percentile in [0, 100], got {bad[0]:g}")
    return taus


def _csv(values) -> str:
    return ",".join(f"{v:g}" if isinstance(v, float | int) else str(v) for v in values)


def _print_table(title: str, header: list[str], rows: list[list[object]]) -> None:
    table = Table(title=title, title_justify="left")
    for i, col in enumerate(header):
        table.add_column(col, justify="left" if i == 0 or col in ("model", "baseline") else "right")
    for row in rows:
        table.add_row(*(safe_text(c) for c in row))
    console.print(table)
